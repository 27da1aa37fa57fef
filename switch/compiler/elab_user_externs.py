"""A program's own externs: their instances (constructor arguments, type arguments, instance
initializers with abstract methods) and calls of their methods and functions, checked as p4c's
type checker checks them (split from elab_externs.py; :class:`UserExternRules` is a base of its
``ExternRules`` mixin of :class:`switch.compiler.elaborate.Elaborator`).
"""
from __future__ import annotations

from .ast import Node, annotation
from .checks_walk import _walk
from .errors import P4CompileError
from .extern_params import dontcare_error
from .elab_common import BOOL, E, expr_text, INTLIT, is_bits, Scope, tstr

def bind_extern_args(params: list, args: list) -> list | None:
    """The (parameter, argument) pairs of a call of a program's own extern method, function or
    constructor, or None when the declaration does not take the arguments: by position or all by
    name; a parameter left out must have a default value or be ``@optional`` (p4c's type checker
    takes the call; its BMv2 back end then refuses the extern at the declaration)."""
    named = [a for a in args if a.kind == "named_arg"]
    if named:
        by_name = {p.name: p for p in params}
        if len(named) != len(args) or any(a.name not in by_name for a in args):
            return None
        pairs = [(by_name[a.name], a.value) for a in args]
        given = {a.name for a in args}
        rest = [p for p in params if p.name not in given]
    else:
        if len(args) > len(params):
            return None
        pairs, rest = list(zip(params, args)), params[len(args):]
    if any(p.get("default") is None and not annotation(p.get("annos") or [], "optional") for p in rest):
        return None
    return pairs


class UserExternRules:
    def user_extern_instance(self, decl: Node, d: Node, scope) -> None:
        """``Ex(args) e;`` of an ``extern Ex { ... }`` the program declares: its constructor takes the
        arguments (by number); the instance is kept for its method calls."""
        ctors = [m for m in decl.methods if m.kind == "ctor"]
        if not any(bind_extern_args(c.params, d.args) is not None for c in ctors):
            raise E(d.loc, f"{d.name}: extern {decl.name} has no constructor taking {len(d.args)} argument(s)")
        for a in d.args:
            a = a.value if a.kind == "named_arg" else a
            ir, t = self.expr(a, scope)
            if is_bits(t) or t in (BOOL, INTLIT):   # (p4c's type checker; errs62 ct_*)
                if self.fold(ir) is None:
                    raise E(a.loc, f"{expr_text(a)}: cannot evaluate to a compile-time constant (an extern "
                                   "constructor's argument)")
        targs = d.type.get("args") or []
        tps = list(decl.get("tparams") or ())
        fits = [c for c in ctors if bind_extern_args(c.params, d.args) is not None]
        if len(fits) > 1:   # (p4c resolves overloads by their number of arguments; /work/e21 pd d_o_ctor_overload_ambiguous)
            raise E(decl.loc, f"Ambiguous method {decl.name} (its constructors taking {len(d.args)} argument(s); "
                              f"instance {d.name})")
        ctor = fits[0] if len(fits) == 1 else None
        if not targs and tps and ctor is not None:   # `Ex(8w1) e;`: p4c infers T from the arguments
            binds = self.infer_ctor_type_args(Node("ctor", ctor.loc, ctor_params=ctor.params), tps, d.args, scope)
            if len(binds) != len(tps):
                self.uninferred_extern_use(decl, d, tps)
                raise E(d.loc, f"{d.name}: extern {decl.name} takes {len(tps)} type argument(s), got 0")
        elif len(targs) != len(tps):
            if not targs:
                self.uninferred_extern_use(decl, d, tps)
            raise E(d.loc, f"{d.name}: extern {decl.name} takes {len(tps)} type argument(s), got {len(targs)}")
        else:
            binds = {tp: self.resolve_type(a) for tp, a in zip(tps, targs)}
        if ctor is not None:
            self.user_ctor_arg_types(ctor, d, scope, binds)
        self.instance_initializer(decl, d, scope, binds)
        inst = {"decl": decl, "name": d.name, "binds": binds}
        scope.add(d.name, ("user_extern", inst))
        # the instance itself, when no call of its methods is refused first (p4c's back end; not in
        # a sub-control instance p4c removes unapplied)
        err = E(decl.loc, f"{decl.name}: unknown extern instance")
        err.extern_instance = True   # (elab_output.finish: after its methods' errors in actions)
        inst["late_error"] = err   # (dropped when a checksum control's call of it is refused: target_error)
        ctx = getattr(self, "ctx", None) or {}
        if not (ctx.get("kind") == "control" and ctx.get("sub") and self.defer_error(err)):
            self.note_late_error(err)

    def user_ctor_arg_types(self, ctor: Node, d: Node, scope, binds: dict) -> None:
        """The arguments of a program's own extern's (only) constructor against its parameter
        types, T bound: p4c's type error names the instance ("'e' ... Type of argument '16w1'
        (bit<16>) does not match type of parameter 'init' (bit<8>)"), before its back end's
        "unknown extern instance" (helper errs20)."""
        saved = getattr(self, "type_bindings", None)
        self.type_bindings = {**(saved or {}), **binds}
        try:
            for p, a in bind_extern_args(ctor.params, d.args) or ():
                try:
                    self.coerce(self.expr(a, scope), self.resolve_type(p.type), a.loc)
                except P4CompileError as e:
                    raise E(d.loc, f"{d.name}: argument {p.name} of the constructor: {e.message}") from None
        finally:
            self.type_bindings = saved

    def instance_initializer(self, decl: Node, d: Node, scope, binds: dict) -> None:
        """``Ex() e = { bit<8> f(in bit<8> x) { ... } };``: the abstract methods of ``extern Ex``,
        checked as p4c's type checker does -- every abstract method given once, with its type
        (parameter names may differ), nothing else, and an initializer only for an extern that has
        abstract methods.  Each body is type-checked in the enclosing scope and then dropped: p4c
        compiles such an instance only where its back end never sees it (a control or parser nobody
        instantiates, a sub-control nobody applies; elsewhere "unknown extern instance")."""
        abstract = {m.name: m for m in decl.methods if m.kind == "method" and m.get("abstract")}
        init = d.get("init")
        if init is None:
            if abstract:
                raise E(d.loc, f"{d.name}: must declare abstract methods for {decl.name} (p4c)")
            return
        if not abstract:
            raise E(d.loc, f"{d.name}: instance initializers for extern without abstract methods (p4c)")
        seen = {}
        for f in init:
            if f.name in seen:
                raise E(f.loc, f"Duplicate declaration of {f.name}; previous at {seen[f.name]}")
            seen[f.name] = f.loc
            m = abstract.get(f.name)
            if m is None:
                raise E(f.loc, f"{f.name}: no matching abstract method in {decl.name}")

            def typ(n, binds=binds):
                return binds[n.name] if n.kind == "typename" and n.name in binds else self.resolve_type(n)
            if len(f.params) != len(m.params) or typ(f.ret) != typ(m.ret) or any(
                    (p.direction or "in") != (q.direction or "in") or typ(p.type) != typ(q.type)
                    for p, q in zip(f.params, m.params)):
                raise E(d.loc, f"{d.name}: method '{f.name}' does not have the expected type of {decl.name}'s "
                               f"abstract method {f.name} (p4c: Cannot unify)")
            self.check_abstract_body(f, scope, typ(f.ret), ("user_extern", {"decl": decl, "name": d.name, "binds": binds}))
        missing = [n for n in abstract if n not in seen]
        if missing:
            raise E(d.loc, f"{d.name}: {missing[0]} abstract method not implemented")

    def check_abstract_body(self, f: Node, scope, ret, this) -> None:
        """Type-check an abstract method's body as a function's, in ``scope`` (the enclosing
        control's; its local variables and actions are not: :meth:`abstract_body_names`; ``this``: the instance, whose methods the body may call),
        then drop it (:meth:`instance_initializer`)."""
        self.abstract_body_names(f, scope)
        iname = f"{f.name}__abstract{len(self.functions)}"
        fscope = Scope(scope)
        fscope.add("this", this)
        for p in f.params:
            t = self.resolve_type(p.type)
            fscope.add(p.name, ("var", {"op": "var", "n": f"f_{iname}_{p.name}", "t": t}, p.direction or "in"))
        self.functions[iname] = {"name": f.name, "py": "F_" + iname, "params": [], "ret": ret, "body": None}
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "function", "block": iname, "ret": ret, "scope": fscope, "apply_body": True}
        try:
            self.stmt(f.body, fscope)
        finally:
            self.ctx = saved
            del self.functions[iname]

    def abstract_body_names(self, f: Node, scope) -> None:
        """What p4c's abstract method body does not see of the enclosing control: its local
        variables ("q: declaration not found"; its constants, parameters, tables and instances are
        seen) and its actions ("aq: Functions cannot call actions"; errs62 probes ab_*)."""
        node = (getattr(self, "ctx", None) or {}).get("node")
        hidden = {x.name for x in (node.get("locals") or ()) if isinstance(x, Node) and x.kind == "var"} \
            if isinstance(node, Node) else set()
        hidden -= {p.name for p in f.params}
        for n in _walk(f.body):
            if n.kind == "name" and n.name in hidden:
                err = E(n.loc, f"{n.name}: declaration not found (an abstract method's body does not see the "
                               "control's local variables, p4c)")
                ctx = getattr(self, "ctx", None) or {}
                if ctx.get("kind") == "control" and ctx.get("sub"):   # (p4c: not in a sub-control nothing
                    # applies -- errs16_abstract_methods_initializer, errs62 ab2_*; defer_error)
                    self.__dict__.setdefault("block_errors", {}).setdefault(ctx["block"], err)
                    return
                raise err
            callee = n.get("fn") if n.kind == "call" else None
            if isinstance(callee, Node) and callee.kind == "name" and (scope.lookup(callee.name) or ("",))[0] == "action":
                raise E(n.loc, f"{callee.name}: Functions cannot call actions (in an abstract method's body, p4c)")

    def user_extern_call(self, ext, call: Node, scope, method: str | None = None, value: bool = False) -> None:
        """A call of an extern function (``ext``: its declaration) or of method ``method`` of an
        extern object instance (``ext``: the instance) the program declares: p4c type-checks the
        arguments, then its BMv2 back end refuses it at the declaration ("f: unknown extern
        function", "Unknown extern method m from type Ex") -- a :meth:`target_error`, so an unused
        action or a declaration nobody calls is no error (p4c compiles an unused instance)."""
        if method is None:
            decl, cands = ext, [ext]
            what, msg = ext.name, f"{ext.name}: unknown extern function"
        else:
            decl = ext["decl"]
            cands = [m for m in decl.methods if m.kind == "method" and m.name == method]
            what, msg = f"{ext['name']}.{method}", f"Unknown extern method {method} from type {decl.name}"
        args = [a.value if a.kind == "named_arg" else a for a in call.args]
        bound = {id(c): bind_extern_args(c.params, call.args) for c in cands}
        fits = [c for c in cands if bound[id(c)] is not None]
        if not fits:
            raise E(call.loc, f"{what}: extern {decl.name} does not have method matching this call" if method else
                    f"{what}: no declaration takes {len(args)} argument(s)")
        if method is not None and sum(len(c.params) == len(args) for c in fits) > 1:
            raise E(call.loc, f"Ambiguous method {method} (p4c: extern {decl.name} declares it twice with "
                              f"{len(args)} parameter(s))")   # (/work/e21 pd d_o_extern_method_dup_same_sig)
        m = fits[0]
        binds = dict(ext.get("binds", {})) if method is not None else {}
        if call.get("targs") and len(call.targs) == len(m.get("tparams") or ()):
            # `ov.put<bit<16>>(x)`: the call's type arguments (/work/e21 pd d_o_generic_put_explicit_mismatch)
            binds.update(zip(m.tparams, (self.resolve_type(x) for x in call.targs)))
        generic = set(m.get("tparams") or ()) | set(decl.get("tparams") or ())
        for p, a in bound[id(m)]:
            if a.kind == "dontcare":   # (p4c: a temporary for an out one, a type error for another; errs62 h_dc_*)
                if p.direction == "out":
                    continue
                raise dontcare_error(a.loc, what, p.name)
            if p.type.kind == "typename" and p.type.name in binds and p.direction not in ("out", "inout"):
                self.coerce(self.expr(a, scope), binds[p.type.name], a.loc)   # Ex<bit<8>>: T is bit<8>
            elif p.type.kind == "typename" and p.type.name in generic or p.type.kind == "dontcare":
                if self.expr(a, scope)[1] == INTLIT and p.type.kind == "typename":
                    raise E(a.loc, f"{expr_text(a)}: could not infer a width (p4c: for {what}'s parameter "
                                   f"{p.name} of type {p.type.name})")   # (pd d_o_generic_put_int)
            elif p.direction in ("out", "inout"):
                lv, lt = self.out_lvalue(a, scope, call.loc)
                if lt != self.resolve_type(p.type):
                    raise E(a.loc, f"type mismatch: {what} parameter {p.name} has type {tstr(self.resolve_type(p.type))}, "
                                   f"got {tstr(lt)}")
            else:
                self.arg_value(a, self.resolve_type(p.type), scope)   # (an untyped integer for a `type`: errs23)
        self.ctx["extern_call"] = ext if method is not None else None   # (target_error, checksum controls)
        if self.ctx.get("kind") == "parser" and method is not None:
            self.target_error(call.loc, f"{what}: not supported in parser on this target")
        elif value and method is None:   # (p4c's back end: a call whose value is used, at the call)
            self.target_error(call.loc, f"{ext.name}: not supported")
        elif value:
            self.target_error(call.loc, f"{ext['name']}: could not convert expression to Json")
        else:
            # p4c's JSON conversion refuses it, after its midend's checks (a conditional call in
            # an action: bf4's instrumented programs), so one in a control's body waits for those
            err = E(m.loc, msg)
            err.after_type_checking = True
            err.extern_method = method is not None
            if not self.defer_error(err):
                self.__dict__.setdefault("body_extern_errors", []).append(err)
        self.ctx.pop("extern_call", None)

    def uninferred_extern_use(self, decl: Node, d: Node, tps: list) -> None:
        """``X3() x3;`` of a generic ``extern X3<T>`` whose constructor does not give T: p4c infers it
        from the uses, naming the first method call whose type involves T ("Cannot cast implicitly
        type 'T' ..."), else the instance (/work/e21 pd d_o_extern_generic_type_noarg)."""
        from .elab_ctor import _ast_nodes
        lit = next((a for a in d.args if a.kind == "int" and not a.get("width")), None)
        if lit is not None:   # `X3(5) x3;` (pd d_o_extern_generic_type_ctor_int)
            raise E(lit.loc, f"{expr_text(lit)}: could not infer a width (instance {d.name} of extern {decl.name})")
        node = (getattr(self, "ctx", None) or {}).get("node")
        generic = {m.name for m in decl.methods if m.kind == "method" and any(
            n.kind == "typename" and n.get("name") in tps for n in _ast_nodes([m.get("ret"), m.params]))}
        use = next((n for n in _ast_nodes(node) if n.kind == "call" and n.fn.kind == "member"
                    and n.fn.base.kind == "name" and n.fn.base.name == d.name and n.fn.name in generic), None)
        if use is not None:
            raise E(use.loc, f"{expr_text(use.fn)}: Cannot cast implicitly type '{tps[0]}' (extern {decl.name}'s "
                             f"type parameter, not inferred for instance {d.name})")

    def user_extern_value(self, ret, ext, call: Node, scope, method: str | None = None):
        """:meth:`user_extern_call` in an expression: its value (a zero of the declared return type;
        the call is refused where it survives)."""
        self.user_extern_call(ext, call, scope, method, value=True)
        rt = self.resolve_type(ret) if isinstance(ret, Node) and ret.kind not in ("void", "typename") or (
            isinstance(ret, Node) and ret.kind == "typename" and ret.name not in (ext.get("tparams") or ())
            and not isinstance(ext, dict)) else None
        if rt is None or not (is_bits(rt) or rt[0] == "bool"):
            raise E(call.loc, f"{expr_text(call.fn)}: a value of this extern call cannot be used here")
        return {"op": "const", "v": False if rt[0] == "bool" else 0, "t": rt}, rt

