"""Statements and method calls: assignments, if (switch: ``elab_switch``), table apply, header validity, extern
object methods (their rules: ``elab_object_calls``; packet_in/packet_out: ``elab_packets``; action, function,
sub-control and sub-parser calls: ``elab_calls``).

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

import re

from .ast import Node
from .checks_decls import dead_division_by_zero
from .extern_params import by_position, METHODS
from .union_defuse import drop_dead_union_stores
from .dead_reads import drop_action_stores_before_extern_outs, drop_dead_indexed_reads, drop_stores_before_whole_copies
from .switch_cases import drop_unvisited_locals
from .switch_copies import drop_self_reading_copies, propagate_copies
from .union_copies import propagate_union_copies
from .elab_common import always_returns, ir_dicts, BOOL, E, expr_text, INTLIT, is_bits, live_prefix, mark_folded, pyname, Scope, tstr, V1_EXTERN_FUNCS, VOID
from .errors import P4CompileError
from .fold_conditions import ConditionFolding
from .elab_loops import leaves_loop, LoopRules
from .elab_switch import SwitchRules
from .elab_object_calls import ObjectCallRules
from .elab_expressions import NEXT_READ
from .header_init import fields_read, drop_stores_before_self_init, reads_header


class StatementRules(ConditionFolding, LoopRules, SwitchRules, ObjectCallRules):
    # ---------------------------------------------------------------- statements
    def stmt(self, s: Node, scope: Scope) -> list:
        if s.kind in ("assign", "var", "const", "if", "return"):
            # `_` given to an out parameter of a function called in an expression (`x = f(_)`,
            # `if (f(_) == 3)`): its hidden local is declared before the statement (p4c compiles
            # it; helper errs20 -- only call statements took `_`)
            saved = self.ctx.get("dontcare_decls")
            self.ctx["dontcare_decls"] = []
            try:
                out = self.stmt_inner(s, scope)
                return self.ctx["dontcare_decls"] + out
            finally:
                self.ctx["dontcare_decls"] = saved
        return self.stmt_inner(s, scope)

    def stmt_inner(self, s: Node, scope: Scope) -> list:
        k = s.kind
        self.stmt_scope = scope   # const_int's hint when a "constant" names a run-time value
        if k == "block":
            self.block_depth = getattr(self, "block_depth", 0) + 1
            try:
                out = self.block_stmt(s, scope)
            finally:
                self.block_depth -= 1
            if not self.block_depth and self.ctx.get("kind") != "parser" and not self.ctx.get("apply_body"):
                self.flush_divisions(parser=False)   # (a body is done: const_index.defer_division)
            return out
        if k == "empty":
            return []
        return self.simple_stmt(s, scope)

    def block_stmt(self, s: Node, scope: Scope) -> list:
        ctx = self.ctx
        root = not ctx.get("in_block")   # (the body's own block: header-union copies are walked from there)
        ctx["in_block"] = True
        try:
            return self._block_stmt(s, scope, root)
        finally:
            if root:
                ctx["in_block"] = False

    def _block_stmt(self, s: Node, scope: Scope, root: bool) -> list:
        inner = Scope(scope)
        out = []
        flags = None
        exit_flag, state_flag, plain_flag = (self.ctx.get(k) for k in ("after_exit", "no_midend_state", "after_plain_exit"))
        # (the statements before each one, for a single-case switch's entry copies -- elab_switch;
        # those before a plain block or an `if` whose arm this is come first: p4c's walk goes in)
        stmts_before = prev = self.ctx.get("stmts_before")
        outer = prev[2] + prev[1] if prev and (prev[0] is s or prev[0].kind == "if" and (
            s is prev[0].then or s is prev[0].els)) else []
        for i, x in enumerate(s.stmts):
            self.ctx["stmts_before"] = (x, out, outer)
            new = self.stmt(x, inner)
            out.extend(new)
            if self.ctx.get("loops") and any(leaves_loop(st) for st in new):
                self.dead_loop_rest(s.stmts[i + 1:], x.loc, inner)   # (unreachable: elab_loops)
                break
            if self.ctx.get("kind") == "control" and not self.ctx.get("in_action") and \
                    any(always_returns(st, exits=True, front=True) for st in new):
                # what follows an exit in a control is unreachable for p4c's def-use: a header
                # initializer of an action called there is a dead store, gone before its BMv2
                # back end looks for conditional execution (judge_init_ops; measured)
                self.ctx["after_exit"] = True
                if not self.ctx.get("exits_return") and any(_always_exits(st) for st in new):
                    # past an `exit` (a block holding one, an `if` whose arms both exit) in a body
                    # without a return p4c's mid end has no state: a HashAlgorithm local's value is
                    # unknown there (its back end: "Type_Enum ... not yet handled"; fuzz_mutants seed
                    # 2470 with --kinds cast_slice,exit_stmt,switch_wrap; elab_blocks.enum_member)
                    self.ctx["no_midend_state"] = True
                if any(_plain_exit(st) for st in new):
                    # past `exit;` (or a block holding one; not an `if` whose arms exit) p4c's JSON has
                    # none of the rest: no load refusal there (fuzz_mutants seed 2673, elab_load_refusals)
                    self.ctx["after_plain_exit"] = True
            if flags is None and (self.ctx.get("in_action") or self.ctx.get("kind") == "function") and \
                    any(always_returns(st) for st in new):
                # p4c's RemoveReturns drops the rest of a block after a statement that always
                # returns (`return;`, an `if` whose both branches do, also inside a branch)
                # before its BMv2 back end looks for conditional execution, in an action and in
                # a function inlined into one: the rest is elaborated (type-checked) but
                # unchecked (fuzz_exprs seed 3225); the enclosing block decides after it
                flags = (self.ctx.get("dead"), self.ctx.get("after_return"))
                self.ctx["dead"] = self.ctx["after_return"] = True
        self.ctx["stmts_before"] = stmts_before
        if flags is not None:
            self.ctx["dead"], self.ctx["after_return"] = flags
        self.ctx["after_exit"] = exit_flag
        self.ctx["no_midend_state"], self.ctx["after_plain_exit"] = state_flag, plain_flag
        # (what follows a return -- an exit too where the body holds a return -- is checked but dead)
        out = live_prefix(out, exits=bool(self.ctx.get("exits_return") and self.ctx.get("kind") == "control"
                                          and not self.ctx.get("in_action")))
        left: dict = {}
        if root and self.ctx.get("kind") == "control" and not self.ctx.get("in_action"):
            out = drop_unvisited_locals(out, lcp=False, actions=self.actions, tables=self.tables,
                                        prefix=self.ctx.get("block") or "",
                                        hdr_bytes=lambda t: self.headers[t[1]]["bytes"])   # (p4c's front end, before the mid end's copies)
        drop_self_reading_copies(out, self.inlined_for_copies)
        before, out = out, propagate_copies(out, left, self.inlined_for_copies)
        if root and self.ctx.get("kind") == "control" and not self.ctx.get("in_action"):
            self.ctx["end_copies"] = left   # (a sub-control's copy-backs read them: subcontrol_copies.copy_back_copies)
        self.follow_rebuilt_divisions(before, out)   # (const_index: the divisions pending keep their IR)
        if root:   # (one forward walk, as p4c's: union_copies._propagate goes into the nested blocks)
            out = propagate_union_copies(out, self.actions, lambda e: bool(self.union_siblings(e)),
                                         self.inlined_for_copies, self.struct_fields, self.tables)
        for d in ir_dicts(out):   # (copies left at the end of a branch's block stop at the join)
            if d.get("s") == "block":
                d.pop("copies", None)
        out = drop_dead_indexed_reads(out, lambda c: (self.subcontrol_of(c) or {}).get("body"))
        if root and self.ctx.get("kind") == "control" and not self.ctx.get("in_action"):
            drop_stores_before_whole_copies(out, lambda q: (self.actions.get(q) or {}).get("body"))
            drop_action_stores_before_extern_outs(out, self.inlined_for_copies)
        out = drop_stores_before_self_init(out, self.__dict__.get("self_inits", {}),
                                           lambda q: (self.actions.get(q) or {}).get("body"),
                                           lambda c: (self.subcontrol_of(c) or {}).get("body"), self.self_init_body_stores)
        out = drop_dead_union_stores(out, self.inlined_control, self.subcontrol_of, self.record_body_stores)
        self.check_const_indexes(out)
        # (copies that reach the block's end go on after it: switch_copies.propagate_copies)
        return [dict({"s": "block", "body": out}, **({"copies": left} if left and self.block_depth > 1 else {}))] \
            if out else []

    def assign_stmt(self, s: Node, scope: Scope, lhs: dict, lt: list) -> list:
        """The statements of assignment ``s`` into ``lhs`` (of type ``lt``)."""
        rhs_t = self.expr(s.rhs, scope)
        if lhs.get("op") == "slice" and (lhs["a"].get("t") or [None])[0] == "int":
            # p4c 1.2.4.8 casts the value to the signed base's type and cannot: no value goes
            # into a slice of an int<W> (p4c_mutate seed 53, a field made int<48>)
            raise E(s.rhs.loc, f"cannot assign to a slice of a value of type {tstr(lhs['a']['t'])} (p4c 1.2.4.8 "
                               f"casts the value to {tstr(lhs['a']['t'])}: 'Cannot unify type ...')")
        if rhs_t[1] == BOOL and lt == ["bit", 1] and self.is_bool_header_field(lhs):
            rhs_t = ({"op": "cast", "a": rhs_t[0], "t": lt}, lt)   # `h.flag = x == y;` for a bool field
        elif lt == ["bit", 1] and self.is_bool_header_field(lhs) and not self.is_bool_header_field(rhs_t[0]):
            # a field declared bool takes a bool only (p4c), though it is held in one bit
            raise E(s.rhs.loc, f"type mismatch: expected bool, got {tstr(rhs_t[1])}")
        enum = self.enum_of(lhs, lt) if lt[0] != "serenum" else None
        if enum and self.enum_of(*rhs_t) != enum:
            # a header field declared of a serializable enum (held as its bits) takes that enum's
            # values only, as in an initializer (fuzz_mutants seed 455: `hdr.eh.v = 8w1;`)
            raise E(s.rhs.loc, f"values of type {tstr(rhs_t[1])} cannot be implicitly cast to type {enum} (p4c)")
        both_bool_fields = lt == ["bit", 1] and self.is_bool_header_field(lhs) and self.is_bool_header_field(rhs_t[0])
        rhs = rhs_t[0] if both_bool_fields else self.coerce(rhs_t, lt, s.rhs.loc)
        if lt[0] == "enum" and lhs.get("op") == "var" and rhs.get("op") == "const" and \
                not self.ctx.get("if_depth") and not self.ctx.get("switch_depth") and not self.ctx.get("in_action"):
            self.__dict__.setdefault("enum_var_values", {})[lhs["n"]] = rhs["v"]   # `al = HashAlgorithm.x;`
        if lt[0] == "varbit" and lhs["op"] == "field" and rhs["op"] == "cond":
            return _varbit_choice(lhs, rhs, s.loc)   # (p4c: an if/else of two copies; errs23 c_vb_ternary)
        if lt[0] == "varbit" and (rhs["op"] != "field" or lhs["op"] != "field"):
            raise E(s.loc, "varbit values can only be copied from one header field to another")
        if lt[0] == "header" and rhs.get("op") == "mk" and lhs.get("op") == "stack_next":
            # p4c writes `hs.next = {...}` as hs.next.setValid() and then one field at a time,
            # and a field of hs.next is a read of next: "hs.next uninitialized: next field read"
            raise E(s.rhs.loc, NEXT_READ.format(expr_text(s.lhs)))
        if lt[0] == "header" and rhs.get("op") == "mk":   # p4c: setValid(), then the fields
            self.conditional_in_action(s.loc, f"{expr_text(s.lhs)}.setValid", init_lhs=lhs)
        if lt[0] == "header" and rhs.get("op") == "mk" and reads_header(rhs, lhs):
            # p4c 1.2.4.8 builds such an initializer in a temporary header that it never makes
            # valid (add_header h; tmp.f = ...; assign_header h = tmp): on BMv2 `h` ends invalid,
            # zeroed first by the add_header when it was invalid; its other fields keep their values
            bytes_ = self.headers[lt[1]]["bytes"]
            first = {"s": "setvalid", "h": lhs, "v": True, "siblings": self.union_siblings(lhs), "bytes": bytes_}
            # (an isValid() of the header reads no field: stores before it may be dead all the same;
            # fuzz_exprs seed 11101)
            self.__dict__.setdefault("self_inits", {})[id(first)] = (first, fields_read(rhs, lhs, validity=True),
                                                                    frozenset(f[0] for f in self.headers[lt[1]]["fields"]),
                                                                    rhs)   # (the initializer: mk_stores._view)
            return [first, {"s": "setvalid", "h": lhs, "v": False, "siblings": [], "bytes": bytes_}]
        if lt[0] == "header" and (sib := self.union_siblings(lhs)):
            # BMv2: a header union member made valid by an assignment invalidates the others
            return [{"s": "assign", "l": lhs, "r": rhs, "siblings": sib}]
        if lt[0] == "header" and rhs.get("op") != "mk":
            self.note_element_store(lhs, s.loc)   # (a run-time index: elab_load_refusals)
        return [{"s": "assign", "l": lhs, "r": rhs}]

    def simple_stmt(self, s: Node, scope: Scope) -> list:
        k = s.kind
        if k in ("for", "for_in", "break", "continue"):
            return self.loop_stmt(s, scope)
        if k == "var":
            t = self.resolve_type(s.type)
            if t == INTLIT:   # p4c: "Cannot declare variables with type int" (constants only)
                raise E(s.loc, f"{s.name}: cannot declare variables of type int (use bit<N>, or a const)")
            if t == ["string"] or t == VOID:
                raise E(s.loc, f"{s.name}: cannot declare variables of type {tstr(t)}")
            if t[0] == "list" and any(x[0] == "extern" for x in t[1]):
                raise E(s.loc, f"{next(x[1] for x in t[1] if x[0] == 'extern')}: not supported as a tuple field (p4c)")
            if t[0] == "extern":
                # (p4c, unused too: "e: cannot declare variables of type 'Ex' (consider using an
                # instantiation)", "Ex: not supported as a tuple field"; errs62 h_xt_*)
                raise E(s.loc, f"{s.name}: cannot declare variables of type '{tstr(t)}' (consider using an instantiation)")
            self.tmp += 1
            py = f"v{self.tmp}_{s.name}"
            if self.ctx.get("ctl_local"):
                py = "L." + py
            if t[0] == "varbit":
                # a box holding bits and length, used as a header's varbit field is: field `v`
                fld = {"op": "field", "base": {"op": "var", "n": py, "t": t}, "f": "v", "t": t}
                out = [{"s": "decl", "n": py, "t": t, "init": None}]
                if s.init is not None:
                    rhs = self.coerce(self.expr(s.init, scope), t, s.init.loc)
                    if rhs["op"] != "field":
                        raise E(s.init.loc, "a varbit variable can only be initialized from a varbit field "
                                            "or variable")
                    out.append({"s": "assign", "l": fld, "r": rhs})
                scope.declare(s.name, ("var", fld, "inout"), s.loc)
                return out
            if t[0] in ("list", "enum") and s.init is not None and (la := self.lookahead_tuple_store(s, scope)) is not None:
                return la
            init = None
            if s.init is not None:
                saved_unread = self.ctx.get("unread_local_init") if getattr(self, "ctx", None) else None
                if getattr(self, "ctx", None) is not None and self.mentions_match_kind(s.init) and \
                        self.local_never_read(s.name):
                    self.ctx["unread_local_init"] = True   # (match_kind_operand)
                mk = None if (getattr(self, "ctx", None) or {}).get("unread_local_init") else self.match_kind_store_begin(s.init)
                try:
                    init = self.expr(s.init, scope)
                    if init[1] == INTLIT and s.type.kind == "typename" and s.type.name in (getattr(self, "type_bindings", None) or {}):
                        # a type parameter's variable: p4c checks the generic body before it binds T
                        raise E(s.loc, f"{s.name}: 'int' type can only be unified with 'int', 'bit<>', or 'signed<>' "
                                       f"types, not with '{s.type.name}'")
                    init = self.coerce(init, t, s.init.loc)
                finally:
                    if getattr(self, "ctx", None) is not None:
                        self.ctx["unread_local_init"] = saved_unread
                if t[0] == "enum" and init.get("op") == "const":
                    # its value until something writes it (lvalue forgets it): p4c's constant
                    # propagation gives `hash(r, al, ...)` the algorithm of `HashAlgorithm al = ...`
                    self.__dict__.setdefault("enum_var_values", {})[py] = init["v"]
            var_ir = {"op": "var", "n": py, "t": t}
            if s.init is not None and (algo_param := self._algo_param(s.init, scope)) is not None:
                self.note_algo_param(var_ir, algo_param)   # `HashAlgorithm y = al;`: al's value
            scope.declare(s.name, ("var", var_ir, "inout"), s.loc)
            if t[0] == "struct" and (self.ctx or {}).get("kind") == "function":   # (refuse_function_metadata_locals)
                self.__dict__.setdefault("fn_local_decls", {})[py] = (s.name, s.loc)
            elif t == self.__dict__.get("user_meta_type"):   # (elab_load_refusals.refuse_metadata_local_copies)
                self.__dict__.setdefault("meta_local_decls", {})[py] = (s.name, s.loc)
            return self.match_kind_store_end(mk if s.init is not None else None, [{"s": "decl", "n": py, "t": t, "init": init}])
        if k == "const":
            t = self.resolve_type(s.type)
            ir = self.declared_constant(t, s.value, scope)
            if ir is None:
                raise E(s.value.loc, f"constant {s.name} is not a compile-time constant")
            scope.declare(s.name, ("const", ir), s.loc)
            self.__dict__.setdefault("const_decls", {})[id(ir)] = (ir, s.value)   # (a key's name: elab_tables)
            return []
        if k == "assign":
            if s.lhs.kind == "name" and (la := self.lookahead_tuple_store(s, scope)) is not None:
                return la
            lhs, lt = self.lvalue(s.lhs, scope)
            if lt[0] == "hview":   # a struct laid out in a header: assigned field by field
                return self.assign_view(lhs, lt, self.coerce(self.expr(s.rhs, scope), ["struct", lt[3]], s.rhs.loc),
                                        s.loc)
            if s.lhs.kind == "member" and s.lhs.name == "next" and lt[0] == "header":
                # p4c's assign_header into a "stack_field" ["hs", "next"]: simple_switch 1.15.5 loads it
                # and dies executing it, as for hs.next.setValid() (errs22 probe e_stk_next_assign_whole)
                self.assign_stmt(s, scope, lhs, lt)   # (its type checks)
                return self.bmv2_dies(s.loc, f"{expr_text(s.lhs)} = {expr_text(s.rhs)}", extern=False)
            mk = self.match_kind_store_begin(s.rhs)
            return self.match_kind_store_end(mk, self.assign_stmt(s, scope, lhs, lt))
        if k == "if":
            mk = self.match_kind_store_begin(s.cond, cond=True)
            c = self.coerce(self.expr(s.cond, scope), BOOL, s.cond.loc)
            mk = self.match_kind_cond_end(mk)
            depth = self.ctx.get("if_depth", 0)
            # an `if` p4c folds away (constant condition) is not conditional execution
            v = self.fold_condition(c)
            # (`(bool)1w0` folds to 0; p4c does not fold a match_kind comparison: mk_stores)
            v = None if v is None or self.match_kind_in(mk) else bool(v)
            self.ctx["if_depth"] = depth + (v is None)
            lenient = mark_folded(s, v, v is not None and _literal_condition(s.cond, scope))
            try:
                used, pending = {q: a.get("used") for q, a in self.actions.items()}, self.pending_snapshot()
                then = self.dead_branch(s.then, scope, lenient) if v is False else self.stmt(s.then, Scope(scope))
                if v is False:   # a dead branch calls no action (its deferred errors stay unraised)
                    self._restore_used(used)
                    self.pending_snapshot(pending)
                used, pending = {q: a.get("used") for q, a in self.actions.items()}, self.pending_snapshot()
                els = [] if s.els is None else self.dead_branch(s.els, scope, lenient) if v is True \
                    else self.stmt(s.els, Scope(scope))
                if v is True:
                    self._restore_used(used)
                    self.pending_snapshot(pending)
            finally:
                self.ctx["if_depth"] = depth
            if v is not None:
                # p4c folds a constant condition before it builds the P4Info: the dead branch
                # (type-checked above) applies no table and calls no action
                self.match_kind_if_end(mk, None)
                return [{"s": "block", "body": then if v else els}]
            return self.match_kind_if_end(mk, {"s": "if", "c": c, "then": then, "else": els})
        if k == "exit":
            if self.ctx.get("kind") == "parser":
                raise E(s.loc, "exit is not allowed in a parser")
            if self.ctx.get("kind") == "function":
                raise E(s.loc, "exit is not allowed in a function (p4c: 'exit' statements not allowed in functions)")
            if self.ctx.get("in_action") and self.ctx.get("if_depth") and not self.ctx.get("after_return"):
                # p4c's BMv2 backend predicates the ifs of an action; an exit cannot be
                self.target_error(s.loc, "exit inside an if in an action: conditional execution in actions "
                                         "is not supported on this target (p4c rejects it for BMv2)")
            elif self.ctx.get("in_action") and self.ctx.get("cond_return") and not self.ctx.get("after_return"):
                # after `if (c) { return; }` the rest of the action runs under !c (p4c)
                self.target_error(s.loc, "exit after a conditional return in an action: conditional execution "
                                         "in actions is not supported on this target (p4c rejects it for BMv2)")
            if self.ctx.get("in_action") and not self.ctx.get("if_depth"):
                if not self.ctx.get("dead") and not self.ctx.get("cond_return"):
                    self.note_action_call(s.loc, "exit")   # (an action calling this one)
                    self.actions[self.ctx["in_action"]]["always_exits"] = True   # (elab_calls.direct_action)
                self.ctx["dead"] = True   # what follows is unreachable: p4c removes it unchecked
                if self.ctx.get("action_returns"):
                    # p4c's RemoveReturns, run on an action that holds a return, takes the exit as
                    # one and drops the rest before its BMv2 back end looks (elab_common.always_returns)
                    self.ctx["after_return"] = True
            st = {"s": "exit"}
            self.__dict__.setdefault("exit_locs", {})[id(st)] = s.loc   # check_table_successors
            return [st]
        if k == "return":
            if self.ctx.get("kind") == "parser":
                raise E(s.loc, "return is not allowed in a parser")
            if self.ctx.get("kind") == "function":
                ret = self.ctx["ret"]
                v = None
                if s.value is not None:
                    v = self.coerce(self.expr(s.value, scope), ret, s.value.loc)
                elif ret != VOID:
                    raise E(s.loc, "function must return a value")
                if self.ctx.get("if_depth"):   # p4c inlines what follows under the return's flag
                    self.ctx["cond_return"] = True
                return [{"s": "return", "v": v}]
            if s.value is not None:
                raise E(s.loc, "return with a value outside a function")
            if self.ctx.get("in_action") and self.ctx.get("if_depth"):
                self.ctx["cond_return"] = True
            elif self.ctx.get("in_action"):
                # what follows is unreachable; p4c removes it before its BMv2 backend looks for
                # conditional execution (after an unconditional `exit` it still looks)
                self.ctx["dead"] = self.ctx["after_return"] = True
            return [{"s": "return", "v": None, "in_action": bool(self.ctx.get("in_action"))}]
        if k == "switch":
            if self.ctx.get("kind") == "parser":   # p4c: syntax error in a state, a failed lowering nested
                raise E(s.loc, "switch statements are not allowed in a parser")
            self.ctx["switch_depth"] = self.ctx.get("switch_depth", 0) + 1   # see enum_var_values
            try:
                sw = self.switch_stmt(s, scope)
                return sw.pop("ghosts", []) + [sw]   # (their locals first: call_copies.call_copies)
            finally:
                self.ctx["switch_depth"] -= 1
        if k == "call_stmt":
            # `_` given to an out/inout parameter (or an action's in one) writes (reads) a hidden
            # local, declared just before the call (elab_calls.dontcare_local)
            saved = self.ctx.get("dontcare_decls")
            self.ctx["dontcare_decls"] = []
            try:
                out = self.call_stmt(s.call, scope)
                return self.ctx["dontcare_decls"] + out
            finally:
                self.ctx["dontcare_decls"] = saved
        if k == "instance":
            raise E(s.loc, "instantiation inside a block is not supported")
        raise E(s.loc, f"unsupported statement {k}")

    def _restore_used(self, used: dict) -> None:
        for q, a in self.actions.items():
            if q in used:
                a["used"] = used[q]

    def assign_view(self, lhs, lt, rhs, loc) -> list:
        """``hdr.h.s = {...}`` where ``s`` is a struct inside header ``h``: one assignment per
        leaf field (the header's ``s__f`` fields)."""
        _, hname, prefix, sname = lt
        out = []
        vals = dict(zip(rhs["fields"], rhs["vals"])) if rhs.get("op") == "mk" else {}
        for f, ft in self.structs[sname]["fields"]:
            v = vals.get(pyname(f)) or {"op": "field", "base": rhs, "f": pyname(f), "t": ft}
            if ft[0] == "struct":
                out += self.assign_view(lhs, ["hview", hname, f"{prefix}{f}__", ft[1]], v, loc)
                continue
            fl, flt = self.member_of(lhs, ["header", hname], Node("member", loc, base=None, name=f"{prefix}{f}"))
            out.append({"s": "assign", "l": fl, "r": self.coerce((v, v["t"]), flt, loc)})
        return out

    def table_ref(self, n: Node, scope, call: Node | None = None) -> str:
        """The table ``n`` names (``call``: its ``apply(...)``, which takes no arguments)."""
        if n.kind != "name":
            raise E(n.loc, "expected a table name")
        ent = scope.lookup(n.name)
        if ent is None or ent[0] != "table":
            raise E(n.loc, f"{n.name} is not a table")
        self.check_table_not_type_named(n, call)
        return ent[1]

    def check_table_not_type_named(self, n: Node, call: Node | None = None) -> None:
        """``T.apply()`` where table ``T`` has the name of a type: p4c's lexer reads ``T`` as the
        type (parser_scopes.py), and its type checker refuses the type's member ``apply``
        (dead code, removed before type checking, is no error: hence " has no field ")."""
        if call is not None and call.args:   # (p4c: "t: 1 arguments supplied while 0 are expected"; errs23)
            raise E(call.loc, f"'{n.name}.apply': {len(call.args)} arguments supplied while 0 are expected (p4c)")
        if n.get("type_name"):
            raise E(n.loc, f"{n.name}.apply(): the type {n.name} has no field apply -- p4c reads {n.name} as "
                           f"the type, not the table {n.name} (a table does not hide a type of the same name)")

    def call_stmt(self, call: Node, scope) -> list:
        fn = call.fn
        if self.ctx.get("in_action") and (self.ctx.get("if_depth") or self.ctx.get("cond_return")) and \
                not self.ctx.get("after_return") and (fn.kind == "member" or fn.name in V1_EXTERN_FUNCS or fn.name in self.externs):
            # (after a conditional `return` too: RemoveReturns puts the rest under `if (!hasReturned)`;
            # a counter's count() there -- fuzz_mutants seed 2448, action_if)
            # p4c's BMv2 backend predicates an action's ifs: a method or extern call cannot be
            # predicated (an action no table lists and nothing calls is dropped first)
            # (kept apart: p4c reports these before its JSON conversion's errors, ElabOutput.finish)
            err = E(call.loc, f"{expr_text(fn)}: conditional execution in actions is not supported "
                              "on this target (p4c: a method or extern call inside an if in an action)")
            err.after_type_checking = True
            self.actions[self.ctx["in_action"]].setdefault("cond_call_error", err)
        elif self.ctx.get("in_action") and not self.ctx.get("dead") and not self.ctx.get("if_depth") and \
                not self.ctx.get("cond_return") and (fn.kind == "member" or fn.name in V1_EXTERN_FUNCS
                                                     or fn.name in self.externs):
            self.note_action_call(call.loc, expr_text(fn))   # (an action calling this one)
        elif self.ctx.get("kind") == "function" and (fn.kind == "member" or fn.name in self.externs):
            # a method call in a function body (an extern instance's count(), read(), ...): p4c
            # inlines the function into an action that calls it, where the call is then judged
            # as above -- recorded on the function (extern functions record in extern_call)
            self.conditional_in_action(call.loc, expr_text(fn))
        if fn.kind == "member":
            base, m = fn.base, fn.name
            # table.apply()
            if m == "apply" and base.kind == "name":
                ent = (self.global_scope if base.get("top") else scope).lookup(base.name)
                if ent and ent[0] == "table":
                    if self.ctx.get("in_action"):
                        raise E(call.loc, f"{base.name}.apply: apply cannot be called from actions")
                    self.check_table_not_type_named(base, call)
                    return [{"s": "apply", "table": ent[1]}]
                if ent and ent[0] == "subcontrol":
                    return [self.apply_subcontrol(ent[1], call, scope)]
                if ent and ent[0] == "subparser":
                    return [self.apply_subparser(ent[1], call, scope)]
                if ent and ent[0] == "misplaced_block":   # (declare_instance)
                    # p4c names the apply call of a parser in a control, the instance of a
                    # control in a parser (probed, helper errs26)
                    raise ent[1] if self.ctx.get("kind") == "parser" else E(call.loc, ent[1].message)
                if ent and ent[0] in ("control", "parser") and ent[0] == self.ctx.get("kind"):
                    return [self.direct_invocation(ent[0], ent[1], base.name, call, scope)]
            bent = (self.global_scope if base.get("top") else scope).lookup(base.name) if base.kind == "name" else None
            if bent and bent[0] == "object":
                return [self.object_call(bent, m, call, scope)]
            if bent and bent[0] == "user_extern":   # (elab_externs.user_extern_call)
                self.user_extern_call(bent[1], call, scope, m)
                return []
            # packet_in / packet_out methods
            if bent and bent[0] == "var" and bent[1]["t"][0] == "extern":
                ext = bent[1]["t"][1]
                call = Node("call", call.loc, **{**call._attrs, "args": by_position(
                    call.args, METHODS.get((ext, m)), f"{ext}.{m}", call.loc)})
                if ext == "packet_in":
                    return [self.packet_in_call(m, call, scope)]
                if ext == "packet_out":
                    if m != "emit" or len(call.args) != 1:
                        raise E(call.loc, "packet_out supports emit(hdr)")
                    ir, t = self.expr(call.args[0], scope)
                    self.check_type_args(call, [t], "packet_out.emit")
                    return self.emit_stmts(ir, t, call.args[0].loc)
                raise E(call.loc, f"unknown method {ext}.{m}")
            if base.kind == "member" and base.name in ("next", "last") and m in ("setValid", "setInvalid"):
                ir, t = self.lvalue(base, scope)  # hs.next.setValid(): a write, not a read (hs.last: refused)
            else:
                ir, t = self.expr(base, scope)
            if t[0] == "header" and m in ("setValid", "setInvalid"):
                if call.args:
                    raise E(call.loc, f"{m}() takes no arguments")
                self.check_lvalue(base, scope)
                self.conditional_in_action(call.loc, f"{expr_text(base)}.{m}")
                if base.kind == "member" and base.name == "next":
                    # p4c writes add_header/remove_header of a "stack_field" [stack, "next"], which
                    # simple_switch 1.15.5 loads and dies executing (actions.h "Default switch case
                    # should not be reachable"; errs22 probe a_stk_next_setvalid)
                    return self.bmv2_dies(call.loc, f"{expr_text(base)}.{m}()", extern=False)
                return [{"s": "setvalid", "h": ir, "v": m == "setValid",
                         "siblings": self.union_siblings(ir) if m == "setValid" else [],
                         "bytes": self.headers[t[1]]["bytes"]}]
            if t[0] == "stack" and m in ("push_front", "pop_front"):
                if len(call.args) != 1:
                    raise E(call.loc, f"{m}(count) takes one argument")
                if self.ctx.get("kind") == "parser":   # (p4c's type checker, whatever the state)
                    raise E(call.loc, f"{expr_text(base)}.{m}: 'push_front' and 'pop_front' for stacks cannot be "
                                      "used in a parser")
                n = self.const_int(call.args[0], f"{m} count")
                if n < 0:
                    # p4c accepts it and writes the negative count into its JSON ("-0x1"); simple_switch
                    # 1.15.5 loads it and dies executing it (boost range_error: a negative integer to an
                    # unsigned type): the packet is dropped there (errs16_push_front_negative)
                    self.warn(call.args[0].loc, f"{m}({n}): a negative count; simple_switch dies executing it "
                                                "(the embedded target drops the packet there)")
                    return self.bmv2_dies(call.loc, f"{m}({n})", extern=False)
                if t[1] in self.structs:  # a stack of header unions (BMv2's own shuffle: engine.Stack)
                    return [{"s": m, "st": ir, "count": n, "union": True}]
                return [{"s": m, "st": ir, "count": n}]
            if t[0] == "header" and m == "isValid":
                if call.args:
                    raise E(call.loc, "isValid() takes no arguments")
                return []
            raise E(fn.loc, f"unknown method {m} on a value of type {tstr(t)}")
        if fn.kind == "name":
            ent = (self.global_scope if fn.get("top") else scope).lookup(fn.name)   # `.f()`: the top-level f
            if ent is not None and ent[0] == "action":
                return [self.direct_action(ent[1], call, scope)]
            if ent is not None and ent[0] in ("function", "generic_fn"):
                f = self.resolve_function(ent, call, scope)
                if any(p["dir"] in ("out", "inout") for p in f["params"]):
                    return [self.call_function_stmt(f, call, scope)]
                ir, t = self.call_function(f, call, scope, stmt=True)
                return [{"s": "eval", "e": ir}]
            if fn.name in V1_EXTERN_FUNCS:
                return self.extern_call(fn.name, call, scope)
            if ent is None and fn.name == "static_assert" and fn.name in self.externs:
                self.static_assert(call, scope)
                return []
            if fn.name in self.externs and self.externs[fn.name].kind == "extern_func":
                self.user_extern_call(self.externs[fn.name], call, scope)
                return []
            raise E(fn.loc, f"unknown function or action {fn.name}")
        raise E(call.loc, "unsupported call")

    def dead_operand(self, n: Node, scope, value: bool):
        """The right operand of ``false && X`` / ``true || X`` (``value``: the result): p4c folds
        it away before it checks types, so a function missing a return is never called there,
        and an unknown field, member, method or error, a type mismatch, a wrong argument count
        or an index out of bounds in it is no error; what p4c's passes before the fold see
        (names that resolve to nothing, constant folding's own errors) still is -- probed on
        p4c 1.2.4.8 (helper open7)."""
        ctx = getattr(self, "ctx", None)
        saved = None if ctx is None else ctx.get("dead_expr")
        if ctx is not None:
            ctx["dead_expr"] = True
        try:
            self.coerce(self.expr(n, scope), BOOL, n.loc)
        except P4CompileError as e:
            if e.message.startswith(("unknown name", "unknown function", "unknown type")) or \
                    any(w in e.message for w in ("division by zero", "negative amount", "operands of ++")):
                raise
            dead_division_by_zero(n)
        finally:
            if ctx is not None:
                ctx["dead_expr"] = saved
        return {"op": "const", "v": value, "t": BOOL}, BOOL

    def dead_branch(self, n: Node, scope, literal: bool = True) -> list:
        """The branch an ``if (true)`` / ``if (1 == 2)`` never takes: p4c 1.2.4.8 removes it
        after resolving names but before type checking, so an unknown field or a type
        mismatch there is not an error (mutants of gauntlet_exit_combination_*); a name
        that does not resolve still is, and so is what its constant folding finds.  A branch
        only p4c's strength reduction removes (``if ((x * 0) != 0)``, ``literal`` False) is type
        checked, but a direct action call missing a directionless argument there is no error
        (p4c checks those later; p4c_mutate seed 114, mutz21's open item)."""
        pending = self.pending_snapshot()
        flags = {k: self.ctx.get(k) for k in ("dead", "after_return", "cond_return", "folded_branch")}
        act = self.actions.get(self.ctx.get("in_action")) if self.ctx.get("in_action") else None
        # (nor the back-end errors of an action's branch it removes: an `exit` under an `if` there,
        # a call in a branch's `if`; p4c_mutate seed 542, mutz36)
        act_errs = {k: act.get(k) for k in _BRANCH_ERRORS} if act is not None else {}
        self.ctx["folded_branch"] = True   # (a call of a function missing a return is no error there)
        try:
            out = self.stmt(n, Scope(scope))
            self.pending_snapshot(pending)   # (no back-end check on a branch p4c removes,
            self.ctx.update(flags)           # nor does a return there end an action: fuzz_exprs 6656)
            for k, v in act_errs.items():
                if v is None:
                    act.pop(k, None)
                else:
                    act[k] = v
            return out
        except P4CompileError as e:
            if not literal:
                if getattr(e, "unbound_directionless", False):
                    return []
                raise
            # only what p4c's type checker would say; its earlier passes (names, duplicate
            # declarations, constant folding: `8w1 / 8w0`, `9w1 ++ 1`) still see dead code
            # (a call's argument count too: p4c_mutate seed 92, an action given a parameter)
            if " has no field " in e.message or e.message.startswith(("type mismatch", "return with a value")) \
                    or e.message.startswith("a value of type ") and " has no member " in e.message \
                    or ": no argument for parameter " in e.message or " argument(s), got " in e.message \
                    or e.message.startswith("cannot assign to 'in' parameter") or e.message.endswith(" cannot be assigned") \
                    or "the divisor must be a compile-time power of two" in e.message \
                    or " out of bounds for a stack of size " in e.message \
                    or _DEAD_TYPE_ERROR.match(e.message):   # (TypeInference's array index check; operand types)
                # (the divisor message is the BMv2 back end's)
                dead_division_by_zero(n)   # (constant folding still sees the rest of the branch)
                return []
            raise
        finally:
            self.ctx["folded_branch"] = flags["folded_branch"]

    def index_expr(self, n: Node, scope, itype=None):
        ir, t = self.expr(n, scope)
        if t == INTLIT:
            return self.coerce((ir, t), itype or ["bit", 32], n.loc)
        if itype is not None and t == itype and t[0] in ("bool", "serenum"):
            return ir   # register<T, bool> / register<T, E> (V1MODEL_VERSION 20200408): p4c takes the index as is
        if not is_bits(t):
            raise E(n.loc, f"index of type {tstr(t)}")
        if itype is not None and t != itype:  # p4c: no implicit conversion between widths
            raise E(n.loc, f"index of type {tstr(t)}, but the extern is indexed by {tstr(itype)} (cast it)")
        return ir



def _always_exits(st: dict) -> bool:
    """IR statement ``st`` always ends in an ``exit`` (a block holding one, an ``if`` whose arms both
    do; not a return, an action call or a sub-control that exits)."""
    k = st.get("s")
    if k == "block":
        return any(_always_exits(x) for x in st["body"])
    if k == "if":
        return all(any(_always_exits(x) for x in arm or []) for arm in (st["then"], st["else"]))
    return k == "exit"


def _plain_exit(st: dict) -> bool:
    """IR statement ``st`` is an ``exit`` or a ``return`` (RemoveReturns drops the rest of the body after
    it: fuzz_mutants seed 6505, helper mutz59), or a block holding one at its top (an ``if`` p4c's front
    end folded is such a block)."""
    return st.get("s") in ("exit", "return") or st.get("s") == "block" and any(_plain_exit(x) for x in st["body"])


# an action's back-end errors a branch p4c removes does not leave (dead_branch)
_BRANCH_ERRORS = ("deferred_error", "cond_call_error")
# an operator's operand types, which p4c's type checker (not its constant folding) refuses: no error in
# a branch p4c's front end removes (`++` on a stack or header, `<` on headers, `-` of a header, a shift
# by a header; p4c_mutate seed 211, mutz36)
_DEAD_TYPE_ERROR = re.compile(r"\+\+ on |operator \S+ on (?:a value|values) of type |cannot compare |"
                              r"\S+ needs integer operands, not ")


def _literal_condition(n: Node, scope) -> bool:
    """Whether condition ``n`` is built from literals and declared constants only (what
    p4c's front end folds before it checks types)."""
    k = n.kind
    if k in ("bool_lit", "int"):
        return True
    if k == "name":
        ent = scope.lookup(n.name)
        return ent is not None and ent[0] == "const"
    if k == "unary":
        return _literal_condition(n.a, scope)
    if k == "cast":   # `(bit<8>)(-8s1) == 1`, `(bool)1w0`: a cast to bit/int/bool folds (not to a type name)
        return n.type.kind in ("bit", "sint", "bool") and _literal_condition(n.a, scope)
    if k == "slice":   # `8w3[1:0] == 0`
        return _literal_condition(n.get("a") or n.get("base"), scope)
    if k == "binary":
        if n.op in ("&&", "||") and _literal_condition(n.a, scope):
            # `false && x`, `K || x`: p4c folds the operator whatever x is (p4c_mutate seed 92), and so
            # `!true && x`, `(1 == 2) && x`, `(true && false) && x` (its left side folds first: seed 513)
            return True
        return _literal_condition(n.a, scope) and _literal_condition(n.b, scope)
    return False


def _varbit_choice(lhs: dict, rhs: dict, loc) -> list:
    """``h.v = c ? a : b`` of varbit header fields: p4c's mid end writes it as ``if (c) h.v = a;
    else h.v = b;`` (a copy the embedded target makes field to field), nested ?: likewise."""
    def arm(e):
        if e.get("op") == "cond":
            return _varbit_choice(lhs, e, loc)
        if e.get("op") != "field":
            raise P4CompileError(loc, "varbit values can only be copied from one header field to another")
        return [{"s": "assign", "l": lhs, "r": e}]
    return [{"s": "if", "c": rhs["c"], "then": arm(rhs["a"]), "else": arm(rhs["b"])}]
