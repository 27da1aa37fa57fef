"""Random v1model programs about tables, actions and externs, run on real BMv2 and on ours (issue #15).

``generate(seed)`` builds one :class:`~diff_harness.Case` from a seed, deterministically:

* 1-4 tables in ingress, egress and a sub-control instantiated twice (``S() s1; S() s2;``),
  applied in random control flow: plain, ``if (t.apply().hit)`` / ``.miss`` / ``!...hit``,
  ``switch (t.apply().action_run)`` (with fall-through labels and ``default``), nested ``if``s,
  ``exit`` in branches and actions;
* keys of header and metadata fields, slices, ``isValid()``, bool and arithmetic expressions
  (``@name``d), with exact / lpm / ternary / range / optional match kinds;
* entries written over P4Runtime (overlapping ternaries and ranges with distinct priorities,
  lpm prefixes of any length, don't-care fields) or ``const entries`` (``@priority`` on some);
  default actions const or not, with parameters, some changed at run time;
* actions with parameters of odd widths writing header fields, ``mark_to_drop``, egress_spec
  of 511 / 0 / an unused port, multicast groups with rids, indexed and direct counters,
  registers (indices in and out of range), ``hash`` with every deterministic algorithm and
  field lists of several shapes, ``random`` with a one-value range, unconfigured meters
  (GREEN), digests of a struct, clone / clone_preserving_field_list (I2E and E2E),
  resubmit and recirculate with ``@field_list``, checksum verify/update under conditions;
* frames with random header values, many of them taken from the entries' values.

Each seed's program is judged by :mod:`fuzz_run` (compile side, P4Info, frames, digests and
counters on both switches, p4c's JSON on checkmate-switch); the CLI writes each finding to
``--out/<seed>/``::

    python -m tests.differential.fuzz_tables --seeds 0-500 --out /work/corpus/fuzz/fuzzt
"""
from __future__ import annotations

import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from controller.entities import Entry  # noqa: E402
from diff_harness import Case  # noqa: E402
from diffcases.base import PAYLOAD, csum16, eth, hdr, program  # noqa: E402

# readable fields (ingress view): name -> width; the sub-control sees hh/mm/ss instead
HDR_FIELDS = {"hdr.h.a": 8, "hdr.h.b": 8, "hdr.h.c": 16, "hdr.h.d": 32, "hdr.h2.a": 8, "hdr.h2.c": 16,
              "hdr.eth.dst": 48, "hdr.eth.etype": 16}
META_FIELDS = {"meta.m8": 8, "meta.m16": 16, "meta.m32": 32}
SINKS = {"hdr.h.a": 8, "hdr.h.b": 8, "hdr.h.c": 16, "hdr.h.d": 32, "hdr.h2.b": 8, "hdr.h2.d": 32,
         "hdr.eth.dst[15:0]": 16, "hdr.eth.src[47:40]": 8, "meta.m8": 8, "meta.m16": 16, "meta.m32": 32,
         "meta.keep": 8}
POOL = {"hdr.h.a": [1, 2, 0x10, 0x11, 0x7f, 0x80, 0xff, 0xee], "hdr.h.b": [0, 2, 3, 0x20, 0x80, 0xfe],
        "hdr.h.c": [0, 3, 0x0a0b, 0x8000, 0xffff, 0x1234], "hdr.h.d": [0, 4, 0x0a000001, 0x0a000102, 0xdeadbeef, 0x80000000],
        "hdr.h2.a": [0, 5, 0x33], "hdr.h2.c": [0, 7, 0xabcd]}
WIDTHS = [1, 3, 5, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 48]
HASH_ALGS = ["crc16", "crc32", "csum16", "identity", "xor16", "crc16_custom", "crc32_custom"]
HASH_LISTS = ["{ hdr.h.a, hdr.h.b, hdr.h.c }", "{ hdr.h.d }", "{ hdr.eth.src, hdr.h.a }", "{ hdr.h.a[2:0], hdr.h.c[12:0], hdr.h.b[0:0] }",
              "{ hdr.h.d, hdr.h.c, hdr.h.b, hdr.h.a, hdr.eth.src }", "{ meta.m16, 8w0x5a, hdr.h2.c }", "{ hdr.h.b }"]
PORTS_SPEC = [1, 2, 3, 4, 5, 0, 511, 99, 7]

TOP = """struct dg_t { bit<8> a; bit<16> c; bit<9> port; }
"""
META = "    @field_list(1) bit<8> keep;\n    @field_list(1, 2) bit<8> rc;\n    bit<8> lost;\n"
EG_REPORT = ("        hdr.eth.src[7:0] = (bit<8>)sm.instance_type; hdr.eth.src[23:8] = sm.egress_rid;\n"
             "        hdr.eth.src[31:24] = meta.keep; hdr.eth.src[39:32] = sm.egress_port[7:0];\n")


def lit(w: int, v: int) -> str:
    return f"{w}w{v & ((1 << w) - 1):#x}"


def mask_of(w: int, plen: int) -> int:
    return ((1 << w) - 1) ^ ((1 << (w - plen)) - 1)


class Key:
    def __init__(self, expr, width, kind, name, pool_of=None, lo=0, annotate=False):
        self.expr, self.width, self.kind, self.name, self.pool_of, self.lo = expr, width, kind, name, pool_of, lo
        self.annotate = annotate


class Table:
    def __init__(self, name, ctl):
        self.name, self.ctl = name, ctl
        self.keys: list[Key] = []
        self.actions: list = []          # action objects usable by entries
        self.default_only = None
        self.default = None              # (action, args)
        self.const_default = False
        self.const_entries = None        # text
        self.entries_const = True
        self.direct_counter = None
        self.direct_meter = None
        self.entries: list = []          # (match dict, action, params, prio)

    @property
    def needs_prio(self):
        return any(k.kind in ("ternary", "range", "optional") for k in self.keys)


class Action:
    def __init__(self, name, params, body):
        self.name, self.params, self.body = name, params, body


class Gen:
    """One program; ``case()`` gives the Case."""

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.n = 0
        self.used = set()   # feature tags, for the CLI's statistics
        self.mcast, self.clones = {}, {}
        self.one_by_one = False
        self.ctl_decls = {"I": [], "E": [], "S": []}
        self.actions = {"I": [], "E": [], "S": []}
        self.tables = {"I": [], "E": [], "S": []}
        self.externs = {"I": {}, "E": {}, "S": {}}

    def fresh(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def chance(self, p):
        return self.r.random() < p

    # ------------------------------------------------------------------ expressions
    def expr(self, w, params=(), depth=0):
        r = self.r
        k = r.random()
        if params and k < 0.35:
            pn, pw = r.choice(params)
            return pn if pw == w else f"(bit<{w}>){pn}"
        if k < 0.55 or depth > 1:
            f = r.choice(list(HDR_FIELDS) + list(META_FIELDS))
            fw = HDR_FIELDS.get(f) or META_FIELDS[f]
            return f if fw == w else f"(bit<{w}>){f}"
        if k < 0.7:
            return lit(w, r.getrandbits(w))
        op = r.choice(["+", "-", "&", "|", "^"])
        return f"({self.expr(w, params, depth + 1)} {op} {self.expr(w, params, depth + 1)})"

    def sink(self, ctl):
        s = self.r.choice(list(SINKS))
        if ctl == "E" and s == "meta.keep":
            s = "meta.lost"
        return s, SINKS.get(s, 8)

    # ------------------------------------------------------------------ externs
    def extern(self, ctl, kind):
        ex = self.externs[ctl]
        if kind in ex:
            return ex[kind]
        d = self.ctl_decls[ctl]
        if kind == "counter":
            n, size = self.fresh("c"), self.r.choice([4, 8, 16])
            t = self.r.choice(["packets", "bytes", "packets_and_bytes"])
            d.append(f"    counter({size}, CounterType.{t}) {n};")
            ex[kind] = (n, size)
        elif kind == "register":
            n, size, w = self.fresh("r"), self.r.choice([1, 2, 4, 8]), self.r.choice([8, 16, 32, 13])
            d.append(f"    register<bit<{w}>>({size}) {n};")
            ex[kind] = (n, size, w)
            self.one_by_one = True
        elif kind == "meter":
            n = self.fresh("mt")
            d.append(f"    meter(4, MeterType.{self.r.choice(['packets', 'bytes'])}) {n};")
            ex[kind] = (n,)
        return ex[kind]

    def side_stmt(self, ctl, params=(), in_action=False):
        """One statement with an effect (assignment or extern call), text with hdr/meta/sm names."""
        r = self.r
        kinds = ["assign"] * 6 + ["drop", "port", "port", "count", "hash", "random", "meter", "mcast"]
        if ctl != "E":   # in egress an original and its clones/replicas pass in an order BMv2's threads pick
            kinds.append("reg")
        if ctl in ("I", "S"):
            kinds += ["digest", "clone_i2e"]
        if not in_action:
            kinds += ["resubmit" if ctl in ("I", "S") else "recirc", "clone_e2e" if ctl == "E" else "assign"]
        k = r.choice(kinds)
        self.used.add(k)
        if k == "assign":
            s, w = self.sink(ctl)
            return f"{s} = {self.expr(w, params)};"
        if k == "drop":
            return "mark_to_drop(sm);"
        if k == "port":
            if params and r.random() < 0.3:
                pn, pw = r.choice(params)
                return f"sm.egress_spec = (bit<9>){pn};"
            return f"sm.egress_spec = {r.choice(PORTS_SPEC)};"
        if k == "mcast":
            g = r.choice([1, 2, 9])
            if g in (1, 2) and g not in self.mcast:
                reps = r.sample(range(1, 8), r.randint(1, 3))
                self.mcast[g] = [(p, r.randint(0, 5)) for p in reps]
            return f"sm.mcast_grp = {g};"
        if k == "count":
            n, size = self.extern(ctl, "counter")
            return f"{n}.count((bit<32>){r.choice(['hdr.h.b[3:0]', 'hdr.h.a', '3', 'sm.ingress_port', 'meta.m8'])});"
        if k == "reg":
            n, size, w = self.extern(ctl, "register")
            idx = r.choice(["(bit<32>)hdr.h.b[1:0]", "(bit<32>)hdr.h.a[3:0]", "0", f"{size}", "(bit<32>)sm.ingress_port"])
            s, sw = self.sink(ctl)
            v = self.fresh("v")
            return (f"bit<{w}> {v} = {lit(w, r.getrandbits(w))}; {n}.read({v}, {idx}); {s} = (bit<{sw}>){v}; "
                    f"{n}.write({idx}, {self.expr(w, params)});")
        if k == "hash":
            s, w = self.sink(ctl)
            alg = r.choice(HASH_ALGS)
            base = r.choice([0, 0, 1, 10])
            mx = r.choice([f"32w{1 << min(w, 31)}", "32w0xffffffff", "16w7", "32w0", "64w0x100000000"])
            return f"hash({s}, HashAlgorithm.{alg}, {lit(w, base)}, {r.choice(HASH_LISTS)}, {mx});"
        if k == "random":
            s, w = self.sink(ctl)
            c = lit(w, r.getrandbits(w))
            return f"random({s}, {c}, {c});"
        if k == "meter":
            (n,) = self.extern(ctl, "meter")
            s, w = self.sink(ctl)
            return f"{n}.execute_meter((bit<32>){r.choice(['hdr.h.b[1:0]', '2', 'hdr.h.a[2:0]'])}, {s});"
        if k == "digest":
            return "digest<dg_t>(1, { hdr.h.a, hdr.h.c, sm.ingress_port });"
        if k == "clone_i2e":
            self.clones.setdefault(5, ([(r.randint(1, 7), r.randint(0, 3))], 0))
            if r.random() < 0.5:
                return "meta.keep = hdr.h.a + 1; clone_preserving_field_list(CloneType.I2E, 5, 1);"
            return f"clone(CloneType.I2E, {r.choice([5, 5, 8])});"
        if k == "resubmit":
            return "if (sm.instance_type == 0) { meta.keep = 8w0x77; meta.lost = 1; resubmit_preserving_field_list(1); }"
        if k == "recirc":
            # (an I2E clone of a recirculated packet starts with rc = 0 again: normal packets only)
            return ("if (sm.instance_type == 0 && meta.rc == 0) { meta.rc = 1; meta.lost = 2; "
                    "recirculate_preserving_field_list(2); }")
        if k == "clone_e2e":
            self.clones.setdefault(6, ([(r.randint(1, 7), r.randint(0, 3))], 0))
            return "if (sm.instance_type == 0) { meta.lost = 3; clone_preserving_field_list(CloneType.E2E, 6, 1); }"
        raise AssertionError(k)

    # ------------------------------------------------------------------ actions and tables
    def action(self, ctl):
        r = self.r
        name = self.fresh("a")
        params = [(f"p{i}", r.choice(WIDTHS)) for i in range(r.choice([0, 1, 1, 2, 3]))]
        body = [self.side_stmt(ctl, params, in_action=True) for _ in range(r.randint(1, 3))]
        if r.random() < 0.07:
            body.append("exit;")
            self.used.add("exit_action")
        a = Action(name, params, body)
        self.actions[ctl].append(a)
        return a

    def key(self, ctl, t, lpm_used):
        r = self.r
        kinds = ["exact", "ternary", "range", "optional"] + ([] if lpm_used else ["lpm"])
        kind = r.choice(kinds)
        c = r.random()
        if c < 0.5:
            f = r.choice(["hdr.h.a", "hdr.h.b", "hdr.h.c", "hdr.h.d", "hdr.h2.a", "hdr.h2.c"])
            return Key(f, HDR_FIELDS[f], kind, f, pool_of=f)
        if c < 0.6:
            f, hi, lo = r.choice([("hdr.h.d", 15, 4), ("hdr.h.d", 31, 24), ("hdr.h.c", 7, 0), ("hdr.h.a", 3, 1)])
            return Key(f"{f}[{hi}:{lo}]", hi - lo + 1, kind, f"{f}[{hi}:{lo}]", pool_of=f, lo=lo)
        if c < 0.7:
            h = r.choice(["hdr.h", "hdr.h2"])
            return Key(f"{h}.isValid()", 1, r.choice(["exact", "ternary"]), f"{h}.$valid$")
        if c < 0.8:
            if ctl == "E":
                f, w = r.choice([("sm.egress_port", 9), ("sm.egress_rid", 16), ("sm.instance_type", 32)])
            else:
                f, w = r.choice([("sm.ingress_port", 9), ("meta.m8", 8), ("meta.m16", 16), ("sm.instance_type", 32)])
            return Key(f, w, kind, f)
        name = self.fresh("k")
        e, w = r.choice([("hdr.h.a ^ hdr.h.b", 8), ("hdr.h.c + 16w1", 16), ("(bit<8>)hdr.h.d", 8),
                         ("hdr.h.a == 8w1", 1), ("hdr.h.c[3:0] ++ hdr.h.a[3:0]", 8)])
        return Key(e, w, kind if w > 1 else r.choice(["exact", "ternary"]), name, annotate=True)

    def match_value(self, k: Key):
        """A P4Runtime match value for key ``k`` (None: leave the field out = don't care)."""
        r, w = self.r, k.width
        full = (1 << w) - 1
        if k.pool_of and r.random() < 0.75:
            v = (r.choice(POOL[k.pool_of]) >> k.lo) & full
        elif w == 9:
            v = r.randint(0, 5)
        else:
            v = r.getrandbits(w)
        if k.kind == "exact":
            return v
        if k.kind == "optional":
            return None if r.random() < 0.3 else v
        if k.kind == "lpm":   # (BMv2 refuses bits below its byte-container prefix: see lpm_mask)
            plen = r.randint(0, w)
            cmp = max(0, plen - (-w % 8))
            return (v & mask_of(w, cmp), plen) if plen else None
        if k.kind == "ternary":
            m = r.choice([full, 0, r.getrandbits(w), mask_of(w, r.randint(1, w))])
            return (v & m, m) if m else None
        lo = max(0, v - r.randint(0, 40))
        hi = min(full, v + r.randint(0, 300))
        if r.random() < 0.15:
            lo, hi = 0, full
        return None if (lo, hi) == (0, full) else (lo, hi)

    def const_value(self, k: Key, m):
        if m is None:
            return "_"
        w = k.width
        boolean = k.expr.endswith("isValid()") or "==" in k.expr
        if boolean:   # a bool key: true / false (a ternary one with a full mask)
            return ("true" if (m[0] if isinstance(m, tuple) else m) else "false")
        if k.kind in ("exact", "optional"):
            return lit(w, m)
        if k.kind == "lpm":
            return f"{lit(w, m[0])} &&& {lit(w, mask_of(w, m[1]))}"
        if k.kind == "ternary":
            return f"{lit(w, m[0])} &&& {lit(w, m[1])}"
        return f"{lit(w, m[0])} .. {lit(w, m[1])}"

    def args(self, a: Action):
        return {p: self.r.getrandbits(w) for p, w in a.params}

    def table(self, ctl):
        r = self.r
        t = Table(self.fresh("t"), ctl)
        lpm = False
        for _ in range(r.choice([0, 1, 1, 2, 2, 3])):
            k = self.key(ctl, t, lpm)
            lpm = lpm or k.kind == "lpm"
            if k.name not in [x.name for x in t.keys]:
                t.keys.append(k)
        t.actions = [self.action(ctl) for _ in range(r.randint(1, 3))]
        if r.random() < 0.2:
            t.default_only = self.action(ctl)
        choices = t.actions + ([t.default_only] if t.default_only else [])
        da = r.choice(choices + [None])
        t.default = (da, self.args(da) if da else {})
        t.const_default = r.random() < 0.25
        if r.random() < 0.3 and t.keys:
            t.direct_counter = self.fresh("dc")
            self.ctl_decls[ctl].append(f"    direct_counter(CounterType.{r.choice(['packets', 'bytes', 'packets_and_bytes'])}) {t.direct_counter};")
            self.used.add("direct_counter")
        if r.random() < 0.1 and t.keys:
            t.direct_meter = self.fresh("dm")
            self.ctl_decls[ctl].append(f"    direct_meter<bit<8>>(MeterType.packets) {t.direct_meter};")
            t.actions[0].body.insert(0, f"{t.direct_meter}.read(hdr.h.b);")
            self.used.add("direct_meter")
        if t.keys:
            self.entries_for(t)
        self.tables[ctl].append(t)
        return t

    def entries_for(self, t: Table):
        r = self.r
        seen = set()
        prios = r.sample(range(1, 200), 12)
        # (p4c takes only `_` for a bool key that is not exact: such tables get no const entries)
        const = r.random() < 0.25 and not any(k.kind != "exact" and (k.expr.endswith("isValid()") or "==" in k.expr)
                                              for k in t.keys)
        for i in range(r.randint(0, 7)):
            match = {}
            for k in t.keys:
                v = self.match_value(k)
                if v is not None:
                    match[k.name] = v
            sig = tuple(sorted((n, v if not isinstance(v, list) else tuple(v)) for n, v in match.items()))
            if sig in seen or (not t.needs_prio and len(match) < len(t.keys) and not any(k.kind == "lpm" for k in t.keys)):
                continue
            if not t.needs_prio and len(match) < len([k for k in t.keys if k.kind != "lpm"]):
                continue
            seen.add(sig)
            a = r.choice(t.actions)
            t.entries.append((match, a, self.args(a), prios[i] if t.needs_prio else 0))
        if const and t.entries:
            self.used.add("const_entries")
            lines = []
            style = r.choice(["order", "annotation", "assign"]) if t.needs_prio else "order"
            t.entries_const = style != "assign"   # entries with `priority=` cannot be const (p4c)
            cur = 0
            for i, (match, a, params, prio) in enumerate(t.entries):
                vals = [self.const_value(k, match.get(k.name)) for k in t.keys]
                key = vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"
                args = ", ".join(lit(w, params[p]) for p, w in a.params)
                ann = f" @priority({prio})" if style == "annotation" else ""
                pre = ""
                if style == "assign":   # an entry without one gets the previous priority - 1
                    if i == 0 or cur <= 1 or r.random() < 0.6:
                        pre, cur = f"priority={prio}: ", prio
                    else:
                        cur -= 1
                lines.append(f"            {pre}{key}: {a.name}({args}){ann};")
            t.const_entries = "\n".join(lines)
            t.entries = []

    def table_text(self, t: Table):
        keys = "".join(f" {k.expr}: {k.kind}" + (f' @name("{k.name}")' if k.annotate else "") + ";" for k in t.keys)
        acts = "".join(f" {a.name};" for a in t.actions)
        if t.default_only:
            acts += f" @defaultonly {t.default_only.name};"
        acts += " NoAction;"
        out = [f"    table {t.name} {{"]
        if t.keys:
            out.append(f"        key = {{{keys} }}")
        out.append(f"        actions = {{{acts} }}")
        a, params = t.default
        if a is not None:
            args = ", ".join(lit(w, params[p]) for p, w in a.params)
            out.append(f"        {'const ' if t.const_default else ''}default_action = {a.name}({args});")
        elif t.const_default:
            out.append("        const default_action = NoAction();")
        if t.direct_counter:
            out.append(f"        counters = {t.direct_counter};")
        if t.direct_meter:
            out.append(f"        meters = {t.direct_meter};")
        if t.const_entries:
            out.append(f"        {'const ' if t.entries_const else ''}entries = {{\n" + t.const_entries + "\n        }")
        out.append(f"        size = {self.r.choice([16, 64, 1024])};")
        out.append("    }")
        return "\n".join(out)

    def action_text(self, a: Action):
        ps = ", ".join(f"bit<{w}> {p}" for p, w in a.params)
        return f"    action {a.name}({ps}) {{ " + " ".join(a.body) + " }"

    # ------------------------------------------------------------------ control flow
    def cond(self, ctl):
        return self.r.choice(["hdr.h.isValid()", "hdr.h2.isValid()", "hdr.h.a == 8w1", "hdr.h.b > 8w0x10",
                              "meta.m8 != 0", "hdr.h.c[0:0] == 1", "!hdr.h.isValid()",
                              "sm.ingress_port == 2" if ctl != "E" else "sm.egress_port == 2"])

    def block(self, ctl, tables, depth, ind):
        """Statements applying every table in ``tables`` once, mixed with other statements."""
        r = self.r
        out = []
        tables = list(tables)
        while tables or (r.random() < 0.3 and len(out) < 3):
            c = r.random()
            if not tables or c < 0.2:
                if r.random() < 0.15 and depth > 0 and not tables:
                    out.append(f"{ind}exit;")
                    self.used.add("exit_body")
                    break
                out.append(ind + self.side_stmt(ctl))
                continue
            t = tables.pop(0)
            form = r.choice(["plain", "plain", "hit", "miss", "nothit", "switch"] if depth < 2 else ["plain"])
            self.used.add("apply_" + form)
            inner = [tables.pop(0)] if tables and form != "plain" and r.random() < 0.4 else []
            if tables and r.random() < 0.04:
                tables.pop(0)    # a table no path applies (p4c leaves it and its actions out of the P4Info)
                self.used.add("table_not_applied")
            if form == "plain":
                out.append(f"{ind}{t.name}.apply();")
            elif form in ("hit", "miss", "nothit"):
                e = {"hit": f"{t.name}.apply().hit", "miss": f"{t.name}.apply().miss", "nothit": f"!{t.name}.apply().hit"}[form]
                out.append(f"{ind}if ({e}) {{")
                out += self.block(ctl, inner, depth + 1, ind + "    ")
                if r.random() < 0.5:
                    out.append(f"{ind}}} else {{")
                    out += self.block(ctl, [], depth + 1, ind + "    ")
                out.append(f"{ind}}}")
            else:
                out.append(f"{ind}switch ({t.name}.apply().action_run) {{")
                labels = r.sample(t.actions + ([t.default_only] if t.default_only else []),
                                  r.randint(1, len(t.actions) + (1 if t.default_only else 0)))
                for i, a in enumerate(labels):
                    if i + 1 < len(labels) and r.random() < 0.25:
                        out.append(f"{ind}    {a.name}:")        # fall through to the next label
                        continue
                    out.append(f"{ind}    {a.name}: {{")
                    out += self.block(ctl, inner if i == 0 else [], depth + 1, ind + "        ")
                    out.append(f"{ind}    }}")
                    if i == 0:
                        inner = []
                if r.random() < 0.5:
                    out.append(f"{ind}    default: {{")
                    out += self.block(ctl, inner, depth + 1, ind + "        ")
                    out.append(f"{ind}    }}")
                    inner = []
                out.append(f"{ind}}}")
                if inner:  # still to apply
                    out.append(f"{ind}{inner[0].name}.apply();")
            if r.random() < 0.2:
                out.append(f"{ind}if ({self.cond(ctl)}) {{ {self.side_stmt(ctl)} }}")
        return out

    # ------------------------------------------------------------------ program
    def build(self) -> Case:
        r = self.r
        n_tables = r.randint(1, 4)
        where = [r.choice(["I", "I", "I", "E", "S"]) for _ in range(n_tables)]
        tabs = {ctl: [self.table(ctl) for _ in range(where.count(ctl))] for ctl in ("I", "E", "S")}
        for ctl in ("I", "E", "S"):
            if r.random() < 0.4:   # an action no table uses: called directly
                self.action(ctl)
        decls, bodies = {}, {}
        for ctl in ("I", "E", "S"):
            body = self.block(ctl, tabs[ctl], 0, "        ")
            for a in self.actions[ctl]:
                if not any(a in t.actions or a is t.default_only for t in self.tables[ctl]):
                    body.insert(r.choice([0, len(body)]), "        " + a.name + "(" + ", ".join(lit(w, r.getrandbits(w)) for _, w in a.params) + ");")
            bodies[ctl] = "\n".join(body) + "\n"
            decls[ctl] = "\n".join(self.ctl_decls[ctl] + [self.action_text(a) for a in self.actions[ctl]]
                                   + [self.table_text(t) for t in self.tables[ctl]]) + "\n"
        top = TOP
        # reads of an invalid header's fields give whatever BMv2's reused PHV holds (timing-dependent,
        # docs/CONFORMANCE.md): give h and h2 known values first (ingress and egress), keeping their validity
        prologue = "".join(f"        if (!hdr.{h}.isValid()) {{ hdr.{h}.setValid(); hdr.{h}.a = 0; hdr.{h}.b = 0; "
                           f"hdr.{h}.c = 0; hdr.{h}.d = 0; hdr.{h}.setInvalid(); }}\n" for h in ("h", "h2"))
        ingress = "        meta.m8 = hdr.h.b; meta.m16 = hdr.h.c ^ 16w0x00ff;\n" if r.random() < 0.5 else ""
        ingress += bodies["I"]
        if tabs["S"] or r.random() < 0.2:
            s = (decls["S"] + "    apply {\n" + bodies["S"] + "    }\n")
            s = _sub_names(s)
            top += ("control S(inout headers_t hh, inout meta_t mm, inout standard_metadata_t ss) {\n" + s + "}\n")
            decls["I"] += "    S() s1;\n    S() s2;\n"
            call = "s{}.apply(hdr, meta, sm);"
            ingress = ingress + f"        {call.format(1)}\n        if (hdr.h.a != 8w2) {{ {call.format(2)} }}\n" \
                if r.random() < 0.5 else f"        {call.format(1)}\n" + ingress + f"        {call.format(2)}\n"
            self.used.add("subcontrol")
        ingress = prologue + ingress
        # an I2E clone is parsed again into a PHV from BMv2's pool: its invalid headers too
        egress = prologue + bodies["E"] + (EG_REPORT if r.random() < 0.7 else "")
        verify = compute = "apply { }"
        if r.random() < 0.3:
            cnd = "hdr.h.isValid()"   # (VerifyChecksum runs before the prologue: no reads of an invalid h)
            verify = f"apply {{ verify_checksum({cnd}, {{ hdr.h.a, hdr.h.b, hdr.h.d }}, hdr.h.c, HashAlgorithm.csum16); }}"
            ingress = "        hdr.eth.src[47:46] = (bit<2>)sm.checksum_error;\n" + ingress
            self.used.add("verify_checksum")
        if r.random() < 0.3:
            cnd = r.choice(["hdr.h.isValid()", "hdr.h2.isValid()", "hdr.h.b == 8w3", "true"])
            compute = f"apply {{ update_checksum({cnd}, {{ hdr.h.a, hdr.h.d, hdr.h.b }}, hdr.h.c, HashAlgorithm.csum16); }}"
            self.used.add("update_checksum")
        src = program(ingress, egress=egress, ingress_decls=decls["I"], egress_decls=decls["E"], meta=META, top=top,
                      verify=verify, compute=compute, forward=r.random() < 0.8)
        entries, defaults = [], []
        for ctl in ("I", "E", "S"):
            for t in self.tables[ctl]:
                insts = ["I.s1.", "I.s2."] if ctl == "S" else [f"{ctl}."]
                for pre in insts:
                    for match, a, params, prio in t.entries:
                        if ctl == "S":
                            match = {_sub_names(n): v for n, v in match.items()}
                        entries.append(Entry(pre + t.name, dict(match), pre + a.name, dict(params), prio))
                    if not t.const_default and r.random() < 0.3:
                        a = r.choice(t.actions + ([t.default_only] if t.default_only else []))
                        defaults.append(Entry(pre + t.name, {}, pre + a.name, self.args(a), is_default=True))
                        self.used.add("default_written")
        return Case(name=f"fuzzt_{self.seed}", category="fuzz-tables", source=src, frames=self.frames(),
                    entries=entries, defaults=defaults, mcast=self.mcast, clones=self.clones,
                    one_by_one=self.one_by_one)

    def frames(self):
        r = self.r
        out = []
        for _ in range(r.randint(4, 8)):
            port = r.randint(0, 6)
            pick = {f: (r.choice(vals) if r.random() < 0.7 else r.getrandbits(HDR_FIELDS[f])) for f, vals in POOL.items()}
            a, b, c, d = pick["hdr.h.a"], pick["hdr.h.b"], pick["hdr.h.c"], pick["hdr.h.d"]
            k = r.random()
            if k < 0.1:
                out.append((port, eth(r.choice([0x0800, 0x1235])) + PAYLOAD))
                continue
            if r.random() < 0.3:   # a correct checksum over (a, b, d) in c
                c = csum16(bytes([a, b]) + d.to_bytes(4, "big"))
            if a == 0xee or k < 0.25:
                a = 0xee
                frame = eth(0x1234) + hdr(a, b, c, d) + hdr(pick["hdr.h2.a"], r.getrandbits(8), pick["hdr.h2.c"], r.getrandbits(32)) + PAYLOAD
            else:
                frame = eth(0x1234) + hdr(a, b, c, d) + PAYLOAD
            out.append((port, frame))
        return out


def _sub_names(text: str) -> str:
    """The sub-control's view of a text written with the ingress names."""
    for a, b in (("hdr", "hh"), ("meta", "mm"), ("sm", "ss")):
        text = re.sub(rf"\b{a}\b", b, text)
    return text


def generate(seed: int) -> Case:
    return Gen(seed).build()


if __name__ == "__main__":
    from fuzz_run import main
    sys.exit(main(generate, __doc__, "/tmp/fuzz-tables"))
