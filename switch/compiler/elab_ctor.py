"""Constructor arguments that are not constants, and instances declared at top level.

A mixin of :class:`switch.compiler.elaborate.Elaborator`.  P4-16 lets a parser or control
take, besides compile-time constants, constructor parameters whose type is an extern
(``control C(...)(counter c)``) or a parser/control type (``control AddT(inout h_t x);``
... ``control Wrap(...)(AddT inner)``); the argument is an extern instance declared at top
level or in the enclosing block, or an instantiation expression such as ``Add(8w4)``.
The embedded target has no run-time objects for blocks, so the binding happens while
elaborating (as p4c's instance specialisation does):

* an extern argument binds the parameter name to the very same object (same counter
  cells, same P4Runtime entity) -- :meth:`extern_arg`; an extern instantiated in the
  argument itself (``Wrap(counter(4, CounterType.packets)) w;``) becomes an object named
  ``<instance>.<parameter>`` (``I.w.c``), as p4c names it;
* an instantiation argument is elaborated as a sub-control/sub-parser of the receiving
  block, named ``<block>.<parameter>`` -- :meth:`block_param` records it with the
  constructor arguments folded in the caller's scope, :meth:`bind_ctor_args` elaborates it
  when the receiving block starts; an already bound sub-block passes on unchanged.

An extern instance may also be an *apply* argument (``control C(inout H h, register<T> r)``
applied as ``c.apply(h, reg1)``; p4c accepts it): :meth:`bind_apply_objects` finds the
object at the enclosing control's apply calls and binds the parameter as for a constructor
argument (every apply of the instance must pass the same object).

At top level, extern objects may be instantiated (they are named without a block
prefix, as p4c names them); a parser or control may not (p4c: "cannot instantiate at
top-level") -- :meth:`top_instance`.
"""
from __future__ import annotations

from .ast import Node, annotation
from .errors import P4CompileError
from .elab_common import E, expr_text, INTLIT, is_bits, newtype_name, Scope, tstr, V1_OBJECTS


class CtorRules:
    def top_instance(self, d: Node) -> None:
        tname = d.type.name if d.type.kind == "typename" else None
        if tname in V1_OBJECTS:
            if self.global_scope.lookup(d.name) is not None:
                raise E(d.loc, f"{d.name} declared twice at top level")
            self.declare_instance(d, "", self.global_scope)
            return
        if tname == "V1Switch":   # a second package instance: p4c type-checks it, its BMv2 back end builds `main`
            self.check_other_package(d)
            return
        udecl = self.externs.get(tname) if tname else None
        if udecl is not None and udecl.kind == "extern_obj":   # a program's own extern (user_extern_instance)
            if d.name in self.global_scope.names:
                raise E(d.loc, f"{d.name} declared twice at top level")
            self.user_extern_instance(udecl, d, self.global_scope)
            return
        pkg = next((x for x in self.decls if x.kind == "package" and x.name == tname), None) if tname else None
        if pkg is not None:
            self.check_own_package(pkg, d)
            return
        ent = self.global_scope.lookup(tname) if tname else None
        if ent is not None and ent[0] in ("parser", "control"):
            raise E(d.loc, f"{d.name}: cannot instantiate {ent[0]} {tname} at top level (only extern objects "
                           "and the package 'main' may be instantiated there)")
        raise E(d.loc, f"{d.name}: cannot instantiate {tname or d.type.kind} at top level (only extern "
                       "objects and the package 'main' may be instantiated there)")

    def check_own_package(self, pkg: Node, d: Node) -> None:
        """An instance of a program's own package besides ``main``: p4c type-checks it and its
        BMv2 back end builds ``main`` only, so nothing is built of it (helper errs20: was refused).
        An argument count or a constant for a parser/control parameter that does not fit is
        p4c's "Constructor invocation ... does not match declaration", named at the package."""
        ps = list(pkg.get("params") or ())
        args = list(d.get("args") or ())
        need = [p for p in ps if p.get("default") is None]
        bad = len(args) > len(ps) or len(args) < len(need)
        for p, a in zip(ps, args):
            if self.block_kind_of(p.type) is not None and not (isinstance(a, Node) and a.kind in ("call", "name")):
                bad = True
        if bad:
            raise E(pkg.loc, f"'package {pkg.name}': constructor invocation {d.name} does not match the declaration")

    def block_kind_of(self, type_node: Node) -> str | None:
        """``"control"``/``"parser"`` when a parameter type names a parser/control type."""
        if type_node.kind != "typename":
            return None
        if type_node.name in self.block_types:
            return self.block_types[type_node.name]
        ent = self.global_scope.lookup(type_node.name)
        if ent is not None and ent[0] in ("parser", "control"):
            raise E(type_node.loc, f"a parameter cannot have type {ent[0]} {type_node.name}: declare a "
                                   f"{ent[0]} type (e.g. '{ent[0]} {type_node.name}_t(...);') and use that")
        return None

    def block_param(self, p: Node, a: Node, scope, blk: Node, qname: str | None = None):
        """Scope entry for a parser/control-typed constructor parameter, or None."""
        kind = self.block_kind_of(p.type)
        if kind is None:
            return None
        if a.kind == "call" and a.fn.kind == "name":
            ent = self.global_scope.lookup(a.fn.name)
            if ent is None or ent[0] != kind:
                raise E(a.loc, f"constructor argument {p.name} of {blk.name}: {a.fn.name} is not a {kind}")
            self.check_block_arg_type(p, ent[1], blk)
            consts = self.ctor_constants(ent[1], a.args, scope, a.loc, f"{qname}.{p.name}" if qname else None)
            return ("ctor_block", kind, ent[1], consts, a.loc)
        if a.kind == "name":
            ent = scope.lookup(a.name)
            if ent is not None and ent[0] in ("ctor_block", "sub" + kind):
                decl = ent[2] if ent[0] == "ctor_block" else self.__dict__.get("sub_decls", {}).get(id(ent[1]))
                if decl is not None:
                    self.check_block_arg_type(p, decl, blk)
                return ent
            if ent is not None and ent[0] == kind:
                raise E(a.loc, f"constructor argument {p.name} of {blk.name}: instantiate {a.name} "
                               f"(e.g. {a.name}()) or pass an instance")
        raise E(a.loc, f"constructor argument {p.name} of {blk.name} must be an instance of a {kind}, "
                       f"e.g. Name(args)")

    def block_type_decl(self, type_node: Node) -> Node | None:
        """The ``control T(...);`` / ``parser T(...);`` declaration a parameter type names."""
        return next((d for d in self.decls if d.kind in ("control_type", "parser_type") and d.name == type_node.name), None)

    def check_block_arg_type(self, p: Node, arg_decl: Node, blk: Node) -> None:
        """The parser/control given for constructor parameter ``p`` of ``blk`` has the parameters
        (directions and types) of ``p``'s parser/control type.  p4c unifies the two and names
        the receiving block's declaration ("Type of argument ... does not match type of
        parameter ...")."""
        tdecl = self.block_type_decl(p.type)
        if tdecl is None or tdecl.get("tparams") or arg_decl.get("tparams"):
            return

        def sig(d):
            return [(q.direction or "", self.resolve_type(q.type)) for q in d.params]
        want, got = sig(tdecl), sig(arg_decl)
        if want != got:
            show = lambda ps: ", ".join(f"{d + ' ' if d else ''}{tstr(t)}" for d, t in ps)   # noqa: E731
            raise E(blk.loc, f"{blk.kind} {blk.name}: constructor argument for {p.name} is {arg_decl.kind} "
                             f"{arg_decl.name}({show(got)}), which does not match the type of parameter {p.name}: "
                             f"{tdecl.name}({show(want)})")

    def stub_ctor_args(self, blk: Node) -> list | None:
        """Constructor arguments for ``blk`` checked on its own (elab_order): a control-typed
        parameter bound to an instance with the control type's parameters and no body (its
        applies are type-checked against the type, as p4c checks the declaration); None when
        some parameter is of another kind."""
        out = []
        for p in blk.get("ctor_params") or ():
            tdecl = self.block_type_decl(p.type) if p.type.kind == "typename" else None
            if tdecl is None or tdecl.kind != "control_type" or tdecl.get("tparams"):
                return None
            params = [{"name": q.name, "py": "p_" + q.name, "t": self.resolve_type(q.type), "dir": q.direction or "in"}
                      for q in tdecl.params]
            out.append((p.name, ("subcontrol", {"name": f"{blk.name}.{p.name}", "params": params, "fn": "stub",
                                                "locals": [], "body": []})))
        return out

    def stub_ctor_constants(self, blk: Node) -> list | None:
        """Zero stand-ins for a block's constructor parameters of scalar types (a type variable
        included: elab_order checks a generic block on its own); None for any other kind."""
        out = []
        for p in blk.get("ctor_params") or ():
            t = self.resolve_type(p.type)
            if t[0] not in ("bit", "int", "bool", "tvar", "int_lit"):
                return None
            out.append((p.name, ("const", {"op": "const", "v": False if t[0] == "bool" else 0, "t": t})))
        return out

    def extern_arg(self, p: Node, a: Node, t, scope, blk: Node, qname: str | None = None, gen: bool = False):
        ty = None
        if a.kind == "call" and a.fn.kind == "name" and a.fn.name == t[1]:
            ty = Node("typename", a.fn.loc, name=t[1], args=list(a.targs or []))
        elif a.kind == "call" and a.fn.kind == "type_expr" and a.fn.type.kind == "typename" \
                and a.fn.type.name == t[1]:  # register<bit<8>>(4): the parser saw a type first
            ty = a.fn.type
        if ty is not None and t[1] in V1_OBJECTS and qname:
            # an extern instantiated in the argument itself: p4c names it <instance>.<parameter>
            inst = Node("instance", a.loc, type=ty, args=a.args, name=self.generated_name(p.name) if gen else p.name,
                        annos=[])
            tmp = type(scope)(scope)
            self.declare_instance(inst, qname, tmp)
            return tmp.lookup(inst.name)
        ent = scope.lookup(a.name) if a.kind == "name" else None
        if ent is None or ent[0] != "object" or ent[1] != t[1]:
            raise E(a.loc, f"constructor argument {p.name} of {blk.name} must be an instance of {t[1]}")
        return ent

    def bind_ctor_args(self, consts, scope) -> None:
        """Bind a block's constructor parameters in its scope (``self.ctx`` is the block)."""
        for name, ent in consts:
            if ent[0] == "ctor_block":
                _, kind, node, sub_consts, loc = ent
                if kind != self.ctx.get("kind"):
                    raise E(loc, f"a {kind} instance can only be applied inside a {kind}")
                self.sub_block(kind, node, name, f"{self.ctx['block']}.{name}", sub_consts, scope, loc)
            else:
                scope.add(name, ent)
                self.ctx.setdefault("ctor_names", set()).add(name)   # (early_constant)

    def sub_block(self, kind: str, node: Node, name: str, q: str, consts, scope, loc, bindings=None) -> None:
        """Elaborate an instance of ``node`` inside the current block, bound to ``name``
        (``bindings``: the type arguments of a generic ``control C<T>``, by parameter)."""
        attr = "subcontrols" if kind == "control" else "subparsers"
        subs = getattr(self, attr, None)
        if subs is None:
            subs = []
            setattr(self, attr, subs)
        if len(subs) > 256:
            raise E(loc, f"too many sub-{kind} instances (recursive instantiation?)")
        active = self.__dict__.setdefault("_active_subs", [])
        if any(n is node for n in active):   # p4c rejects a block that instantiates itself
            raise E(loc, f"{kind} {node.name} instantiates itself (recursive instantiation)")
        active.append(node)
        try:
            self._sub_block(kind, node, name, q, consts, scope, loc, bindings, subs)
        finally:
            active.pop()

    def _sub_block(self, kind, node, name, q, consts, scope, loc, bindings, subs) -> None:
        saved_bindings = getattr(self, "type_bindings", None)
        if bindings:
            self.type_bindings = {**(saved_bindings or {}), **bindings}
        try:
            if kind == "control":
                blk = self.elab_control(node, self.ctx["role"], prefix=q, consts=consts)
                blk["fn"] = f"run_sub_{len(subs)}"
            else:
                blk = self.elab_parser(node, prefix=q, consts=consts)
                blk["fn"] = f"run_subparser_{len(subs)}"
        finally:
            self.type_bindings = saved_bindings
        subs.append(blk)
        self.__dict__.setdefault("sub_decls", {})[id(blk)] = node   # (check_block_arg_type)
        scope.add(name, ("sub" + kind, blk))

    def bind_apply_objects(self, ctl: Node, iname: str, q: str, scope: Scope) -> None:
        """A control parameter of an extern object type (p4c accepts ``control C(inout H h,
        register<bit<8>> r)`` applied as ``c.apply(h, reg1)``): the object is found at the
        enclosing control's ``iname.apply(...)`` calls and bound while the instance's body is
        elaborated (all the calls must pass the same instance)."""
        kinds = ("register", "counter", "meter", "direct_counter", "direct_meter")
        idx = [i for i, p in enumerate(ctl.params) if p.direction is None and p.type.kind == "typename"
               and p.type.name in kinds]
        outer = self.ctx.get("node")
        if not idx or outer is None:
            return
        bound = self.__dict__.setdefault("apply_bound_objects", {})
        for n in _ast_nodes(outer.get("body")):
            fn = n.get("fn") if n.kind == "call" else None
            if not (isinstance(fn, Node) and fn.kind == "member" and fn.name == "apply"
                    and isinstance(fn.get("base"), Node) and fn.base.kind == "name" and fn.base.name == iname):
                continue
            args = list(n.args or ())
            for i in idx:
                pname = ctl.params[i].name
                arg = next((a.value for a in args if a.kind == "named_arg" and a.name == pname), None)
                if arg is None and i < len(args) and args[i].kind != "named_arg":
                    arg = args[i]
                ent = scope.lookup(arg.name) if arg is not None and arg.kind == "name" else None
                if ent is None and arg is not None and arg.kind == "name":
                    ent = self._declare_later_object(outer, arg.name, scope)
                if ent is None or ent[0] != "object" or ent[1] != ctl.params[i].type.name:
                    raise E((arg or n).loc, f"{iname}.apply: argument {pname} must name a "
                                            f"{ctl.params[i].type.name} instance")
                old = bound.setdefault((q, pname), ent)
                if old[2] is not ent[2]:
                    raise E(arg.loc, f"{iname}.apply: every apply of this instance must pass the same "
                                     f"{ctl.params[i].type.name} as {pname} on the embedded target")
                self.bind_declared_register(ctl.params[i], ent, n, iname, (q, pname))

    def bind_declared_register(self, p: Node, ent: tuple, call: Node, iname: str, key: tuple) -> None:
        """A ``register<T>`` parameter given a register of another value type (p4c_mutate seed 156:
        ``control B(..., register<error> reg)`` applied with a ``register<bit<8>>``): p4c types the
        body with T first -- a read or write there that does not fit T is its error -- and then the
        apply's argument ("Cannot cast implicitly").  The body sees a copy of the object with the
        declared type; the apply's error waits in ``register_arg_errors`` (apply_subcontrol)."""
        targs = p.type.get("args") or []
        if p.type.name != "register" or not targs:
            return
        vt = self.resolve_type(targs[0])
        it = self.resolve_type(targs[1]) if len(targs) > 1 else None
        rec = ent[2]
        want = vt[2] if vt[0] == "serenum" else vt
        got_it = ent[3] or ["bit", 32]
        same_bits = want == rec["vt"] and (it is None or it == got_it)
        if same_bits and (vt[1] if vt[0] == "serenum" else None) == rec.get("enum"):
            return
        if same_bits:
            # another type over the same bits (a serializable enum, or its bits): p4c casts the
            # argument implicitly, then types the body again with the argument's T -- a read or a
            # write there must fit both (mutz25's open item; in code p4c keeps: an unused action's
            # is fine, register_result_type)
            self.apply_bound_objects[key] = (ent[0], ent[1], dict(
                rec, enum=vt[1] if vt[0] == "serenum" else None, actual=_register_type(rec)), got_it)
            return
        from .elab_common import tstr
        wrong = (tstr(rec["vt"]), tstr(vt)) if want != rec["vt"] or vt[0] == "serenum" or rec.get("enum") else \
            (tstr(got_it), tstr(it))
        self.__dict__.setdefault("register_arg_errors", {})[key] = E(
            call.loc, f"{iname}.apply: argument {p.name}: Cannot cast implicitly type register<{wrong[0]}> "
                      f"to type register<{wrong[1]}> (p4c)")
        copy = dict(rec, vt=want, width=want[1] if len(want) > 1 and isinstance(want[1], int) else rec["width"],
                    enum=vt[1] if vt[0] == "serenum" else None)
        self.apply_bound_objects[key] = (ent[0], ent[1], copy, it or got_it)

    def register_result_type(self, rec: dict, lt, loc) -> list:
        """``register.read``'s result type ``lt`` checked against the register's T (p4c unifies an
        ``out`` argument: exactly T, a ``register<SerEnum>`` takes that enum, not its bits nor
        another enum over them -- mutz26) and, for a sub-control's parameter bound to a register
        of another T over the same bits, the argument's T too; the bits the cell holds."""
        for i, want in enumerate([_register_type(rec)] + ([rec["actual"]] if rec.get("actual") else [])):
            if lt != want:
                err = (loc, f"register {rec['name']} holds {tstr(want)}, result is {tstr(lt)} (p4c: "
                            "the result's type does not match the register's)")
                if not i:
                    raise E(*err)
                self.target_error(*err)   # (p4c's second typing sees only the code it keeps)
        return lt[2] if lt[0] == "serenum" else lt

    def register_value(self, rec: dict, arg: Node, scope) -> dict:
        """``register.write``'s value: a ``register<SerEnum>`` takes only that enum's values (p4c:
        "values of type 'bit<8>' cannot be implicitly cast to type 'E'"); an enum's value goes
        into a register of its bits."""
        from .elab_common import expr_text
        ir, t = self.expr(arg, scope)
        for i, want in enumerate([_register_type(rec)] + ([rec["actual"]] if rec.get("actual") else [])):
            if want[0] in ("serenum", "enum") and t != want:
                err = (arg.loc, f"{expr_text(arg)}: values of type {tstr(t)} cannot be implicitly cast to type "
                                f"{tstr(want)} (p4c)")
                if not i:
                    raise E(*err)
                self.target_error(*err)
        if t[0] == "enum":   # (a plain enum's number, into its register's 32-bit cells)
            return ir
        return self.coerce((ir, t), rec["vt"], arg.loc)

    def _declare_later_object(self, outer: Node, name: str, scope: Scope):
        """An extern instance of the enclosing control declared after the sub-control's instance
        (``S() s; register<bit<8>>(8) r;`` ... ``s.apply(h, r)``): p4c accepts it (it binds the
        object where the apply is); it is declared now, before the sub-control's body is elaborated,
        and skipped when the locals reach it (elab_control), where its records move to the end of
        their lists: the P4Info lists objects in declaration order, as p4c."""
        d = next((d for d in (outer.get("locals") or ()) if isinstance(d, Node) and d.kind == "instance"
                  and d.name == name and d.type.kind == "typename" and d.type.name in V1_OBJECTS), None)
        if d is None:
            return None
        early = self.__dict__.setdefault("early_locals", {})
        before = {k: len(v) for k, v in self.objects.items()}
        early[id(d)] = self.declare_instance(d, self.ctx["block"], scope)
        self.__dict__.setdefault("early_objects", {})[id(d)] = [
            (k, r) for k, v in self.objects.items() for r in v[before.get(k, 0):]]
        return scope.lookup(name)

    def place_early_objects(self, d: Node) -> None:
        """The locals reached an instance :meth:`_declare_later_object` declared early: its records
        go where its declaration stands in the objects' order (after those of the sub-control
        instances declared before it)."""
        for k, r in self.__dict__.get("early_objects", {}).pop(id(d), ()):
            lst = self.objects[k]
            lst.append(lst.pop(next(i for i, x in enumerate(lst) if x is r)))

    # -- block parameters and constructor arguments (moved from elab_blocks) ----------------
    def param_default(self, rec: dict, p: Node) -> None:
        """Remember a parser/control parameter's default value (an AST node, kept out of the
        IR record, which goes into the JSON device config)."""
        if getattr(p, "default", None) is not None:
            self.__dict__.setdefault("block_param_defaults", {})[id(rec)] = p.default
        elif annotation(p.get("annos") or [], "optional") and p.direction in ("out", "inout"):
            # left out of a control's apply(): p4c passes a temporary, as for `_` (errs23 f_ctl_opt_out);
            # a parser's apply() left without it makes p4c die (apply_subparser)
            self.__dict__.setdefault("block_param_defaults", {})[id(rec)] = Node("dontcare", p.loc, optional=True)
            self.__dict__.setdefault("optional_block_params", set()).add(id(rec))
        elif annotation(p.get("annos") or [], "optional") and p.direction in (None, "in"):
            self.__dict__.setdefault("optional_block_params", set()).add(id(rec))
            # an @optional `in` parameter may be left out of apply(): p4c inlines the block and
            # the parameter reads as an unwritten scalar, which is zero on BMv2
            t = self.resolve_type(p.type)
            lit = Node("bool_lit", p.loc, value=False) if t[0] == "bool" else \
                Node("int", p.loc, value=0, width=None, signed=False) if t[0] in ("bit", "int") else None
            if lit is not None:
                self.__dict__.setdefault("block_param_defaults", {})[id(rec)] = lit

    def with_defaults(self, params: list) -> list:
        got = self.__dict__.get("block_param_defaults", {})
        return [dict(p, default=got.get(id(p))) for p in params]

    def check_type_arity(self, t: Node, tname: str | None, inst: str | None = None) -> None:
        """An extern object is specialized with exactly as many type arguments as the
        included v1model.p4 declares for it -- which depends on V1MODEL_VERSION, as in p4c
        (default 20180101: ``counter``/``meter`` untyped, ``register<T>``)."""
        decl = self.externs.get(tname) if tname else None
        if decl is None or decl.kind != "extern_obj":
            return
        want, got = len(decl.tparams or ()), len(t.get("args") or ())
        if want == got or (got == 0 and tname not in V1_OBJECTS):
            return   # (a program's own extern infers T from its constructor: user_extern_instance)
        ent = self.global_scope.lookup("__v1model_version")
        v = ent[1]["v"] if ent and ent[0] == "const" else None
        ver = f" (V1MODEL_VERSION {v})" if v is not None else ""
        hint = ""
        if tname in ("counter", "meter", "register") and v is not None:
            if got > want and v < 20200408:
                hint = ("; the typed forms counter<I>, meter<I>, register<T, I> need "
                        "'#define V1MODEL_VERSION 20200408' before '#include <v1model.p4>'")
            elif got < want and v >= 20200408:
                hint = ("; with V1MODEL_VERSION >= 20200408 the index type is explicit: "
                        "counter<I>, meter<I>, register<T, I>")
        err = E(t.loc, f"type {tname} has {want} type parameter(s) in v1model.p4{ver}, "
                       f"but it is specialized with {got}{hint}")
        ctx = getattr(self, "ctx", None) or {}
        if tname in ("counter", "meter") and got == 0 and inst is not None and not ctx:
            # a top-level instance: p4c names it after the blocks declared before the end of the
            # program (a constructor parameter `counter c` it is passed to first; declare_all)
            self.__dict__.setdefault("untyped_top", []).append(err)
            return
        if tname in ("counter", "meter") and got == 0 and inst is not None and ctx.get("node") is not None:
            # p4c infers the index type I from a use: it refuses the first method call of an
            # instance used ("'c.count'"), an unused one at its declaration ("could not infer a
            # type for variable I"); object_call raises it at the use (mutz19)
            use = next((n for n in _ast_nodes(self.ctx["node"]) if n.kind == "call" and n.fn.kind == "member"
                        and n.fn.base.kind == "name" and n.fn.base.name == inst), None)
            if use is not None:
                self.__dict__.setdefault("untyped_uses", {})[id(use)] = E(use.loc, f"{inst}.{use.fn.name}: could "
                                                                                  f"not infer a type for variable I{hint}")
                return
        if tname == "register" and got == 0 and inst is not None:
            # `register(4) r;`: p4c's type checker leaves T to the uses and names the first method
            # call ("'r.write' ... Cannot cast implicitly type 'bit<8>' to type 'T'"), an unused
            # instance at its declaration ("could not infer a type for variable T"; errs23)
            self.untyped_register_use(inst, f"Cannot cast implicitly to type 'T' (register {inst} has no type argument){hint}")
        raise err

    def untyped_register_use(self, inst: str, message: str) -> None:
        """A register whose T is not given (``register(4) r;``, ``register<_>(4) r;``): p4c names the
        first method call of the instance in the current block, if any."""
        node = (getattr(self, "ctx", None) or {}).get("node")
        use = next((n for n in _ast_nodes(node) if n.kind == "call" and n.fn.kind == "member"
                    and n.fn.base.kind == "name" and n.fn.base.name == inst), None) if node is not None else None
        if use is not None:
            raise E(use.loc, f"{inst}.{use.fn.name}: {message}")

    def check_block_param_types(self, d: Node) -> None:
        """A parser's or control's parameter of a generic extern type needs its type arguments
        (``(counter c)`` with V1MODEL_VERSION >= 20200408, ``(register r)``): p4c's "Type
        parameters needed for c", at the block's declaration, used or not; and as many as
        v1model.p4 declares (``(counter<bit<32>> c)`` before 20200408)."""
        for p in list(d.get("ctor_params") or ()) + list(d.params or ()):
            t = p.type
            self.block_kind_of(t)   # (a control/parser declaration as a type: p4c refuses it; errs26)
            decl = self.externs.get(t.name) if t.kind == "typename" else None
            if decl is not None and decl.kind == "extern_obj" and decl.tparams and not t.get("args"):
                raise E(p.loc, f"Type parameters needed for {p.name} (its type {t.name} takes "
                               f"{len(decl.tparams)} type argument(s) in v1model.p4)")
            if decl is not None and decl.kind == "extern_obj" and t.get("args"):
                self.check_type_arity(t, t.name)   # (`counter<bit<32>> c` before 20200408)

    def ctor_constants(self, blk: Node, args, scope: Scope, loc, qname: str | None = None,
                       gen: bool = False) -> list:
        """Constructor arguments of a parser/control instance: compile-time constants,
        extern instances and parser/control instantiations (see :mod:`.elab_ctor`), bound
        by name inside the instance (P4-16 "Constructor parameters").  ``qname``: the
        instance's control-plane name (an extern instantiated in an argument is named
        ``<qname>.<parameter>``, as p4c names it; ``gen``: a block p4c specializes, where it is
        ``<qname>.<parameter>_<n>``)."""
        cps = getattr(blk, "ctor_params", None) or []
        # (p4c names a constructor invocation that does not match -- a count, a name, a type --
        # at the block's declaration: "'control Sub' ... k: No argument supplied for parameter";
        # helper errs20: was the instance)
        at = blk.loc if isinstance(blk, Node) and blk.kind in ("control", "parser") else loc
        args = _named_ctor_args(blk, args, cps, at)
        if len(args) < len(cps) and all(p.get("default") is not None for p in cps[len(args):]):
            args = list(args) + [p.default for p in cps[len(args):]]   # omitted: the default values
        if len(args) != len(cps):
            raise E(at, f"{blk.kind} {blk.name} takes {len(cps)} constructor argument(s), got {len(args)}")
        out = []
        for p, a in zip(cps, args):
            bt = self.block_param(p, a, scope, blk, qname)
            if bt is not None:
                out.append((p.name, bt))
                continue
            t = self.resolve_type(p.type)
            if t[0] == "extern":
                out.append((p.name, self.extern_arg(p, a, t, scope, blk, qname, gen)))
                continue
            if t[0] in ("struct", "list"):
                out.append((p.name, ("const", self.struct_ctor_arg(p, a, t, blk, scope))))
                continue
            if t == ["string"]:   # (p4c compiles it; helper errs21, errs20's open item t7 string_ctor)
                ent = scope.lookup(a.name) if a.kind == "name" else None
                if ent and ent[0] == "const" and ent[1].get("t") == t:   # the enclosing block's own
                    a = Node("str", a.loc, value=ent[1]["v"])
                bad = next((x for x in self.decls if x.kind == "const" and x.get("name") == a.get("name")
                            and x.type.kind == "string"), None) if a.kind == "name" and not ent else None
                if bad is not None:   # (p4c has no string constants: its error at the constant; pe2)
                    raise E(bad.value.loc, f"{bad.name}: Cannot evaluate initializer for constant (p4c 1.2.4.8 "
                                           "has no constants of type error or string)")
                if a.kind != "str":
                    raise E(at, f"{blk.kind} {blk.name}: constructor argument {p.name}: type mismatch: "
                                f"expected string, got {expr_text(a)}")
                out.append((p.name, ("const", {"op": "const", "v": a.value, "t": t})))
                continue
            if t[0] not in ("bit", "int", "bool", "int_lit", "match_kind", "serenum", "enum", "error"):
                raise E(a.loc, f"constructor parameter {p.name} of {blk.name}: type {tstr(t)} is not supported "
                               "(bit<N>, int<N>, int, bool, an enum, error and match_kind only)")
            ir, it = self.expr(a, scope)
            if it == INTLIT and newtype_name(t):   # `CT(3) c;` of a `type` parameter: named at the block (errs23)
                self.untyped_newtype_arg((ir, it), t, at)
            # an `int` parameter takes a sized constant too (p4c casts it: S(8w3))
            try:
                v = self.fold(self.coerce((ir, it), t, a.loc) if t != INTLIT or not is_bits(it) else ir)
            except P4CompileError as e:
                if not e.message.startswith("type mismatch"):
                    raise
                raise E(at, f"{blk.kind} {blk.name}: constructor argument {p.name}: {e.message}") from None
            if v is None:
                raise E(a.loc, f"constructor argument {p.name} of {blk.name} must be a compile-time constant")
            out.append((p.name, ("const", {"op": "const", "v": v, "t": t})))
        return out


    def struct_ctor_arg(self, p: Node, a: Node, t, blk: Node, scope) -> dict:
        """A struct or tuple constructor argument: a compile-time constant of the parameter's type
        (``Sub((k_t){ a = 1, b = 2 })``, a struct constant, ``{ 1, 2 }`` for a tuple).  p4c cannot
        type an untyped ``{ a = 1, .. }`` there ("could not infer a type for expression"), and takes
        a bare ``{ 1, 2 }`` given for a struct as a tuple, so a field of it the block reads is its
        type error at the read ("Cannot extract field b from { 8w1, 8w2 } which has type tuple")
        (helper errs20, /work/e20 t7: checkmate-p4c refused every struct parameter)."""
        if a.kind == "struct_init":
            raise E(a.loc, f"{expr_text(a)}: could not infer a type for expression; please specify it explicitly")
        uses = [n for n in _ast_nodes([blk.get("body"), blk.get("locals"), blk.get("states")])
                if n.kind == "member" and isinstance(n.get("base"), Node) and n.base.kind == "name"
                and n.base.name == p.name] if t[0] == "struct" else []
        if a.kind == "list" and uses:
            raise E(uses[0].loc, f"Cannot extract field {uses[0].name} from {expr_text(a)} which has type tuple "
                                 f"(constructor argument {p.name} of {blk.name})")
        if len(uses) > 1:   # (p4c 1.2.4.8's def-use pass dies on a second field read of the argument; t8)
            raise E(a.loc, f"Compiler Bug: def_use.h:499: Expression {expr_text(a)} write set already set "
                           f"(p4c 1.2.4.8: two field reads of struct constructor argument {p.name} of {blk.name})")
        ir = self.declared_constant(t, a, scope)
        if ir is None:
            raise E(a.loc, f"constructor argument {p.name} of {blk.name} must be a compile-time constant")
        return ir


def _named_ctor_args(blk: Node, args, cps, loc) -> list:
    """Named constructor arguments (``X(k = 8w1)``) in parameter order, an omitted one taking
    its default value: all named or none, each once, every parameter without a default given."""
    named = [a for a in args if isinstance(a, Node) and a.kind == "named_arg"]
    if not named:
        return args
    if len(named) != len(args):
        raise E(loc, f"{blk.name}: either all constructor arguments are named or none is")
    by = {}
    for a in named:
        if a.name in by:
            raise E(a.loc, f"{blk.name}: constructor argument {a.name} given twice")
        if a.name not in {p.name for p in cps}:
            raise E(loc, f"{blk.name}: no constructor parameter named {a.name}")
        by[a.name] = a.value
    out = []
    for p in cps:
        if p.name not in by and p.get("default") is None:
            raise E(loc, f"{blk.name}: constructor parameter {p.name} is not given")
        out.append(by.get(p.name, p.get("default")))
    return out


def _ast_nodes(v):
    """Every AST node under ``v``."""
    if isinstance(v, Node):
        yield v
        for x in v._attrs.values():
            yield from _ast_nodes(x)
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _ast_nodes(x)


def _register_type(rec: dict) -> list:
    """A register record's T: its cells' bits, the serializable enum over them, or a plain enum
    (its member's number in 32-bit cells, as p4c's JSON has it)."""
    if rec.get("plain_enum"):
        return ["enum", rec["plain_enum"]]
    return ["serenum", rec["enum"], rec["vt"]] if rec.get("enum") else rec["vt"]
