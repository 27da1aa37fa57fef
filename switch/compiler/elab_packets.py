"""packet_in and packet_out calls: extract (fixed, varbit, stack `next`, union members),
lookahead, advance, length, and emit.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (split from ``elab_statements``):
``packet_in_call`` checks one method call on the parser's ``packet_in`` against its header
type and gives its IR statement (an extract of a union member names its siblings, which BMv2
invalidates); ``emit_stmts`` expands an emit of a struct, stack or union into the headers
BMv2 emits, in order.

A one-argument extract of a header with a varbit field is refused only once the whole
program has been elaborated (:meth:`PacketRules.varbit_extract`): p4c reports it ("argument
cannot contain varbit fields") in a pass after type checking, so a type error elsewhere --
the varbit field compared with an integer, used as a key -- is what it names first.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import E, expr_text, is_bits, pyname, tstr, width
from .extern_params import declared_params, dontcare_inputs
from .union_copies import propagate_param_union_copies


class PacketRules:
    def varbit_extract(self, loc, hname: str) -> None:
        """A one-argument extract of header ``hname`` with a varbit field: a late error
        (:meth:`TypeRules.note_late_error`, see the module docstring)."""
        self.note_late_error(E(loc, f"header {hname} has a varbit field: extract it with extract(hdr, size_in_bits)"))

    def packet_in_call(self, m: str, call: Node, scope) -> dict:
        if m == "extract":
            if len(call.args) not in (1, 2):
                raise E(call.loc, "extract takes a header (and a varbit size in bits)")
            a = call.args[0]
            if len(call.args) == 2:
                ir, t = self.lvalue(a, scope)
                if t[0] != "header" or not self.headers[t[1]].get("varbit"):
                    raise E(a.loc, "two-argument extract needs a header with a varbit field")
                self.check_type_args(call, [t], "packet_in.extract")
                bits = self.coerce(self.expr(call.args[1], scope), ["bit", 32], call.args[1].loc)
                return {"s": "extract_var", "h": ir, "hdr": t[1], "bits": bits, "siblings": self.union_siblings(ir)}
            if a.kind == "member" and a.name == "next":
                ir, t = self.expr(a.base, scope)
                if t[0] != "stack":
                    raise E(a.loc, ".next on a non-stack")
                if t[1] not in self.headers:
                    raise E(a.loc, f"extract into a header union ({t[1]}): extract one of its members, "
                                   "e.g. stack.next.member")
                self.check_type_args(call, [["header", t[1]]], "packet_in.extract")
                if self.headers[t[1]].get("varbit"):   # as for a plain header (p4c: "cannot contain varbit fields")
                    self.varbit_extract(call.loc, t[1])
                return {"s": "extract_next", "st": ir, "hdr": t[1], "size": t[2]}
            if a.kind == "member" and a.base.kind == "member" and a.base.name == "next":
                sir, st = self.expr(a.base.base, scope)
                if st[0] == "stack" and st[1] in self.structs:
                    return self.extract_union_next(sir, st, a)
            if a.kind == "dontcare" and len(call.targs or ()) == 1:
                # extract<H>(_): the header's bytes are consumed into a hidden local (p4c)
                t = self.resolve_type(call.targs[0])
                if t[0] != "header":
                    raise E(a.loc, f"extract<{tstr(t)}>(_): expected a header type")
                self.tmp += 1
                py = f"v{self.tmp}__dontcare"
                ir = {"op": "var", "n": py, "t": t}
                if self.headers[t[1]].get("varbit"):
                    self.varbit_extract(call.loc, t[1])
                return {"s": "block", "body": [{"s": "decl", "n": py, "t": t, "init": None},
                                               {"s": "extract", "h": ir, "hdr": t[1], "siblings": []}]}
            if a.kind == "dontcare":
                raise E(a.loc, f"{expr_text(call.fn)}(_): could not infer a type for the header to skip "
                               "(p4c); name it, e.g. extract<my_header_t>(_)")
            ir, t = self.lvalue(a, scope)
            if t[0] == "stack":
                # p4c's type checker infers T as the stack type; a later pass refuses it ("hdr.s:
                # argument must be a header"), after every type error of the program -- multip4/P4-SFC's
                # sfc-HA.p4 extracts a stack in its parser and misuses it in a control below, where
                # p4c names the control's line (corpus22)
                self.note_late_error(E(a.loc, f"extract into a value of type {tstr(t)}, expected a header "
                                              "(p4c: argument must be a header)"))
                return {"s": "block", "body": []}
            if t[0] != "header":
                raise E(a.loc, f"extract into a value of type {tstr(t)}, expected a header")
            if ir.get("op") == "stack_idx" and self.fold(ir["i"]) is None and a.kind == "index" \
                    and a.index.kind in ("name", "member"):
                # `pkt.extract(hdr.s[i])` at a field or variable index (`hdr.h.a`, `hdr.s.lastIndex`; a
                # computed one goes through a temporary, below): p4c compiles it, simple_switch refuses
                # its JSON ("Json::LogicError: Type is not convertible to string"; errs62 a_ex_stack_*)
                self.load_refusal(a.loc, f"{expr_text(a)}: an extract into a stack element at a run-time index "
                                         "(simple_switch refuses p4c's JSON: Json::LogicError 'Type is not "
                                         "convertible to string')")
            self.check_type_args(call, [t], "packet_in.extract")
            if self.headers[t[1]].get("varbit"):
                self.varbit_extract(call.loc, t[1])
            if (ir.get("op") == "stack_idx" and self.fold(ir["i"]) is None and a.kind == "index"
                    and a.index.kind not in ("name", "member")):
                # a run-time index computed by an expression (a slice, a cast, a sum): p4c 1.2.4.8
                # copies the element into a temporary and extracts into that (`tmp = s[i];
                # extract(tmp)`), so the stack is never written -- simple_switch consumes the bytes and
                # emits no element (errs18 probe c_parser_stack_index_var, t7).  A field or variable
                # index is a "regular" extract into the element, a JSON simple_switch cannot load.
                self.tmp += 1
                py = f"v{self.tmp}__extract_copy"
                var = {"op": "var", "n": py, "t": t}
                return {"s": "block", "body": [{"s": "decl", "n": py, "t": t, "init": None},
                                               {"s": "assign", "l": var, "r": self.expr(a, scope)[0]},
                                               {"s": "extract", "h": var, "hdr": t[1], "siblings": []}]}
            return {"s": "extract", "h": ir, "hdr": t[1], "siblings": self.union_siblings(ir)}
        if m == "advance":
            # (p4c's type error 'pkt.advance(_)'; errs62 h_dc_advance)
            dontcare_inputs(call.args, declared_params(self.decls, "packet_in", m), expr_text(call.fn))
            if len(call.args) != 1:
                raise E(call.loc, "advance(bits) takes one argument")
            return {"s": "advance", "bits": self.coerce(self.expr(call.args[0], scope), ["bit", 32],
                                                        call.args[0].loc)}
        if m == "lookahead" and not call.args and call.targs:
            # a lookahead whose value is dropped still fails with PacketTooShort when the
            # packet is shorter than the type (p4c keeps it; BMv2 checks the length)
            t = self.resolve_type(call.targs[0])
            self.zero_width_lookahead(t, call.loc)
            bits = self.lookahead_bits(t, call.loc)
            return {"s": "eval", "e": {"op": "lookahead", "bits": bits, "t": ["bit", bits]}}
        raise E(call.loc, f"packet_in.{m} cannot be used as a statement")

    def zero_width_lookahead(self, t, loc) -> None:
        """``lookahead<bit<0>>()``: p4c's BMv2 back end dies on it ("Compiler Bug: bit<0>: unknown
        width"), in a state it keeps (target_error)."""
        if is_bits(t) and t[1] == 0:
            self.target_error(loc, "lookahead<bit<0>>: a zero-width lookahead (p4c: Compiler Bug: bit<0>: unknown width)")

    def lookahead_bits(self, t, loc) -> int:
        """Size in bits of a fixed-size type (bits, header, struct of those)."""
        if is_bits(t) or t[0] in ("bool", "serenum"):
            return width(t)
        if t[0] == "header" and self.headers[t[1]].get("varbit"):   # (dropped or not: errs23 c_vb_lookahead)
            raise E(loc, f"lookahead<{t[1]}>: the type argument must be a fixed-width type (it has a varbit field)")
        if t[0] == "header":
            return sum(f[1] for f in self.headers[t[1]]["fields"])
        if t[0] == "struct" and not self.structs[t[1]].get("union"):
            return sum(self.lookahead_bits(ft, loc) for _, ft in self.structs[t[1]]["fields"])
        if t[0] == "list":   # a dropped tuple lookahead (lookahead_tuple_store)
            return sum(self.lookahead_bits(x, loc) for x in t[1])
        if t[0] == "enum" and len(t) == 2:   # a plain enum's, dropped: p4c's BMv2 back end makes it bit<32>
            return 32
        raise E(loc, f"lookahead of type {tstr(t)}")

    def lookahead_tuple_store(self, s: Node, scope) -> list | None:
        """A tuple (or plain enum) lookahead stored into a local of the parser state -- ``tuple<bit<8>, bit<8>> x =
        pkt.lookahead<tuple<..>>();`` or ``x = pkt.lookahead<tuple<..>>();`` (``s`` a declaration or an
        assignment): p4c's back end has no tuple lookahead ("tuple<bit<8>, bit<8>>: unexpected type
        in lookahead argument", at the local's type) -- but a local that nothing reads (assigned
        only) is removed first and the lookahead kept for its bits (a length check), as a dropped
        ``pkt.lookahead<tuple<..>>();`` is (helper errs21; errs20's open item d_u_lookahead_tuple,
        /work/e21 pe e_la_tuple_*).  None when ``s`` is no such store."""
        from .elab_ctor import _ast_nodes
        init = s.get("init") if s.kind == "var" else s.get("rhs")
        if not (isinstance(init, Node) and init.kind == "call" and init.fn.kind == "member"
                and init.fn.name == "lookahead" and init.targs and init.fn.base.kind == "name"
                and not init.args):
            return None
        ent = scope.lookup(init.fn.base.name)
        if not (ent and ent[0] == "var" and ent[1]["t"] == ["extern", "packet_in"]):
            return None
        t = self.resolve_type(init.targs[0])
        name = s.name if s.kind == "var" else s.lhs.get("name") if s.lhs.kind == "name" else None
        if t[0] not in ("list", "enum") or name is None:
            return None
        if s.kind == "var" and self.resolve_type(s.type) != t:   # (p4c's type error at the local; pe2)
            raise E(s.loc, f"{name}: type mismatch: the local has type {_ttext(self.resolve_type(s.type))}, "
                           f"the lookahead {_ttext(t)}")
        node = self.ctx.get("state_node") if getattr(self, "ctx", None) else None
        if s.kind == "assign" and not any(n.kind == "var" and n.get("name") == name for n in _ast_nodes(node)):
            return None   # (a local of the parser: read in another state, maybe)
        stores = {id(n.lhs) for n in _ast_nodes(node) if n.kind == "assign"} if node is not None else set()
        if node is None or any(n.kind == "name" and n.get("name") == name and id(n) not in stores
                               for n in _ast_nodes(node)):
            if t[0] == "enum":
                return None   # (read: a plain enum's lookahead is bit<32>, ExpressionRules' lookahead)
            self.tuple_lookahead_error(t, init.targs[0].loc)
        bits = self.lookahead_bits(t, init.loc)
        out = [{"s": "eval", "e": {"op": "lookahead", "bits": bits, "t": ["bit", bits]}}]
        if s.kind == "var":
            self.tmp += 1
            scope.declare(name, ("var", {"op": "var", "n": f"v{self.tmp}_{name}", "t": t}, "inout"), s.loc)
            out.insert(0, {"s": "decl", "n": f"v{self.tmp}_{name}", "t": t, "init": None})
        return out

    def tuple_lookahead_error(self, t, loc) -> None:
        """p4c's error for a tuple lookahead whose value is kept, named at the program's first tuple
        type equal to it (p4c's canonical type: a metadata field's `tuple<bit<8>, bit<8>> tt;` declared
        before it is named, measured; /work/e21 pe e_la_tuple_assign_to_meta)."""
        from .elab_ctor import _ast_nodes
        at = next((n.loc for n in _ast_nodes(self.decls) if n.kind == "tuple" and self._same_type(n, t)), loc)
        raise E(at, f"{_ttext(t)}: unexpected type in lookahead argument")

    def _same_type(self, n: Node, t) -> bool:
        try:
            return self.resolve_type(n) == t
        except Exception:   # (a type parameter's tuple, a name out of scope here)
            return False

    def emit_stmts(self, ir, t, loc) -> list:
        if t[0] == "header":
            if ir.get("op") == "stack_idx" and self.fold(ir["i"]) is None:
                # p4c puts a dereference_header_stack expression in the deparser's order, where
                # simple_switch 1.15.5 wants a header's name: it dies loading (errs27 t_dp_emit_hs_rt)
                self.load_refusal(loc, "emit of a header stack element at a run-time index: p4c's deparser order "
                                       "holds an expression (simple_switch dies loading it: Json::LogicError: Type "
                                       "is not convertible to string)")
            return [{"s": "emit", "h": ir, "hdr": t[1]}]
        if t[0] == "stack":
            if t[1] in self.structs:  # a stack of header unions: every valid member of every element
                return [{"s": "emit_stack", "st": ir, "hdr": t[1], "size": t[2],
                         "members": [pyname(f) for f, _ in self.structs[t[1]]["fields"]]}]
            return [{"s": "emit_stack", "st": ir, "hdr": t[1], "size": t[2]}]
        if t[0] == "struct":
            out = []
            for fname, ft in self.structs[t[1]]["fields"]:
                out.extend(self.emit_stmts({"op": "field", "base": ir, "f": pyname(fname), "t": ft}, ft, loc))
            return out
        raise E(loc, f"emit of a value of type {tstr(t)}")

    def extract_union_next(self, sir, st, a: Node) -> dict:
        """``extract(stack.next.member)`` on a stack of header unions: BMv2 extracts into
        that member of element ``nextIndex``, invalidates the union's other members and
        advances ``nextIndex`` (p4c's ``union_stack`` extract)."""
        members = self.structs[st[1]]["fields"]
        ft = next((ft for f, ft in members if f == a.name), None)
        if ft is None:
            raise E(a.get("name_loc", a.loc), f"header_union {st[1]} has no member {a.name}")
        if self.headers[ft[1]].get("varbit"):
            self.varbit_extract(a.loc, ft[1])
        return {"s": "extract_unext", "st": sir, "mem": pyname(a.name), "hdr": ft[1], "size": st[2],
                "others": [pyname(f) for f, _ in members if f != a.name]}

    def struct_fields(self, t) -> tuple | None:
        """For a struct, header_union or stack of unions type: its members ``[(name or index,
        type)]`` in order and ``"struct"``, ``"union"`` or ``"stack"``; else None."""
        if t and t[0] == "stack" and t[1] in self.structs:
            return [(i, ["struct", t[1]]) for i in range(t[2])], "stack"
        if not t or t[0] != "struct" or t[1] not in self.structs:
            return None
        st = self.structs[t[1]]
        return [(pyname(f), ft) for f, ft in st["fields"]], "union" if st.get("union") else "struct"

    def param_union_copies(self, body: list, params: list) -> list:
        """:func:`.union_copies.propagate_param_union_copies` on an action's or function's body."""
        return propagate_param_union_copies(body, params, self.struct_fields, lambda e: bool(self.union_siblings(e)))

    def union_siblings(self, ir) -> list:
        """For a header inside a header_union: the other members, made invalid when it
        becomes valid (BMv2 header unions)."""
        if ir["op"] != "field":
            return []
        bt = ir["base"]["t"]
        if bt[0] != "struct" or not self.structs[bt[1]].get("union"):
            return []
        return [{"op": "field", "base": ir["base"], "f": pyname(f), "t": ft}
                for f, ft in self.structs[bt[1]]["fields"] if pyname(f) != ir["f"]]


def _ttext(t) -> str:
    """A type as P4 writes it (a tuple's elements too)."""
    return f"tuple<{', '.join(_ttext(x) for x in t[1])}>" if t[0] == "list" else tstr(t)
