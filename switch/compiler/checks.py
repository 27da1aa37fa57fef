"""Program-wide rules that p4c (``--target bmv2 --arch v1model``) enforces and that are
easiest to state on the AST, after elaboration has accepted the program.

Elaboration (:mod:`.elaborate`) checks names and types as it lowers each block; the rules
here look at the shape of the whole program instead, and each mirrors a rejection of real
p4c 1.2.4.8 that later p4c releases keep (what only 1.2.4.8 refuses stays accepted, see
docs/CONFORMANCE.md):

* an action called from a parser state ("action calls are not allowed within parsers");
* an action called from a function body ("functions cannot call actions");
* ``apply`` called inside an action (a table's or a control's, also as ``t.apply().hit``),
  or in an argument a table's ``actions`` list binds ("table invocation in action argument");
* a control or parser that instantiates itself ("self-referencing types not supported");
* in V1Switch's checksum controls, any statement but a call of ``verify_checksum`` /
  ``verify_checksum_with_payload`` (resp. ``update_checksum*``), and a data list element
  that computes from the packet (a slice, cast, operator) instead of naming a field or
  being constant ("Computations are not supported"); in its deparser, an
  ``if``, ``switch``, ``apply`` or a store to a local header (the bmv2 deparser only emits; a
  local scalar's stores and the register reads nothing kept reads are fine, p4c propagates and
  removes them: :mod:`.deparser_defuse`);
* a V1Switch header type (the parser's ``out`` parameter) that is a header, or a struct with
  a field that is not a header, header stack, header union or struct;
* a variable or constant declared in a body (apply block, parser state, action, function) with the name
  of a parameter of the enclosing action/function or control/parser ("declaration of 'x'
  shadows a parameter 'x'" -- an error in p4c, unlike other shadowing);
* an ``int`` or ``string`` parameter with a direction;
* a parameter, type parameter, state or declaration-section variable/constant/instance of a
  control, parser or function that repeats another's name (:meth:`_Checker._parameter_clashes`);
* two declarations of one name in a control's or parser's declaration section (an action
  and a variable, a local and a state, ...: "duplicates declaration");
* a struct/header/union field of type ``int``, ``string``, ``void`` or ``match_kind``
  (:func:`.checks_decls.check_field_types`, run before elaboration: p4c names the field, not a use of it
  that elaboration would refuse first, such as a ``bit<48>`` value given to the ``int`` field);
* a constant of type error or string (or a struct holding an error);
* ``@match(k)`` on a struct/header field where ``k`` is no declared match_kind;
* ``type`` applied to something else than a base type (a header, struct, union, stack);
* in a generic function, an operator other than ``==``/``!=`` or a cast applied to a value
  of a type parameter (p4c type-checks the generic body, not each instance: :mod:`.checks_generic`).

:func:`check_program` raises :class:`P4CompileError` at the offending position.  It is run
by :func:`.driver._compile` right after :func:`.elaborate.elaborate`.
"""
from __future__ import annotations

from . import deparser_defuse
from .ast import Node, find_name
from .deparser_defuse import empty_stmt as _empty_stmt
from .checks_generic import check_generic_operands
from .checks_walk import _callee, _describe, _live_walk, _nodes, _walk
from .errors import P4CompileError

__all__ = ["check_duplicates", "check_program"]


class _Checker:
    def __init__(self, decls: list[Node]):
        self.decls = decls
        self._types = {d.name: d for d in decls if d.kind in ("typedef", "header", "struct", "header_union")
                       and isinstance(d.get("name"), str)}
        self.actions: dict[str, Node] = {}    # top-level and control-local actions by name
        for d in decls:
            self._collect(d)

    def _collect(self, d: Node):
        if d.kind == "action":
            self.actions.setdefault(d.name, d)
        elif d.kind in ("control", "parser"):
            for loc in d.get("locals") or ():
                if isinstance(loc, Node) and loc.kind == "action":
                    self.actions.setdefault(loc.name, loc)

    def run(self):
        self._v1switch()
        self._controller_headers()
        self._match_annotations()
        self._constant_types()
        for d in self.decls:
            self._declaration(d)
        for d in self.decls:
            if d.kind == "parser":
                self._parser(d)
            elif d.kind == "function":
                self._function(d)
            elif d.kind == "action":
                self._action(d)
            if d.kind in ("control", "parser"):
                self._self_instance(d)
            if d.kind == "control":
                for loc in d.get("locals") or ():
                    if not isinstance(loc, Node):
                        continue
                    if loc.kind == "action":
                        self._action(loc)
                    elif loc.kind == "table":
                        self._table_bound_args(loc)
                    elif loc.kind == "function":
                        self._generic_operands(loc)

    def _match_annotations(self):
        """``@match(k)`` on a struct or header field: p4c resolves ``k`` as a name, used or not
        ("fuzzy: declaration not found")."""
        kinds = {m for d in self.decls if d.kind == "match_kind" for m in d.members}
        for d in self.decls:
            if d.kind not in ("struct", "header", "header_union"):
                continue
            for f in d.get("fields") or ():
                for a in f.get("annos") or ():
                    if a[0] == "match" and a[1] and str(a[1][0]).strip() not in kinds:
                        raise P4CompileError(a[2] if len(a) > 2 and a[2] else f.loc,
                                             f"{str(a[1][0]).strip()}: declaration not found (the @match of field "
                                             f"{f.name} of {d.name} names no match_kind)")

    def _constant_types(self):
        """A constant of type ``error`` or ``string`` (or a struct/header holding an error, through
        typedefs): p4c 1.2.4.8 cannot evaluate its initializer ("error.NoMatch: Cannot evaluate
        initializer for constant"), used or not; a match_kind, enum or bool constant is fine."""
        types = {d.name: d for d in self.decls if d.kind in ("typedef", "struct", "header") and isinstance(d.get("name"), str)}

        def bad(ty, depth=0):
            if not isinstance(ty, Node) or depth > 32:
                return False
            if ty.kind in ("error", "string"):
                return True
            d = types.get(ty.get("name")) if ty.kind == "typename" else None
            if d is None:
                return False
            if d.kind == "typedef":
                return bad(d.get("type"), depth + 1)
            return any(bad(f.get("type"), depth + 1) for f in d.get("fields") or ())
        for n in _walk(self.decls, skip=()):
            if n.kind == "const" and bad(n.get("type")):
                at = n.value if isinstance(n.get("value"), Node) else n
                raise P4CompileError(at.loc, f"{n.name}: Cannot evaluate initializer for constant (p4c 1.2.4.8 "
                                             "has no constants of type error or string)")

    def _controller_headers(self):
        """p4c's P4Runtime serializer: one ``@controller_header`` per name, and fields of
        bit<>, int<>, a `type` or a serializable enum only (a bool or varbit field is a p4c
        compiler bug, i.e. no program)."""
        seen: dict = {}
        for d in self.decls:
            a = next((x for x in d.get("annos") or () if x[0] == "controller_header"), None) \
                if d.kind == "header" else None
            if a is None:
                continue
            name = a[1][0] if a[1] else d.name
            if name in seen:
                raise P4CompileError(d.loc, f"Name '{name}' is used for multiple controller packet metadata "
                                            f"objects ({seen[name]} and {d.name}; p4c rejects it)")
            seen[name] = d.name
            for f in d.get("fields") or ():
                if any(x[0] == "hidden" for x in f.get("annos") or ()):
                    continue   # (p4c's serializer leaves a @hidden field out: any type goes)
                ty = f.get("type")
                while isinstance(ty, Node) and ty.kind == "typename" and ty.name in self._types \
                        and self._types[ty.name].kind == "typedef" and not self._types[ty.name].get("newtype"):
                    ty = self._types[ty.name].type
                if isinstance(ty, Node) and ty.kind in ("bool", "varbit"):
                    raise P4CompileError(f.loc, f"@controller_header {name}: field {f.name} has type {ty.kind}; "
                                                "P4Runtime takes bit<>, int<>, a type or a serializable enum only (p4c)")

    # -- parsers and functions ------------------------------------------------------------
    def _parser(self, p: Node):
        local_actions = {loc.name for loc in p.get("locals") or () if isinstance(loc, Node) and loc.kind == "action"}
        for n in _walk(p.get("states") or []):
            if n.kind == "call" and (_callee(n) in self.actions or _callee(n) in local_actions):
                raise P4CompileError(n.loc, f"{_callee(n)}: action calls are not allowed within parsers")

    def _function(self, f: Node):
        for n in _walk(f.get("body")):
            if n.kind == "call" and _callee(n) in self.actions:
                raise P4CompileError(n.loc, f"{_callee(n)}: functions cannot call actions")
        self._generic_operands(f)

    def _generic_operands(self, f: Node):
        check_generic_operands(f, self.decls)

    # -- actions ------------------------------------------------------------------------
    def _action(self, a: Node):
        for n in _walk(a.get("body")):
            fn = n.get("fn") if n.kind == "call" else None
            if isinstance(fn, Node) and fn.kind == "member" and fn.name == "apply":
                raise P4CompileError(n.loc, f"{_describe(n)}: apply cannot be called from actions")

    def _table_bound_args(self, t: Node):
        for ref in (t.get("props") or {}).get("actions") or ():
            for n in _walk(ref.get("args") or []):
                fn = n.get("fn") if n.kind == "call" else None
                if isinstance(fn, Node) and fn.kind == "member" and fn.name == "apply":
                    raise P4CompileError(n.loc, f"{_describe(n)}: table invocation in action argument "
                                                f"(table {t.name}, action {ref.name})")

    def _self_instance(self, d: Node):
        for loc in d.get("locals") or ():
            ty = loc.get("type") if isinstance(loc, Node) and loc.kind == "instance" else None
            if isinstance(ty, Node) and ty.kind == "typename" and ty.name == d.name:
                raise P4CompileError(loc.loc, f"self-referencing types are not supported: {d.name} "
                                              f"within {d.kind} {d.name}")

    # -- declarations ---------------------------------------------------------------------
    def _declaration(self, d: Node):
        if d.kind == "typedef" and d.get("newtype"):
            t = self._resolve(d.type)
            enum = isinstance(t, Node) and t.kind == "typename" and any(
                x.kind == "enum" and x.get("name") == t.name for x in self.decls)   # (errs20: `type Sx B_t;`)
            if enum or isinstance(t, Node) and t.kind in ("struct", "header", "header_union", "stack", "tuple", "varbit",
                                                          "error", "string", "void", "match_kind", "int_inf"):
                raise P4CompileError(d.loc, f"{d.name}: `type' can only be applied to base types")
        elif d.kind in ("control", "parser"):
            self._duplicates(d)
            self._parameter_clashes(d)
            # (constructor parameters too: `control C(..)(bit<8> k) { apply { bit<8> k = 3; } }`,
            # used or not -- a declaration-section variable of that name is no error; errs20)
            params = {p.name for p in list(d.get("params") or ()) + list(d.get("ctor_params") or ())}
            self._shadowing(d.get("body"), params)
            for st in d.get("states") or ():
                self._shadowing(st.get("stmts"), params)
            for loc in d.get("locals") or ():
                if isinstance(loc, Node) and loc.kind in ("action", "function"):
                    self._shadowing(loc.get("body"), params | {p.name for p in loc.get("params") or ()})
        elif d.kind in ("action", "function"):
            self._shadowing(d.get("body"), {p.name for p in d.get("params") or ()})
        if d.kind in ("function", "extern_func", "control_type", "parser_type", "package"):
            self._parameter_clashes(d)

    def _shadowing(self, body, params: set):
        for n in _walk(body):
            if n.kind in ("var", "const") and n.get("name") in params:   # (a local constant too: mutz21)
                raise P4CompileError(n.loc, f"declaration of '{n.name}' shadows a parameter '{n.name}'")

    def _parameter_clashes(self, d: Node):
        """Names a control's or parser's parameters share with each other or with its states (p4c
        keeps them in one scope): a constructor parameter named as an apply parameter ("h
        duplicates h"); a type parameter named as a parameter (of a function or extern function
        too) or a variable, constant or instance of the declaration section, or a state named as
        an apply or type parameter ("Re-declaration of h with different type" -- a state named as
        a constructor parameter or a local variable is another rule, or none)."""
        params = list(d.get("params") or ())
        tparams = set(d.get("tparams") or ())
        names = {p.name for p in params}
        for c in d.get("ctor_params") or ():
            if c.name in names:
                raise P4CompileError(c.loc, f"{c.name} duplicates {c.name}: {d.kind} {d.name} has an apply "
                                            f"parameter and a constructor parameter of that name (p4c)")
        # (of the declaration section: variables, constants, instances -- not actions, tables,
        # nor the locals of an apply block or function body)
        locs = [x for x in d.get("locals") or () if isinstance(x, Node) and x.kind in ("var", "const", "instance")]
        for p in params + list(d.get("ctor_params") or ()) + locs:
            if p.get("name") in tparams:
                raise P4CompileError(p.loc, f"Re-declaration of {p.name} with different type: {d.kind} {d.name} "
                                            f"has a type parameter and a {'parameter' if p in params else 'declaration'} "
                                            "of that name (p4c)")
        for st in d.get("states") or ():
            if st.name in names or st.name in tparams:
                raise P4CompileError(st.loc, f"Re-declaration of {st.name} with different type: parser {d.name} "
                                             f"has a state and a{' type' if st.name in tparams else 'n apply'} "
                                             f"parameter of that name (p4c)")

    def _duplicates(self, d: Node):
        seen: dict[str, str] = {}
        items = [x for x in d.get("locals") or () if isinstance(x, Node)] + list(d.get("states") or ())
        for x in items:
            name = x.get("name")
            if not isinstance(name, str):
                continue
            if name in seen and (seen[name] != x.kind or x.kind in ("instance", "value_set", "table")):
                raise P4CompileError(x.loc, f"{name}: duplicates declaration {name} (a {seen[name]} of "
                                            f"{d.kind} {d.name} has that name)")
            seen.setdefault(name, x.kind)

    # -- the V1Switch blocks ----------------------------------------------------------------
    def _v1switch(self):
        main = next((d for d in self.decls if d.kind == "instance" and isinstance(d.get("type"), Node)
                     and d.type.kind == "typename" and d.type.name == "V1Switch"), None)
        if main is None or len(main.get("args") or ()) != 6:
            return
        args = list(main.args)
        if all(isinstance(a, Node) and a.kind == "named_arg" for a in args):
            order = {n: i for i, n in enumerate(("p", "vr", "ig", "eg", "ck", "dep"))}
            if sorted(order.get(a.name, -1) for a in args) != list(range(6)):
                return
            args = [a.value for a in sorted(args, key=lambda a: order[a.name])]
        names = [_callee(a) if isinstance(a, Node) and a.kind == "call" else None for a in args]
        blocks = {d.name: d for d in self.decls if d.kind in ("control", "parser")}
        parser, verify, compute, deparser = (blocks.get(names[i]) if names[i] else None for i in (0, 1, 4, 5))
        for block, allowed in ((verify, ("verify_checksum", "verify_checksum_with_payload")),
                               (compute, ("update_checksum", "update_checksum_with_payload"))):
            if block is not None and block.kind == "control":
                self._only_calls(block.get("body"), allowed, block, blocks)
        if deparser is not None and deparser.kind == "control":
            self._deparser(deparser.get("body"), deparser)
        if parser is not None and parser.kind == "parser" and len(parser.get("params") or ()) >= 2:
            self._headers_type(parser.params[1].get("type"), main)

    def _only_calls(self, body, allowed, ctl=None, blocks=None, depth=0, computed=None):
        roots = {p.name: p.get("type") for p in ctl.get("params") or ()} if ctl is not None else {}
        stmts = list(_nodes(body.get("stmts") if isinstance(body, Node) and body.kind == "block" else body))
        for i, st in enumerate(stmts):
            if st.kind == "block":
                if self._only_calls(st, allowed, ctl, blocks, depth):
                    return True
            elif st.kind == "return" and st.get("value") is None:
                # p4c removes a return that is not under a condition with what follows it (a
                # `return` in an `if` leaves a flag: "hasReturned = false: Only calls to ..."; helper
                # errs21, /work/e21 pc c_x_return_in_compute)
                return True
            elif st.kind == "var" and st.get("init") is not None and self._struct_type(st.type) \
                    and find_name(stmts[i + 1:], st.name) is not None:
                # a struct local with an initializer that the control uses: p4c's field-by-field
                # copies of it stay (errs17 probe cc_struct_local_init: "m2.m8 = meta.m8: Only calls ...")
                raise P4CompileError(st.loc, f"{st.name}: its initializer is a field-by-field copy: only calls to "
                                             f"{' or '.join(allowed)} are allowed in this checksum control (bmv2)")
            elif st.kind in ("empty", "var"):
                continue
            elif st.kind == "assign" and self._propagated_store(st, stmts, i):
                # a store to a local (scalar or struct field): p4c's copy propagation puts its value into
                # the checksum call and removes it (/work/errs29 g_*, h_*: a computed value is then the
                # data's computation, named at that store; a ?: is its IfStatement)
                p = deparser_defuse.path(st.lhs)
                computed = {k: v for k, v in (computed or {}).items() if k != p and not k.startswith(p + ".")}
                if _is_path(st.rhs) and deparser_defuse.path(st.rhs) in (computed or {}):
                    computed[p] = computed[deparser_defuse.path(st.rhs)]
                elif not _is_path(st.rhs) and st.rhs.kind not in ("int", "bool_lit"):
                    computed[p] = st.rhs
                continue
            elif st.kind == "assign" and st.lhs.kind == "slice" and (d := next(
                    (v for v in stmts[:i] if v.kind == "var" and v.name == deparser_defuse.path(st.lhs.a)
                     and v.get("init") is not None), None)) is not None:
                # a slice store to a local: p4c keeps the local's initializing store, which it names
                raise P4CompileError(d.loc, f"{d.name} = ...: only calls to {' or '.join(allowed)} are allowed in "
                                            "this checksum control (bmv2; the local's slice store keeps it)")
            elif st.kind == "if" and isinstance(st.cond, Node) and st.cond.kind == "bool_lit":
                # `if (false) { ... }`: p4c folds the branch away first (helper errs16)
                taken = st.then if st.cond.value else st.get("els")
                if taken is not None and self._only_calls(taken if taken.kind == "block" else [taken], allowed,
                                                          ctl, blocks, depth, computed):
                    return True
            elif st.kind == "call_stmt" and isinstance(st.get("call"), Node) and _callee(st.call) in allowed:
                self._checksum_data(st.call, roots, computed)
                continue
            elif st.kind == "call_stmt" and depth < 16 and self._applied_control(st.call, ctl, blocks):
                # another control applied here (directly or as a local instance): p4c inlines
                # it first, so its body must hold only the same calls
                sub = self._applied_control(st.call, ctl, blocks)
                self._only_calls(sub.get("body"), allowed, sub, blocks, depth + 1,
                                 self._computed_args(st.call, sub, roots, computed or {}))
            else:
                what = _describe(st.call) if st.kind == "call_stmt" else st.kind
                raise P4CompileError(st.loc, f"{what}: only calls to {' or '.join(allowed)} are allowed in "
                                             "this checksum control (bmv2)")
        return False

    @staticmethod
    def _propagated_store(st: Node, stmts: list, i: int) -> bool:
        """Assignment ``stmts[i]`` stores into a local the body declares (not a slice), with no ``?:``
        in its value and none of the local's slice stores: :meth:`_only_calls` lets p4c's copy
        propagation remove it."""
        p = deparser_defuse.path(st.lhs)
        decl = {v.name for v in stmts[:i] if v.kind == "var"}
        if p is None or p.split(".")[0] not in decl or any(n.kind == "cond" for n in _walk(st.rhs)):
            return False
        return not any(o.kind == "assign" and o.lhs.kind == "slice" and deparser_defuse.path(o.lhs.a) in (p, p.split(".")[0])
                       for o in stmts)

    def _struct_type(self, ty) -> bool:
        """Whether type node ``ty`` names a struct the program declares (through typedefs)."""
        for _ in range(8):
            if not (isinstance(ty, Node) and ty.kind == "typename"):
                return False
            d = next((x for x in self.decls if x.kind in ("struct", "typedef") and x.get("name") == ty.name), None)
            if d is None or d.kind == "struct":
                return d is not None
            ty = d.get("type")
        return False

    @staticmethod
    def _applied_control(call: Node, ctl, blocks):
        """The control declaration ``X.apply(...)`` runs (X a control type or a local
        instance of one), or None."""
        fn = call.get("fn")
        if not (blocks and isinstance(fn, Node) and fn.kind == "member" and fn.name == "apply"
                and isinstance(fn.get("base"), Node) and fn.base.kind == "name"):
            return None
        name = fn.base.name
        for x in (ctl.get("locals") or ()) if ctl is not None else ():
            if isinstance(x, Node) and x.kind == "instance" and x.get("name") == name \
                    and isinstance(x.get("type"), Node) and x.type.kind == "typename":
                name = x.type.name
                break
        sub = blocks.get(name)
        return sub if sub is not None and sub.kind == "control" else None

    def _computed_args(self, call: Node, sub: Node, roots: dict, computed: dict) -> dict:
        """The ``in`` (or directionless) parameters of control ``sub``, applied by ``call``, whose
        argument computes something from the caller's parameters (``upd.apply(hdr.h, ~hdr.h.b)``):
        name -> that argument.  p4c inlines the control and its propagation puts the argument in
        place of the parameter, so a checksum data element naming it is a computation (p4c_mutate
        seed 408)."""
        params = [p for p in sub.get("params") or () if isinstance(p, Node)]
        args = list(call.get("args") or ())
        if args and all(isinstance(a, Node) and a.kind == "named_arg" for a in args):
            by_name = {a.name: a.value for a in args}
            pairs = [(p, by_name.get(p.name)) for p in params]
        else:
            pairs = list(zip(params, args))
        out = {}
        for p, a in pairs:
            if not isinstance(a, Node) or p.get("direction") not in (None, "in"):
                continue
            if a.kind == "name" and a.name in computed:
                out[p.name] = computed[a.name]   # (passed on from the caller's own parameter)
            elif not _is_path(a) and self._computes(a, roots):
                out[p.name] = a
        return out

    def _computes(self, e: Node, roots: dict) -> bool:
        """Whether checksum data element ``e`` (not a path) computes from the parameters ``roots``:
        a constant expression it folds, and what its strength reduction makes a field: a cast to the
        field's own type, a slice of all its bits, a slice of a ``++`` within one operand, a slice of a
        slice (``(hdr.ip.tos ++ 8w0)[15:8]``: p4c_mutate seed 430; measured on p4c 1.2.4.8)."""
        if self._reduced(e, roots) is not None:
            return False
        return any(n.kind == "name" and n.name in roots for n in _walk(e))

    def _reduced(self, e: Node, roots: dict, hi=None, lo=None):
        """The field ``e`` (its bits ``hi..lo`` when given) comes to after p4c's strength reduction (a
        literal where the bits are a constant's: ``(x ++ 8w0)[7:0]``, probed), or None."""
        if e.kind == "int":
            return e
        if _is_path(e):
            t = self._path_type(e, roots)
            return e if t is not None and (hi is None or (lo, hi) == (0, t[1] - 1)) else None
        if e.kind == "slice" and e.hi.kind == "int" and e.lo.kind == "int":
            h, lo2 = (e.hi.value, e.lo.value) if hi is None else (e.lo.value + hi, e.lo.value + lo)
            return self._reduced(e.a, roots, h, lo2)
        if e.kind == "binary" and e.op == "++" and hi is not None:
            wb = self._width(e.b, roots)
            if wb is not None and lo >= wb:
                return self._reduced(e.a, roots, hi - wb, lo - wb)
            return self._reduced(e.b, roots, hi, lo) if wb is not None and hi < wb else None
        if e.kind == "cast" and hi is None:
            r = self._reduced(e.a, roots)
            return r if r is not None and self._scalar(e.type) is not None and \
                self._scalar(e.type) == self._path_type(r, roots) else None
        return None

    def _width(self, e: Node, roots: dict):
        """The width of a ``++`` operand: a field, a sized literal, a constant slice, a cast, a ``++``."""
        if _is_path(e):
            t = self._path_type(e, roots)
            return t[1] if t is not None else None
        if e.kind == "int":
            return e.get("width")
        if e.kind == "slice" and e.hi.kind == "int" and e.lo.kind == "int":
            return e.hi.value - e.lo.value + 1
        if e.kind == "cast":
            t = self._scalar(e.type)
            return t[1] if t is not None else None
        if e.kind == "binary" and e.op == "++":
            a, b = self._width(e.a, roots), self._width(e.b, roots)
            return a + b if a is not None and b is not None else None
        return None

    def _checksum_data(self, call: Node, roots, computed=None):
        """bmv2 computes a checksum over fields and constants only: an element of the data
        list that computes something from the control's parameters (a slice, cast, operator,
        ``++``, a method call) is refused by p4c ("Computations are not supported in
        update_checksum"); a constant expression is folded and fine."""
        args = list(call.get("args") or ())
        data = next((a.value for a in args if isinstance(a, Node) and a.kind == "named_arg" and a.name == "data"),
                    args[1] if len(args) > 1 and not (isinstance(args[1], Node) and args[1].kind == "named_arg")
                    else None)
        if not isinstance(data, Node):
            return
        roots = roots or {}
        if data.kind != "list" and (data.kind in ("bool_lit", "int") or _is_path(data) and self._path_type(data, roots)):
            # one scalar, not a list: p4c dies on it (a field, a constant) or refuses `true`
            raise P4CompileError(data.loc, f"{_callee(call)}: the checksum data must be a list expression, a "
                                           "header or a struct, not one scalar value (p4c rejects it)")
        items = list(data.items) if data.kind == "list" else [data]
        for e in items:
            if isinstance(e, Node) and e.kind == "list":   # (p4c takes a nested list; BMv2 refuses its JSON:
                items.extend(e.items)                      # elab_load_refusals.refuse_nested_list)
                continue
            if isinstance(e, Node) and e.kind == "cast" and isinstance(e.a, Node) and e.a.kind in ("struct_init", "list"):
                # (a struct expression of fields and constants: p4c compiles it -- its elements are
                # checked one by one; bare and flat, BMv2 runs it, else the elaborator's load refusal,
                # elab_load_refusals.refuse_nested_struct_data: measured by helper opens2)
                items.extend(v for _, v in e.a.fields) if e.a.kind == "struct_init" else items.extend(e.a.items)
                continue
            if isinstance(e, Node) and e.kind == "bool_lit":   # (p4c: "true: Computations are not supported")
                raise P4CompileError(e.loc, f"{_callee(call)}: computations are not supported in the checksum "
                                            f"data (p4c, bmv2): a bool literal")
            if isinstance(e, Node) and deparser_defuse.path(e) in (computed or {}):
                arg = computed[deparser_defuse.path(e)]   # (named at the argument: p4c's message has no position)
                raise P4CompileError(arg.loc, f"{_callee(call)}: computations are not supported in the checksum "
                                              f"data (p4c, bmv2): {deparser_defuse.path(e)} is given a computed "
                                              "value here")
            if not isinstance(e, Node) or _is_path(e):
                continue
            if self._computes(e, roots):   # (a cast to the field's own type: p4c drops it)
                raise P4CompileError(e.loc, f"{_callee(call)}: computations are not supported in the checksum "
                                            f"data (p4c, bmv2): each element must be a field or a constant")

    def _scalar(self, ty, depth=0):
        """("bit"|"sint", width) of a type, through typedefs (not `type`); None otherwise."""
        while isinstance(ty, Node) and ty.kind == "typename" and depth < 20:
            d = self._types.get(ty.name)
            if d is None or d.kind != "typedef" or d.get("newtype"):
                return None
            ty, depth = d.type, depth + 1
        if isinstance(ty, Node) and ty.kind in ("bit", "sint") and isinstance(ty.get("width"), Node) \
                and ty.width.kind == "int":
            return ty.kind, ty.width.value
        return None

    def _path_type(self, e: Node, roots: dict):
        """The scalar type of a field reference whose root is a parameter, or None."""
        chain = []
        while e.kind in ("member", "index"):
            chain.append(e)
            e = e.base
        ty = roots.get(e.name) if e.kind == "name" else None
        for step in reversed(chain):
            for _ in range(20):   # typedefs of struct/header types
                if not (isinstance(ty, Node) and ty.kind == "typename"):
                    break
                d = self._types.get(ty.name)
                if d is None:
                    return None
                if d.kind != "typedef":
                    break
                ty = d.type
            if not isinstance(ty, Node):
                return None
            if step.kind == "index":
                ty = ty.get("elem") if ty.kind == "stack" else None
                continue
            d = self._types.get(ty.name) if ty.kind == "typename" else None
            if d is None or d.kind not in ("header", "struct", "header_union"):
                return None
            ty = next((f.type for f in d.get("fields") or () if f.name == step.name), None)
        return self._scalar(ty)

    def _deparser(self, body, ctl=None, depth=0):
        # an action called in the deparser (p4c turns the call into a table: "tbl_q.apply: not
        # supported within a deparser"), a local one or a top-level one
        actions = {d.name for d in (ctl.get("locals") or ()) if isinstance(d, Node) and d.kind == "action"} \
            if ctl is not None else set()
        actions |= {d.name for d in self.decls if d.kind == "action"}
        instances = {d.name: d for d in list(self.decls) + list((ctl.get("locals") or ()) if ctl is not None else ())
                     if isinstance(d, Node) and d.kind == "instance"}
        # what p4c's mid-end leaves of the body (deparser_defuse: local copies propagated, dead
        # register reads removed; a written local header refused at its declaration; errs27)
        local_vars = [v for v in deparser_defuse.flat(body) if v.kind == "var"]
        headers = {v.name for v in local_vars if getattr(self._resolve(v.type), "kind", None) in ("header", "header_union")}
        scalars = {v.name for v in local_vars} - headers
        if ctl is not None and ctl.kind == "function":   # (its parameters: the inlined call's locals)
            scalars |= {p.name for p in ctl.get("params") or ()
                        if getattr(self._resolve(p.type), "kind", None) not in ("header", "header_union", "typename")}
        functions = {d.name: d for d in self.decls if d.kind == "function"}
        dead = deparser_defuse.dead_nodes(body, scalars, functions,
                                          lambda c: _object_method(c, instances) == ("register", "read"))
        written = deparser_defuse.written_header_locals(body, headers)
        for n in _live_walk(body):   # (an `if` p4c folds is no `if` there: p4c_mutate seed 601)
            bad = None
            if id(n) in dead or (n.kind == "if" and _empty_stmt(n)):
                continue   # (p4c's SimplifyControlFlow removes `if (c) { }` first; errs26)
            if n.kind == "var" and written.get(n.name) is n:
                raise P4CompileError(n.loc, f"{n.name}{' = ...' if n.get('init') is not None else '.setInvalid'}: not "
                                            "supported within a deparser on this target (a written local header)")
            if _object_method(n, instances) in _DEPARSER_REFUSED_METHODS:
                # p4c's BMv2 deparser: "c.count: not supported within a deparser on this target"
                # (measured, helper errs26; a register.read only where its value is used: errs27)
                raise P4CompileError(n.loc, f"{_describe(n)}: not supported within a deparser on this target")
            if n.kind == "assign" and deparser_defuse.path(n.lhs if n.lhs.kind != "slice" else n.lhs.a) \
                    and deparser_defuse.path(n.lhs if n.lhs.kind != "slice" else n.lhs.a).split(".")[0] in scalars:
                pass   # (a local scalar's store: p4c propagates it; its ?: counts only where used)
            elif n.kind in ("assign", "if", "switch"):
                bad = "an assignment" if n.kind == "assign" else f"a {n.kind} statement"
            elif n.kind == "call" and isinstance(n.get("fn"), Node) and n.fn.kind == "member" and n.fn.name == "apply":
                sub = self._applied_control(n, ctl, {d.name: d for d in self.decls if d.kind in ("control", "parser")})
                if sub is not None and depth < 20:
                    # a sub-control applied in the deparser: p4c inlines it, and only what its
                    # body does counts (emits only: tatry/INT-BMv2's int_deparser, corpus13)
                    self._deparser(sub.get("body"), sub, depth + 1)
                    continue
                bad = f"{_describe(n)}"
            elif n.kind == "call" and _callee(n) in actions:
                bad = f"a call of action {_callee(n)}"
            elif n.kind == "call" and _callee(n) in functions and depth < 20:
                self._deparser(functions[_callee(n)].get("body"), functions[_callee(n)], depth + 1)   # (p4c inlines it)
            elif n.kind == "cond" and n.cond.kind != "bool_lit":   # (p4c makes an if statement of it: "IfStatement")
                bad = "a ?: expression (an if statement for p4c)"
            if bad:
                raise P4CompileError(n.loc, f"{bad} is not supported within a deparser on the bmv2 target "
                                            "(only emit)")

    def _resolve(self, ty):
        seen = 0
        while isinstance(ty, Node) and ty.kind == "typename" and seen < 50:
            seen += 1
            d = next((x for x in self.decls if x.get("name") == ty.name and x.kind in (
                "typedef", "header", "header_union", "struct")), None)
            if d is None:
                return ty
            if d.kind != "typedef":
                return d
            ty = d.type
        return ty

    def _headers_type(self, ty, main: Node):
        st = self._resolve(ty)
        if isinstance(st, Node) and st.kind in ("header", "header_union"):
            raise P4CompileError(ty.loc, f"{st.name}: expected type to be a struct (V1Switch's headers "
                                         f"type H is a {st.kind.replace('_', ' ')})")
        if not isinstance(st, Node) or st.kind != "struct":
            return
        self._struct_of_headers(st, st, 0, ty.loc)

    def _struct_of_headers(self, top: Node, st: Node, depth: int, where) -> None:
        """Every field of V1Switch's headers struct a header, stack or union -- or a struct
        that is again made of those only (p4c: "the type should be a struct of headers, stacks,
        or unions"; the error names the headers struct, at the parser's parameter type ``where``
        -- errs54 measured it at any depth -- and ours names the field that breaks it)."""
        for f in st.get("fields") or ():
            ft = self._resolve(f.type)
            if isinstance(ft, Node) and ft.kind == "struct" and depth < 20:
                self._struct_of_headers(top, ft, depth + 1, where)
            elif isinstance(ft, Node) and ft.kind not in ("header", "header_union", "struct", "stack", "typename"):
                raise P4CompileError(where, f"{top.name}: the type should be a struct of headers, stacks or unions "
                                            f"(field {f.name} of {st.name} is not)")


def _is_path(e: Node) -> bool:
    """A field reference: a name, ``.member`` and constant ``[index]`` chain."""
    while e.kind in ("member", "index"):
        if e.kind == "index" and e.index.kind != "int":
            return False
        e = e.base
    return e.kind == "name"


# extern object methods p4c's BMv2 back end refuses in a deparser (measured one by one, errs26)
_DEPARSER_REFUSED_METHODS = {("counter", "count"), ("meter", "execute_meter"), ("register", "write"),
                             ("register", "read")}


def _object_method(call, instances: dict):
    """``(extern type, method)`` of a call ``x.m(...)`` of an instance ``x`` in ``instances``."""
    fn = call.get("fn") if isinstance(call, Node) and call.kind == "call" else None
    if not (isinstance(fn, Node) and fn.kind == "member" and isinstance(fn.get("base"), Node)
            and fn.base.kind == "name" and fn.base.name in instances):
        return None
    ty = instances[fn.base.name].get("type")
    return (getattr(ty, "name", None), fn.name)


def check_program(decls: list[Node]) -> None:
    """Apply the rules above to a parsed (and elaborated) program."""
    _Checker(decls).run()


def check_duplicates(decls: list[Node]) -> None:
    """Two local declarations of a control or parser with one name ("Duplicates declaration"): p4c
    finds them resolving names, before type checking and its back end, so before elaboration here
    (a back-end error the elaborator raises first was named; /work/e21 pd
    d_o_extern_two_instances_same_name_ctl)."""
    c = _Checker(decls)
    for d in decls:
        if d.kind in ("control", "parser"):
            c._duplicates(d)
