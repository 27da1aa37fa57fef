"""Calls: actions called directly, functions, sub-control and sub-parser apply, and what
p4c's BMv2 back end allows of them inside an action (its ifs are predicated: a method or
extern call there, also one inlined from a function's body, is a target error).

A mixin of :class:`switch.compiler.elaborate.Elaborator` (split from ``elab_statements``):
``self`` holds the program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

import copy

from .ast import Node
from .elab_common import custom_crc, BOOL, E, expr_text, INTLIT, ir_dicts, Scope, tstr
from .direct_apply import applied_table, listed_object
from .subcontrol_copies import end_copies_after
from .errors import P4CompileError
from .predication import drop_dead_stores

ALGO = ["enum", "HashAlgorithm"]
CLONE_TYPE = ["enum", "CloneType"]


class CallRules:
    def conditional_in_action(self, loc, what: str, always: bool = False, inlined: bool = False,
                              init_lhs=None) -> None:
        """p4c's BMv2 backend predicates the ifs of an action (also what follows a conditional
        `return`): assignments only; a method or extern call there is a target error.  A
        function's body is inlined where it is called, so a call in it is recorded on the
        function (``action_call``: conditional inside the function itself or not) and judged at
        each call in an action (``always``: conditional whatever the call site).  Such an
        ``inlined`` body is judged after an unconditional ``exit`` too (p4c removes only what
        follows a ``return`` unchecked; fuzz_exprs seed 5030: a function whose ``out`` header
        parameter gets an initializer, called under an ``if`` after the action's ``exit``).
        ``init_lhs``: the header a header initializer writes (:meth:`judge_init_ops`)."""
        cond = always or self.ctx.get("if_depth") or self.ctx.get("cond_return")
        skipped = self.ctx.get("after_return") if inlined else self.ctx.get("dead")
        if self.ctx.get("in_action") and not skipped and cond and init_lhs is not None:
            # a header initializer under a condition of the action itself: judged at each call
            # (judge_init_ops; a table listing the action: ElabOutput.finish)
            self.actions[self.ctx["in_action"]].setdefault("cond_init_ops", []).append((loc, what, init_lhs))
        elif self.ctx.get("in_action") and not skipped and cond:
            self.target_error(loc, f"{what}: conditional execution in actions is not supported on this "
                                   "target (p4c: Conditional execution in actions unsupported on this target)")
        elif self.ctx.get("in_action") and not self.ctx.get("dead"):
            self.note_action_call(loc, what, init_lhs)
        elif self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions and \
                not self.ctx.get("dead"):   # (dead: after a statement that always returns)
            rec = self.functions[self.ctx["block"]]
            if not rec.get("action_call") or (cond and not rec["action_call"][0]):
                rec["action_call"] = (bool(cond), what)

    def conditional_operand(self, n: Node, scope):
        """``self.expr(n)`` for what p4c evaluates only on a condition: the right operand of
        ``&&``/``||`` and the arms of ``?:`` whose condition it does not fold (its
        SideEffectOrdering turns a call there into an ``if``), so a function called there whose
        body holds a method or extern call is conditional execution in an action (fuzz_exprs
        seed 2741: ``if (x == 1 || f(h))`` with ``h.setValid()`` in ``f``)."""
        ctx = getattr(self, "ctx", None)
        if not isinstance(ctx, dict):
            return self.expr(n, scope)
        depth = ctx.get("if_depth", 0)
        ctx["if_depth"] = depth + 1
        try:
            return self.expr(n, scope)
        finally:
            ctx["if_depth"] = depth

    def note_action_call(self, loc, what: str, init_lhs=None) -> None:
        """An action's body holds (unconditionally) something p4c's BMv2 backend refuses under
        a condition -- an exit, a method or extern call: p4c inlines the action into an action
        that calls it, where a call under an if or after a conditional return is then that
        target error (:meth:`direct_action`).  A header initializer is judged per call site
        (``init_ops``, :meth:`judge_init_ops`)."""
        a = self.actions[self.ctx["in_action"]]
        if init_lhs is not None:
            a.setdefault("init_ops", []).append((loc, what, init_lhs))
        else:
            a.setdefault("cond_op", (loc, what))

    def judge_init_ops(self, q: str, args: list) -> None:
        """The header initializers of action ``q``'s body at a call from another action: under a
        condition there, the BMv2 target error as for ``cond_op`` -- unless the call copies an
        ``out``/``inout`` argument back into that same header and ``q``'s body only ever assigns
        it whole: p4c's def-use pass then drops the initializer as a dead store after inlining
        the call (fuzz_exprs seed 5470: ``hdr.stk[2] = {...}`` in ``c0a0(inout el_t q0)``, called
        as ``c0a0(hdr.stk[2])`` after a conditional ``return``)."""
        a, caller = self.actions[q], self.ctx.get("in_action")
        outs = {repr(x["e"]) for x in args if x.get("dir") in ("out", "inout")}
        # (none after an exit in the control: p4c's def-use drops the initializer as unreachable;
        # nor in a branch p4c folds away, `if (false) { a0(..); }`: fuzz_exprs seed 12990)
        if self.ctx.get("folded_branch"):
            return
        for loc, what, lhs in live_cond_init_ops(a) if not (self.ctx.get("dead") or self.ctx.get("after_exit")) else ():
            # conditional in ``q`` itself: the same dead store, or the target error at this call
            # (fuzz_exprs seed 8015: ``hdr.stk[0] = {...}`` after a conditional ``return`` in
            # ``a1(inout el_t q0)``, called as ``a1(hdr.stk[0])`` from the control)
            if repr(lhs) not in outs or not _only_assigned_whole(a["body"], lhs):
                self.target_error(loc, f"{what}: conditional execution in actions is not supported on this target "
                                       "(p4c: Conditional execution in actions unsupported on this target)")
        if not caller or self.ctx.get("after_return") or not a.get("init_ops"):
            return
        for loc, what, lhs in a["init_ops"]:
            if repr(lhs) in outs and _only_assigned_whole(a["body"], lhs):
                continue
            self.judge_predicated(loc, what, q, caller)

    def judge_predicated(self, loc, what: str, q: str, caller: str) -> None:
        """``what`` (at ``loc``, in action ``q`` called from action ``caller``) is predicated once p4c
        inlines the call: the BMv2 target error under a condition, else noted for the caller's callers."""
        if self.ctx.get("if_depth") or self.ctx.get("cond_return"):
            self.target_error(loc, f"{what} (in action {q}, called under a condition in action {caller}): "
                                   "conditional execution in actions is not supported on this target "
                                   "(p4c: Conditional execution in actions unsupported on this target)")
        elif not self.ctx.get("dead"):
            self.note_action_call(loc, what)

    # -- a HashAlgorithm parameter given to hash(), a CloneType one to clone() (p4c: inlining
    # makes it one constant) -----------------------------------------------------------------
    def note_algo_param(self, var_ir: dict, param: dict) -> None:
        """Remember that ``var_ir`` (a scope variable) is the HashAlgorithm or CloneType parameter
        ``param`` of an action, function or control: hash() or clone() may take it (see
        :meth:`hash_algorithm`, :meth:`clone_type`)."""
        if var_ir.get("t") == CLONE_TYPE:   # (an action's is held as bit<32>: its "t" says no enum)
            self.__dict__.setdefault("clone_params", {})[id(param)] = []   # clone()s taking it: (name, loc, arg loc)
        if var_ir.get("t") in (ALGO, CLONE_TYPE):
            self.__dict__.setdefault("algo_params", {})[id(var_ir)] = (var_ir, param)

    def _algo_param(self, n: Node, scope):
        ent = scope.lookup(n.name) if n.kind == "name" else None
        got = self.__dict__.get("algo_params", {}).get(id(ent[1])) if ent and ent[0] == "var" else None
        return got[1] if got is not None and got[0] is ent[1] else None

    def hash_algorithm(self, n: Node, scope):
        """hash()'s algorithm: a member's name, or -- for a HashAlgorithm parameter of the
        enclosing action / function / control -- ``{"dyn": the parameter, "names": member
        names by value}``, chosen when the hash runs.  p4c inlines the callable, so every call
        must pass a constant (:meth:`check_algo_arg`); the parameter is marked for that."""
        if not self.enums.get("HashAlgorithm", {}).get("file", "v1model.p4").endswith("v1model.p4"):
            # p4c's BMv2 back end turns an enum declared outside a file named v1model.p4 into a
            # bit<32> number, and then finds no algorithm name for hash() (p4c 1.2.4.8 dies on it:
            # "Null ei"; later p4c: this message -- testdata/p4_16_bmv_errors/issue5464-hash-bmv2)
            raise E(n.loc, f"{expr_text(n)}: expected a HashAlgorithm member. Are you using an up-to-date "
                           "v1model.p4? (HashAlgorithm is declared outside v1model.p4)")
        try:
            return custom_crc(self.enum_member(n, "HashAlgorithm", scope))
        except P4CompileError:
            p = self._algo_param(n, scope)
            if p is None:
                raise
        p["algo_dyn"] = True
        members = self.enums["HashAlgorithm"]["members"]
        names = [None] * (max(members.values()) + 1)
        for m, v in members.items():
            names[v] = custom_crc(m)
        return {"dyn": self.expr(n, scope)[0], "names": names}

    def clone_type(self, n: Node, scope, name: str, loc):
        """clone()'s CloneType: a member's name, or None for a CloneType parameter of the enclosing
        action or function (``action a(CloneType ct) { clone(ct, 5); }``, errs23's open item): p4c
        inlines each call and its constant propagation gives the clone the argument there, so
        :meth:`check_algo_arg` judges each call's argument, with the ingress/egress check of
        ``clone_type_check`` at this clone (the runtime's clone does not depend on the type)."""
        try:
            return self.enum_member(n, "CloneType", scope)
        except P4CompileError:
            p = self._algo_param(n, scope)
            if p is None:
                raise
        p["algo_dyn"] = True
        self.clone_params[id(p)].append((name, loc, n.loc))
        return None

    def clone_param_error(self, p: dict, table: str, action: str):
        """The error of a table listing an action whose directionless CloneType parameter ``p``
        reaches a clone(): p4c's, at the clone's argument (None for any other parameter)."""
        checks = self.__dict__.get("clone_params", {}).get(id(p))
        if not checks:
            return None
        return E(checks[0][2], f"{p['name']}: must be a constant on this target. Are you using an up-to-date "
                               f"v1model.p4? (p4c: table {table} lists action {action}, whose parameter "
                               f"{p['name']} the control plane sets)")

    def check_algo_arg(self, p: dict, arg: Node, scope, kind: str) -> None:
        """The argument of a HashAlgorithm parameter that reaches a hash(): a constant, as p4c
        needs once it has inlined the call, or the caller's own such parameter (then its
        callers are checked).  A function or control takes a local whose value p4c's constant
        propagation knows; an action does not (p4c keeps the local, and its BMv2 back end
        cannot hold an enum variable)."""
        if not p.get("algo_dyn"):
            return
        outer = self._algo_param(arg, scope)
        if outer is not None:
            outer["algo_dyn"] = True
            if id(outer) in self.__dict__.get("clone_params", {}):
                self.clone_params[id(outer)] += self.clone_params.get(id(p), [])
            return
        clones = self.__dict__.get("clone_params", {}).get(id(p))
        enum = "HashAlgorithm" if clones is None else "CloneType"
        ent = scope.lookup(arg.name) if arg.kind == "name" else None
        if not (kind == "action" and ent is not None and ent[0] == "var"):
            try:
                member = self.enum_member(arg, enum, scope)
            except P4CompileError:
                pass
            else:
                for name, loc, _ in clones or ():
                    self.clone_type_check(name, member, self.ctx.get("role"), loc)
                return
        raise E(arg.loc, f"{expr_text(arg)}: the {enum} given to {kind} parameter '{p['name']}' (used by "
                         f"{'clone' if enum == 'CloneType' else 'hash'}()) is chosen at run time (p4c: Unimplemented "
                         "compiler support: type not yet handled on this target)")

    def function_in_action(self, f: dict, loc) -> None:
        """A call of function ``f``: its body's method/extern calls as if written here."""
        if f.get("action_call"):
            always, what = f["action_call"]
            self.conditional_in_action(loc, f"{what} (in function {f['name']}, inlined here)", always, inlined=True)
        if f.get("action_switch") and not self.ctx.get("dead"):
            # p4c inlines the function first: its switch is then one in the action
            if self.ctx.get("in_action"):
                self.target_error(f["action_switch"], f"switch statement in function {f['name']}, inlined into "
                                  "an action: switch statements are not supported in actions on this target "
                                  "(p4c: SwitchStatement: switch statements not supported in actions)")
            elif self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions:
                self.functions[self.ctx["block"]].setdefault("action_switch", f["action_switch"])

    def direct_invocation(self, kind: str, node: Node, name: str, call: Node, scope) -> dict:
        """``C.apply(...)`` on a control/parser type without constructor parameters: an
        instance named after the type inside the current block (``ingress.C``, as p4c names
        it), created at the first such call of the block.  Constructor parameters that all have
        default values take them (p4c accepts ``C.apply(h)`` for ``control C(..)(bit<8> k = 3)``)."""
        if any(getattr(p, "default", None) is None for p in getattr(node, "ctor_params", None) or ()):
            raise E(call.loc, f"{kind} {name} has constructor parameters: instantiate it to apply it")
        made = self.ctx.setdefault("direct_instances", {})
        q = f"{self.ctx['block']}.{name}"
        again = None
        if name not in made:
            tmp = Scope(self.ctx["scope"])
            consts = self.ctor_constants(node, [], scope, call.loc, q) if getattr(node, "ctor_params", None) else []
            self.sub_block(kind, node, name, q, consts, tmp, call.loc)
            made[name] = tmp.lookup(name)
        elif (dup := listed_object(self, q, made[name][1])) is not None:
            # p4c: an instance per application, all named q (direct_apply)
            raise E(call.loc, f"name '{dup[1]}' is used for more than one {dup[0]} object in the P4Info: "
                              f"each direct application of {kind} {name} is an instance of its own, named {q}")
        elif (t := applied_table(self, q, made[name][1])) is not None:   # (a @hidden one: direct_apply)
            self.load_refusal(getattr(call.fn, "loc", None) or call.loc, f"each direct application of {kind} {name} is an instance of its own, "
                                        f"named {q}: Duplicate objects of type 'control node' with name '{t}' "
                                        "(simple_switch refuses p4c's JSON)")
            again = self.ctx.setdefault("direct_again", {})
            again[name] = again.get(name, 0) + 1
        ent = made[name]
        if kind == "control":
            out = self.apply_subcontrol(ent[1], call, scope)
            return dict(out, instance=again[name]) if again else out
        return self.apply_subparser(ent[1], call, scope)

    def out_arg(self, arg: Node, p: dict, scope, call_loc=None, **extra) -> dict:
        """The out/inout argument ``arg`` of parameter ``p`` of an action, function or control:
        its lvalue (of the parameter's type) and, for a header-union member, the ``siblings``
        its copy-back makes invalid -- p4c copies it back with assign_header, which on BMv2
        marks a valid member valid and so its union's other members invalid.  ``call_loc``: a
        function's call, where p4c names an argument that cannot be assigned to (an action's
        argument is named where it is)."""
        if arg.kind == "dontcare" and self.ctx.get("dontcare_decls") is not None:
            return {"dir": p["dir"], "e": self.dontcare_local(p["t"]), **extra}   # p4c: a temporary
        lv, lt = self.lvalue(arg, scope) if call_loc is None else self.out_lvalue(arg, scope, call_loc)
        if lt == ["bit", 1] and self.is_bool_header_field(lv):
            lt = BOOL   # p4c: a header field declared bool is a bool l-value
        if lt != p["t"]:
            raise E(arg.loc, f"argument for {p['dir']} parameter {p['name']} has type "
                             f"{tstr(lt)}, expected {tstr(p['t'])}")
        out = {"dir": p["dir"], "e": lv, **extra}
        if lt[0] == "header" and "py" not in extra:   # (an action's or function's: copied back; elab_load_refusals)
            self.note_element_store(lv, arg.loc)
        if sib := self.union_siblings(lv):
            out["siblings"] = sib
        return out

    def dontcare_local(self, t) -> dict:
        """A hidden local of type ``t`` standing for a ``_`` argument of a call statement (p4c gives
        it a temporary: what an out parameter writes is dropped, an action's in parameter reads an
        uninitialized value), declared just before the call."""
        self.tmp += 1
        # (a parser's locals are plain names: no control locals object `L` there -- `r.read(_, 0)` in a
        # parser state dropped every packet; errs62_dead_register_reads_in_a_parser)
        py = f"{'' if self.ctx.get('kind') == 'parser' else 'L.'}v{self.tmp}__dontcare"
        self.ctx["dontcare_decls"].append({"s": "decl", "n": py, "t": t, "init": None})
        return {"op": "var", "n": py, "t": t}

    def apply_subcontrol(self, blk: dict, call: Node, scope) -> dict:
        if self.ctx.get("in_action"):
            raise E(call.loc, f"{expr_text(call.fn)}: apply cannot be called from actions")
        call = self.positional(call, self.with_defaults(blk["params"]), f"{blk['name']}.apply")
        if len(call.args) != len(blk["params"]):
            raise E(call.loc, f"{blk['name']}.apply takes {len(blk['params'])} argument(s), "
                              f"got {len(call.args)}")
        args, outs = [], []
        for arg, p in zip(call.args, blk["params"]):
            if p.get("bound_object"):   # an extern instance, bound when the instance was elaborated
                ent = scope.lookup(arg.name) if arg.kind == "name" else None
                if ent is None or ent[0] != "object" or ent[2]["name"] != p["bound_object"]:
                    raise E(arg.loc, f"{blk['name']}.apply: {p['name']} must be {p['bound_object']} here")
                err = self.__dict__.get("register_arg_errors", {}).get((blk["name"], p["name"]))
                if err is not None:
                    raise err
                continue
            if p["dir"] in ("out", "inout"):
                args.append(self.out_arg(arg, p, scope, py=p["py"]))
                outs.append((args[-1]["e"], arg.loc))
            else:
                self.check_algo_arg(p, arg, scope, "control")
                # (a directionless parameter takes a compile-time constant: const_arg)
                args.append({"dir": "in", "e": self.const_arg(self.coerce(self.expr(arg, scope), p["t"], arg.loc), p, arg),
                             "py": p["py"]})
        apply = {"s": "apply_control", "fn": blk["fn"], "args": args}
        self.note_aliased_element_args(outs, apply)   # (elab_load_refusals)
        if (end := end_copies_after(blk, apply)) is not None:
            apply["copies"] = end   # (the body's single-case switch copies go on after it: switch_copies.propagate_copies)
        return apply

    def apply_subparser(self, blk: dict, call: Node, scope) -> dict:
        given = {a.name for a in call.args if a.kind == "named_arg"} or \
            {p["name"] for p in blk["params"][:len(call.args)]}
        opt = self.__dict__.get("optional_block_params", set())
        if any(id(p) in opt and p["name"] not in given for p in blk["params"]):
            raise E(call.loc, f"{blk['name']}.apply: an @optional argument left out of a parser's apply (p4c dies: exit 245)")
        call = self.positional(call, self.with_defaults(blk["params"]), f"{blk['name']}.apply")
        if len(call.args) != len(blk["params"]):
            raise E(call.loc, f"{blk['name']}.apply takes {len(blk['params'])} argument(s), "
                              f"got {len(call.args)}")
        args, outs, invalid, dirs, dies = [], [], [], [], None
        for arg, p in zip(call.args, blk["params"]):
            if p["t"] == ["extern", "packet_in"]:
                continue  # the sub-parser continues on the same packet and offset
            dirs.append(p.get("pdir") or "in")
            if arg.kind == "dontcare" and p.get("pdir") in ("out", "inout") and \
                    self.ctx.get("dontcare_decls") is not None:
                # `sp.apply(pkt, _)`: p4c gives the out argument a temporary (errs62 h_dc_subparser_out)
                arg = None
                lv, lt = self.dontcare_local(p["t"]), p["t"]
            if arg is None and p.get("copy_out"):
                outs.append(lv)
                args.append(lv if p["copy_out"] == "inout" else {"op": "const", "v": 0, "t": p["t"]})
            elif arg is None:
                args.append(lv)
                if p.get("out_header"):
                    invalid.append(lv)
            elif p.get("copy_out"):
                lv, lt = self.lvalue(arg, scope)
                if lt != p["t"]:
                    raise E(arg.loc, f"argument for {p['copy_out']} parameter {p['name']} has type "
                                     f"{tstr(lt)}, expected {tstr(p['t'])}")
                outs.append(lv)
                args.append(lv if p["copy_out"] == "inout" else {"op": "const", "v": 0, "t": p["t"]})
            elif p["t"][0] in ("struct", "header", "stack"):
                lv, lt = self.lvalue(arg, scope)
                if lt != p["t"]:
                    raise E(arg.loc, f"argument for {p['name']} has type {tstr(lt)}, expected "
                                     f"{tstr(p['t'])}")
                args.append(self.const_arg(lv, p, arg))
                if p.get("out_header") and lv.get("op") == "stack_next":
                    # p4c's remove_header of a "stack_field" [stack, "next"] where the inlined call
                    # starts: simple_switch 1.15.5 dies executing it, as for hs.next.setInvalid()
                    # (probed, helper errs26: s_sb_sp_stack_next)
                    dies = f"{expr_text(call.fn)}(.., {expr_text(arg)}): {expr_text(arg)}.setInvalid()"
                elif p.get("out_header"):
                    # p4c inlines the sub-parser: the `out` header argument (every header of an
                    # `out` struct) is made invalid where
                    # the call starts and then written in place, so a parser error before the
                    # sub-parser extracts it leaves it invalid (not as the caller had it)
                    invalid.append(lv)
            else:
                args.append(self.const_arg(self.coerce(self.expr(arg, scope), p["t"], arg.loc), p, arg))
        if dies is not None:
            return self.bmv2_dies(call.loc, dies, extern=False)[0]
        return {"s": "apply_parser", "fn": blk["fn"], "args": args, "outs": outs, "invalid": invalid, "dirs": dirs}

    def positional(self, call: Node, params: list, what: str, action: str | None = None) -> Node:
        """``call`` with its arguments in parameter order: named arguments (``f(y = 1, x = 2)``)
        placed by name, omitted ones filled from the parameters' default values.  ``action``: the
        called action's name -- p4c names an unknown argument name of an action call at the
        action's parameter list ("v, x: No parameter named w"), a function's at the call."""
        args = call.args
        named = [a for a in args if a.kind == "named_arg"]
        if not named and len(args) >= len(params):
            self.dontcare_args(call.args, params, what)
            return call
        if named and len(named) != len(args):
            raise E(call.loc, f"{what}: either all arguments are named or none is")
        by_name = {a.name: a.value for a in named}
        if len(by_name) != len(named):
            dup = next(a for i, a in enumerate(named) if a.name in {b.name for b in named[:i]})
            raise E(dup.loc, f"{what}: argument {dup.name} given twice (p4c: same argument name)")
        unknown = set(by_name) - {p["name"] for p in params}
        if unknown:
            at = self.__dict__.get("action_params_loc", {}).get(action) if action else None
            raise E(at or call.loc, f"{what} has no parameter {sorted(unknown)[0]}")
        out = []
        for i, p in enumerate(params):
            if named:
                v = by_name.get(p["name"])
            else:
                v = args[i] if i < len(args) else None
            if v is None:
                v = p.get("default")
                if isinstance(v, Node) and v.kind != "dontcare":
                    # (p4c types the default value at the call: a wrong type is named there,
                    # "'f' ... Type of argument 'b = 16w5' does not match"; helper errs20)
                    v = Node(v.kind, call.loc, **v._attrs)
            if v is None:
                err = E(call.loc, f"{what}: no argument for parameter {p['name']}")
                # (a directionless action parameter: p4c checks it after its strength reduction)
                err.unbound_directionless = p.get("dir") is None and what.startswith("action")
                raise err
            out.append(v)
        self.dontcare_args(out, params, what)
        return Node("call", call.loc, fn=call.fn, targs=getattr(call, "targs", []), args=out)

    @staticmethod
    def dontcare_args(args: list, params: list, what: str) -> None:
        """p4c: ``_`` is an argument for an ``out`` parameter only (issue774-1: ``f(_)``) -- of a
        function, extern, control or parser; p4c 1.2.4.8 takes it for any parameter of an action."""
        if what.startswith("action") or ": action " in what:
            return
        for arg, p in zip(args, params):
            if arg.kind == "dontcare" and "out" not in (p.get("pdir"), p.get("dir"), p.get("copy_out")) \
                    and not arg.get("optional"):   # (an @optional inout left out: elab_ctor.param_default)
                d = p.get("pdir") or p.get("dir") or "directionless"
                raise E(arg.loc, f"{what}: don't care argument is only allowed for out parameters "
                                 f"({p['name']} is {d})")

    def direct_action(self, q: str, call: Node, scope) -> dict:
        a = self.actions[q]
        caller = self.ctx.get("in_action")
        if caller and a["used"] is not True:
            # called from another action's body: used only if that one is (elab_output.live_actions)
            a["used"] = frozenset(a["used"] or ()) | {caller}
        else:
            a["used"] = a["self_used"] = True
        if caller and a.get("cond_op") and not self.ctx.get("after_return"):
            loc, what = a["cond_op"]
            # (after an unconditional exit too: p4c inlines the call and still sees it predicated)
            self.judge_predicated(loc, what, q, caller)
        unbound = None
        try:
            call = self.positional(call, a["params"], f"action {q}", q)
        except P4CompileError as e:
            if not getattr(e, "unbound_directionless", False) or self.ctx.get("dead_expr"):
                raise
            # p4c's "parameter must be bound" comes after it removes unused actions, unapplied
            # sub-controls and code after a return (p4c_mutate seed 152): a zero stands in and the
            # error waits on the call (settle_unbound_calls)
            call, unbound = self.positional(call, [_zero_default(p, call.loc) for p in a["params"]], f"action {q}", q), e
        if len(call.args) != len(a["params"]):
            raise E(call.loc, f"action {q} takes {len(a['params'])} argument(s), got {len(call.args)}")
        args = []
        # p4c copies the arguments into temporaries when the action has a parameter with a direction,
        # and inlines the call as it is when all are directionless: only then does a table applied in
        # an argument end up inside the action (gauntlet 2288b: `b(h.f, t.apply().hit ? 1 : 2)` with
        # `action b(inout bit<16> y, in bit<16> x)` is accepted, `b(t.apply().hit)` with `b(bool x)` not)
        inlined = not any(p["dir"] for p in a["params"])
        for arg, p in zip(call.args, a["params"]):
            if p["dir"] in ("out", "inout"):
                args.append(self.out_arg(arg, p, scope))
            else:   # a directionless bool (plain enum) parameter takes a bool (that enum)
                if p["t"] == ["string"]:   # (p4c inlines the call: the parameter becomes a variable)
                    raise E(p["loc"], f"{p['name']}: cannot declare variables with type string (p4c)")
                self.check_algo_arg(p, arg, scope, "action")
                saved = self.ctx.get("action_arg")
                self.ctx["action_arg"] = inlined   # p4c inlines the call: no table applied in an argument
                want = BOOL if p.get("bool") else ["enum", p["plain_enum"]] if p.get("plain_enum") else p["t"]
                try:
                    if arg.kind == "dontcare" and self.ctx.get("dontcare_decls") is not None:
                        e = self.dontcare_local(want)   # (p4c takes `_` for any action parameter)
                    else:
                        e = self.coerce(self.serenum_arg(self.expr(arg, scope), p, arg, f"action {q}", call.fn.loc),
                                      want, arg.loc)
                finally:
                    self.ctx["action_arg"] = saved
                args.append({"dir": "in", "e": e})
        self.judge_init_ops(q, args)
        self.check_action_divisions(q, args)   # (const_index: p4c inlines the call)
        self.refuse_metadata_param_copy(a, "action", call.loc)
        if caller and a.get("always_exits") and not self.ctx.get("if_depth") and not self.ctx.get("cond_return"):
            # p4c inlines the call: its exit ends the caller too, and what follows is removed
            # unchecked, as after the caller's own exit (fuzz_mutants seed 804: `a0(); if (..) {
            # x = x / 3; }` with an exit in a0 -- no "could not evaluate" from p4c)
            if not self.ctx.get("dead"):
                self.actions[caller]["always_exits"] = True
            self.ctx["dead"] = True
            if self.ctx.get("action_returns"):
                self.ctx["after_return"] = True
        if unbound is None:
            return {"s": "call_action", "action": q, "args": args}
        errs = self.__dict__.setdefault("unbound_errors", [])
        errs.append(unbound)
        return {"s": "call_action", "action": q, "args": args, "unbound": len(errs) - 1}

    def settle_unbound_calls(self, stmts: list) -> None:
        """The body ``stmts`` (a control's, an action's) is done: a direct action call still in it
        that left a directionless parameter without an argument is p4c's "parameter must be bound"
        (raised as a back-end error is: at once in a control, in an action once it is used, in a
        sub-control once it is applied); one in a ``switch``'s dropped rest (``p4info_rest``) was
        removed before.  The marks go."""
        first = None
        for n in ir_dicts(stmts):
            k = n.pop("unbound", None) if n.get("s") == "call_action" else None
            if k is not None and first is None and not _in_dropped_rest(stmts, n):
                first = self.unbound_errors[k]
        if first is not None:
            self.target_error(first.loc, first.message + " (p4c: parameter must be bound)")

    def deferred_function_error(self, f: dict) -> None:
        """A called function's deferred error: a missing ``return`` is p4c's only after type
        checking (a type error around the call comes first: p4c_mutate seed 403, `false ^ f(x)`),
        so it is kept as a late error; the others (back-end checks of its body) are raised here."""
        if self.ctx.get("dead_expr"):
            return
        for check in self.__dict__.get("fn_role_checks", {}).get(f["py"], ()):   # (elab_externs.ingress_or_egress_only)
            check(self.ctx.get("role"))
        pif = self.__dict__.get("fn_parser_ifs", {}).get(f["py"])
        if pif is not None and self.ctx.get("kind") == "parser":   # (elab_functions; errs27 g_if_*_fn)
            self.target_error(pif.loc, pif.message)
        err = f.get("deferred_error")
        if err is None:
            return
        if getattr(err, "positionless", False):   # (a deprecated call: in p4c's conversion order with
            # the caller's others, as if inlined here -- elab_externs.deprecated_call_error)
            if not self.defer_error(err) and err not in self.__dict__.get("body_deprecated_errors", []):
                err.block = self.ctx.get("block")
                err.seq = self.__dict__.setdefault("_deprecated_seq", [0])[0]
                self._deprecated_seq[0] += 1
                self.__dict__.setdefault("body_deprecated_errors", []).append(err)
            return
        if getattr(err, "missing_return", False):
            # p4c checks it on the code left after its front end removed unused actions and
            # unapplied sub-control instances (fuzz_exprs seed 8697: a call only in an unused
            # action of a sub-control; kept like a back-end error where one would be) and the
            # branches its constant folding and strength reduction decide (`if (8w1 == 2)`,
            # `if (x * 0 == 1)`: no error there, elab_statements.dead_branch)
            if not self.ctx.get("folded_branch") and not self.defer_error(err) and \
                    err not in self.__dict__.get("late_errors", []):
                self.note_late_error(err)
            return
        self.raise_deferred(err)

    def call_function_stmt(self, f: dict, call: Node, scope) -> dict:
        f = self.bind_int_params(f, call, scope)
        self.deferred_function_error(f)
        self.function_in_action(f, call.loc)
        call = self.positional(call, f["params"], f"function {f['name']}")
        if len(call.args) != len(f["params"]):
            raise E(call.loc, f"function {f['name']} takes {len(f['params'])} argument(s), got {len(call.args)}")
        args = []
        for arg, p in zip(call.args, f["params"]):
            if p["dir"] in ("out", "inout"):
                args.append(self.out_arg(arg, p, scope, call_loc=call.loc, t=p["t"]))
            else:
                self.check_algo_arg(p, arg, scope, "function")
                args.append({"dir": "in", "e": self.const_arg(self.arg_value(arg, p["t"], scope), p, arg),
                             "t": p["t"]})
        self.check_function_divisions(f, [a.get("e") if a.get("dir") == "in" else None for a in args])
        self.note_call_element_stores(f, [a.get("e") if a.get("dir") == "in" else None for a in args], args[0] if args else None)
        self.refuse_metadata_param_copy(f, "function", call.loc)
        self.refuse_function_metadata_locals(f)
        return {"s": "call_fn", "fn": f["py"], "args": args}

    def const_arg(self, ir, p: dict, arg: Node):
        """A function's directionless parameter takes a compile-time constant only (p4c:
        "argument used for directionless parameter ... must be a compile-time constant")."""
        if p["t"] in (["extern", "packet_out"], ["extern", "packet_in"]) and p.get("dir") == "in":
            # a packet_out/packet_in argument of a function: the caller's own (gen_functions)
            return {"op": "var", "n": "out" if p["t"][1] == "packet_out" else "data", "t": p["t"]}
        if p.get("const_arg") and self.fold(ir) is None and ir.get("op") not in ("list", "mk"):
            raise E(arg.loc, f"{expr_text(arg)}: argument used for directionless parameter '{p['name']}' "
                             "must be a compile-time constant (p4c)")
        return ir

    def call_function(self, f: dict, call: Node, scope, stmt: bool = False):
        if getattr(self, "ctx", None) is None:   # a global constant's initializer (errs23 g_int_fn_const_init)
            raise E(call.loc, f"{expr_text(call)}: Cannot evaluate initializer to a compile-time constant (a call of "
                              f"function {f['name']})")
        f = self.bind_int_params(f, call, scope)
        self.deferred_function_error(f)
        if f.get("ret") == INTLIT:   # `int g() {..}` called: p4c copies the value into a temporary it
            # cannot declare -- "tmp" (no line) for a value used, the inliner's "retval" at the
            # function for a call statement (errs23)
            if stmt:
                raise E(self.__dict__.get("function_locs", {}).get(f["py"]) or call.loc,
                        f"retval: Cannot declare variables with type int (p4c inlines {f['name']})")
            raise E(call.loc, f"{f['name']}: its value of type int goes into a temporary: tmp: Cannot declare "
                              "variables with type int (p4c)")
        if not any(p["dir"] in ("out", "inout") for p in f["params"]):
            self.function_in_action(f, call.loc)   # (call_function_stmt does it for the others)
        call = self.positional(call, f["params"], f"function {f['name']}")
        if len(call.args) != len(f["params"]):
            raise E(call.loc, f"function {f['name']} takes {len(f['params'])} argument(s), got {len(call.args)}")
        if any(p["dir"] in ("out", "inout") for p in f["params"]):
            st = self.call_function_stmt(f, call, scope)
            return {"op": "call_fn_out", "fn": f["py"], "args": st["args"], "t": f["ret"]}, f["ret"]
        for a, p in zip(call.args, f["params"]):
            self.check_algo_arg(p, a, scope, "function")
        args = [self.const_arg(self.arg_value(a, p["t"], scope), p, a) for a, p in zip(call.args, f["params"])]
        self.check_function_divisions(f, args)   # (const_index: p4c inlines the call)
        self.note_call_element_stores(f, args, args[0] if args else None)
        self.refuse_function_metadata_locals(f)
        return {"op": "call_fn", "fn": f["py"], "args": args, "t": f["ret"]}, f["ret"]


def _only_assigned_whole(body, lhs) -> bool:
    """Whether ``body`` (IR statements) uses the header ``lhs`` only as the target of whole
    assignments whose right-hand side does not read it (any other mention counts as a read)."""
    key = repr(lhs)
    writes = 0

    def walk(x):
        nonlocal writes
        if isinstance(x, dict):
            if x.get("s") == "assign" and repr(x.get("l")) == key:
                writes += 1
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(body)
    return repr(body).count(key) == writes


def _zero_default(p: dict, loc) -> dict:
    """Parameter ``p`` with a zero of its type as its default when it is a directionless one without
    an argument or default (a bit, int or bool; others stay unbound)."""
    if p.get("dir") is not None or p.get("default") is not None:
        return p
    t = p["t"]
    if p.get("bool") or t == ["bool"]:
        return dict(p, default=Node("bool_lit", loc, value=False))
    if t[0] in ("bit", "int"):
        return dict(p, default=Node("int", loc, value=0, width=None, signed=False))
    return p


def _in_dropped_rest(stmts: list, node: dict) -> bool:
    """Whether ``node`` is under some ``p4info_rest`` of ``stmts`` (statements p4c drops)."""
    return any(any(x is node for x in ir_dicts(d["p4info_rest"])) for d in ir_dicts(stmts) if d.get("p4info_rest"))


def live_cond_init_ops(a: dict) -> list:
    """The header initializers under a condition of action ``a`` (``cond_init_ops``: (loc, what, the
    header)) that p4c's front-end SimplifyDefUse keeps: one that every path overwrites before a read --
    a whole assignment of the header after the ``if`` -- is gone before its back end looks for a
    condition around it (helper fuzz50, fuzz_headers seed 11327: ``if (..) { hdr.s[0] = {..}; } else
    { .. } hdr.s[0] = hdr.s[1];`` compiles; ``predication.drop_dead_stores``, which the body's
    predication replays too)."""
    ops = a.get("cond_init_ops") or []
    if not ops or not a.get("body"):
        return ops
    kept = {repr(d["l"]) for d in ir_dicts(drop_dead_stores(copy.deepcopy(a["body"]))[0])
            if d.get("s") == "assign" and isinstance(d.get("r"), dict) and d["r"].get("op") == "mk"}
    return [op for op in ops if repr(op[2]) in kept]

