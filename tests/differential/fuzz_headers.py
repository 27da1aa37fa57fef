"""Random v1model programs about headers, header stacks, unions, varbit fields and the deparser,
run on real BMv2 and on ours (issue #15).

``generate(seed)`` builds one :class:`~diff_harness.Case` from a seed, deterministically.  The
frames are realistic: Ethernet, then for EtherType 0x1234 a chain of 0-4 optional headers, each
one's first byte (``a``) naming the next (1: a stack element, 2/3: a union member, 4: a varbit
header, 5: a checksummed header, 0xee: ``h2``); some frames are cut short inside the chain.  The
program mixes, in ingress, egress, actions and two sub-controls:

* a header stack ``h_t[N] s`` (N 2-4): ``push_front``/``pop_front`` with counts 0..N+1, ``size``,
  constant and run-time indices (in range: BMv2 aborts on one past the end), whole-stack assignment through a local,
  elements assigned from other elements and headers, ``setValid``/``setInvalid``/``isValid`` of
  elements, ``==``/``!=`` on stacks; the stack passed to a sub-control (``inout h_t[N]``) and to
  actions;
* a header union ``u`` (members ``x: h_t`` and ``w``) and a stack of unions ``us``: members made
  valid/invalid, assigned from headers and each other, ``u.isValid()``, emitted;
* headers: assignment of invalid headers, ``{...}`` initializers (positional and named), ``==`` /
  ``!=``, locals, a header inside the metadata struct, ``out`` parameters (invalid on entry);
* varbit: a varbit header extracted with a length from the frame, copied into a second one,
  emitted;
* from seed ``V2_SEED`` on (helper fuzz21): ``switch`` statements on values (fall-through labels,
  ``default``), ``if (c) { exit; }`` in ingress and egress, keyless tables over the
  actions with bound arguments, applied plainly, under ``hit`` and in a ``switch`` on ``action_run``;
* deparser: a random emit order over every header, a stack, the unions; ``update_checksum`` /
  ``update_checksum_with_payload`` in the compute-checksum control over fields of several widths,
  ``verify_checksum(_with_payload)`` whose result is reported.

Reads of a field of a header that may be invalid are guarded with ``isValid()`` (BMv2 reads such
a field from a reused PHV: unspecified, docs/CONFORMANCE.md).  Each header's validity is written
into ``eth.src`` at the end of ingress and egress, so the output frame shows it.

Each seed's program is judged by :mod:`fuzz_run`; the CLI writes each finding to ``--out/<seed>/``::

    python -m tests.differential.fuzz_headers --seeds 0-300 --out /work/corpus/fuzz/fuzzh
"""
from __future__ import annotations

import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case  # noqa: E402
from diffcases.base import PAYLOAD, eth, program  # noqa: E402

H_FIELDS = (("a", 8), ("b", 8), ("c", 16), ("d", 32))
W_FIELDS = (("a", 8), ("v", 16))
NEXT = {"s": 1, "ux": 2, "uw": 3, "vb": 4, "ck": 5, "h2": 0xee}
V2_SEED = 5000   # from here on: switch, conditional exit, keyless tables (Gen.stmt_v2)

HEADERS = """header u16_t { bit<8> a; bit<16> v; }
header_union u_t { h_t x; u16_t w; }
header vb_t { bit<8> a; bit<8> len; varbit<64> data; }
header ck_t { bit<8> a; bit<8> x; bit<16> csum; bit<4> p; bit<12> q; bit<32> z; bit<3> r; bit<5> t; }
"""
# a select on each chain header's first byte
SEL = "{ 1: ps; 2: pux; 3: puw; 4: pvb; 5: pck; 0xee: ph2; default: accept; }"
PARSER = f"""
    state start {{ pkt.extract(hdr.eth); transition select(hdr.eth.etype) {{ 0x1234: ph; default: accept; }} }}
    state ph {{ pkt.extract(hdr.h); transition select(hdr.h.a) {SEL} }}
    state ps {{ pkt.extract(hdr.s.next); transition select(hdr.s.last.a) {SEL} }}
    state pux {{ pkt.extract(hdr.u.x); transition select(hdr.u.x.a) {SEL} }}
    state puw {{ pkt.extract(hdr.u.w); transition select(hdr.u.w.a) {SEL} }}
    state pvb {{ bit<16> la = pkt.lookahead<bit<16>>(); pkt.extract(hdr.vb, (bit<32>)la[7:0] * 8);
                transition select(hdr.vb.a) {SEL} }}
    state pck {{ pkt.extract(hdr.ck); transition select(hdr.ck.a) {SEL} }}
    state ph2 {{ pkt.extract(hdr.h2); transition accept; }}"""


def lit(w: int, v: int) -> str:
    return f"{w}w{v & ((1 << w) - 1):#x}"


class Gen:
    """One program; ``build()`` gives the Case."""

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.n = 0
        r = self.r
        self.N = r.choice([2, 3, 3, 4])
        self.UN = r.choice([0, 2, 2, 3])          # stack of unions (0: none)
        self.meta_hdr = r.random() < 0.4
        self.varbit2 = r.random() < 0.5
        self.acts: list[str] = []                  # action declarations (ingress)
        self.act_names: list[tuple] = []           # (name, kind)
        # seeds from V2_SEED on (helper fuzz21) also make switch statements, conditional exits
        # and keyless tables over the actions; earlier seeds keep their programs
        self.v2 = seed >= V2_SEED
        self.tables: list[tuple] = []              # (table, action, its bound argument)

    def fresh(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def chance(self, p):
        return self.r.random() < p

    # ------------------------------------------------------------------ references
    def h_refs(self, ctx):
        """h_t l-values in a context ("I"/"E": hdr/meta; "S2": the stack parameter)."""
        if ctx == "S2":
            return [f"st[{i}]" for i in range(self.N)] + ["y"]
        out = ["hdr.h", "hdr.h2", "hdr.u.x"] + [f"hdr.s[{i}]" for i in range(self.N)]
        out += [f"hdr.us[{i}].x" for i in range(self.UN)]
        if self.meta_hdr:
            out.append("meta.mh")
        return out

    def h_reads(self, ctx):
        return self.h_refs(ctx) + (["x"] if ctx == "S2" else [])

    def stack(self, ctx):
        return "st" if ctx == "S2" else "hdr.s"

    def idx(self, ctx):
        """A run-time index expression (may be out of range)."""
        r = self.r
        src = r.choice(["meta.m8", "hdr.eth.dst[7:0]"]) if ctx != "S2" else "ix"
        # in range only: an index past the stack's end makes BMv2 1.15.5 abort (std::out_of_range)
        w = 2 if self.N == 4 and r.random() < 0.7 else 1
        return f"{src}[{w - 1}:0]"

    def field_read(self, ctx, w):
        ref = self.r.choice(self.h_reads(ctx))
        f, fw = self.r.choice(H_FIELDS)
        e = f"{ref}.{f}"
        if fw != w:
            e = f"(bit<{w}>){e}"
        return f"({ref}.isValid() ? {e} : {lit(w, 0)})"

    def expr(self, ctx, w, depth=0):
        r = self.r
        k = r.random()
        if k < 0.35:
            return self.field_read(ctx, w)
        if k < 0.6 or depth > 1:
            return lit(w, r.choice([0, 1, 2, 3, 0xee, 5, r.getrandbits(w)]))
        if k < 0.7 and ctx != "S2":
            return f"(bit<{w}>){self.stack(ctx)}.size" if r.random() < 0.5 else f"(bit<{w}>)meta.m8"
        op = r.choice(["+", "-", "^", "|"])
        return f"({self.expr(ctx, w, depth + 1)} {op} {self.expr(ctx, w, depth + 1)})"

    def init(self, ctx):
        vals = [self.expr(ctx, fw) for _, fw in H_FIELDS]
        if self.chance(0.5):
            return "{ " + ", ".join(vals) + " }"
        return "{ " + ", ".join(f"{f} = {v}" for (f, _), v in zip(H_FIELDS, vals)) + " }"

    def cond(self, ctx):
        r = self.r
        k = r.random()
        refs = self.h_reads(ctx)
        if k < 0.3:
            return f"{r.choice(refs)}.isValid()"
        if k < 0.5:
            return f"{r.choice(refs)} {r.choice(['==', '!='])} {r.choice(refs)}"
        if k < 0.6 and ctx != "S2":
            return r.choice(["hdr.u.isValid()", "!hdr.u.isValid()", "hdr.u.w.isValid()", "hdr.vb.isValid()",
                             "hdr.ck.isValid()"])
        if k < 0.7 and ctx in ("I", "E"):
            return f"{self.stack(ctx)} {r.choice(['==', '!='])} ls"
        return f"{self.expr(ctx, 8)} {r.choice(['==', '!=', '<', '>'])} {self.expr(ctx, 8)}"

    # ------------------------------------------------------------------ statements
    def stmt(self, ctx, depth=0, in_action=False):
        r = self.r
        st, N = self.stack(ctx), self.N
        refs = self.h_refs(ctx)
        kinds = ["setvalid", "setvalid", "setinvalid", "assign", "assign", "init", "field", "field", "push", "pop",
                 "rt_write", "rt_read", "if", "stack_local"]
        if ctx != "S2":
            kinds += ["union", "union", "varbit", "report", "local"]
            if self.UN:
                kinds += ["ustack", "ustack"]
            if not in_action and self.act_names and ctx == "I":
                kinds += ["call", "call"]
            if not in_action and ctx == "I":
                kinds += ["sub2", "sub2"]
        if self.v2 and not in_action:
            # (an exit in a sub-control applied twice: p4c 1.2.4.8 cannot compile it for BMv2)
            kinds += ["switch", "switch"] + (["exit"] if ctx in ("I", "E") else []) + \
                (["table", "table"] if self.tables and ctx == "I" else [])
        k = r.choice(kinds)
        if k in ("switch", "exit", "table"):
            return self.stmt_v2(k, ctx, depth)
        if k == "setvalid":
            ref = r.choice(refs)
            body = f"{ref}.setValid();"
            for f, fw in H_FIELDS:
                if self.chance(0.7):
                    body += f" {ref}.{f} = {self.expr(ctx, fw)};"
            return body
        if k == "setinvalid":
            return f"{r.choice(refs)}.setInvalid();"
        if k == "assign":
            return f"{r.choice(refs)} = {r.choice(self.h_reads(ctx))};"
        if k == "init":
            return f"{r.choice(refs)} = {self.init(ctx)};"
        if k == "field":
            f, fw = r.choice(H_FIELDS)
            return f"{r.choice(refs)}.{f} = {self.expr(ctx, fw)};"
        if k == "push":
            return f"{st}.push_front({r.randint(0, N + 1)});"
        if k == "pop":
            return f"{st}.pop_front({r.randint(0, N + 1)});"
        if k == "rt_write":
            i = self.idx(ctx)
            # (a whole-header copy into s[i] with a run-time i: simple_switch 1.15.5 dies on
            # p4c's JSON, docs/CONFORMANCE.md)
            return r.choice([f"{st}[{i}].c = {self.expr(ctx, 16)};", f"{st}[{i}].b = {self.expr(ctx, 8)};",
                             f"{st}[{i}].setValid(); {st}[{i}].a = {self.expr(ctx, 8)};",
                             f"{st}[{i}].setInvalid();"])
        if k == "rt_read":
            i = self.idx(ctx)
            dst = r.choice(refs)
            # (p4c's JSON for `st[i].isValid()` with a run-time i makes BMv2 1.15.5 die: via a local)
            e = self.fresh("e")
            return (f"{{ h_t {e} = {st}[{i}]; if ({e}.isValid()) {{ {dst}.d = (bit<32>)({e}.b ++ {e}.c); }} "
                    f"else {{ {dst}.b = 8w0x7e; }} }}")
        if k == "if":
            if depth > 1:
                return f"{r.choice(refs)}.setInvalid();"
            a = self.block(ctx, depth + 1, r.randint(1, 2), in_action)
            b = self.block(ctx, depth + 1, r.randint(0, 2), in_action)
            return f"if ({self.cond(ctx)}) {{ {a} }}" + (f" else {{ {b} }}" if b else "")
        if k == "stack_local":
            j = r.randrange(N)
            return (f"{{ h_t[{N}] l = {st}; l[{j}] = {r.choice(self.h_reads(ctx))}; "
                    + r.choice(["l.pop_front(1); ", "l.push_front(1); ", ""]) + f"{st} = l; }}")
        if k == "union":
            return r.choice([
                f"hdr.u.w.setValid(); hdr.u.w.a = {self.expr(ctx, 8)}; hdr.u.w.v = {self.expr(ctx, 16)};",
                f"hdr.u.x = {r.choice(self.h_reads(ctx))};", "hdr.u.w.setInvalid();", "hdr.u.x.setInvalid();",
                f"hdr.u.x.setValid(); hdr.u.x.d = {self.expr(ctx, 32)};",
                f"if (hdr.u.isValid()) {{ {r.choice(refs)}.c = 16w0xa0a0; }}",
                f"{r.choice(refs)} = hdr.u.x;"])
        if k == "ustack":
            i = r.randrange(self.UN)
            return r.choice([
                f"hdr.us[{i}] = hdr.u;", f"hdr.us[{i}].x = {r.choice(self.h_reads(ctx))};",
                f"hdr.us[{i}].w.setValid(); hdr.us[{i}].w.a = 8w{i}; hdr.us[{i}].w.v = {self.expr(ctx, 16)};",
                f"hdr.us.push_front({r.randint(0, self.UN + 1)});", f"hdr.us.pop_front({r.randint(0, self.UN + 1)});",
                f"hdr.us[{i}].x.setInvalid();", f"hdr.u = hdr.us[{i}];"])
        if k == "varbit":
            if self.varbit2:
                return r.choice(["hdr.vb2 = hdr.vb;", "hdr.vb.setInvalid();", "hdr.vb2.setInvalid();",
                                 f"hdr.vb2 = hdr.vb; hdr.vb2.a = {self.expr(ctx, 8)};",
                                 f"if (hdr.vb.isValid()) {{ hdr.vb.len = {self.expr(ctx, 8)}; }}"])
            return r.choice(["hdr.vb.setInvalid();", f"if (hdr.vb.isValid()) {{ hdr.vb.a = {self.expr(ctx, 8)}; }}"])
        if k == "report":
            return f"hdr.eth.dst[{r.choice(['7:0', '15:8', '23:16'])}] = {self.expr(ctx, 8)};"
        if k == "local":
            t = self.fresh("t")
            return r.choice([f"{{ h_t {t} = {self.init(ctx)}; {r.choice(refs)} = {t}; }}",
                             f"{{ h_t {t}; {r.choice(refs)} = {t}; }}",
                             f"{{ h_t {t} = {r.choice(self.h_reads(ctx))}; {t}.b = 8w0x5b; {r.choice(refs)} = {t}; }}"])
        if k == "call":
            name, kind = r.choice(self.act_names)
            if kind == "stack":
                return f"{name}(hdr.s);"
            return f"{name}({r.choice(refs)});"
        if k == "sub2":
            return f"s2.apply(hdr.s, {r.choice(self.h_reads(ctx))}, {r.choice(refs)}, {r.choice(['meta.m8', 'hdr.eth.dst[7:0]'])});"
        raise AssertionError(k)

    def stmt_v2(self, k, ctx, depth):
        """A ``switch`` on a value, ``if (c) { exit; }`` or a keyless table's apply (plain, in an
        ``if`` on ``hit`` or in a ``switch`` on its ``action_run``)."""
        r = self.r
        if k == "exit":
            return f"if ({self.cond(ctx)}) {{ exit; }}"
        if depth > 1:
            return f"{r.choice(self.h_refs(ctx))}.setInvalid();"
        arm = lambda: self.block(ctx, depth + 1, r.randint(0, 2))  # noqa: E731
        if k == "switch":
            labels = r.sample([0, 1, 2, 3, 5, 0xee, 0x7e], r.randint(1, 3))
            cases = []
            for i, v in enumerate(labels):
                fall = i + 1 < len(labels) and r.random() < 0.3
                cases.append(f"{lit(8, v)}:" + ("" if fall else f" {{ {arm()} }}"))
            if r.random() < 0.5:
                cases.append(f"default: {{ {arm()} }}")
            return f"switch ({self.expr(ctx, 8)}) {{ {' '.join(cases)} }}"
        t, a, _ = r.choice(self.tables)
        form = r.random()
        if form < 0.3:
            return f"{t}.apply();"
        if form < 0.6:
            return f"if ({'!' if r.random() < 0.3 else ''}{t}.apply().hit) {{ {arm()} }} else {{ {arm()} }}"
        labels = r.sample([a, "NoAction"], r.randint(1, 2))
        cases = " ".join(f"{lab}: {{ {arm()} }}" for lab in labels)
        if r.random() < 0.5:
            cases += f" default: {{ {arm()} }}"
        return f"switch ({t}.apply().action_run) {{ {cases} }}"

    def make_tables(self):
        """Keyless tables over the ingress actions, their arguments bound (v2 seeds)."""
        r = self.r
        out = ""
        for i in range(r.randint(0, 2) if self.act_names else 0):
            a, kind = r.choice(self.act_names)
            arg = "hdr.s" if kind == "stack" else r.choice(self.h_refs("I"))
            t = f"t{i}"
            dflt = f"{a}({arg})" if r.random() < 0.7 else "NoAction()"
            out += f"    table {t} {{ actions = {{ {a}({arg}); NoAction; }} default_action = {dflt}; }}\n"
            self.tables.append((t, a, arg))
        return out

    def block(self, ctx, depth, n, in_action=False):
        return " ".join(self.stmt(ctx, depth, in_action) for _ in range(n))

    def body(self, ctx, n):
        return "".join(f"        {self.stmt(ctx)}\n" for _ in range(n))

    def actions(self):
        r = self.r
        decls = []
        for i in range(r.randint(0, 3)):
            kind = r.choice(["inout", "out", "out", "stack"])
            name = f"a{i}"
            if kind == "stack":
                p = f"inout h_t[{self.N}] st"
                body = self.block("S2", 1, r.randint(1, 3), True).replace("ix[", "meta.m8[")
                body = re.sub(r"\by\b", "st[0]", body)
                body = re.sub(r"\bx\b", "st[0]", body)
            else:
                p = f"{kind} h_t y"
                body = self.block("S2", 1, r.randint(0, 3), True).replace("ix[", "meta.m16[")
                body = re.sub(r"\bst\b", "hdr.s", body)
                body = re.sub(r"\bx\b", "hdr.h", body)
            decls.append(f"    action {name}({p}) {{ {body} }}")
            self.act_names.append((name, kind))
        return "\n".join(decls) + "\n"

    # ------------------------------------------------------------------ program
    def report(self):
        bits = ["hdr.h", "hdr.h2"] + [f"hdr.s[{i}]" for i in range(self.N)] + [
            "hdr.u.x", "hdr.u.w", "hdr.u", "hdr.vb", "hdr.ck"]
        bits += [f"hdr.us[{i}].x" for i in range(self.UN)] + [f"hdr.us[{i}].w" for i in range(self.UN)]
        if self.varbit2:
            bits.append("hdr.vb2")
        if self.meta_hdr:
            bits.append("meta.mh")
        bits = bits[:40]
        # 8 bits a statement: p4c's JSON of a 40-term ++ chain nests ~80 deep, past what the
        # JSON loader takes (fuzz-findings6: seed 83)
        out = ""
        for lo in range(0, len(bits), 8):
            part = bits[lo:lo + 8]
            expr = " ++ ".join(f"(bit<1>){b}.isValid()" for b in part)
            out += f"        hdr.eth.src[{lo + len(part) - 1}:{lo}] = {expr};\n"
        return out

    def build(self) -> Case:
        r = self.r
        N = self.N
        fields = f"    h_t[{N}] s;\n    u_t u;\n    vb_t vb;\n    ck_t ck;\n"
        if self.varbit2:
            fields += "    vb_t vb2;\n"
        if self.UN:
            fields += f"    u_t[{self.UN}] us;\n"
        meta = "    h_t mh;\n" if self.meta_hdr else ""
        top = ""
        # sub-control 2: a stack, an in header and an out header (invalid on entry)
        s2 = self.block("S2", 0, r.randint(1, 4))
        top += (f"control S2(inout h_t[{N}] st, in h_t x, out h_t y, in bit<8> ix) {{\n"
                f"    apply {{ {s2} }}\n}}\n")
        acts = self.actions()
        if self.v2:
            acts += self.make_tables()
        ingress = "        h_t[%d] ls = hdr.s;\n" % N
        ingress += "        meta.m8 = hdr.h.isValid() ? hdr.h.b : 8w0;\n"
        ingress += "        meta.m16 = hdr.h.isValid() ? hdr.h.c : 16w0;\n"
        ingress += f"        sm.egress_spec = {r.choice([1, 1, 1, 2])};\n"
        ingress += ("        if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype[3:0] = 1; }\n"
                    "        else if (sm.parser_error == error.HeaderTooShort) { hdr.eth.etype[3:0] = 2; }\n"
                    "        else if (sm.parser_error == error.StackOutOfBounds) { hdr.eth.etype[3:0] = 3; }\n"
                    "        else if (sm.parser_error != error.NoError) { hdr.eth.etype[3:0] = 4; }\n")
        ingress += "        hdr.eth.etype[7:4] = (bit<4>)sm.checksum_error;\n"
        ingress += self.body("I", r.randint(3, 9))
        # sub-control 1: the whole headers/meta structs
        sub = ""
        if self.chance(0.5):
            s1 = self.body("S1", r.randint(1, 4)).replace("hdr.", "hh.").replace("meta.", "mm.")
            sub = ("control S1(inout headers_t hh, inout meta_t mm) {\n    apply {\n" + s1 + "    }\n}\n")
            ingress += "        s1.apply(hdr, meta);\n" if self.chance(0.5) else ""
            ingress = "        s1.apply(hdr, meta);\n" + ingress if self.chance(0.6) or "s1.apply" not in ingress else ingress
        ingress += self.report()
        egress = "        h_t[%d] ls = hdr.s;\n" % N + self.body("E", r.randint(0, 4))
        if self.chance(0.5):
            egress += self.report().replace("eth.src", "eth.dst")
        decls_i = acts + "    S2() s2;\n" + ("    S1() s1;\n" if sub else "")
        # deparser: eth first, then a random order (or the struct at once)
        parts = ["hdr.h", "hdr.s", "hdr.u", "hdr.vb", "hdr.ck", "hdr.h2"] + (["hdr.us"] if self.UN else []) + (
            ["hdr.vb2"] if self.varbit2 else [])
        if self.chance(0.15):
            dep = "        pkt.emit(hdr);\n"
        else:
            r.shuffle(parts)
            dep = "        pkt.emit(hdr.eth);\n" + "".join(f"        pkt.emit({p});\n" for p in parts)
            if self.chance(0.2):   # emit an element twice / an element alone
                dep += f"        pkt.emit(hdr.s[{r.randrange(N)}]);\n"
        verify, compute = self.checksums()
        src = program(ingress, egress=egress, ingress_decls=decls_i, headers=HEADERS, fields=fields, meta=meta,
                      top=sub + top, parser=PARSER, verify=verify, compute=compute, deparser=dep, forward=False)
        return Case(name=f"fuzzh_{self.seed}", category="fuzz-headers", source=src, frames=self.frames())

    def checksums(self):
        r = self.r
        ck_fields = ["hdr.ck.x", "hdr.ck.p", "hdr.ck.q", "hdr.ck.z", "hdr.ck.r", "hdr.ck.t", "hdr.ck.a"]
        verify = compute = "apply { }"
        v = []
        if self.chance(0.4):
            fl = r.sample(ck_fields, r.randint(1, 5))
            fn = r.choice(["verify_checksum", "verify_checksum_with_payload"])
            v.append(f"{fn}(hdr.ck.isValid(), {{ {', '.join(fl)} }}, hdr.ck.csum, HashAlgorithm.csum16);")
        if self.chance(0.2):
            v.append("verify_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.b, hdr.h.d }, hdr.h.c, HashAlgorithm.csum16);")
        if v:
            verify = "apply { " + " ".join(v) + " }"
        c = []
        if self.chance(0.5):
            fl = r.sample(ck_fields, r.randint(1, 6))
            fn = r.choice(["update_checksum", "update_checksum_with_payload"])
            alg = r.choice(["csum16", "csum16", "crc16"])
            c.append(f"{fn}(hdr.ck.isValid(), {{ {', '.join(fl)} }}, hdr.ck.csum, HashAlgorithm.{alg});")
        if self.chance(0.3):
            cnd = r.choice(["hdr.h.isValid()", "hdr.s[0].isValid()", "true"])
            src = r.choice(["{ hdr.h.a, hdr.h.b, hdr.h.d }", "{ hdr.s[0].a, hdr.s[0].d, hdr.h.b, hdr.h.a }"])
            fn = r.choice(["update_checksum", "update_checksum_with_payload"])
            c.append(f"{fn}({cnd}, {src}, hdr.h.c, HashAlgorithm.csum16);")
        if c:
            compute = "apply { " + " ".join(c) + " }"
        return verify, compute

    # ------------------------------------------------------------------ frames
    def chain_header(self, kind, nxt):
        r = self.r
        if kind in ("h", "s", "ux", "h2"):
            return struct.pack("!BBHI", nxt, r.choice([0, 1, 2, 3, r.getrandbits(8)]), r.getrandbits(16),
                               r.getrandbits(32))
        if kind == "uw":
            return struct.pack("!BH", nxt, r.getrandbits(16))
        if kind == "vb":
            ln = r.choice([0, 1, 2, 4, 8, 8, 9])     # 9 bytes: more than varbit<64>
            return bytes([nxt, ln]) + bytes(r.getrandbits(8) for _ in range(ln))
        if kind == "ck":
            return bytes([nxt]) + bytes(r.getrandbits(8) for _ in range(10))
        raise AssertionError(kind)

    def frames(self):
        r = self.r
        out = []
        for _ in range(r.randint(5, 9)):
            port = r.randint(1, 4)
            if self.chance(0.08):
                out.append((port, eth(r.choice([0x0800, 0x86dd])) + PAYLOAD))
                continue
            kinds = ["h"]
            for _ in range(r.randint(0, 4)):
                kinds.append(r.choice(["s", "s", "s", "ux", "uw", "vb", "ck", "h2"]))
                if kinds[-1] == "h2":
                    break
            raw = b""
            for i, kd in enumerate(kinds):
                nxt = NEXT[kinds[i + 1]] if i + 1 < len(kinds) else r.choice([0, 0, 7])
                raw += self.chain_header(kd, nxt)
            frame = eth(0x1234) + raw + (PAYLOAD if self.chance(0.85) else b"")
            if self.chance(0.12):
                frame = frame[:r.randint(15, max(15, len(frame) - 1))]
            out.append((port, frame))
        return out


def generate(seed: int) -> Case:
    return Gen(seed).build()


if __name__ == "__main__":
    from fuzz_run import main
    sys.exit(main(generate, __doc__, "/tmp/fuzz-headers"))
