"""IR -> generated Python: the per-program packet functions of the embedded target.

:func:`load` turns the JSON IR into Python source (one class per header/struct type
with ``extract``/``pack``/``copy``; one function per parser, control, action, table
apply and P4 function), ``exec``s it once and returns an :class:`~.engine.Engine`
that drives packets through it.  Nothing is interpreted per packet: a field access
is an attribute access, ``hdr.ipv4.ttl - 1`` becomes ``((p_hdr.ipv4.ttl - 1) &
255)``, a table apply is one lookup plus one call.

Conventions of the generated code: ``P`` is the per-packet state
(:class:`~.engine.PacketState`), ``L`` the per-invocation locals of a control (its
control-scope variables, visible to its actions), ``p_<name>`` a parser/control
parameter, ``X_<name>`` an extern instance, ``TBL_<id>`` a table, ``A_<id>`` an action.
``print(pipeline.program.source)`` shows the whole thing.
"""
from __future__ import annotations

from .engine import Engine, Stack, ExitSignal, ParserError
from .errors import Unsupported
from .externs import csum16, hash_value

IR_FORMAT = "checkmate-v1model-ir/1"

_ROLE_ATTRS = {
    "parser": ["pkt", "hdr", "meta", "sm"],
    "verify_checksum": ["hdr", "meta"],
    "ingress": ["hdr", "meta", "sm"],
    "egress": ["hdr", "meta", "sm"],
    "compute_checksum": ["hdr", "meta"],
    "deparser": ["pkt", "hdr"],
}


def _m(w: int) -> int:
    return (1 << w) - 1


class Gen:
    def __init__(self, ir: dict):
        self.ir = ir
        self.lines: list[str] = []
        self.tmp = 0
        self.errors = {n: i for i, n in enumerate(ir["errors"])}
        self.action_by_name = {a["name"]: a for a in ir["actions"]}
        self.table_by_name = {t["name"]: t for t in ir["tables"]}
        self.digest_ids = {d["name"]: d["id"] for d in ir["digests"]}
        self.dmeter_by_name = {m["name"]: m for m in ir["direct_meters"]}
        self.control_of_action: dict[str, str] = {}
        self.role = None
        self.action_outs = None
        self.fn_outs = None

    def emit(self, ind: int, s: str) -> None:
        self.lines.append("    " * ind + s)

    def fresh(self, base: str = "t") -> str:
        self.tmp += 1
        return f"_{base}{self.tmp}"

    # ------------------------------------------------------------------ types
    def gen_types(self) -> None:
        for name, h in self.ir["headers"].items():
            if h.get("varbit"):
                self.gen_varbit_header(name, h)
                continue
            fields = self.ir["header_fields"][name]
            specs = h["fields"]
            nbytes = h["bytes"]
            total = nbytes * 8
            cls = f"H_{name}"
            self.emit(0, f"class {cls}:")
            self.emit(1, f"__slots__ = ('_v', {', '.join(repr(f) for f in fields)}{',' if len(fields) == 1 else ''})")
            self.emit(1, f"NBYTES = {nbytes}")
            self.emit(1, "def __init__(self):")
            self.emit(2, "self._v = False")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
            self.emit(1, "def reset(self):")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
            if not fields:
                self.emit(2, "pass")
            self.emit(1, "def copy(self):")
            self.emit(2, f"c = {cls}.__new__({cls})")
            self.emit(2, "c._v = self._v")
            for f in fields:
                self.emit(2, f"c.{f} = self.{f}")
            self.emit(2, "return c")
            # extract
            self.emit(1, "def extract(self, data, off, n):")
            self.emit(2, f"end = off + {nbytes}")
            self.emit(2, "if end > n:")
            self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
            if fields:
                self.emit(2, "v = int.from_bytes(data[off:end], 'big')")
            pos = total
            for f, (_, w, signed) in zip(fields, specs):
                pos -= w
                expr = f"v >> {pos}" if pos else "v"
                expr = f"({expr}) & {_m(w)}" if pos + w < total or pos == 0 and w < total else expr
                if pos == 0 and w == total:
                    expr = "v"
                elif pos == 0:
                    expr = f"v & {_m(w)}"
                elif pos + w == total:
                    expr = f"v >> {pos}"
                else:
                    expr = f"(v >> {pos}) & {_m(w)}"
                if signed:
                    expr = f"_sw({expr}, {w})"
                self.emit(2, f"self.{f} = {expr}")
            self.emit(2, "self._v = True")
            self.emit(2, "return end")
            # pack
            self.emit(1, "def pack(self):")
            parts = []
            pos = total
            for f, (_, w, signed) in zip(fields, specs):
                pos -= w
                val = f"(self.{f} & {_m(w)})" if signed else f"self.{f}"
                parts.append(f"{val} << {pos}" if pos else val)
            self.emit(2, f"return ({' | '.join(parts) or '0'}).to_bytes({nbytes}, 'big')")
            self.emit(0, "")
        for name, s in self.ir["structs"].items():
            cls = f"S_{name}"
            fields = s["fields"]
            self.emit(0, f"class {cls}:")
            self.emit(1, f"__slots__ = ({', '.join(repr(f) for f, _ in fields)}{',' if len(fields) == 1 else ''})")
            self.emit(1, "def __init__(self):")
            for f, t in fields:
                self.emit(2, f"self.{f} = {self.default(t)}")
            if not fields:
                self.emit(2, "pass")
            self.emit(1, "def copy(self):")
            self.emit(2, f"c = {cls}.__new__({cls})")
            for f, t in fields:
                if t[0] in ("header", "struct", "stack"):
                    self.emit(2, f"c.{f} = self.{f}.copy()")
                else:
                    self.emit(2, f"c.{f} = self.{f}")
            self.emit(2, "return c")
            self.emit(0, "")

    def gen_varbit_header(self, name: str, h: dict) -> None:
        """A header with one varbit field: its current length in bits lives in ``_vb``."""
        fields = self.ir["header_fields"][name]
        specs = h["fields"]
        vb = next(i for i, (f, _, _) in enumerate(specs) if f == h["varbit"])
        vmax = specs[vb][1]
        before = [(py, w, sg) for py, (_, w, sg) in zip(fields[:vb], specs[:vb])]
        after = [(py, w, sg) for py, (_, w, sg) in zip(fields[vb + 1:], specs[vb + 1:])]
        vf = fields[vb]
        wb, wa = sum(w for _, w, _ in before), sum(w for _, w, _ in after)
        cls = f"H_{name}"
        self.emit(0, f"class {cls}:")
        self.emit(1, f"__slots__ = ('_v', '_vb', {', '.join(repr(f) for f in fields)})")
        self.emit(1, f"NBYTES = {h['bytes']}")
        for meth in ("__init__", "reset"):
            self.emit(1, f"def {meth}(self):")
            if meth == "__init__":
                self.emit(2, "self._v = False")
            self.emit(2, "self._vb = 0")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
        self.emit(1, "def copy(self):")
        self.emit(2, f"c = {cls}.__new__({cls})")
        for f in ("_v", "_vb", *fields):
            self.emit(2, f"c.{f} = self.{f}")
        self.emit(2, "return c")
        self.emit(1, "def extract(self, data, off, n):")
        self.emit(2, "return self.extract_var(data, off, n, 0)")
        self.emit(1, "def extract_var(self, data, off, n, vbits):")
        self.emit(2, f"if vbits > {vmax}:")
        self.emit(3, f"raise ParserError({self.errors['HeaderTooShort']})")
        self.emit(2, "if vbits % 8:")
        self.emit(3, f"raise ParserError({self.errors['ParserInvalidArgument']})")
        self.emit(2, f"end = off + {h['bytes']} + (vbits >> 3)")
        self.emit(2, "if end > n:")
        self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
        self.emit(2, "v = int.from_bytes(data[off:end], 'big')")
        self.emit(2, f"pos = {wa} + vbits + {wb}")
        for py, w, sg in before:
            self.emit(2, f"pos -= {w}")
            val = f"(v >> pos) & {_m(w)}"
            self.emit(2, f"self.{py} = {'_sw(' + val + f', {w})' if sg else val}")
        self.emit(2, "pos -= vbits")
        self.emit(2, f"self.{vf} = (v >> pos) & ((1 << vbits) - 1)")
        self.emit(2, "self._vb = vbits")
        for py, w, sg in after:
            self.emit(2, f"pos -= {w}")
            val = f"(v >> pos) & {_m(w)}"
            self.emit(2, f"self.{py} = {'_sw(' + val + f', {w})' if sg else val}")
        self.emit(2, "self._v = True")
        self.emit(2, "return end")
        self.emit(1, "def pack(self):")
        self.emit(2, "v = 0")
        for py, w, sg in before:
            self.emit(2, f"v = (v << {w}) | (self.{py} & {_m(w)})")
        self.emit(2, f"v = (v << self._vb) | (self.{vf} & ((1 << self._vb) - 1))")
        for py, w, sg in after:
            self.emit(2, f"v = (v << {w}) | (self.{py} & {_m(w)})")
        self.emit(2, f"return v.to_bytes({h['bytes']} + (self._vb >> 3), 'big')")
        self.emit(0, "")

    def default(self, t) -> str:
        k = t[0]
        if k == "bool":
            return "False"
        if k == "header":
            return f"H_{t[1]}()"
        if k == "struct":
            return f"S_{t[1]}()"
        if k == "stack":
            return f"Stack([H_{t[1]}() for _ in range({t[2]})], H_{t[1]})"
        if k in ("bit", "int", "error", "enum", "serenum", "int_lit"):
            return "0"
        raise Unsupported(f"no default value for type {t}")

    # ------------------------------------------------------------------ expressions
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
        if op == "table_hit":
            tid = self.table_by_name[e["table"]]["id"]
            return f"({'not ' if e['neg'] else ''}T_apply_{tid}(P, L)[0])"
        if op == "un":
            a = self.x(e["a"])
            o = e["o"]
            if o == "!":
                return f"(not {a})"
            if t[0] == "int_lit":
                return f"({o}{a})"
            w = t[1]
            if t[0] == "bit":
                return f"((-{a}) & {_m(w)})" if o == "-" else f"({a} ^ {_m(w)})"
            return f"_sw(-{a}, {w})" if o == "-" else f"(~{a})"
        if op == "bin":
            return self.binop(e)
        if op == "slice":
            a = self.x(e["a"])
            lo, w = e["lo"], e["hi"] - e["lo"] + 1
            return f"(({a} >> {lo}) & {_m(w)})" if lo else f"({a} & {_m(w)})"
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
            return f"{e['fn']}(P, {', '.join(self.x(a) for a in e['args'])})"
        if op == "mk":
            cls = ("H_" if t[0] == "header" else "S_") + t[1]
            vals = ", ".join(self.x(v) for v in e["vals"])
            return f"_mk({cls}, {tuple(e['fields'])!r}, ({vals}{',' if len(e['vals']) == 1 else ''}))"
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
        if o in ("==", "!=") and e["a"]["t"][0] in ("header", "struct"):
            return f"({'' if o == '==' else 'not '}_eq({a}, {b}))"
        if o in ("==", "!=", "<", ">", "<=", ">="):
            return f"({a} {o} {b})"
        if t[0] == "int_lit":
            pyop = {"/": "//"}.get(o, o)
            return f"({a} {pyop} {b})"
        w = t[1]
        M = _m(w)
        signed = t[0] == "int"
        if o == "++":
            wa = e["a"]["t"][1]
            wb = e["b"]["t"][1]
            ua = f"({a} & {_m(wa)})" if e["a"]["t"][0] == "int" else a
            ub = f"({b} & {_m(wb)})" if e["b"]["t"][0] == "int" else b
            r = f"(({ua} << {wb}) | {ub})"
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
                if e["b"]["v"] >= w:
                    return "0"
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
            return f"({a} & {_m(w)})"
        # to signed
        if src[0] == "int" and src[1] <= w:
            return a
        return f"_sw({a}, {w})"

    # ------------------------------------------------------------------ statements
    def assign(self, ind: int, lv, rhs: str, t) -> None:
        if t[0] == "varbit":
            self.emit(ind, f"{self.x(lv)} = {rhs}")
            self.emit(ind, f"{self.x(lv['base'])}._vb = {rhs.rsplit('.', 1)[0]}._vb")
            return
        if t[0] in ("header", "struct", "stack"):
            if lv["op"] == "var":
                # mutate in place: the object may also be P.hdr/P.meta/P.sm or a caller's
                self.emit(ind, f"_copy_into({lv['n']}, {rhs}.copy())")
                return
            rhs = f"{rhs}.copy()"
        op = lv["op"]
        if op == "slice":
            base = lv["a"]
            b = self.x(base)
            lo, w = lv["lo"], lv["hi"] - lv["lo"] + 1
            bt = base["t"]
            full = _m(bt[1])
            keep = full ^ (_m(w) << lo)
            val = f"(({b} & {keep}) | (({rhs}) & {_m(w)}) << {lo})"
            if bt[0] == "int":
                val = f"_sw({val}, {bt[1]})"
            self.assign(ind, base, val, bt)
            return
        if op == "stack_next":
            raise Unsupported("assignment to stack.next")
        self.emit(ind, f"{self.x(lv)} = {rhs}")

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
                        v = f"({v} & {_m(w)})"
                    acc = f"(({acc}) << {w}) | {v}"
                    bits = f"{bits} + {w}"
            return acc, f"({bits})"
        total = sum(w for _, w in data)
        parts, pos = [], total
        for d, w in data:
            pos -= w
            v = self.x(d)
            if d["t"][0] == "int":
                v = f"({v} & {_m(w)})"
            parts.append(f"({v} << {pos})" if pos else v)
        return (" | ".join(parts) or "0"), total

    def block(self, ind: int, stmts) -> None:
        start = len(self.lines)
        for s in stmts:
            self.stmt(ind, s)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def stmt(self, ind: int, s) -> None:
        k = s["s"]
        if k == "block":
            self.block(ind, s["body"])
        elif k == "decl":
            init = self.x(s["init"]) if s["init"] is not None else None
            if init is not None:
                if s["t"][0] in ("header", "struct", "stack"):
                    init = f"{init}.copy()"
                self.emit(ind, f"{s['n']} = {init}")
            else:
                self.emit(ind, f"{s['n']} = {self.default(s['t'])}")
        elif k == "assign":
            self.assign(ind, s["l"], self.x(s["r"]), s["l"]["t"])
        elif k == "if":
            self.emit(ind, f"if {self.x(s['c'])}:")
            self.block(ind + 1, s["then"])
            if s["else"]:
                self.emit(ind, "else:")
                self.block(ind + 1, s["else"])
        elif k == "exit":
            self.emit(ind, "raise ExitSignal()")
        elif k == "return":
            if self.fn_outs is not None:
                v = self.x(s["v"]) if s["v"] is not None else "None"
                self.emit(ind, f"return ({v}, {', '.join(self.fn_outs)},)")
            elif s["v"] is not None:
                self.emit(ind, f"return {self.x(s['v'])}")
            elif self.action_outs:
                self.emit(ind, f"return ({', '.join(self.action_outs)},)")
            else:
                self.emit(ind, "return")
        elif k == "apply":
            tid = self.table_by_name[s["table"]]["id"]
            self.emit(ind, f"T_apply_{tid}(P, L)")
        elif k == "switch_action":
            tab = self.table_by_name[s["table"]]
            v = self.fresh("aid")
            self.emit(ind, f"{v} = T_apply_{tab['id']}(P, L)[1]")
            first = True
            default_body = None
            for c in s["cases"]:
                labels = [lb for lb in c["labels"] if lb != "default"]
                if "default" in c["labels"]:
                    default_body = c["body"]
                    if not labels:
                        continue
                ids = ", ".join(str(self.action_by_name[lb]["id"]) for lb in labels)
                self.emit(ind, f"{'if' if first else 'elif'} {v} in ({ids},):")
                first = False
                self.block(ind + 1, c["body"])
            if default_body is not None:
                if first:
                    self.block(ind, default_body)
                else:
                    self.emit(ind, "else:")
                    self.block(ind + 1, default_body)
        elif k == "switch_value":
            v = self.fresh("sw")
            self.emit(ind, f"{v} = {self.x(s['e'])}")
            first = True
            default_body = None
            for c in s["cases"]:
                labels = [lb for lb in c["labels"] if lb != "default"]
                if "default" in c["labels"]:
                    default_body = c["body"]
                    if not labels:
                        continue
                self.emit(ind, f"{'if' if first else 'elif'} {v} in ({', '.join(map(str, labels))},):")
                first = False
                self.block(ind + 1, c["body"])
            if default_body is not None:
                if first:
                    self.block(ind, default_body)
                else:
                    self.emit(ind, "else:")
                    self.block(ind + 1, default_body)
        elif k == "call_action":
            a = self.action_by_name[s["action"]]
            args = []
            outs = []
            for arg, p in zip(s["args"], a["all_params"]):
                if arg["dir"] == "out":
                    args.append(self.default(p["t"]))
                else:
                    v = self.x(arg["e"])
                    if p["t"][0] in ("header", "struct", "stack") and arg["dir"] == "in":
                        v = f"{v}.copy()"
                    args.append(v)
                if arg["dir"] in ("out", "inout"):
                    outs.append((arg["e"], p["t"]))
            call = f"A_{a['id']}(P, L{''.join(', ' + x for x in args)})"
            if outs:
                r = self.fresh("r")
                self.emit(ind, f"{r} = {call}")
                for i, (lv, t) in enumerate(outs):
                    self.assign(ind, lv, f"{r}[{i}]", t)
            else:
                self.emit(ind, call)
        elif k == "apply_control":
            sl = self.fresh("l")
            self.emit(ind, f"{sl} = Locals()")
            for arg in s["args"]:
                attr = arg["py"][2:] if arg["py"].startswith("L.") else arg["py"]
                t = arg["e"]["t"]
                if arg["dir"] == "out" and t[0] not in ("struct", "header", "stack"):
                    v = self.default(t)
                else:
                    v = self.x(arg["e"])
                    if arg["dir"] == "in" and t[0] in ("struct", "header", "stack"):
                        v = f"{v}.copy()"
                self.emit(ind, f"{sl}.{attr} = {v}")
            self.emit(ind, f"{s['fn']}(P, {sl})")
            for arg in s["args"]:
                t = arg["e"]["t"]
                if arg["dir"] in ("out", "inout") and t[0] not in ("struct", "header", "stack"):
                    attr = arg["py"][2:] if arg["py"].startswith("L.") else arg["py"]
                    self.assign(ind, arg["e"], f"{sl}.{attr}", t)
        elif k == "call_fn":
            args = []
            for arg in s["args"]:
                if arg["dir"] == "out":
                    args.append(self.default(arg["t"]))
                else:
                    v = self.x(arg["e"])
                    if arg["t"][0] in ("header", "struct", "stack"):
                        v = f"{v}.copy()"
                    args.append(v)
            r = self.fresh("r")
            self.emit(ind, f"{r} = {s['fn']}(P, {', '.join(args)})")
            k2 = 1
            for arg in s["args"]:
                if arg["dir"] in ("out", "inout"):
                    self.assign(ind, arg["e"], f"{r}[{k2}]", arg["t"])
                    k2 += 1
        elif k == "eval":
            self.emit(ind, self.x(s["e"]))
        elif k == "nop":
            pass
        elif k == "extract":
            self.emit(ind, f"off = {self.x(s['h'])}.extract(data, off, n)")
        elif k == "extract_var":
            self.emit(ind, f"off = {self.x(s['h'])}.extract_var(data, off, n, {self.x(s['bits'])})")
        elif k == "extract_next":
            st = self.fresh("st")
            self.emit(ind, f"{st} = {self.x(s['st'])}")
            self.emit(ind, f"off = {st}.nxt().extract(data, off, n)")
            self.emit(ind, f"{st}.n += 1")
        elif k == "advance":
            b = self.fresh("b")
            self.emit(ind, f"{b} = {self.x(s['bits'])}")
            self.emit(ind, f"if {b} % 8:")
            self.emit(ind + 1, f"raise ParserError({self.errors['ParserInvalidArgument']})")
            self.emit(ind, f"if off + ({b} >> 3) > n:")
            self.emit(ind + 1, f"raise ParserError({self.errors['PacketTooShort']})")
            self.emit(ind, f"off += {b} >> 3")
        elif k == "verify":
            self.emit(ind, f"if not {self.x(s['c'])}:")
            self.emit(ind + 1, f"raise ParserError({self.x(s['e'])})")
        elif k == "emit":
            h = self.fresh("h")
            self.emit(ind, f"{h} = {self.x(s['h'])}")
            self.emit(ind, f"if {h}._v:")
            self.emit(ind + 1, f"out.append({h}.pack())")
        elif k == "emit_stack":
            h = self.fresh("h")
            self.emit(ind, f"for {h} in {self.x(s['st'])}.a:")
            self.emit(ind + 1, f"if {h}._v:")
            self.emit(ind + 2, f"out.append({h}.pack())")
        elif k == "setvalid":
            h = self.fresh("h")
            self.emit(ind, f"{h} = {self.x(s['h'])}")
            if s["v"]:
                self.emit(ind, f"if not {h}._v:")
                self.emit(ind + 1, f"{h}.reset()")
                self.emit(ind + 1, f"{h}._v = True")
                self.emit(ind + 1, f"P.plen += {s['bytes']}")
            else:
                self.emit(ind, f"if {h}._v:")
                self.emit(ind + 1, f"{h}._v = False")
                self.emit(ind + 1, f"P.plen -= {s['bytes']}")
        elif k in ("push_front", "pop_front"):
            self.emit(ind, f"{self.x(s['st'])}.{k}({s['count']})")
        elif k == "mark_to_drop":
            sm = self.x(s["sm"])
            self.emit(ind, f"{sm}.egress_spec = 511")
            self.emit(ind, f"{sm}.mcast_grp = 0")
            self.emit(ind, "if P.tr: P.tr('mark_to_drop')")
        elif k == "counter":
            self.emit(ind, f"{s['obj']}.count({self.x(s['i'])}, P.ilen)")
        elif k == "reg_read":
            self.assign(ind, s["l"], self.reg_read_expr(s["obj"], self.x(s["i"]), s["t"]), s["t"])
        elif k == "reg_write":
            v = self.x(s["v"])
            if s["t"][0] == "int":
                v = f"({v}) & {_m(s['t'][1])}"
            self.emit(ind, f"{s['obj']}.put({self.x(s['i'])}, {v})")
        elif k == "meter":
            self.assign(ind, s["l"], f"({s['obj']}.execute({self.x(s['i'])}, P.ilen, CLOCK()) & {_m(s['t'][1])})",
                        s["t"])
        elif k == "direct_meter_read":
            self.emit(ind, "if P.dm is not None:")
            self.assign(ind + 1, s["l"], f"(P.dm & {_m(s['t'][1])})" if s["t"][0] == "bit" else "P.dm", s["t"])
        elif k == "random":
            self.assign(ind, s["l"], f"_random({self.x(s['lo'])}, {self.x(s['hi'])})", s["t"])
        elif k == "digest":
            vals = []
            for it in s["items"]:
                v = self.x(it)
                t = it["t"]
                if t[0] == "int":
                    v = f"({v} & {_m(t[1])})"
                elif t[0] == "bool":
                    v = f"int({v})"
                vals.append(v)
            tup = f"({', '.join(vals)}{',' if len(vals) == 1 else ''})"
            if s.get("late"):
                tup = f"lambda: {tup}"
            self.emit(ind, f"P.digest = ({self.digest_ids[s['name']]}, {tup})")
        elif k == "hash":
            cat, bits = self.cat(s["data"])
            mx = self.x(s["max"])
            self.emit(ind, f"_hv = hash_value({s['algo']!r}, {cat}, {bits})")
            self.emit(ind, f"_hm = {mx}")
            w = s["t"][1]
            self.assign(ind, s["l"], f"(({self.x(s['base'])} + (_hv % _hm if _hm else _hv)) & {_m(w)})", s["t"])
        elif k == "update_checksum":
            cat, bits = self.cat(s["data"])
            self.emit(ind, f"if {self.x(s['c'])}:")
            fn = f"csum16({cat}, {bits})" if s["algo"] == "csum16" else f"hash_value({s['algo']!r}, {cat}, {bits})"
            self.assign(ind + 1, s["l"], f"({fn} & {_m(s['t'][1])})", s["t"])
        elif k == "verify_checksum":
            cat, bits = self.cat(s["data"])
            fn = f"csum16({cat}, {bits})" if s["algo"] == "csum16" else f"hash_value({s['algo']!r}, {cat}, {bits})"
            ck = self.x(s["ck"])
            self.emit(ind, f"if {self.x(s['c'])} and ({fn} & {_m(s['t'][1])}) != {ck}:")
            self.emit(ind + 1, "P.sm.checksum_error = 1")
        elif k == "clone":
            self.emit(ind, f"P.clone = ({self.x(s['session'])}, {s['fl']})")
        elif k == "resubmit":
            self.emit(ind, f"P.resub = {s['fl']}")
        elif k == "recirculate":
            self.emit(ind, f"P.recirc = {s['fl']}")
        elif k == "truncate":
            self.emit(ind, f"P.trunc = {self.x(s['n'])}")
        elif k == "assert":
            self.emit(ind, f"if not {self.x(s['c'])}:")
            self.emit(ind + 1, f"raise AssertionFailed({s['where']!r})")
        elif k == "log":
            data = ", ".join(self.x(d) for d in s["data"])
            self.emit(ind, f"if P.tr: P.tr('log_msg: ' + {s['msg']!r}.format({data}))")
        else:
            raise Unsupported(f"statement {k}")

    # ------------------------------------------------------------------ blocks
    def prologue(self, ind: int, role: str, params) -> None:
        """Bind a top-level block's parameters to the packet state (and to L for its actions)."""
        for p, attr in zip(params, _ROLE_ATTRS[role]):
            if attr == "pkt":
                self.emit(ind, f"{p['py']} = None")
            else:
                self.emit(ind, f"{p['py']} = P.{attr}")
            if role != "parser":
                self.emit(ind, f"L.{p['py']} = {p['py']}")

    def owner_prologue(self, ind: int, control) -> None:
        """Inside an action/table apply: load the owning control's parameters from L."""
        blk = self.blocks_by_name.get(control)
        if blk is None:
            return
        for p in blk["params"]:
            if not p["py"].startswith("L."):
                self.emit(ind, f"{p['py']} = L.{p['py']}")

    def gen_actions(self) -> None:
        for a in self.ir["actions"]:
            params = ", ".join(p["py"] for p in a["all_params"])
            self.emit(0, f"def A_{a['id']}(P, L{', ' + params if params else ''}):")
            self.owner_prologue(1, a.get("control"))
            self.emit(1, f"if P.tr: P.tr('action {a['name']}')")
            outs = [p["py"] for p in a["all_params"] if p["dir"] in ("out", "inout")]
            self.action_outs = outs
            self.block(1, a["body"])
            if outs:
                self.emit(1, f"return ({', '.join(outs)},)")
            self.action_outs = None
            self.emit(0, "")
        self.emit(0, "ACTIONS = {" + ", ".join(f"{a['id']}: A_{a['id']}" for a in self.ir["actions"]) + "}")
        self.emit(0, "ACTION_NAMES = {" + ", ".join(f"{a['id']}: {a['name']!r}" for a in self.ir["actions"]) + "}")
        self.emit(0, "")

    def gen_tables(self) -> None:
        for t in self.ir["tables"]:
            tid = t["id"]
            self.emit(0, f"def T_apply_{tid}(P, L):")
            self.owner_prologue(1, t.get("control"))
            keys = ", ".join(self.x(k["expr"]) for k in t["keys"])
            self.emit(1, f"aid, prm, ent = TBL_{tid}.lookup(({keys}{',' if len(t['keys']) == 1 else ''}))")
            if t["direct_counter"] or t["direct_meter"]:
                self.emit(1, "if ent is not None:")
                if t["direct_counter"]:
                    self.emit(2, "c = ent.counter")
                    self.emit(2, "c[0] += 1")
                    self.emit(2, "c[1] += P.ilen")
                if t["direct_meter"]:
                    self.emit(2, "P.dm = _direct_meter(ent, P.ilen, "
                                 f"{self.dmeter_unit(t['direct_meter'])!r})")
                    self.emit(1, "else:")
                    self.emit(2, "P.dm = None")
            self.emit(1, f"if P.tr: P.tr('table {t['name']}: ' + ('hit' if ent is not None else 'miss') "
                         "+ ' -> ' + ACTION_NAMES[aid])")
            self.emit(1, f"TACTS_{tid}[aid](P, L, *prm)")
            self.emit(1, "return ent is not None, aid")
            self.emit(0, "")
            entries = []
            for a in t["actions"]:
                if not a.get("bound"):
                    entries.append(f"{a['id']}: A_{a['id']}")
                    continue
                wname = f"B_{tid}_{a['id']}"
                self.emit(0, f"def {wname}(P, L, *prm):")
                self.owner_prologue(1, t.get("control"))
                args = []
                for b in a["bound"]:
                    v = self.x(b["e"])
                    if b["e"]["t"][0] in ("header", "struct", "stack") and b["dir"] == "in":
                        v = f"{v}.copy()"
                    args.append(v)
                self.emit(1, f"_r = A_{a['id']}(P, L, {', '.join(args)}, *prm)")
                k2 = 0
                for b in a["bound"]:
                    if b["dir"] in ("out", "inout"):
                        self.assign(1, b["e"], f"_r[{k2}]", b["e"]["t"])
                        k2 += 1
                self.emit(0, "")
                entries.append(f"{a['id']}: {wname}")
            # the default action may be any action (P4Runtime restricts the choice)
            self.emit(0, f"TACTS_{tid} = {{**ACTIONS, {', '.join(entries)}}}")
            self.emit(0, "")

    def dmeter_unit(self, mid) -> str:
        for m in self.ir["direct_meters"]:
            if m["id"] == mid:
                return m["unit"]
        return "packets"

    def gen_functions(self) -> None:
        for f in self.ir["functions"]:
            params = ", ".join(p["py"] for p in f["params"])
            self.emit(0, f"def {f['py']}(P{', ' + params if params else ''}):")
            self.emit(1, "L = None")
            outs = [p["py"] for p in f["params"] if p.get("dir") in ("out", "inout")]
            self.fn_outs = outs or None
            self.block(1, f["body"])
            if outs:
                self.emit(1, f"return (None, {', '.join(outs)},)")
            self.fn_outs = None
            self.emit(0, "")

    def gen_parser(self) -> None:
        p = self.ir["blocks"]["parser"]
        self.role = "parser"
        self.emit(0, "def run_parser(P):")
        self.emit(1, "L = None")
        self.prologue(1, "parser", p["params"])
        self.emit(1, "data = P.data")
        self.emit(1, "n = len(data)")
        self.emit(1, "off = 0")
        self.emit(1, "try:")
        for s in p["locals"]:
            self.stmt(2, s)
        states = list(p["states"])
        num = {name: i for i, name in enumerate(states)}
        num["accept"] = -1
        num["reject"] = -2
        self.emit(2, f"st = {num['start']}")
        self.emit(2, f"for _ in range({PARSER_STEP_LIMIT}):")
        for i, name in enumerate(states):
            body = p["states"][name]
            self.emit(3, f"{'if' if i == 0 else 'elif'} st == {i}:  # state {name}")
            self.emit(4, f"if P.tr: P.tr('parser state {name}')")
            for s in body["body"]:
                self.stmt(4, s)
            tr = body["transition"]
            if tr["kind"] == "direct":
                self.emit(4, f"st = {num[tr['to']]}")
            else:
                keys = [self.fresh("k") for _ in tr["keys"]]
                for kv, ke in zip(keys, tr["keys"]):
                    self.emit(4, f"{kv} = {self.x(ke)}")
                first = True
                has_default = False
                for c in tr["cases"]:
                    conds = []
                    for kv, ks in zip(keys, c["keysets"]):
                        if ks["k"] == "value":
                            conds.append(f"{kv} == {ks['v']}")
                        elif ks["k"] == "mask":
                            conds.append(f"{kv} & {ks['m']} == {ks['v']}")
                        elif ks["k"] == "range":
                            conds.append(f"{ks['lo']} <= {kv} <= {ks['hi']}")
                    if not conds:
                        if first:
                            self.emit(4, f"st = {num[c['to']]}")
                        else:
                            self.emit(4, "else:")
                            self.emit(5, f"st = {num[c['to']]}")
                        has_default = True
                        break
                    self.emit(4, f"{'if' if first else 'elif'} {' and '.join(conds)}:")
                    self.emit(5, f"st = {num[c['to']]}")
                    first = False
                if not has_default:
                    if first:
                        self.emit(4, f"raise ParserError({self.errors['NoMatch']})")
                    else:
                        self.emit(4, "else:")
                        self.emit(5, f"raise ParserError({self.errors['NoMatch']})")
            self.emit(4, "if st < 0:")
            self.emit(5, "break")
        self.emit(3, "else:")
        self.emit(4, "raise ParserError(-1)")
        self.emit(2, "else:")
        self.emit(3, f"raise ParserError({self.errors['ParserTimeout']})")
        self.emit(1, "except ParserError as e:")
        self.emit(2, f"P.sm.parser_error = e.code if e.code >= 0 else 0")
        self.emit(2, "if P.tr and e.code >= 0: P.tr('parser error ' + ERROR_NAMES[e.code])")
        self.emit(1, "P.off = off")
        self.emit(0, "")

    def gen_subcontrol(self, c) -> None:
        self.emit(0, f"def {c['fn']}(P, L):")
        for p in c["params"]:
            if not p["py"].startswith("L."):
                self.emit(1, f"{p['py']} = L.{p['py']}")
        for s in c["locals"]:
            self.stmt(1, s)
        self.block(1, c["body"])
        self.emit(0, "")

    def gen_control(self, role: str) -> None:
        c = self.ir["blocks"][role]
        self.role = role
        if not c["locals"] and not c["body"] and role != "deparser":
            self.emit(0, f"run_{role} = None  # empty control: the engine skips it")
            self.emit(0, "")
            return
        self.emit(0, f"def run_{role}(P):")
        self.emit(1, "L = Locals()")
        self.prologue(1, role, c["params"])
        if role == "deparser":
            self.emit(1, "out = []")
        self.emit(1, "try:")
        for s in c["locals"]:
            self.stmt(2, s)
        self.block(2, c["body"])
        self.emit(1, "except ExitSignal:")
        self.emit(2, f"if P.tr: P.tr('exit in {c['name']}')")
        if role == "deparser":
            self.emit(1, "return b''.join(out)")
        self.emit(0, "")

    def gen_field_lists(self) -> None:
        self.emit(0, "def copy_field_list(src, dst, index):")
        lists = self.ir.get("field_lists", {})
        meta_t = None
        ing = self.ir["blocks"]["ingress"]["params"]
        if len(ing) >= 2 and ing[1]["t"][0] == "struct":
            meta_t = ing[1]["t"][1]
        emitted = False
        for idx, fields in lists.items():
            fs = [f for st, f in fields if st == meta_t]
            if not fs:
                continue
            self.emit(1, f"if index == {idx}:")
            for f in fs:
                pf = self.pyfield(meta_t, f)
                self.emit(2, f"dst.{pf} = src.{pf}")
            emitted = True
        if not emitted:
            self.emit(1, "pass")
        self.emit(0, "")

    def pyfield(self, struct, f):
        s = self.ir["structs"][struct]
        return s["fields"][s["p4_fields"].index(f)][0]

    def generate(self) -> str:
        self.emit(0, f"# generated from P4 program {self.ir['program']!r} by switch.runtime.codegen")
        self.emit(0, "ERROR_NAMES = " + repr(self.ir["errors"]))
        self.emit(0, "")
        self.gen_types()
        self.blocks_by_name = {b["name"]: b for r, b in self.ir["blocks"].items() if r != "parser"}
        for b in self.ir.get("subcontrols", []):
            self.blocks_by_name[b["name"]] = b
        self.gen_functions()
        self.gen_actions()
        for b in self.ir.get("subcontrols", []):
            self.gen_subcontrol(b)
        self.gen_tables()
        self.gen_parser()
        for role in ("verify_checksum", "ingress", "egress", "compute_checksum", "deparser"):
            self.gen_control(role)
        self.gen_field_lists()
        blocks = self.ir["blocks"]

        def ctor(role, idx):
            t = blocks["parser"]["params"][idx]["t"]
            return self.default(t)
        self.emit(0, f"def new_headers(): return {ctor('parser', 1)}")
        self.emit(0, f"def new_meta(): return {ctor('parser', 2)}")
        self.emit(0, f"def new_sm(): return {ctor('parser', 3)}")
        return "\n".join(self.lines) + "\n"


PARSER_STEP_LIMIT = 1000


class Locals:
    """Per-invocation control-scope variables (attributes set by the generated code)."""


class AssertionFailed(Exception):
    pass


def _sw(v: int, w: int) -> int:
    h = 1 << (w - 1)
    return ((v + h) & ((1 << w) - 1)) - h


def _shl(a, b, w):
    return a << b if b < w else 0


def _shr(a, b, w):
    return a >> b if b < w else (0 if a >= 0 else -1)


def _div(a, b):
    return a // b if b else 0


def _mod(a, b):
    return a % b if b else 0


def _sat(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def _mk(cls, names, vals):
    o = cls()
    for n, v in zip(names, vals):
        setattr(o, n, v.copy() if hasattr(v, "copy") else v)
    if hasattr(o, "_v"):
        o._v = True
    return o


def _copy_into(dst, src):
    for a in type(dst).__slots__:
        setattr(dst, a, getattr(src, a))


def _eq(a, b):
    """P4 equality of headers (both invalid, or both valid with equal fields) and structs."""
    if hasattr(a, "_v"):
        if not a._v or not b._v:
            return a._v == b._v
    for f in type(a).__slots__:
        if f == "_v":
            continue
        x, y = getattr(a, f), getattr(b, f)
        if hasattr(x, "__slots__"):
            if not _eq(x, y):
                return False
        elif x != y:
            return False
    return True


def _peek(cls, data, off, n):
    h = cls()
    h.extract(data, off, n)
    return h


def _lookahead(data, off, n, bits):
    nb = (bits + 7) >> 3
    if off + nb > n:
        raise ParserError(1)
    v = int.from_bytes(data[off:off + nb], "big")
    return v >> (nb * 8 - bits)


def load(ir: dict, pipeline) -> Engine:
    """Generate, exec and wire the program of ``ir`` to ``pipeline``'s state."""
    gen = Gen(ir)
    src = gen.generate()
    ns: dict = {
        "Stack": Stack, "ParserError": ParserError, "ExitSignal": ExitSignal, "Locals": Locals,
        "AssertionFailed": AssertionFailed, "_sw": _sw, "_shl": _shl, "_shr": _shr, "_div": _div,
        "_mod": _mod, "_sat": _sat, "_mk": _mk, "_peek": _peek, "_copy_into": _copy_into,
        "_eq": _eq, "_lookahead": _lookahead, "csum16": csum16,
        "hash_value": hash_value, "CLOCK": pipeline.clock,
        "_random": lambda lo, hi: pipeline.rng.randint(lo, hi) if lo <= hi else lo,
    }
    for t in ir["tables"]:
        ns[f"TBL_{t['id']}"] = pipeline.tables[t["id"]]
    for kind, store in (("counters", pipeline.counters), ("registers", pipeline.registers),
                        ("meters", pipeline.meters)):
        for o in ir[kind]:
            ns[o["py"]] = store[o["id"]]

    def direct_meter(ent, nbytes, unit):
        cfg = ent.meter
        if cfg is None:
            return 0
        now = pipeline.clock()
        if ent.meter_state is None or ent.meter_state.cfg is not cfg:
            from .externs import MeterState
            ent.meter_state = MeterState(cfg, now)
        return ent.meter_state.execute(nbytes if unit == "bytes" else 1, now)
    ns["_direct_meter"] = direct_meter
    code = compile(src, f"<p4 program {ir['program']}>", "exec")
    exec(code, ns)  # noqa: S102 - source generated above from the typed IR
    return Engine(ir, pipeline, ns, src)
