"""Rules of p4c 1.2.4.8 on single declarations, run outside :mod:`.checks`' whole-program walk:
before elaboration (:func:`check_field_types`: field and parameter types, constructor parameter
directions, functions calling themselves -- p4c names the declaration before any use of it that
elaboration would refuse first), while the elaborator lowers a block (:func:`check_pkginfo`)
and at a branch the type checker never sees (:func:`dead_division_by_zero`: p4c's constant
folding still does).  Each raises :class:`P4CompileError` at p4c's position.
"""
from __future__ import annotations

from .ast import Node
from .checks_walk import _callee, _walk
from .errors import P4CompileError

__all__ = ["check_field_types", "check_pkginfo", "dead_division_by_zero"]


def _self_calls(decls: list[Node]) -> None:
    """A function that calls itself: its name is not visible in its own body (p4c: "f:
    declaration not found" at the call, used or not).  A generic one sent the elaborator into
    endless recursion (helper errs20); a call of an overload declared before is fine."""
    seen: set = set()
    for d in decls:
        if d.kind != "function":
            continue
        if d.name not in seen:
            for n in _walk(d.get("body")):
                if n.kind == "call" and _callee(n) == d.name:
                    raise P4CompileError(n.fn.loc, f"{d.name}: declaration not found (a function cannot call itself)")
        seen.add(d.name)


def _function_exits(decls: list[Node]) -> None:
    """An ``exit`` in a function: p4c's check of the parsed program, before any name or type is
    looked at (a type error further up comes after it; errs25 probes e_ret_func_*)."""
    for d in decls:
        if d.kind == "function":
            for n in _walk(d.get("body")):
                if n.kind == "exit":
                    raise P4CompileError(n.loc, "exit is not allowed in a function (p4c: 'exit' statements not "
                                                "allowed in functions)")


def _ctor_directions(decls: list[Node]) -> None:
    """A constructor parameter with a direction -- of a parser, control or package ("k: invalid
    direction. Constructor parameters cannot have a direction") or of an extern's constructor
    ("a: Constructor parameters cannot have a direction."): p4c's validation, before any type
    checking, used or not (helper errs20: was accepted)."""
    for d in decls:
        if d.kind in ("control", "parser"):
            ps = list(d.get("ctor_params") or ())
        elif d.kind == "package":
            ps = list(d.get("params") or ())
        elif d.kind == "extern_obj":
            ps = [p for m in d.get("methods") or () if m.kind == "ctor" for p in m.get("params") or ()]
            for m in d.get("methods") or ():
                if m.kind == "method" and m.name == d.name:   # (`void X2();` in extern X2; /work/e21 pd)
                    raise P4CompileError(m.loc, f"{m.name}: invalid constructor; cannot have a return type.")
        else:
            continue
        for p in ps:
            if p.get("direction"):
                raise P4CompileError(p.loc, f"{p.name}: Constructor parameters cannot have a direction." if
                                     d.kind == "extern_obj" else
                                     f"{p.name}: invalid direction. Constructor parameters cannot have a direction")


def check_field_types(decls: list[Node]) -> None:
    """A struct, header or header union field of a type no field may have (p4c: "Field 'x' of
    'struct s_t' cannot have type 'int'", at the field, whether or not the type is used); and an
    ``int`` or ``string`` parameter with a direction, in any block, action or function, used or
    not (p4c: "parameters with type int must be directionless", "a parameter with type string
    cannot have a direction"; probed, helper mutz21: was accepted); ``@optional`` on a function's
    or a constructor's parameter (p4c: "x: optional parameter not allowed here", used or not; it
    is for extern, action and apply parameters -- helper mutz22); a parameter of an extern type
    (``in register<bit<32>> r``, ``inout counter c``, a program's own extern) with a direction
    (p4c: "r: a parameter with type register cannot have a direction", in a block nothing uses
    too; nsg-ethz/Blink's flowselector takes its registers so -- helper corpus20); a generic struct
    or header whose field mentions the type itself (p4c: "Self-referencing types not supported",
    unused too; helper errs25); a field of an extern type (p4c, unused too; helper errs62)."""
    externs = {d.name for d in decls if d.kind == "extern_obj"}
    typedefs = {d.name: d for d in decls if d.kind == "typedef" and not d.get("newtype") and isinstance(d.get("type"), Node)}
    _function_exits(decls)
    _ctor_directions(decls)
    _self_calls(decls)
    for d in decls:
        for x in [d] + [loc for loc in d.get("locals") or () if isinstance(loc, Node)]:
            ctor = list(x.get("ctor_params") or ()) if x.kind in ("control", "parser") else []
            for p in ctor + list(x.params or ()) if x.kind == "function" else ctor:
                if any(a[0] == "optional" for a in p.get("annos") or ()):
                    raise P4CompileError(p.loc, f"{p.name}: optional parameter not allowed here (only on the parameters "
                                                "of externs, actions and parsers' or controls' apply)")
            for p in x.get("params") or () if x.kind in ("control", "parser", "action", "function") else ():
                kind = p.type.kind if isinstance(p.get("type"), Node) else None
                if p.get("default") is not None and any(a[0] == "optional" for a in p.get("annos") or ()):
                    raise P4CompileError(p.loc, f"{p.name}: optional parameters cannot have default values (p4c)")
                if p.get("direction") and kind == "typename" and p.type.name in externs:
                    raise P4CompileError(p.loc, f"{p.name}: a parameter with type {p.type.name} cannot have a direction")
                if p.get("direction") and kind in ("int_inf", "string"):
                    raise P4CompileError(p.loc, f"{p.name}: parameters with type int must be directionless"
                                         if kind == "int_inf" else
                                         f"{p.name}: a parameter with type string cannot have a direction")
    for d in decls:
        if d.kind not in ("struct", "header", "header_union"):
            continue
        for f in d.get("fields") or ():
            ft = f.get("type")
            if d.get("tparams") and _names_type(ft, d.name):   # (`struct G<T> { G<T> f; }`, used or not)
                raise P4CompileError(f.loc, f"Self-referencing types not supported: '{d.name}' within '{d.kind} {d.name}'")
            if isinstance(ft, Node) and ft.kind in ("int_inf", "string", "void", "match_kind"):
                what = "int" if ft.kind == "int_inf" else ft.kind
                raise P4CompileError(f.loc, f"field '{f.name}' of '{d.kind} {d.name}' cannot have type '{what}'")
            seen = set()
            while isinstance(ft, Node) and ft.kind == "typename" and not ft.get("args") and ft.name in typedefs \
                    and ft.name not in seen:
                seen.add(ft.name)
                ft = typedefs[ft.name].type
            if isinstance(ft, Node) and ft.kind == "typename" and not ft.get("args") and ft.get("name") in externs:
                # (an extern object's type, a program's own or v1model's, also through a typedef: p4c, used
                # or not; one with type arguments, `register<bit<8>>`, passes while unused; errs62 d_ex_*, xf_*)
                raise P4CompileError(f.loc, f"Field '{f.name}' of '{d.kind} {d.name}' cannot have type '{ft.name}'")


def _names_type(t, name: str) -> bool:
    """Whether the type node ``t`` mentions the type ``name`` (in type arguments, a stack, a tuple)."""
    if not isinstance(t, Node):
        return False
    if t.kind == "typename" and t.name == name:
        return True
    return any(_names_type(a, name) for a in [t.get("elem")] + list(t.get("args") or ()))


def check_pkginfo(annos) -> None:
    """``@pkginfo`` on main: a known key's value is a string literal (p4c), no key given twice
    (p4c: "name: Duplicates declaration name")."""
    known = [k for a in annos if a[0] == "pkginfo" and not isinstance(a[1], dict)
             for k in {str(v).partition("=")[0].strip() for v in a[1] if "=" in str(v)}]
    known = [k for k in known if k in ("name", "version", "arch", "organization", "contact", "url")]
    dup = next((k for i, k in enumerate(known) if k in known[:i]), None)
    if dup:   # in two @pkginfo: p4c's P4Runtime serializer dies ("Compiler Bug: Duplicate keys in @pkginfo")
        raise P4CompileError(next(a[2] for a in annos if a[0] == "pkginfo"),
                             f"{dup}: given in two @pkginfo annotations (p4c 1.2.4.8 dies: 'Duplicate keys in @pkginfo')")
    for a in annos:
        if a[0] == "pkginfo" and not isinstance(a[1], dict):
            keys = [str(v).partition("=")[0].strip() for v in a[1] if "=" in str(v)]
            dup = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
            if dup:   # (p4c: "name: Duplicates declaration name")
                raise P4CompileError(a[2], f"{dup}: Duplicates declaration {dup} (a key given twice in @pkginfo)")
            for v in a[1]:
                key, eq, val = str(v).partition("=")
                val = val.strip()
                if eq and key.strip() in ("name", "version", "arch", "organization", "contact", "url") \
                        and not (len(val) > 1 and val[0] == val[-1] == '"'):
                    raise P4CompileError(a[2], f"value for '{key.strip()}' key in @pkginfo annotation is not a string (p4c)")


def _literal_value(n):
    """The value of an expression of integer literals (``0``, ``8w0``, ``(1 - 1)``), else None."""
    if not isinstance(n, Node):
        return None
    if n.kind == "int":
        return n.value
    if n.kind == "binary" and n.op in ("+", "-", "*"):
        a, b = _literal_value(n.a), _literal_value(n.b)
        return None if a is None or b is None else a + b if n.op == "+" else a - b if n.op == "-" else a * b
    return None


def dead_division_by_zero(n) -> None:
    """p4c's constant folding still sees a branch its type checker never does: a division or modulo
    of two literals by zero there is its error ("1 % 0: Modulo by zero"; ``x / 0`` is not folded,
    no error), whatever else the branch holds (an unknown member before it: helper mutz29,
    p4c_mutate seed 195)."""
    todo = [n]
    while todo:
        x = todo.pop()
        if isinstance(x, (list, tuple)):
            todo.extend(x)
            continue
        if not isinstance(x, Node):
            continue
        if x.kind == "binary" and x.op in ("/", "%") and _literal_value(x.b) == 0 and _literal_value(x.a) is not None:
            raise P4CompileError(x.b.loc, f"operator {x.op}: division by zero")
        todo.extend(x._attrs.values())
