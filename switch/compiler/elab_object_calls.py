"""Method calls on extern objects (counters, meters, registers, hashes, checksums, random,
action profiles ...) in statements and expressions: argument checks as p4c's type checker makes
them, the result widths BMv2's primitives give, and the calls BMv2 dies at.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through ``StatementRules``): ``self``
holds the program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node
from .extern_params import by_position, declared_params, dontcare_inputs, METHODS
from .elab_common import BOOL, E, expr_text, is_bits, tstr
from .elab_ctor import _register_type
from .checks_walk import _walk
from .deparser_defuse import parser_read_dead
from .elab_load_refusals import BMV2_JSON_ARRAY


class ObjectCallRules:
    def _parser_read_dead(self, call: Node) -> bool:
        """A register read of a parser state that p4c's mid-end removes (one in a function the
        state calls is left to run, as before)."""
        st, p = self.ctx.get("state_node"), self.ctx.get("parser_node")
        return st is None or p is None or not any(x is call for x in _walk(st.stmts)) or \
            parser_read_dead(call, st, p.states, self.ctx.get("parser_locals", set()))

    def object_call(self, ent, m: str, call: Node, scope) -> dict:
        _, kind, rec, itype = ent
        if id(call) in self.__dict__.get("untyped_uses", {}):   # (check_type_arity: counter<I> untyped)
            raise self.untyped_uses[id(call)]
        if kind != "register":   # a typedef'd instance p4c lists once it is used (declare_instance)
            rec.pop("p4info_hidden", None)
        written = call   # (the statement's own node: parser_read_dead finds it)
        call = Node("call", call.loc, **{**call._attrs, "args": by_position(
            call.args, METHODS.get((kind, m)), f"{kind}.{m}", call.loc)})
        args = call.args
        dontcare_inputs(args, declared_params(self.decls, kind, m), f"{rec.get('name', kind)}.{m}")
        if (kind, m) != ("meter", "execute_meter"):   # (its T: below) the others are not generic
            self.check_type_args(call, [], f"{kind}.{m}")
        if self.ctx.get("kind") == "parser" and ((kind, m) != ("register", "read") or not self._parser_read_dead(written)):
            # (register.read has no side effects: p4c drops one whose result is dead before it
            # checks: deparser_defuse.parser_read_dead; errs62 probes r_*)
            self.target_error(call.loc, f"{rec.get('name', kind)}.{m}: {kind} methods are not supported in a parser "
                                        "(p4c: not supported in parser on this target)")
        if kind == "counter" and m == "count":
            if len(args) != 1:
                raise E(call.loc, "counter.count(index) takes one argument")
            return {"s": "counter", "obj": rec["py"], "i": self.index_expr(args[0], scope, itype)}
        if kind == "direct_counter" and m == "count":
            if args:
                raise E(call.loc, "direct_counter.count() takes no arguments (the table's entry is counted)")
            return {"s": "nop"}
        if kind == "register" and m == "read":
            if len(args) != 2:
                raise E(call.loc, "register.read(result, index) takes two arguments")
            lv, lt = self.out_lvalue(args[0], scope, call.loc, _register_type(rec))   # (`r.read(_, 0)`: p4c)
            lt = self.register_result_type(rec, lt, args[0].loc)   # (elab_ctor)
            if lt[0] == "struct":   # (a struct register: p4c's mid end refuses a read it keeps before
                # its back end refuses the instance -- at the call for a nested struct, at the
                # result for a flat one; not in a branch it removes: probed by helper opens2)
                if not (self.ctx.get("folded_branch") or self.ctx.get("dead")):
                    if any(ft[0] == "struct" for _, ft in self.structs[lt[1]]["fields"]):
                        self.target_error(call.loc, f"{rec['name']}.read: extern functions with 'out' nested "
                                                    "struct argument (result) not supported (p4c)")
                    if lv.get("op") != "var":   # (p4c's mid end splits a local struct into scalars:
                        # the instance's error is the first then; errs23 b_reg_type_3_rw)
                        self.target_error(args[0].loc, f"{expr_text(args[0])}: writing to a structure is not "
                                                       "supported on this target (p4c)")
                return {"s": "nop"}
            return {"s": "reg_read", "obj": rec["py"], "l": lv, "i": self.index_expr(args[1], scope, itype),
                    "t": lt}
        if kind == "register" and m == "write":
            if len(args) != 2:
                raise E(call.loc, "register.write(index, value) takes two arguments")
            v = self.register_value(rec, args[1], scope)
            return {"s": "reg_write", "obj": rec["py"], "i": self.index_expr(args[0], scope, itype), "v": v,
                    "t": rec["vt"]}
        if kind == "meter" and m == "execute_meter":
            if len(args) != 2:
                raise E(call.loc, "meter.execute_meter(index, result) takes two arguments")
            lv, lt = self.out_lvalue(args[1], scope, call.loc)
            self.check_type_args(call, [lt], "meter.execute_meter")
            self.model_enum_operand(lt, args[1].loc)
            self.refuse_bool_operand(lt, args[1].loc, "execute_meter result")
            lt, to_bool = self.result_bits(lt, args[1].loc, "meter")
            if lt is None:
                self.index_expr(args[0], scope, itype)   # still type-checked
                return self.bmv2_dies(call.loc, f"execute_meter into a {tstr(self.lvalue(args[1], scope)[1])}")[0]
            return {"s": "meter", "obj": rec["py"], "i": self.index_expr(args[0], scope, itype), "l": lv, "t": lt,
                    "to_bool": to_bool}
        if kind == "direct_meter" and m == "read":
            if len(args) != 1:
                raise E(call.loc, "direct_meter.read(result) takes one argument")
            want = getattr(self, "direct_meter_types", {}).get(rec["name"])
            lv, lt = self.out_lvalue(args[0], scope, call.loc, want)   # (`dm.read(_)`: p4c; errs62 h_dc_*)
            if lt[0] == "struct":   # p4c's result_target is a name, not a field: simple_switch dies loading it
                self.load_refusal(args[0].loc, f"{rec['name']}.read into a struct: Json::LogicError (simple_switch refuses p4c's JSON)")
            if want is not None and lt != want:
                raise E(args[0].loc, f"direct_meter<{tstr(want)}>.read: the result has type {tstr(lt)}, expected {tstr(want)}")
            # checked when the program is complete (a table may attach the meter later)
            if self.ctx.get("dead"):   # after exit/return in an action: p4c drops it unchecked
                return {"s": "nop"}
            self.direct_meter_reads.append((rec, call.loc, self.ctx.get("in_action")))
            first = rec.get("read_target")
            if first is not None and (first["l"] != lv or "slice" in (lv.get("op"), first["l"].get("op"))
                                      and self.dm_read_texts[rec["name"]][1] != args[0].loc):
                # (p4c's BMv2 back end: one result_target per meter; a slice is read into a
                # temporary of its own at each read, so two reads of one slice differ too)
                self.different_meter_targets(args[0], lv, rec)
            # (BMv2: the meter's result_target, a d2b expression for a bool)
            self.refuse_bool_operand(lt, args[0].loc, "direct_meter read result", BMV2_JSON_ARRAY)
            self.__dict__.setdefault("dm_read_texts", {}).setdefault(rec["name"], (expr_text(args[0]), args[0].loc, lv))
            rec.setdefault("read_target", {"l": lv, "t": lt})   # BMv2's result_target (the first read)
            return {"s": "direct_meter_read", "obj": rec["name"], "l": lv, "t": lt}
        raise E(call.loc, f"{kind} has no method {m}")

    def different_meter_targets(self, arg, lv: dict, rec: dict) -> None:
        """p4c's error for a ``direct_meter.read`` into another place than the meter's first read:
        named at this read's destination -- unless that is a slice, which p4c reads into a
        temporary (``tmp``, no position of its own) and so names the first read's (measured by
        helper opens: ``dm.read(hdr.h.c[7:0])`` after an action's ``dm.read(hdr.h.b)`` is reported
        at the action's line, "however tmp and hdr.h.b are different")."""
        text, loc, first = self.dm_read_texts[rec["name"]]
        new = ("tmp_0" if first.get("op") == "slice" else "tmp") if lv.get("op") == "slice" else expr_text(arg)
        old = "tmp" if first.get("op") == "slice" else text
        at = loc if new == "tmp" and old != "tmp" else arg.loc
        self.target_error(at, f"all meter operations must write to the same destination, however {new} and {old} "
                              "are different" + (" (tmp: p4c's temporary for a slice)" if "tmp" in (new, old) else ""))

    def result_bits(self, t, loc, what: str):
        """The bits a ``hash``/``execute_meter`` result is computed in, and whether it is
        stored into a ``bool``: bit<N>, int<N>, a serializable enum (its underlying bits) and
        bool (one bit, as BMv2's 1-bit field keeps the low bit); an ``error`` or plain enum is
        one of p4c's 32-bit scalar fields in its JSON (the number BMv2 computes is the code),
        a varbit field is written with its maximum width (BMv2 keeps the bits its current
        length holds, which is all an emit shows).  p4c takes any type (the result is an
        ``out O``): a header, struct, union, stack or tuple reaches the BMv2 primitive as a
        "header" parameter, and simple_switch dies executing it -- None then (the caller makes
        the call a run-time failure, see :meth:`bmv2_dies`)."""
        if t[0] == "bool":
            return ["bit", 1], True
        if t[0] == "serenum":
            return t[2], False
        if t[0] in ("error", "enum"):
            return ["bit", 32], False
        if t[0] == "varbit":
            return ["bit", t[1]], False
        if not is_bits(t):
            return None, False
        return t, False

    def bmv2_dies(self, loc, what: str, extern: bool = True) -> list:
        """The statements for a call p4c compiles and simple_switch 1.15.5 cannot execute (it dies
        on an assertion in bm_sim/actions.h, "Default switch case should not be reachable"):
        the packet is dropped there with a trace line, as for a failed ``assert``.  ``extern``:
        the call is an extern call for the P4Info's type_info (not a stack's push_front)."""
        return [{"s": "assert", "c": {"op": "const", "v": False, "t": BOOL}, **({} if extern else {"not_extern": True}),
                 "where": f"{loc}: {what} (p4c compiles it; simple_switch dies executing it)"}]
