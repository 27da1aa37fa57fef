"""v1model extern functions (mark_to_drop, hash, digest, checksums, clone, resubmit, ...)
and the field lists they take.

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
A program's own externs (instances, abstract methods, calls) are :mod:`.elab_user_externs`'.
"""
from __future__ import annotations

from .ast import Node
from .extern_params import by_position, declared_params, dontcare_inputs, FUNCTIONS
from .elab_common import custom_crc, BOOL, E, ERROR, expr_text, INTLIT, is_bits, pyname, tstr
from .elab_load_refusals import BMV2_JSON_ARRAY, DEPARSER_HASH
from .elab_user_externs import UserExternRules

#: v1model.p4's own enums: p4c's BMv2 back end gives their members no number in its JSON
MODEL_ENUMS = frozenset({"HashAlgorithm", "CounterType", "MeterType", "CloneType"})


class ExternRules(UserExternRules):
    def scalar_operand(self, v, loc=None):
        """``hash``'s base or max (an ``in T``/``in M`` p4c takes of any type) as the number BMv2
        reads: a bool as 0/1, an ``error`` or plain enum as its code (p4c's 32-bit scalar), a
        serializable enum as its bits; anything else as it is.  One of v1model.p4's own enums
        (HashAlgorithm, ...) has no number in p4c's JSON (p4c_mutate seed 131)."""
        ir, t = v
        self.model_enum_operand(t, loc)
        if t == BOOL:
            return {"op": "cast", "a": ir, "t": ["bit", 1]}, ["bit", 1]
        if t[0] in ("error", "enum"):
            return ir, ["bit", 32]
        if t[0] == "serenum":
            return ir, t[2]
        return v

    def out_lvalue(self, n: Node, scope, call_loc, t=None):
        """An extern function's ``out``/``inout`` argument: one that cannot be assigned to is p4c's
        type error at the call (its line when the call spreads over several: p4c_mutate seed 132).
        ``_`` where the call gives its type ``t`` (``random(_, 8w0, 8w7)``, ``r.read(_, 0)``: p4c
        compiles them, errs54) is a hidden temporary, as for a function's ``out`` parameter."""
        from .errors import P4CompileError
        if n.kind == "dontcare" and t is not None and self.ctx.get("dontcare_decls") is not None:
            return self.dontcare_local(t), t
        if n.kind == "dontcare" and t is None:   # (`hash(_, ..)`, `m.execute_meter(0, _)`: a generic out; errs69 dc_*)
            raise E(call_loc, "_: could not infer a type for the don't-care argument (p4c: could not infer a type "
                              "for the type variable of its out parameter)")
        try:
            return self.lvalue(n, scope)
        except P4CompileError as err:
            if err.message != "expression cannot be assigned to":
                raise
            txt = expr_text(n)
            raise E(call_loc, f"{'the argument' if txt.startswith('<') else txt}: expression cannot be assigned to "
                              "(an out argument of the call)") from None

    def model_enum_operand(self, t, loc) -> None:
        if loc is not None and t[0] == "enum" and t[1] in MODEL_ENUMS:
            self.target_error(loc, f"{t[1]}: could not convert expression to Json (a value of v1model.p4's enum "
                                   f"{t[1]} as a hash or meter operand; p4c)")

    def flat_list(self, n: Node, scope, what: str):
        """A field list (list expression, struct or header value) -> [(ir, width)]."""
        if n.kind == "list":
            out = []
            for it in n.items:
                out.extend(self.flat_list(it, scope, what))
            return out
        ir, t = self.expr(n, scope)
        return self.flatten_value(ir, t, n.loc, what)

    def flatten_value(self, ir, t, loc, what):
        if is_bits(t):
            return [(ir, t[1])]
        if t[0] == "bool":   # (marked: BMv2 refuses a bool in hash data, elab_load_refusals)
            return [({"op": "cast", "a": ir, "t": ["bit", 1], "from_bool": True}, 1)]
        if t[0] == "serenum":
            return [(ir, t[2][1])]
        if t[0] == "header":
            h = self.headers[t[1]]
            # "whole": a header given whole, which BMv2 leaves out of a hash while it is invalid
            # (BufBuilder reads its bytes only if valid; a field of it alone is read as it is)
            whole = {"whole": True} if what == "hash data" else {}
            return [({"op": "field", "base": ir, "f": pyname(f), **whole,
                      "t": ["varbit", w] if f == h.get("varbit") else ["int" if s else "bit", w]},
                     None if f == h.get("varbit") else w)
                    for f, w, s in h["fields"]]
        if t[0] == "varbit":
            return [(ir, None)]
        if t[0] == "stack" and what == "hash data":   # p4c writes {"type": "header_stack"}: simple_switch
            # refuses it ("Unsupported input type 'header_stack' for calculation"; hashinv_hash_stack_whole)
            self.load_refusal(loc, "hash: a header stack in the data list: simple_switch refuses p4c's JSON "
                                   "(Unsupported input type 'header_stack' for calculation)")
            return []
        if t[0] == "stack" and what == "digest data":   # (a digest member p4c accepts; digest_call)
            et = self.stack_elem(t)
            return [x for i in range(t[2]) for x in self.flatten_value(
                {"op": "stack_idx", "st": ir, "i": {"op": "const", "v": i, "t": ["bit", 32]}, "t": et, "size": t[2]},
                et, loc, what)]
        if t[0] == "list" and what in ("digest data", "log_msg data", "hash data"):   # (a tuple member, as a struct's: digest_call;
            # a tuple-typed value logged: a generic function's `log_msg("{}", x)` with T a tuple)
            items = ir["items"] if ir.get("op") == "list" else \
                [{"op": "tuple_idx", "a": ir, "i": i, "t": et} for i, et in enumerate(t[1])]
            return [x for it, et in zip(items, t[1]) for x in self.flatten_value(it, et, loc, what)]
        if t[0] == "struct":
            out = []
            for f, ft in self.structs[t[1]]["fields"]:
                out.extend(self.flatten_value({"op": "field", "base": ir, "f": pyname(f), "t": ft}, ft, loc, what))
            return out
        if t[0] in ("enum", "error") and what in ("log_msg data", "hash data") or t[0] == "error" and what == "selector key":
            # p4c logs a plain enum / error by its numeric code; an error or a plain enum in a
            # hash's data (errs17 probe g_hash_data_enum) or an error in a selector key is its 32-bit
            # code in p4c's JSON (a checksum refuses it)
            return [({"op": "cast", "a": ir, "t": ["bit", 32]}, 32)]
        if t == INTLIT:
            raise E(loc, f"{what}: an untyped integer in a field list needs a width (e.g. 8w1)")
        raise E(loc, f"{what}: a value of type {tstr(t)} cannot be in a field list")

    def check_typed_data(self, dt, data: Node, scope, what: str) -> list | None:
        """A field list against the struct or tuple type given as its type argument (``D`` of
        ``hash<O, T, D, M>``): as many elements as fields, each of the field's type.  For a list
        expression, its elements converted to those types: [(ir, type)]."""
        if dt is None:
            return None
        if dt[0] == "struct" and not self.structs[dt[1]].get("union"):
            fts = [ft for _, ft in self.structs[dt[1]]["fields"]]
        elif dt[0] == "list":
            fts = dt[1]
        else:
            fts = None
        if data.kind != "list" or fts is None:
            ir, t = self.expr(data, scope)
            if data.kind != "list" and t != dt:
                raise E(data.loc, f"{what} has type {tstr(t)}, but the type argument is {tstr(dt)}")
            return None
        if len(data.items) != len(fts):
            raise E(data.loc, f"{what}: {len(data.items)} element(s) for type {tstr(dt)} with {len(fts)} field(s)")
        return [(self.coerce(self.expr(it, scope), ft, it.loc), ft) for it, ft in zip(data.items, fts)]

    def target_error(self, loc, message: str) -> None:
        """An error of p4c's BMv2 backend: raised at once in a control body, but in an action
        only if the action survives (p4c removes an unused action before the check), in a
        function only where it is called, in a sub-control only if it is applied, and in a
        parser state only if the state is reachable.  It is
        marked ``after_type_checking``: a type error anywhere in the program comes first
        (elab_order); one in a control's own body gives way to its actions' (elab_order.action_error_first)."""
        err = E(loc, message)
        err.after_type_checking = True
        if self.defer_error(err):
            return
        role = self.ctx.get("role") if self.ctx.get("kind") == "control" and not self.ctx.get("sub") else None
        if role in ("verify_checksum", "compute_checksum"):
            # p4c converts the checksum controls after the other controls' checks (an action's
            # mark_to_drop(), an unused extern instance come first), ComputeChecksum before
            # VerifyChecksum, and stops at the first one with errors (p4xos-public: Checksum16 in
            # both; ElabOutput.finish); the instance whose call is refused is no error of its own
            self.__dict__.setdefault("checksum_control_errors", []).append((role == "verify_checksum", err))
            inst = self.ctx.pop("extern_call", None)
            if inst and inst.get("late_error") in self.__dict__.get("late_errors", []):
                self.late_errors.remove(inst["late_error"])
            return
        # a top-level control's body: p4c's JSON conversion meets it after that control's actions
        # (and the controls declared above) -- ageapps/in-network-aggregation: an IPForward
        # sub-control's action calls mark_to_drop() (its file's line 5), ingress's body too (line
        # 41): p4c names line 5.  Raised at once (a dead branch or operand drops it as before);
        # elab_order.action_error_first then elaborates again with this error deferred
        # (``defer_body_target``) for ElabOutput.finish to order it among the actions' errors
        err.block, err.in_body = self.ctx.get("block"), True
        target = getattr(self, "defer_body_target", None)
        if target is not None and (err.loc.file, err.loc.line, err.loc.col) == (target.loc.file, target.loc.line, target.loc.col):
            self.__dict__.setdefault("body_target_errors", []).append(err)
        elif target is None or not self.__dict__.get("body_target_errors"):
            raise err
        # (else one after the deferred error: p4c converts it later, it cannot come first)

    # -- a program's own externs (not v1model's): type-checked, refused by p4c's BMv2 back end ----
    def deprecated_call_error(self, loc, message: str) -> None:
        """clone3 / resubmit(data) / recirculate(data): a :meth:`target_error`, but one in a control's
        body waits (``body_deprecated_errors``) for the errors of the actions that survive: p4c's JSON
        conversion reports them in source order, a control's actions before its body
        (NUS-SNL/p4-traffictool's basic_postcards: ``mark_to_drop()`` in an action above a ``clone3``
        in the apply block; p4c names the action's line, its clone3 error has no position of the
        program's, so the error p4c locates first is another one if there is one: ElabOutput.finish
        orders them after the actions' (``err.block``, ``err.positionless``)."""
        err = E(loc, message)
        err.after_type_checking = True
        err.block = self.ctx.get("block")
        err.positionless = True   # (p4c: "clone3: unknown extern function", at v1model.p4)
        err.seq = self.__dict__.setdefault("_deprecated_seq", [0])[0]   # (elaboration order: ElabOutput.finish)
        self._deprecated_seq[0] += 1
        if not self.defer_error(err):
            self.__dict__.setdefault("body_deprecated_errors", []).append(err)

    def defer_error(self, err) -> bool:
        """Keep ``err`` for the action, function, parser state or sub-control body being
        elaborated, as :meth:`target_error` describes; False in a control's own body (nothing
        defers it there)."""
        if self.ctx.get("in_action"):
            self.actions[self.ctx["in_action"]].setdefault("deferred_error", err)
            return True
        if self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions:
            # likewise a function that is never called (raised when a call elaborates it)
            self.functions[self.ctx["block"]].setdefault("deferred_error", err)
            return True
        if self.ctx.get("kind") == "parser" and self.ctx.get("state") is not None:
            # a parser state's: raised only if the state is reachable (elab_parser)
            self.ctx["state_errors"].setdefault(self.ctx["state"], err)
            return True
        if self.ctx.get("kind") == "control" and self.ctx.get("sub"):
            # a sub-control instance's body: raised only if some reachable body applies it
            # (p4c removes an unapplied instance before its target checks; ElabOutput.finish)
            self.__dict__.setdefault("block_errors", {}).setdefault(self.ctx["block"], err)
            return True
        return False

    def ingress_or_egress_only(self, name: str, role: str | None, loc, allowed=("ingress", "egress")) -> None:
        """clone, resubmit, recirculate outside ingress and egress (digest: and the deparser): one of
        p4c's BMv2 back-end checks ("Only calls to verify_checksum ... allowed", "not invoked in
        ingress"), so a type error comes first -- V1Switch's arguments swapped (p4c_mutate seeds 100,
        115) -- and an unused action or unapplied sub-control is no error (target_error)."""
        if role in allowed:
            return
        if self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions:
            # a function's body: judged at each call, with the caller's role (p4c inlines it;
            # clone_preserving_field_list in a function called from ingress compiles: helper opens2)
            self.__dict__.setdefault("fn_role_checks", {}).setdefault(self.functions[self.ctx["block"]]["py"], []).append(
                lambda r: self.ingress_or_egress_only(name, r, loc, allowed))
            return
        only = {"verify_checksum": "verify_checksum or verify_checksum_with_payload",
                "compute_checksum": "update_checksum or update_checksum_with_payload"}.get(role or "")
        self.target_error(loc, f"{name}: only allowed in {', '.join(allowed[:-1])} or {allowed[-1]}, not in the {role or 'parser'}" +
                          (f" (p4c: 'Only calls to {only} allowed')" if only else ""))

    def one_role_only(self, name: str, want: str, role, loc) -> None:
        """resubmit_preserving_field_list outside ingress, recirculate_preserving_field_list outside
        egress (in a function: at each call, with the caller's role; errs27 h_fn_fn_resubmit)."""
        if role == want:
            return
        if self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions:
            self.__dict__.setdefault("fn_role_checks", {}).setdefault(self.functions[self.ctx["block"]]["py"], []).append(
                lambda r: self.one_role_only(name, want, r, loc))
            return
        self.target_error(loc, f"{name} can only be invoked in {want} (p4c rejects it in {role})")

    def clone_type_check(self, name: str, ctype, role, loc) -> None:
        """An I2E clone outside ingress, an E2E one outside egress: p4c's BMv2 back end refuses it
        (in a function: at each call, with the caller's role, as :meth:`ingress_or_egress_only`)."""
        want = {"I2E": "ingress", "E2E": "egress"}.get(str(ctype))
        if want is None or role == want:
            return
        if self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions:
            self.__dict__.setdefault("fn_role_checks", {}).setdefault(self.functions[self.ctx["block"]]["py"], []).append(
                lambda r: self.clone_type_check(name, ctype, r, loc))
            return
        self.target_error(loc, f"{name}({ctype}, ...) not invoked in {want} (p4c rejects it in {role} for BMv2)")

    def check_type_args(self, call: Node, bound: list, what: str) -> None:
        """Explicit type arguments of a v1model extern function or method (``random<T>``,
        ``execute_meter<T>``; none for the others): as many as it has type parameters, each the
        type its argument gives it (``bound``: the types, None where any is fine).  p4c refuses
        the call otherwise ("'random' ---- Actual error: ... does not match"; p4c_mutate seed 84,
        ``random<error>(x16, 1000, 1003)``, was accepted, the type arguments unread)."""
        targs = call.get("targs") or []
        if not targs:
            return
        if len(targs) != len(bound):
            raise E(call.loc, f"{what} takes {len(bound)} type argument(s), got {len(targs)} (p4c)")
        for ta, t in zip(targs, bound):
            if ta.kind == "dontcare" or ta.get("name") == "_" or t is None:
                continue
            got = self.resolve_type(ta)
            if got != t:
                raise E(call.loc, f"{what}: type argument {tstr(got)} does not match the argument's type {tstr(t)} (p4c)")

    def targ(self, call: Node, n: int, what: str):
        """The one type argument of a call of a generic with ``n`` type parameters (None for
        ``_``), after checking there are ``n``."""
        targs = call.get("targs") or []
        if len(targs) != n:
            raise E(call.loc, f"{what} takes {n} type argument(s), got {len(targs)} (p4c)")
        return [None if ta.kind == "dontcare" or ta.get("name") == "_" else self.resolve_type(ta) for ta in targs]

    def checksum_type_args(self, call: Node, name: str, scope) -> None:
        """``verify_checksum<T, O>`` / ``update_checksum<T, O>``: T the data's type, O the
        checksum field's (p4c: "Type of argument ... does not match type of parameter")."""
        if not call.get("targs"):
            return
        dt, ot = self.targ(call, 2, name)
        self.check_typed_data(dt, call.args[1], scope, f"{name} data")
        if ot is not None and self.expr(call.args[2], scope)[1] != ot:
            raise E(call.args[2].loc, f"{name}: the checksum has type {tstr(self.expr(call.args[2], scope)[1])}, "
                                      f"but the type argument O is {tstr(ot)} (p4c)")

    def extern_call(self, name: str, call: Node, scope) -> list:
        if name == "digest" and any(a.kind == "named_arg" for a in call.args):
            # p4c 1.2.4.8 dies on it in its front end (parameterSubstitution.cpp: "Compiler Bug: Two
            # parameters with the same name receiver in a substitution"), in any order (errs23)
            raise E(call.loc, "digest with named arguments: Compiler Bug: Two parameters with the same name "
                              "receiver in a substitution (p4c)")
        call = Node("call", call.loc, **{**call._attrs, "args": by_position(call.args, FUNCTIONS.get(name), name, call.loc)})
        dontcare_inputs(call.args, declared_params(self.decls, name), name)
        args = call.args
        loc = call.loc
        self.conditional_in_action(loc, name)

        def nargs(n):
            if len(args) != n:
                raise E(loc, f"{name} takes {n} argument(s), got {len(args)}")
        if self.ctx.get("kind") == "parser" and name not in ("verify", "log_msg"):
            # BMv2 parsers run extract/lookahead/advance, assignments, verify and log_msg only
            self.target_error(loc, f"{name} is not supported in a parser (p4c: not supported in parser on this target)")
        if name == "mark_to_drop":
            if not args:
                # v1model.p4's deprecated mark_to_drop(): p4c's BMv2 backend refuses it, but only
                # where the code survives (not in an unused action nor an unreachable parser state)
                self.target_error(loc, "mark_to_drop() without arguments is not supported for BMv2 (p4c: 'Expected 1 "
                                       "argument for mark_to_drop'): use mark_to_drop(standard_metadata)")
                return [{"s": "nop"}]
            nargs(1)
            lv, t = self.lvalue(args[0], scope)
            if t != ["struct", "standard_metadata_t"]:
                raise E(args[0].loc, "mark_to_drop takes the standard_metadata")
            return [{"s": "mark_to_drop", "sm": lv}]
        if name == "verify":
            nargs(2)
            if self.ctx.get("kind") != "parser":
                raise E(loc, "verify is only allowed in a parser")
            c = self.coerce(self.expr(args[0], scope), BOOL, args[0].loc)
            e = self.coerce(self.expr(args[1], scope), ERROR, args[1].loc)
            return [{"s": "verify", "c": c, "e": e}]
        if name == "random":
            nargs(3)
            lv, t = self.out_lvalue(args[0], scope, loc, _bound_type(self, args[1:], scope))
            self.check_type_args(call, [t], "random")
            if not is_bits(t) and t != BOOL and t[0] not in ("serenum", "enum"):   # p4c takes a bool too (random(b, false, true))
                raise E(args[0].loc, "random result must be bit<N> or bool")
            self.refuse_bool_operand(t, args[0].loc, "random result")
            lo = self.coerce(self.expr(args[1], scope), t, args[1].loc)
            hi = self.coerce(self.expr(args[2], scope), t, args[2].loc)
            if t[0] in ("serenum", "enum"):   # random(e, E.X, E.Y): the enum's bits, a plain enum's 32 (p4c's JSON; errs23)
                t = t[2] if t[0] == "serenum" else ["bit", 32]
            if t[0] == "int" and any((self.fold(b) or 0) < 0 for b in (lo, hi)):
                # p4c writes the negative bound ("-0x01"); simple_switch dies executing it (boost
                # range_error; errs17 probe g_random_int)
                return self.bmv2_dies(loc, "random with a negative bound")
            return [{"s": "random", "l": lv, "lo": lo, "hi": hi, "t": t}]
        if name == "digest":
            return self.digest_call(call, scope)
        if name == "hash":
            nargs(5)
            lv, t = self.out_lvalue(args[0], scope, loc)
            # hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max):
            # explicit type arguments bind the result, base and max types (p4c unifies them)
            targs = [None if ta.kind == "dontcare" or ta.get("name") == "_" else self.resolve_type(ta) for ta in call.get("targs") or []]
            if targs and len(targs) != 4:
                raise E(loc, f"hash takes 4 type arguments <O, T, D, M>, got {len(targs)}")
            if targs and targs[0] is not None and targs[0] != t:
                raise E(args[0].loc, f"hash result has type {tstr(t)}, but the type argument O is {tstr(targs[0])}")
            if targs:
                for ta, a in ((targs[1], args[2]), (targs[3], args[4])):
                    if ta is not None:
                        self.coerce(self.expr(a, scope), ta, a.loc)
                typed = self.check_typed_data(targs[2], args[3], scope, "hash data")
            rt = t
            if self.ctx.get("role") == "deparser":
                self.load_refusal(loc, DEPARSER_HASH)
            self.model_enum_operand(t, args[0].loc)
            self.refuse_bool_operand(t, args[0].loc, "hash result")
            t, to_bool = self.result_bits(t, args[0].loc, "hash")
            algo = self.hash_algorithm(args[1], scope)   # a name, or chosen by a parameter
            if isinstance(algo, str) and algo not in ("crc32", "crc16", "csum16", "identity", "xor16"):
                # p4c compiles HashAlgorithm.random; simple_switch 1.15.5
                # refuses to load the JSON ("Unknown hash algorithm: random")
                self.load_refusal(args[1].loc, f"Unknown hash algorithm: {algo} (BMv2 refuses p4c's JSON)")
                algo = "identity"
            base, mx = self.expr(args[2], scope), self.expr(args[4], scope)
            self.refuse_bool_operand(base[1], args[2].loc, "hash base", "Parameter type 'bool' not supported "
                                                                        "(simple_switch refuses p4c's JSON)")
            self.refuse_bool_operand(mx[1], args[4].loc, "hash max")
            base = self.scalar_operand(base, args[2].loc)
            bt = base[1] if is_bits(base[1]) else (targs[1] if targs and targs[1] else ["bit", 32])
            mx = self.scalar_operand(mx, args[4].loc)
            mt = mx[1] if is_bits(mx[1]) else (targs[3] if targs and targs[3] else ["bit", 32])
            dies = [tstr(x) for x, y in ((rt, t), (base[1], base[1]), (mx[1], mx[1]))
                    if y is None or y[0] in ("header", "struct", "stack", "list")]
            for (_, at), a, what in ((base, args[2], "base"), (mx, args[4], "max")):
                if at == INTLIT and not (targs and targs[1 if what == "base" else 3]):
                    # hash<O, T, D, M>: nothing gives an untyped integer its width (p4c)
                    raise E(a.loc, f"hash {what}: could not infer a width for an untyped integer (write e.g. 16w0)")
            if not dies:
                base = self.coerce(base, bt, args[2].loc)
                mx = self.coerce(mx, mt, args[4].loc)
            if args[3].kind != "list" and self.expr(args[3], scope)[1][0] not in ("struct", "header", "list"):
                # p4c's BMv2 back end: "expected a struct" (p4c_mutate seed 65, kind extern_call)
                self.target_error(args[3].loc, "hash data must be a list expression ({...}), a struct or a header "
                                               "(p4c: expected a struct)")
            if targs and typed:   # the list's elements typed by D (untyped literals get widths)
                data = [d for ir, ft in typed for d in self.flatten_value(ir, ft, args[3].loc, "hash data")]
            else:
                data = self.flat_list(args[3], scope, "hash data")
            self.refuse_bool_data(data, args[3].loc)
            self.refuse_nested_list(args[3], "hash")
            self.refuse_struct_data(args[3], scope, "hash")
            self.refuse_nested_struct_data(args[3], scope, "hash")
            if dies:   # a header, struct, union, stack or tuple: p4c compiles it, BMv2 dies on it
                return self.bmv2_dies(loc, f"hash with a {dies[0]}")
            return [{"s": "hash", "l": lv, "t": t, "algo": algo, "base": base, "max": mx,
                     "data": [[d, w] for d, w in data], "to_bool": to_bool}]
        if name in ("verify_checksum", "update_checksum", "verify_checksum_with_payload",
                    "update_checksum_with_payload"):
            nargs(4)
            payload = name.endswith("_with_payload")
            role = self.ctx.get("role")
            want = "verify_checksum" if name.startswith("verify") else "compute_checksum"
            if role != want:   # p4c's BMv2 back end ("unknown extern function"), for code it keeps
                self.target_error(loc, f"{name} belongs in the {want.replace('_', ' ')} control")
            c = self.coerce(self.expr(args[0], scope), BOOL, args[0].loc)
            self.checksum_type_args(call, name, scope)
            data = self.flat_list(args[1], scope, f"{name} data")
            self.refuse_bool_data(data, args[1].loc, f"{name} data")   # (as hash's; errs23 b_cs_data_bool_el_*)
            self.refuse_nested_list(args[1], name)
            self.refuse_struct_data(args[1], scope, name)
            self.refuse_nested_struct_data(args[1], scope, name)
            ent = scope.lookup(args[3].name) if args[3].kind == "name" else None
            if ent and ent[0] == "var":   # `algo` is directionless: a constant, before p4c's propagation
                raise E(args[3].loc, f"{args[3].name}: argument used for directionless parameter 'algo' "
                                     "must be a compile-time constant (p4c)")
            algo = custom_crc(self.enum_member(args[3], "HashAlgorithm", scope))
            if algo not in ("csum16", "crc16", "crc32", "identity", "xor16"):   # HashAlgorithm.random
                self.load_refusal(args[3].loc, f"Unknown hash algorithm: {algo} (BMv2 refuses p4c's JSON)")
                algo = "csum16"
            if name.startswith("verify"):
                ck, ct = self.expr(args[2], scope)
                self.model_enum_operand(ct, args[2].loc)
                if ct[0] == "list":   # p4c 1.2.4.8 dies on it without a message (exit 245; p4c_mutate seed 130)
                    raise E(args[2].loc, f"{name}: the checksum argument is a list; p4c cannot compile it "
                                         "(it dies: exit status 245); give the checksum field")
                if ct == INTLIT:   # (p4c's type checker: no width for the checksum's type O)
                    raise E(args[2].loc, f"{name}: {expr_text(args[2])}: could not infer a width for the checksum "
                                         "argument (write e.g. 16w5)")
                self.refuse_checksum_target(ck, args[2].loc, name)
                return [{"s": "verify_checksum", "c": c, "data": [[d, w] for d, w in data],
                         "ck": ck, "t": ct, "algo": algo, "payload": payload}]
            lv, lt = self.out_lvalue(args[2], scope, loc)
            if lt == BOOL:   # p4c compiles it; simple_switch dies loading its JSON (errs23 b_cs_field_bool_update)
                self.load_refusal(args[2].loc, f"{name}: a bool checksum field: {BMV2_JSON_ARRAY}")
                lt = ["bit", 1]   # (the build is never loaded; the call stays for the P4Info's type_info)
            if not is_bits(lt):
                raise E(args[2].loc, "checksum field must be bit<N>")
            if lv.get("op") == "slice" and not (lv.get("lo") == 0 and lv["a"].get("t") == lt):
                # p4c writes the checksum into a temporary and assigns the slice from it, a statement
                # its BMv2 back end refuses there (probes ck_update_target_slice/xor16; helper errs16)
                raise E(args[2].loc, f"tmp = {expr_text(args[2])}: only calls to update_checksum or "
                                     "update_checksum_with_payload allowed (p4c: a slice as the checksum field)")
            rtext = expr_text(args[2])
            holders = [i for i in (args[1].items if args[1].kind == "list" else [args[1]])
                       if i.kind in ("member", "name") and rtext.startswith(expr_text(i) + ".")]
            if holders and self.fold(c) is not True:
                # a header or struct of the data holds the result field: p4c copies it into a
                # temporary unless the condition is `true` ("tmp_h = hdr.h: Only calls to
                # update_checksum ... allowed"; p4c_mutate seed 133, extern_operand)
                raise E(args[2].loc, f"{name}: the result field {rtext} is inside {expr_text(holders[0])}, which is in "
                                     "the data (p4c: 'Only calls to update_checksum or update_checksum_with_payload "
                                     "allowed')")
            if any(self.expr(i, scope)[0] == lv for i in _data_leaves(args[1]) if i.kind in ("member", "name")):
                # the out argument aliases an element of the list (or of a struct expression in
                # it, or given bare: helper opens2): p4c copies the list into temporaries first,
                # and its BMv2 back end refuses those assignments
                raise E(args[2].loc, f"{name}: the result field {expr_text(args[2])} is also in the data list "
                                     "(p4c: 'Only calls to update_checksum or update_checksum_with_payload allowed')")
            return [{"s": "update_checksum", "c": c, "data": [[d, w] for d, w in data],
                     "l": lv, "t": lt, "algo": algo, "payload": payload}]
        if name in ("clone", "clone3", "clone_preserving_field_list"):
            role = self.ctx.get("role")
            self.ingress_or_egress_only(name, role, loc)
            ctype = self.clone_type(args[0], scope, name, loc) if args else None   # (None: a parameter's)
            if name == "clone":
                nargs(2)
                fl = None   # no field list (0 is a list index of its own)
            elif name == "clone3":
                # p4c only warns at the call; its BMv2 back end refuses the call ("unknown extern
                # function") where it survives -- not in an action nothing uses (target_error)
                nargs(3)
                for a in args[1:]:
                    self.expr(a, scope)
                self.deprecated_call_error(loc, "clone3 is deprecated; use clone_preserving_field_list")
                return []
            else:
                nargs(3)
                self.coerce(self.expr(args[2], scope), ["bit", 8], args[2].loc)   # v1model: in bit<8> index
                fl = self.const_int(args[2], "field list index", scope=scope) & 0xFF   # (bit<8>: -1 is list 255, as p4c; errs19)
            sess = self.coerce(self.expr(args[1], scope), ["bit", 32], args[1].loc)
            self.clone_type_check(name, ctype, role, loc)
            return [{"s": "clone", "session": sess, "fl": fl, "type": ctype}]
        if name in ("resubmit_preserving_field_list", "recirculate_preserving_field_list"):
            nargs(1)
            self.coerce(self.expr(args[0], scope), ["bit", 8], args[0].loc)   # v1model: in bit<8> index
            fl = self.const_int(args[0], "field list index", scope=scope) & 0xFF   # (bit<8>: -1 is list 255, as p4c)
            role = self.ctx.get("role")
            kind = "resubmit" if name.startswith("resubmit") else "recirculate"
            # BMv2 keeps these requests in packet registers: resubmit is acted on at the end of
            # ingress only (a call in egress does nothing), recirculate at the end of egress
            # (a call in ingress carries over to egress for a unicast packet)
            self.ingress_or_egress_only(name, role, loc)
            self.one_role_only(name, "ingress" if kind == "resubmit" else "egress", role, loc)
            return [{"s": kind, "fl": fl}]
        if name in ("resubmit", "recirculate"):
            # as clone3 above: refused only where the call survives (p4c compiles an unused
            # action that calls resubmit(meta))
            nargs(1)
            self.expr(args[0], scope)
            self.deprecated_call_error(loc, f"{name}(data) is deprecated; use {name}_preserving_field_list(index)")
            return []
        if name == "truncate":
            nargs(1)
            return [{"s": "truncate", "n": self.coerce(self.expr(args[0], scope), ["bit", 32], args[0].loc)}]
        if name in ("assert", "assume"):
            nargs(1)
            return [{"s": "assert", "c": self.coerce(self.expr(args[0], scope), BOOL, args[0].loc),
                     "where": str(loc)}]
        if name == "log_msg":
            return self.log_msg_call(call, scope)   # (elab_log_msg)
        raise E(loc, f"extern {name} is not supported")


def _data_leaves(data) -> list:
    """The elements of checksum data ``data`` (an AST node), through nested lists and struct
    expressions (``(T){ f = .. }``); a bare value other than those is no list: none."""
    if data.kind == "cast" and isinstance(data.a, Node) and data.a.kind in ("struct_init", "list"):
        data = data.a
    if data.kind not in ("list", "struct_init"):
        return []
    out = []
    for it in (v for _, v in data.fields) if data.kind == "struct_init" else data.items:
        out.extend(_data_leaves(it) if it.kind in ("list", "struct_init", "cast") else [it])
    return out


def _bound_type(el, args, scope):
    """The type of ``random``'s bounds when one has one (not an untyped integer): what its ``_``
    result is (p4c infers T from them)."""
    for a in args:
        t = el.expr(a, scope)[1]
        if t != INTLIT:
            return t
    return None
