"""Functions: declaring one, binding a call to it (overloads, declared-before, a directionless
``int`` parameter given each call's constant), and generic functions instantiated per type
binding, as p4c's front end specializes them before inlining.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (split from ``elab_calls``, whose
:meth:`~switch.compiler.elab_calls.CallRules.call_function` calls into it): ``self`` holds the
program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node, walk
from .elab_common import E, expr_text, INTLIT, Scope, tstr, V1_EXTERN_FUNCS


class FunctionRules:
    def bind_int_params(self, f: dict, call: Node, scope) -> dict:
        """The instance of function ``f`` for this call's values of its directionless ``int``
        parameters: p4c inlines a function, so such a parameter is the call's constant wherever
        the body uses it (`r.read(x, num)`, `x = num`, `x + num` for a `bit<W>` x; typed by the
        use as a literal is -- not an untyped run-time value); one elaborated function per
        distinct set of values (netx-ulx/dataplaneChangeDetection's `UpdateRow(int num, ..)`)."""
        d, tb = self.__dict__.get("int_param_fns", {}).get(f["py"], (None, None))
        if d is None:
            return f
        call = self.positional(call, f["params"], f"function {f['name']}")
        vals = {}
        for a, p in zip(call.args, f["params"]):
            if p.get("const_arg") and p["t"] == INTLIT:
                vals[p["name"]] = self.fold(self.const_arg(self.expr(a, scope)[0], p, a))
        key = (f["py"], repr(sorted(vals.items())))
        made = self.__dict__.setdefault("int_instances", {})
        if key not in made:
            inst = Node("function", d.loc, **{**d._attrs, "name": f"{d.name}__i{len(made)}"})
            saved = getattr(self, "int_bindings", None), getattr(self, "type_bindings", None)
            self.int_bindings, self.type_bindings = vals, tb
            try:
                self.declare_function(inst)
            finally:
                self.int_bindings, self.type_bindings = saved
            made[key] = self.functions[inst.name]
            self.fn_decl_ids[made[key]["py"]] = self.fn_decl_ids.get(f["py"], id(d))
        return made[key]

    def declare_function(self, d: Node) -> None:
        if d.name in V1_EXTERN_FUNCS:   # (p4c: "hash duplicates hash", whatever the parameters; helper errs16)
            raise E(d.loc, f"{d.name} duplicates {d.name}: an extern function of v1model.p4/core.p4 has that name")
        prev = self.global_scope.names.get(d.name)
        if prev is not None and prev[0] in ("function", "generic_fn") and (d.tparams or prev[0] == "generic_fn"):
            # a generic function beside another of its name: chosen by the call's arguments
            # (resolve_function; p4c takes `T f<T>(in T x)` beside `bit<8> f(in bit<8> x, in bit<8> y)`)
            gens = self.__dict__.setdefault("generic_overloads", {}).setdefault(d.name, [])
            gens.append(d if d.tparams else prev[1])
            if d.tparams:
                return
        if d.tparams:  # generic: elaborated per instantiation (instantiate_generic)
            self.global_scope.add(d.name, ("generic_fn", d))
            return
        fscope = Scope(self.global_scope)
        params = []
        first = self.functions.get(d.name)
        # overloads (same name, other parameters): each its own record, found by the call's
        # arguments (pick_overload); `iname` keeps their generated names apart
        overloads = self.__dict__.setdefault("fn_overloads", {})   # name -> its declarations, when several
        iname = d.name if first is None else f"{d.name}__ov{len(overloads.get(d.name, [first]))}"
        int_bound = getattr(self, "int_bindings", None)   # (bind_int_params)
        for p in d.params:
            t = self.resolve_type(p.type)
            py = f"f_{iname}_{p.name}"
            if t in (["extern", "packet_out"], ["extern", "packet_in"]):
                # the deparser's output list / the parser's packet (gen_blocks.gen_functions: p4c
                # inlines the call, its emits and extracts go on in the caller; errs27)
                py = "out" if t[1] == "packet_out" else "_pin"
            var_ir = {"op": "var", "n": py, "t": t}
            if t[0] == "varbit":   # a box, as a varbit local (bits `v`, length)
                var_ir = {"op": "field", "base": var_ir, "f": "v", "t": t}
            if p.direction is None and t == INTLIT:
                # the declaration itself is type-checked with a stand-in value: 0, no compile-time
                # constant (has_runtime_int), as for `(int)` of a run-time value
                v = {"op": "const", "v": 0, "t": INTLIT, "runtime_int": True} if int_bound is None else \
                    {"op": "const", "v": int_bound[p.name], "t": INTLIT}
                fscope.add(p.name, ("const", v))
            else:
                fscope.add(p.name, ("var", var_ir, p.direction or "in"))
            self.check_default_arg(p, self.global_scope)
            params.append({"name": p.name, "py": py, "t": t, "dir": p.direction or "in",
                           "default": getattr(p, "default", None),
                           **({"const_arg": True} if p.direction is None and t[0] != "extern" else {})})
            if p.direction in (None, "in"):
                self.note_algo_param(var_ir, params[-1])
        ret = self.resolve_type(d.ret)
        rec = {"name": d.name, "py": "F_" + iname, "params": params, "ret": ret, "body": None}
        if int_bound is None and any(p.get("const_arg") and p["t"] == INTLIT for p in params):
            # elaborated per call (bind_int_params)
            self.__dict__.setdefault("int_param_fns", {})[rec["py"]] = (d, getattr(self, "type_bindings", None))
        self.__dict__.setdefault("function_locs", {})[rec["py"]] = d.loc   # (call_function's int error)
        self.__dict__.setdefault("fn_decl_ids", {})[rec["py"]] = id(d)   # check_declared_before
        if ret != ["void"] and not _always_returns(d.body):
            # p4c refuses it only when the function is called (an unused one is removed first)
            rec["deferred_error"] = E(d.loc, f"function {d.name} does not return a value on all paths")
            rec["deferred_error"].missing_return = True
        first_if = next((n for n in walk(d.body) if isinstance(n, Node) and n.kind == "if"), None)
        pifs = self.__dict__.get("fn_parser_ifs", {})
        inner = next((pifs[self.functions[n.fn.name]["py"]] for n in walk(d.body) if isinstance(n, Node)
                      and n.kind == "call" and n.fn.kind == "name" and n.fn.name in self.functions
                      and self.functions[n.fn.name]["py"] in pifs), None)
        if first_if is None and inner is not None:   # (a function it calls holds one: inlined too)
            pifs[rec["py"]] = inner
        elif first_if is not None:   # (deferred_function_error: p4c inlines a call in a parser state)
            self.__dict__.setdefault("fn_parser_ifs", {})[rec["py"]] = E(
                first_if.loc, f"IfStatement: not supported in parser on this target (in function {d.name}, "
                              "inlined into a parser state; errs27)")
        self.functions[iname] = rec
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "function", "block": iname, "ret": ret, "scope": fscope, "apply_body": True}
        rec["body"] = self.param_union_copies(self.stmt(d.body, fscope), params)  # (not visible yet: no recursion)
        self.settle_match_kind_stores(rec["body"])
        self.flush_divisions(parser=False)   # (after the stores p4c drops)
        self.__dict__.setdefault("fn_element_stores", {})[rec["py"]] = self.ctx.get("element_stores") or []   # (note_call_element_stores)
        self.ctx = saved
        if first is not None:
            overloads.setdefault(d.name, [first]).append(rec)
        else:
            self.global_scope.add(d.name, ("function", rec))

    def check_declared_before(self, f: dict, call: Node) -> None:
        """p4c resolves a name where it is used: a function declared after the control or
        parser that calls it is not found there."""
        cur = self.current_block()
        if cur is None or self.ctx.get("kind") == "function":
            return
        self.decl_pos(cur)
        fpos = self._decl_index.get(getattr(self, "fn_decl_ids", {}).get(f["py"]))
        bpos = self._decl_index.get(id(cur))
        if fpos is not None and bpos is not None and fpos > bpos:
            raise E(call.loc, f"{f['name']}: declaration not found (the function is declared after "
                              f"{cur.kind} {cur.name}, which uses it)")

    def resolve_function(self, ent: tuple, call: Node, scope) -> dict:
        """The function record a call of the scope entry ``ent`` (``function``/``generic_fn``) means:
        an overload picked by the arguments, a generic one instantiated for them."""
        gens = self.__dict__.get("generic_overloads", {}).get(ent[1].name if ent[0] == "generic_fn" else ent[1]["name"])
        if not gens:
            return self.instantiate_generic(ent[1], call, scope) if ent[0] == "generic_fn" else \
                self.pick_overload(ent[1], call)
        name = gens[0].name
        plain = self.functions.get(name)
        cands = list(getattr(self, "fn_overloads", {}).get(name) or ([plain] if plain else [])) + \
            [g for g in dict.fromkeys(gens + ([ent[1]] if ent[0] == "generic_fn" else []))]
        n, named = len(call.args), {a.name for a in call.args if a.kind == "named_arg"}

        def takes(c):
            ps = [(p.name, p.get("default")) for p in c.params] if isinstance(c, Node) else \
                [(p["name"], p.get("default")) for p in c["params"]]
            if named and not named <= {q for q, _ in ps}:
                return False
            return len(ps) == n or (n < len(ps) and all(dv is not None for _, dv in ps[n:]))
        match = [c for c in cands if takes(c)]
        if len(match) != 1:
            raise E(call.loc, f"{name}: " + ("multiple matching declarations (p4c)" if match else
                                             f"no declaration takes {n} argument(s)"))
        if isinstance(match[0], Node):
            return self.instantiate_generic(match[0], call, scope)
        self.check_declared_before(match[0], call)
        return match[0]

    def pick_overload(self, f: dict, call: Node) -> dict:
        """The declaration of function ``f`` (or of one of its overloads) that ``call`` means:
        the one whose parameters take the call's arguments (count, names; p4c refuses a call
        that more than one declaration matches: "multiple matching declarations")."""
        self.check_declared_before(f, call)
        cands = getattr(self, "fn_overloads", {}).get(f["name"]) if self.functions.get(f["name"]) is f else None
        if not cands:
            return f
        n = len(call.args)
        named = {a.name for a in call.args if a.kind == "named_arg"}

        def takes(c):
            ps = c["params"]
            if named and not named <= {p["name"] for p in ps}:
                return False
            return len(ps) == n or (n < len(ps) and all(p.get("default") is not None for p in ps[n:]))
        match = [c for c in cands if takes(c)]
        if len(match) != 1:
            raise E(call.loc, f"{f['name']}: " + ("multiple matching declarations (p4c)" if match else
                                                  f"no declaration takes {n} argument(s)"))
        return match[0]

    def instantiate_generic(self, d: Node, call: Node, scope) -> dict:
        """The instance of generic function ``d`` for this call: type arguments given
        (``f<bit<8>>(x)``) or inferred from the arguments whose parameter type is a type
        parameter; one elaborated function per distinct binding."""
        if call.targs:
            if len(call.targs) != len(d.tparams):
                raise E(call.loc, f"function {d.name} takes {len(d.tparams)} type argument(s)")
            dc = next((a for a in call.targs if a.kind == "dontcare"), None)
            if dc is not None:   # p4c infers nothing from `_` for a function of the program
                raise E(call.loc, f"{d.name}<_>: could not infer a type for a parameter of {d.name} "
                                  "(p4c: inferred type is don't care '_')")
            bindings = {tp: self.resolve_type(a) for tp, a in zip(d.tparams, call.targs)}
        else:
            bindings, untyped = {}, {}
            for p, a in zip(d.params, call.args):
                if p.type.kind == "typename" and p.type.name in d.tparams and p.type.name not in bindings:
                    arg = a.value if a.kind == "named_arg" else a
                    _, at = self.expr(arg, scope)
                    if not _inferable(at):   # (a list of typed values is a tuple: p4c infers it)
                        untyped.setdefault(p.type.name, arg)   # another argument may give T (f(1, x))
                        continue
                    bindings[p.type.name] = at
                elif p.type.kind == "tuple":   # g<T>(in tuple<T, T> x) given { a, b }: T from the elements
                    arg = a.value if a.kind == "named_arg" else a
                    _, at = self.expr(arg, scope)
                    for pa, et in zip(p.type.args, at[1] if at[0] == "list" else ()):
                        if pa.kind == "typename" and pa.name in d.tparams and _inferable(et):
                            bindings.setdefault(pa.name, et)
                elif p.type.kind == "typename" and p.type.get("args"):   # g<T>(in S<T> s) given an S<bit<8>>
                    arg = a.value if a.kind == "named_arg" else a
                    _, at = self.expr(arg, scope)
                    got = self.__dict__.get("specialized_args", {}).get(at[1]) if at[0] in ("struct", "header") else None
                    if got is not None and got[0] == p.type.name:
                        for pa, actual in zip(p.type.args, got[1]):
                            if pa.kind == "typename" and pa.name in d.tparams and not pa.get("args"):
                                bindings.setdefault(pa.name, actual)
            for tp, arg in untyped.items():
                if tp not in bindings:
                    raise E(arg.loc, f"cannot infer type {tp} of {d.name} from this argument: "
                                     f"give it, e.g. {d.name}<bit<8>>(...)")
            missing = [tp for tp in d.tparams if tp not in bindings]
            if missing:
                raise E(call.loc, f"cannot infer type argument {missing[0]} of {d.name}")
            for p, a in zip(d.params, call.args):   # p4c unifies T with the list's tuple type too
                a = a.value if a.kind == "named_arg" else a
                bound = bindings.get(p.type.name) if p.type.kind == "typename" else None
                if a.kind == "list" and bound is not None and bound[0] in ("struct", "header"):
                    raise E(a.loc, f"{d.name}: Cannot unify type '{tstr(bound)}' with the tuple type of the list "
                                   f"{expr_text(a)} (p4c infers {p.type.name} from both arguments; write "
                                   f"{d.name}<{tstr(bound)}>(...))")
        for p in d.params:   # (`void f<T>(in T x)` given "s": p4c's error at the parameter; errs74)
            if p.direction and p.type.kind == "typename" and bindings.get(p.type.name) == ["string"]:
                raise E(p.loc, f"{p.name}: a parameter with type string cannot have a direction "
                               f"(T is string in the call of {d.name} at {call.loc})")
        if call.get("in_call_arg") and not _inner_generic_call(call.args, scope):
            # (the innermost such call is p4c's error: it visits them in post-order -- errs18 probe t6 gr*)
            # p4c 1.2.4.8 loses the type parameters of a generic function called inside another
            # call's argument (`f(id(x))`, `hash(..., { id(x) }, ...)`, an action's or a method's):
            # "T: declaration not found" at the generic function's declaration (errs17 probe n_*)
            self.target_error(d.loc, f"{d.tparams[0]}: declaration not found (p4c 1.2.4.8: a call of the generic "
                                     f"function {d.name} inside the argument of another call, at {call.loc})")
        key = (d.name, repr([bindings[tp] for tp in d.tparams]))
        made = self.__dict__.setdefault("generic_instances", {})
        if key not in made:
            inst = Node("function", d.loc, **{**d._attrs, "name": f"{d.name}__{len(made)}", "tparams": []})
            saved = getattr(self, "type_bindings", None)
            self.type_bindings = {**(saved or {}), **bindings}
            try:
                self.declare_function(inst)
            finally:
                self.type_bindings = saved
            made[key] = self.functions[inst.name]
            self.fn_decl_ids[made[key]["py"]] = id(d)   # declared where the generic one is
        self.check_declared_before(made[key], call)
        return made[key]


def _inferable(t) -> bool:
    """Whether argument type ``t`` binds a type parameter: not an untyped integer, struct
    initializer or ``_``; a list expression (``f({a, b})``: ``tuple<..>``) only of such types."""
    if t[0] == "list":
        return all(_inferable(x) for x in t[1])
    return t[0] not in ("int_lit", "sinit") and t != ["any"]


def _always_returns(s) -> bool:
    """Whether every path through statement ``s`` ends in a ``return`` (p4c requires it of a
    function with a result)."""
    if s is None:
        return False
    k = s.kind
    if k == "return":
        return True
    if k == "block":
        return any(_always_returns(x) for x in s.stmts)
    if k == "if":
        return _always_returns(s.then) and s.els is not None and _always_returns(s.els)
    # (not a `switch`, even with a `default` and a return in every case: p4c 1.2.4.8 counts no
    # switch as returning -- "does not return a value on all paths"; probed, helper mutz21)
    return False


def mark_calls_in_call_args(n, inside: bool = False) -> None:
    """Mark each call node that sits inside an argument of another call (``in_call_arg``; see
    :meth:`FunctionRules.instantiate_generic`)."""
    if isinstance(n, Node):
        if n.kind == "call":
            if inside:
                n._attrs["in_call_arg"] = True
            mark_calls_in_call_args(n.fn, inside)
            for a in n.args:
                mark_calls_in_call_args(a, True)
            return
        for v in n._attrs.values():
            mark_calls_in_call_args(v, inside)
    elif isinstance(n, (list, tuple)):
        for v in n:
            mark_calls_in_call_args(v, inside)


def _inner_generic_call(n, scope) -> bool:
    """Whether a call of a generic function (``generic_fn`` in ``scope``) sits in ``n``."""
    if isinstance(n, Node):
        if n.kind == "call" and n.fn.kind == "name":
            ent = scope.lookup(n.fn.name)
            if ent is not None and ent[0] == "generic_fn":
                return True
        return any(_inner_generic_call(v, scope) for v in n._attrs.values())
    if isinstance(n, (list, tuple)):
        return any(_inner_generic_call(v, scope) for v in n)
    return False
