"""IR expressions -> Python expressions with P4's wrap-around, saturation, slices, casts,
field-list concatenation; assignments written as expressions.

A mixin of :class:`switch.runtime.codegen.Gen`: ``self.emit(indent, line)`` appends
source, ``self.ir`` is the program IR.
"""
from __future__ import annotations

import re

from .errors import Unsupported
from .gen_helpers import holds_call, overwritten, mask, tuple_with


_FIELD_OF = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\.([A-Za-z_]\w*)$")


class ExpressionGen:
    def table_apply(self, n: dict) -> str:
        """The call applying the table of ``n`` (a ``table_hit`` or a ``switch_action``), with the
        action stores p4c's def-use drops at this site skipped (``dead_stores``)."""
        tid = self.table_by_name[n["table"]]["id"]
        if n.get("dead_stores"):
            flags = "".join(f"'_dead{k}', " for k in n["dead_stores"])
            return f"_apply_dead(L, ({flags}), T_apply_{tid}, P)"
        return f"T_apply_{tid}(P, L)"

    def x(self, e) -> str:
        op = e["op"]
        t = e.get("t")
        if op == "const":
            v = e["v"]
            if isinstance(v, bool):
                return "True" if v else "False"
            if isinstance(v, str):
                return repr(v)
            return str(v) if v >= 0 else f"({v})"
        if op == "var":
            return e["n"]
        if op == "drop_port":   # what mark_to_drop writes (simple_switch_grpc's --drop-port)
            return "_DROP"
        if op == "field":
            return f"{self.x(e['base'])}.{e['f']}"
        if op == "stack_idx":
            return f"{self.x(e['st'])}.a[{self.x(e['i'])}]"
        if op == "stack_next":
            return f"{self.x(e['st'])}.nxt()"
        if op == "stack_last":
            return f"{self.x(e['st'])}.last()"
        if op == "stack_lastindex":
            return f"(({self.x(e['st'])}.n - 1) & 4294967295)"
        if op == "isvalid":
            return f"{self.x(e['h'])}._v"
        if op == "varbit_eq":
            a, b = self.x(e["a"]["base"]), self.x(e["b"]["base"])
            fa, fb = e["a"]["f"], e["b"]["f"]
            # BMv2 compares the values alone: 0x0001 in 16 bits equals 0x01 in 8 bits
            eq = f"({a}.{fa} {'!=' if e['neg'] else '=='} {b}.{fb})"
            return eq
        if op == "uvalid":
            u = self.x(e["u"])
            return "(" + " or ".join(f"{u}.{m}._v" for m in e["members"]) + ")"
        if op == "table_hit":
            return f"({'not ' if e['neg'] else ''}{self.table_apply(e)}[0])"
        if op == "un":
            a = self.x(e["a"])
            o = e["o"]
            if o == "!":
                return f"(not {a})"
            if t[0] == "int_lit":
                return f"({o}{a})"
            w = t[1]
            if t[0] == "bit":
                return f"((-{a}) & {mask(w)})" if o == "-" else f"({a} ^ {mask(w)})"
            return f"_sw(-{a}, {w})" if o == "-" else f"(~{a})"
        if op == "bin":
            return self.binop(e)
        if op == "slice":
            a = self.x(e["a"])
            lo, w = e["lo"], e["hi"] - e["lo"] + 1
            return f"(({a} >> {lo}) & {mask(w)})" if lo else f"({a} & {mask(w)})"
        if op == "cast":
            return self.cast(e)
        if op == "cond":
            return f"({self.x(e['a'])} if {self.x(e['c'])} else {self.x(e['b'])})"
        if op == "lookahead":
            return f"_lookahead(data, off, n, {e['bits']})"
        if op == "lookahead_hdr":
            return f"_peek(H_{e['hdr']}, data, off, n)"
        if op == "pkt_length":
            return "n"
        if op == "reg_read":
            return self.reg_read_expr(e["obj"], self.x(e["i"]), e["t"])
        if op == "call_fn":
            call = f"{e['fn']}(P, {', '.join(self.x(a) for a in e['args'])})"
            if any(a.get("t") == ["extern", "packet_in"] for a in e["args"]):   # (gen_blocks.gen_functions)
                r = self.fresh("r")
                return f"(setattr(P, 'off', off), ({r} := {call}), (off := P.off), {r})[-1]"
            return call
        if op == "call_fn_out":
            # a function with out/inout parameters inside an expression: call, copy the
            # outs back (walrus/setattr keep it one expression, so && and ?: still
            # short-circuit), then yield the return value
            r = self.fresh("r")
            args, pinned = [], []
            for arg in e["args"]:
                lv, pins = self.pinned_indices(arg["e"]) if arg["dir"] in ("out", "inout") else (arg["e"], [])
                arg = dict(arg, e=lv)
                pinned.append(arg)
                val = self.default(arg["t"]) if arg["dir"] == "out" else self.copy_in(arg["e"], arg["t"])
                args.append(self.after_pins(pins, val))
            e = dict(e, args=pinned)
            parts = [f"({r} := {e['fn']}(P, {', '.join(args)}))"]
            outs = [arg for arg in e["args"] if arg["dir"] in ("out", "inout")]
            for k, arg in enumerate(outs, 1):
                if not overwritten(arg["e"], [b["e"] for b in outs[k:]]):
                    if arg["t"][0] == "varbit":   # a varbit parameter's box: its bits and its length
                        parts.append(f"setattr({self.x(arg['e']['base'])}, '_vb', {r}[{k}]._vb)")
                        parts.append(self.assign_expr(arg["e"], f"{r}[{k}].v"))
                        continue
                    parts.append(self.assign_expr(arg["e"], f"{r}[{k}]", arg.get("siblings", ())))
            parts.append(f"{r}[0]")
            return f"({', '.join(parts)})[-1]"
        if op == "invalid_hdr":  # {#}: a fresh header instance is invalid
            return f"H_{t[1]}()"
        if op == "mk":
            cls = ("H_" if t[0] == "header" else "S_") + t[1]
            vals = ", ".join(self.copy_in(v, v["t"]) if v["t"][0] == "varbit" else self.x(v) for v in e["vals"])
            return f"_mk({cls}, {tuple(e['fields'])!r}, ({vals}{',' if len(e['vals']) == 1 else ''}))"
        if op == "mk_stack":   # a header stack built from its elements (lookahead<S>(), a list)
            cls = f"S_{t[1]}" if t[1] in self.ir["structs"] else f"H_{t[1]}"   # (a stack of unions: structs)
            return f"Stack([{', '.join(self.x(v) for v in e['vals'])}], {cls})"
        if op == "tuple_idx":
            return f"{self.x(e['a'])}[{e['i']}]"
        if op == "list" and (t is None or t[0] == "list"):
            # a tuple value (tuple<...> local): an immutable Python tuple
            items = [self.x(v) for v in e["items"]]
            return "(" + "".join(i + ", " for i in items) + ")"
        if op in ("list", "sinit"):
            raise Unsupported("list expression outside a field list")
        raise Unsupported(f"expression {op}")

    def reg_read_expr(self, obj, idx, t) -> str:
        base = f"{obj}.get({idx})"
        return f"_sw({base}, {t[1]})" if t[0] == "int" else base

    def binop(self, e) -> str:
        o, t = e["o"], e["t"]
        a, b = self.x(e["a"]), self.x(e["b"])
        if o in ("&&", "||"):
            return f"({a} {'and' if o == '&&' else 'or'} {b})"
        if o in ("==", "!=") and e["a"]["t"][0] in ("header", "struct", "stack"):
            return f"({'' if o == '==' else 'not '}_eq({a}, {b}))"
        if o in ("==", "!=", "<", ">", "<=", ">="):
            return f"({a} {o} {b})"
        if t[0] == "int_lit":
            pyop = {"/": "//"}.get(o, o)
            return f"({a} {pyop} {b})"
        w = t[1]
        M = mask(w)
        signed = t[0] == "int"
        if o == "++":
            wa = e["a"]["t"][1]
            wb = e["b"]["t"][1]
            ua = f"({a} & {mask(wa)})" if e["a"]["t"][0] == "int" else a
            ub = f"({b} & {mask(wb)})" if e["b"]["t"][0] == "int" else b
            r = f"(({ua} << {wb}) | {ub})"
            if e.get("p4c_fold"):
                # constant for p4c's midend, which folds `a ++ b` as (a << |b|) + b: a negative
                # right operand borrows from the left one (the compiler marks only such operands)
                r = f"((({a} << {wb}) + {b}) & {M} if {b} < 0 else {r})"
            return f"_sw({r}, {w})" if signed else r
        if o in ("&", "|", "^"):
            return f"({a} {o} {b})"
        if o in ("+", "-", "*"):
            r = f"({a} {o} {b})"
            return f"_sw({r}, {w})" if signed else f"({r} & {M})"
        if o in ("/", "%"):
            return f"_div({a}, {b})" if o == "/" else f"_mod({a}, {b})"
        if o == "<<":
            if e["b"]["op"] == "const":
                if e["b"]["v"] >= w:   # 0, but the left operand's calls still run (BMv2)
                    return f"(({a}) & 0)"
                r = f"({a} << {e['b']['v']})"
            else:
                r = f"_shl({a}, {b}, {w})"
            return f"_sw({r}, {w})" if signed else f"({r} & {M})"
        if o == ">>":
            if e["b"]["op"] == "const":
                return f"({a} >> {e['b']['v']})"
            return f"_shr({a}, {b}, {w})"
        if o == "|+|":
            if signed:
                return f"_sat({a} + {b}, {-(1 << (w - 1))}, {(1 << (w - 1)) - 1})"
            return f"min({a} + {b}, {M})"
        if o == "|-|":
            if signed:
                return f"_sat({a} - {b}, {-(1 << (w - 1))}, {(1 << (w - 1)) - 1})"
            return f"max({a} - {b}, 0)"
        raise Unsupported(f"operator {o}")

    def cast(self, e) -> str:
        t = e["t"]
        src = e["a"]["t"]
        a = self.x(e["a"])
        if t[0] == "serenum":
            t = t[2]
        if src[0] == "serenum":
            src = src[2]
        if t[0] == "bool":
            return f"({a} != 0)" if src[0] != "bool" else a
        if src[0] == "bool":
            return f"(1 if {a} else 0)"
        w = t[1]
        if t[0] == "bit":
            if src[0] == "bit" and src[1] <= w:
                return a
            return f"({a} & {mask(w)})"
        # to signed
        if src[0] == "int" and src[1] <= w:
            return a
        return f"_sw({a}, {w})"

    def assign_expr(self, lv, val: str, siblings=()) -> str:
        """An assignment written as a Python expression (for calls inside expressions);
        ``siblings``: a header-union member's, made invalid when a valid header is stored."""
        t = lv["t"]
        op = lv["op"]
        if t[0] == "header" and op in ("var", "field", "stack_idx") and not holds_call(lv):
            # assign_header: an invalid copy keeps the fields
            val = f"_hdr_out({self.x(lv)}, {val}{''.join(', ' + self.x(sb) for sb in siblings)})"
        elif t[0] in ("struct", "stack") and op in ("var", "field", "stack_idx") and not holds_call(lv):
            val = f"_agg_out({self.x(lv)}, {val})"
        if op == "var":
            n = lv["n"]
            if t[0] in ("header", "struct", "stack"):
                return f"_copy_into({n}, {val})"
            if n.startswith("L."):
                return f"setattr(L, {n[2:]!r}, {val})"
            return f"({n} := {val})"
        if op == "field":
            return f"setattr({self.x(lv['base'])}, {lv['f']!r}, {val})"
        if op == "stack_idx":
            return f"_copy_into({self.x(lv)}, {val})"
        if op == "slice":
            base = lv["a"]
            lo, w = lv["lo"], lv["hi"] - lv["lo"] + 1
            keep = mask(base["t"][1]) ^ (mask(w) << lo)
            merged = f"(({self.x(base)} & {keep}) | ((({val}) & {mask(w)}) << {lo}))"
            if base["t"][0] == "int":
                merged = f"_sw({merged}, {base['t'][1]})"
            return self.assign_expr(base, merged)
        if op == "tuple_idx":
            return self.assign_expr(lv["a"], tuple_with(self.x(lv["a"]), lv["i"], val))
        raise Unsupported(f"assignment to {op} inside an expression")

    def with_payload(self, s):
        """Field list of a checksum, followed by the unparsed payload for *_with_payload."""
        cat, bits = self.cat(s["data"])
        if not s.get("payload"):
            return cat, bits
        # BMv2 packs the fields into bytes (zero bits after the last one up to a byte
        # boundary) and appends the payload bytes after them
        if isinstance(bits, int):
            pad = -bits % 8
            cat, bits = (f"(({cat}) << {pad})" if pad else cat), bits + pad
        else:
            cat, bits = f"(({cat}) << (-({bits}) % 8))", f"({bits} + (-({bits}) % 8))"
        return (f"((({cat}) << (8 * (len(P.data) - P.off))) | int.from_bytes(P.data[P.off:], 'big'))",
                f"({bits} + 8 * (len(P.data) - P.off))")

    def csum_arg(self, s) -> tuple[str, object]:
        """The value argument of ``csum16`` for a checksum statement.

        ``csum16`` depends on its value only modulo 0xFFFF (and on whether it is 0), and
        2**16 = 1 mod 0xFFFF: so a fixed-width field list is passed as the *sum* of
        ``field << (pos % 16)`` -- small ints instead of one wide concatenation, the same
        checksum.  Varbit lists and *_with_payload keep the concatenation."""
        data = s["data"]
        if s.get("payload") or any(w is None for _, w in data):
            return self.with_payload(s)
        total, parts = self._fixed_parts(data)
        parts = [(v, pos % 16) for v, pos in parts]
        # fields of one header (`p_hdr.ipv4.ttl`, ...): load the header once (a walrus
        # in the first term, evaluated first)
        m = [_FIELD_OF.match(v) for v, _ in parts]
        if len(parts) > 2 and all(m) and len({x.group(1) for x in m}) == 1:
            tmp = self.fresh("c")
            parts = [(f"({tmp} := {x.group(1)}).{x.group(2)}" if k == 0 else f"{tmp}.{x.group(2)}", sh)
                     for k, (x, (_, sh)) in enumerate(zip(m, parts))]
        terms = [f"({v} << {sh})" if sh else (f"({v})" if ":=" in v else v) for v, sh in parts]
        return (" + ".join(terms) or "0"), total

    def cat(self, data) -> tuple[str, int]:
        """A field list [(ir, width)] -> (python expr of the concatenation, total bits).

        A varbit item (width None) has a run-time width: then both are expressions."""
        if any(w is None for _, w in data):
            acc, bits = "0", "0"
            for d, w in data:
                v = self.x(d)
                if w is None:
                    base = self.x(d["base"])
                    acc = f"(({acc}) << {base}._vb) | {v}"
                    bits = f"{bits} + {base}._vb"
                else:
                    if d["t"][0] == "int":
                        v = f"({v} & {mask(w)})"
                    acc = f"(({acc}) << {w}) | {v}"
                    bits = f"{bits} + {w}"
            return acc, f"({bits})"
        total, parts = self._fixed_parts(data)
        return (" | ".join(f"({v} << {pos})" if pos else v for v, pos in parts) or "0"), total

    def _fixed_parts(self, data) -> tuple[int, list[tuple[str, int]]]:
        """A fixed-width field list [(ir, width)] -> (total bits, [(python expr, bit position of its
        lowest bit)]), an int literal masked to its item's width."""
        total = sum(w for _, w in data)
        parts, pos = [], total
        for d, w in data:
            pos -= w
            v = self.x(d)
            if d["t"][0] == "int":
                v = f"({v} & {mask(w)})"
            parts.append((v, pos))
        return total, parts

    @staticmethod
    def after_pins(pins: list, val: str) -> str:
        """``val`` (an argument's copy-in) run after the pins of its index (:meth:`pinned_indices`), in
        one expression: an argument list evaluated left to right then sets each index where its argument
        stands, after the earlier arguments' copy-ins, as p4c's SideEffectOrdering orders them (helper
        mutz42: ``f(h.b, hs[g(h.b)].x)`` with ``g(inout ..)`` copies in h.b before g writes it)."""
        return f"({', '.join(f'({ix} := {code})' for ix, code in pins)}, {val})[-1]" if pins else val

    def pinned_indices(self, lv: dict) -> tuple:
        """Lvalue ``lv`` (a function's out/inout argument) with each run-time stack index read from
        a local, and the (local, code) pairs that set them, to run before its copy-in: p4c's
        SideEffectOrdering puts such an index in a temporary before the call, so the copy-back writes
        the element the copy-in read -- also where a call in the index (``f(hs[g(b)].x)`` with
        ``g(inout ..)``) or an earlier argument's copy-back changes what it reads (helper mutz41)."""
        if not isinstance(lv, dict) or lv.get("op") not in ("field", "stack_idx", "slice"):
            return lv, []
        key = {"field": "base", "stack_idx": "st", "slice": "a"}[lv["op"]]
        inner, pins = self.pinned_indices(lv[key])
        out = dict(lv, **{key: inner})
        if lv["op"] == "stack_idx" and lv["i"].get("op") != "const":
            ix = self.fresh("ix")
            pins = pins + [(ix, self.x(lv["i"]))]
            out["i"] = {"op": "var", "n": ix, "t": lv["i"].get("t")}
        return out, pins
