"""The body of a generic function, type-checked once as p4c does (not per instance).

checkmate elaborates each instance of a generic function with its type parameters bound, where
``x + 1`` on a ``T`` that is ``bit<8>`` would type-check; p4c checks the generic body once, with
``T`` unknown, and refuses what needs more of ``T`` than ``==``/``!=`` and assignment.
:func:`check_generic_operands` applies that check at the function's declaration (elab_blocks calls
it there, in program order).  Split from :mod:`.checks` when it reached 800 lines.
"""
from __future__ import annotations

from .ast import Node
from .checks_walk import _callee, _describe, _walk
from .errors import P4CompileError


def check_generic_operands(f: Node, decls: list | None = None) -> None:
    """In a generic function, a value of a type parameter ``T`` only supports ``==``/``!=``
    and assignment: checkmate elaborates each instance with ``T`` bound, where ``x + 1``
    would type-check, but p4c checks the generic body once and refuses it -- at its declaration,
    in program order (elab_blocks calls this there: a call's error further down came first;
    errs19 probe d_g_swap_mismatch).  Also refused there, as p4c's single check does: a literal or a
    value of another type assigned to, returned as or compared with a ``T``, a slice or a condition of a
    ``T``, a ``T`` passed to a declared parameter of another function (``decls``; helper errs25)."""
    tparams = set(f.get("tparams") or ())
    if not tparams:
        return
    typed = {p.name: p.type.name for p in f.get("params") or ()
             if isinstance(p.get("type"), Node) and p.type.kind == "typename" and p.type.name in tparams}
    for n in _walk(f.get("body")):
        if n.kind == "var" and isinstance(n.get("type"), Node) and n.type.kind == "typename" \
                and n.type.name in tparams:
            typed[n.name] = n.type.name
            if isinstance(n.get("init"), Node) and n.init.kind == "int" and not n.init.get("width"):
                # `T v = 0;` (errs23 e_gen_ret_only: p4c names the declaration, before any call)
                raise P4CompileError(n.loc, f"{n.name}: 'int' type can only be unified with 'int', 'bit<>', or "
                                            f"'signed<>' types, not with '{n.type.name}' (a type parameter)")
        elif n.kind == "cast" and isinstance(n.get("type"), Node) and n.type.kind == "typename" \
                and n.type.name in tparams:   # `(T)0` (errs23 e_gen_ret_only_explicit)
            raise P4CompileError(n.loc, f"{n.type.name}: cast not supported (a cast to a type parameter)")
    if not typed:
        return
    concrete = {p.name for p in f.get("params") or () if p.name not in typed}
    concrete |= {n.name for n in _walk(f.get("body")) if n.kind == "var" and n.name not in typed}

    def generic(x):
        return isinstance(x, Node) and x.kind == "name" and typed.get(x.name)

    def other(x, tp):
        """What ``x`` is where a value of the type parameter ``tp`` is needed, when it surely is not
        one: a literal, a name of another type (else None: a call, a field ... decided by the uses)."""
        if isinstance(x, Node) and x.kind == "int":
            return "type 'int'" if not x.get("width") else f"type '{'int' if x.get('signed') else 'bit'}<{x.width}>'"
        if isinstance(x, Node) and x.kind == "bool_lit":
            return "type 'bool'"
        if isinstance(x, Node) and x.kind == "name" and (x.name in concrete or typed.get(x.name) not in (None, tp)):
            return f"type '{typed[x.name]}'" if typed.get(x.name) else "a declared type"
        return None

    def text(x):
        if x.kind == "int" and x.get("width"):
            return f"{x.width}{'s' if x.get('signed') else 'w'}{x.value}"
        return x.name if x.kind == "name" else str(x.value).lower() if x.kind == "bool_lit" else str(x.get("value"))

    ret = f.get("ret")
    ret_tp = ret.name if isinstance(ret, Node) and ret.kind == "typename" and ret.name in tparams else None
    for n in _walk(f.get("body")):   # (p4c type-checks the body once, T unknown: errs25 /work/errs25 t_gen_*)
        if n.kind == "assign" and generic(n.lhs) and (o := other(n.rhs, typed[n.lhs.name])):
            raise P4CompileError(n.loc, f"'{n.lhs.name} = {text(n.rhs)}': cannot assign a value of {o} to "
                                        f"'{n.lhs.name}' of type '{typed[n.lhs.name]}' (a type parameter)")
        if n.kind == "return" and ret_tp and isinstance(n.get("value"), Node) and (o := other(n.value, ret_tp)):
            raise P4CompileError(n.loc, f"'return {text(n.value)}': cannot return a value of {o} from a "
                                        f"function returning '{ret_tp}' (a type parameter)")
        if n.kind == "binary" and n.op in ("==", "!=") and (generic(n.a) or generic(n.b)):
            x, y = (n.a, n.b) if generic(n.a) else (n.b, n.a)
            if o := other(y, typed[x.name]):
                raise P4CompileError(n.loc, f"'{x.name}' with type '{typed[x.name]}' cannot be compared to "
                                            f"'{text(y)}' with {o}")
        if n.kind == "slice" and generic(n.a):
            raise P4CompileError(n.loc, f"{n.a.name}[..]: bit extraction only defined for bit<> types (not for "
                                        f"'{typed[n.a.name]}', a type parameter)")
        if n.kind == "call" and n.fn.kind == "member" and n.fn.name == "emit" and any(generic(a) for a in n.args):
            raise P4CompileError(n.loc, f"{_describe(n)}: argument must be a header, stack or union, or a struct or "
                                        "tuple of such types (a type parameter)")   # (errs27 f_fe_dep_generic)
        if n.kind == "if" and generic(n.cond):
            raise P4CompileError(n.loc, f"Condition of IfStatement does not evaluate to a bool but {typed[n.cond.name]}")
        callee = _callee(n) if n.kind == "call" and decls else None
        fd = next((d for d in decls if d.kind in ("function", "extern_func") and d.get("name") == callee), None) \
            if callee else None
        if fd is not None and not fd.get("tparams"):   # `g(x)` of `g(in bit<8> a)`: T is no bit<8> (p4c: 'g')
            ps = list(fd.get("params") or ())
            for a, p in zip(n.get("args") or (), ps):
                if generic(a) and isinstance(p.get("type"), Node) and p.type.kind != "typename":
                    raise P4CompileError(n.loc, f"'{callee}': argument '{a.name}' of type '{typed[a.name]}' (a type "
                                                f"parameter) for parameter '{p.name}' of a declared type")

    for n in _walk(f.get("body")):
        if n.kind == "binary" and n.op not in ("==", "!=", "&&", "||"):
            x = n.a if generic(n.a) else n.b if generic(n.b) else None
            if x is not None:
                raise P4CompileError(n.loc, f"{n.op}: cannot be applied to expression '{x.name}' with "
                                            f"type '{typed[x.name]}' (a type parameter)")
        elif n.kind == "unary" and generic(n.a):
            raise P4CompileError(n.loc, f"cannot apply operation '{n.op}' to expression '{n.a.name}' with "
                                        f"type '{typed[n.a.name]}' (a type parameter)")
        elif n.kind == "cast" and generic(n.a):
            raise P4CompileError(n.loc, f"cannot cast expression '{n.a.name}' of type "
                                        f"'{typed[n.a.name]}' (a type parameter)")
        elif n.kind == "member" and generic(n.get("base")):   # (x.a, x.setValid(): a T has no members)
            raise P4CompileError(n.loc, f"Cannot extract field {n.name} from {n.base.name} which has type "
                                        f"{typed[n.base.name]} (a type parameter)")
