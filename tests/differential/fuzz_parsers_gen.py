"""The random program of one seed (:class:`Prog`, :func:`generate`) for ``fuzz_parsers``.

A program is built from the pieces of :mod:`fuzz_parsers_ir` (header types, key expressions,
keysets, parser operations with their model, states); see that module's docstring for what
is generated and how frames are steered through the parse graph.
"""
from __future__ import annotations

import random

from diff_harness import Case
from fuzz_parsers_ir import (ERRORS, Op, const, rand_val, META, USER_ERRORS, Concat, Expr, Field, Inst, KS, Look, Slice, State, Stop,
                             Sub, Var, VType, Walk, op_advance_const, op_advance_rt, op_extract, op_local,
                             op_look_local, op_meta, op_sub, op_varbit, op_verify, rand_htype, rand_keyset)

# ----------------------------------------------------------------------------- the program
OUT_T = "header fz_out_t { bit<8> err; bit<32> valid; bit<8> m8a; bit<8> m8b; bit<16> m16; bit<32> m32; bit<8> lc; }"


class Prog:
    """One random program (see the module docstring); ``source`` is its P4 text."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.types = [rand_htype(rng, f"t{i}_t") for i in range(rng.randint(2, 4))]
        self.vtypes: list[VType] = []
        self.insts: list[Inst] = []
        self.subs: list[Sub] = []
        self.vsets: list = []        # [(name, type)]
        self.vstructs: list = []     # struct declarations of tuple value sets
        self.locals = 0
        n = rng.randint(3, 7)
        self.states = [State("start" if i == 0 else f"s{i}") for i in range(n)]
        self.reject_state = False
        for i, st in enumerate(self.states):
            self._fill(i, st)
        if self.reject_state:   # a state with work to do before it rejects
            self.states.append(State("rj", ops=[op_meta("m16", 16, None, add=7)], nxt="reject"))
        self.by_name = {s.name: s for s in self.states}

    # -- instances
    def _new(self, kind: str, **kw) -> Inst:
        inst = Inst(kind, f"{ {'fixed': 'h', 'stack': 'st', 'union': 'u', 'ustack': 'us', 'varbit': 'v'}[kind]}{len(self.insts)}", **kw)
        self.insts.append(inst)
        return inst

    def _existing(self, kind: str) -> Inst | None:
        c = [i for i in self.insts if i.kind == kind]
        return self.rng.choice(c) if c and self.rng.random() < 0.5 else None

    def _local(self) -> str:
        self.locals += 1
        return f"l{self.locals}"

    # -- one state's operations, keys and transition
    def _fill(self, i: int, st: State) -> None:
        rng = self.rng
        avail: list[Field] = []       # fields readable after the ops so far
        exprs: list[Expr] = [Var(n, w, meta=True) for n, w in META if n != "lc"]

        def fields_of(ref, ht):
            avail.extend(Field(ref, ht, f) for f, _, _ in ht.fields)

        later = [s.name for s in self.states[i + 1:]]
        loop = None
        if later and rng.random() < 0.2:
            stacks = [x for x in self.insts if x.kind == "stack"]
            st_i = stacks[0] if stacks and rng.random() < 0.5 else self._new("stack", htype=rng.choice(self.types),
                                                                         size=rng.randint(2, 4))
            st.ops.append(op_extract(("next", st_i.name, st_i.size), f"hdr.{st_i.name}.next", st_i.htype))
            fields_of(("last", st_i.name), st_i.htype)
            if rng.random() < 0.5:
                st.ops.append(op_meta("m32", 32, None, last_index=st_i.name))
            loop = "stack"
        elif later and rng.random() < 0.1:
            st.ops.append(op_meta("lc", 8, None, add=rng.randint(1, 2)))
            k = Var("lc", 8, meta=True)
            st.keys = [k]
            st.cases = [([KS("range", rng.randint(2, 5), 255)], later[0])]   # a range: += 2 may step over a value
            st.default = st.name
            return
        for _ in range(rng.randint(1, 3) if loop is None else rng.randint(0, 1)):
            self._extraction(st, avail, fields_of)
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            self._assign(st, avail, exprs)
        if avail and rng.random() < 0.2:
            f = rng.choice(avail)
            st.ops.append(op_verify(rng, f, rng.random() < 0.5, rand_val(rng, f.width, f.signed),
                                    rng.choice(USER_ERRORS + ["NoMatch", "ParserInvalidArgument"])))
        self._transition(i, st, avail + exprs, later, loop)

    def _extraction(self, st: State, avail: list, fields_of) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            inst = self._new("fixed", htype=rng.choice(self.types))
            st.ops.append(op_extract(("fixed", inst.name), f"hdr.{inst.name}", inst.htype))
            fields_of(("fixed", inst.name), inst.htype)
        elif r < 0.5:
            inst = self._existing("stack") or self._new("stack", htype=rng.choice(self.types), size=rng.randint(2, 4))
            if rng.random() < 0.75:
                st.ops.append(op_extract(("next", inst.name, inst.size), f"hdr.{inst.name}.next", inst.htype))
                fields_of(("last", inst.name), inst.htype)
            else:
                k = rng.randrange(inst.size)
                st.ops.append(op_extract(("idx", inst.name, k), f"hdr.{inst.name}[{k}]", inst.htype))
                fields_of(("idx", inst.name, k), inst.htype)
        elif r < 0.62 and rng.random() < 0.3:
            # a stack of unions: extracted through next only (p4c writes `select` on its `last`
            # and `isValid()` of an element as JSON BMv2 refuses)
            inst = self._existing("ustack")
            if inst is None:
                a, b = rng.sample(self.types, 2)
                inst = self._new("ustack", members=[("a", a), ("b", b)], size=rng.randint(2, 3))
            m, ht = rng.choice(inst.members)
            st.ops.append(op_extract(("next", inst.name, inst.size), f"hdr.{inst.name}.next.{m}", ht))
        elif r < 0.62:
            inst = self._existing("union")
            if inst is None:
                a, b = rng.sample(self.types, 2)
                inst = self._new("union", members=[("a", a), ("b", b)])
            m, ht = rng.choice(inst.members)
            st.ops.append(op_extract(("member", inst.name, m), f"hdr.{inst.name}.{m}", ht))
            fields_of(("member", inst.name, m), ht)
        elif r < 0.72:
            vt = VType(f"vb{len(self.vtypes)}_t", rng.choice([8, 16, 32, 40, 64, 128]))
            self.vtypes.append(vt)
            inst = self._new("varbit", htype=vt)
            small = [f for f in avail if not f.signed and f.width <= 8]
            e = Look(8) if not small or rng.random() < 0.6 else rng.choice(small)
            st.ops.append(op_varbit(rng, inst.name, vt, e, rng.random() < 0.85, isinstance(e, Look)))
        elif r < 0.8:
            ht = rng.choice(self.types)
            sub = Sub(f"Sub{len(self.subs)}", ht, rng.choice(["plain", "verify", "reject", "reject_arm"]))
            _, w, sg = ht.fields[0]
            sub.c = rand_val(rng, w, sg)
            self.subs.append(sub)
            inst = self._new("fixed", htype=ht)
            st.ops.append(op_sub(rng, sub, f"hdr.{inst.name}", ("fixed", inst.name), rng.choice(["m8a", "m8b"])))
            fields_of(("fixed", inst.name), ht)
        elif r < 0.86:
            st.ops.append(op_advance_const(8 * rng.randint(0, 4)))
        elif r < 0.91:
            small = [f for f in avail if not f.signed and f.width <= 8]
            e = rng.choice(small) if small and rng.random() < 0.6 else Look(rng.randint(2, 8))
            st.ops.append(op_advance_rt(rng, e))
        else:
            ht = rng.choice(self.types)
            l = self._local()
            st.ops.append(op_look_local(l, ht))
            fields_of(("local", l), ht)

    def _key_expr(self, pool: list) -> Expr:
        rng = self.rng
        r = rng.random()
        if r < 0.15 or not pool:
            return Look(rng.randint(1, 32))
        e = rng.choice(pool)
        if r < 0.35 and e.width > 1:
            lo = rng.randrange(e.width)
            return Slice(e, rng.randint(lo, min(e.width - 1, lo + 15)), lo)
        if r < 0.45:
            a, b = rng.choice(pool), rng.choice(pool)
            a = a if not a.signed else Slice(a, a.width - 1, 0)
            b = b if not b.signed else Slice(b, b.width - 1, 0)
            if a.width + b.width <= 64:
                return Concat(a, b)
        return e

    def _assign(self, st: State, avail: list, exprs: list) -> None:
        rng = self.rng
        pool = avail + exprs
        hdr_fields = [f for f in avail if f.ref[0] not in ("local", "last")]   # p4c: last is read-only
        if hdr_fields and rng.random() < 0.15:
            # a header field written in the parser (shows in the emitted header; the model of the
            # parse ignores it, so a later select on that field is merely not steered)
            f = rng.choice(hdr_fields)
            rhs = f"{f.p4()} + 1" if rng.random() < 0.5 else const(f.width, f.signed, rand_val(rng, f.width, f.signed))
            st.ops.append(Op(f"{f.p4()} = {rhs};", lambda w: None))
            return
        if rng.random() < 0.5 and pool:
            e = self._key_expr(pool)
            if not e.signed:
                l = self._local()
                st.ops.append(op_local(l, e))
                exprs.append(Var(l, e.width))
                return
        m, mw = rng.choice(META[:4])
        if rng.random() < 0.3 or not avail:
            st.ops.append(op_meta(m, mw, None, add=rng.randint(1, 9)))
        else:
            st.ops.append(op_meta(m, mw, rng.choice(avail)))

    def _transition(self, i: int, st: State, pool: list, later: list, loop) -> None:
        rng = self.rng

        def target():
            r = rng.random()
            if r < 0.03:
                return "reject"
            if r < 0.06:
                self.reject_state = True
                return "rj"
            if r < 0.2 or not later:
                return "accept"
            return rng.choice(later)
        spine = later[0] if later else "accept"
        if loop == "stack":
            last = [f for f in pool if isinstance(f, Field) and f.ref[0] == "last"]
            k = rng.choice(last)
            st.keys = [k]
            st.cases = [([rand_keyset(rng, k, False, self.vsets)], st.name)]
            if rng.random() < 0.5:
                st.cases.append(([rand_keyset(rng, k, False, self.vsets)], target()))
            st.default = spine
            return
        if rng.random() < 0.15:
            st.nxt = spine if rng.random() < 0.8 else ("reject" if rng.random() < 0.3 else target())
            return
        nk = rng.choice([1, 1, 1, 2, 2, 3])
        st.keys = [self._key_expr(pool) for _ in range(nk)]
        if nk == 1 and rng.random() < 0.1:
            st.bool_key = True
            st.cases = [([KS("value", rand_val(rng, st.keys[0].width, st.keys[0].signed))], target())]
            st.default = spine
            return
        for _ in range(rng.randint(1, 4)):
            st.cases.append(([rand_keyset(rng, k, nk > 1, self.vsets) for k in st.keys], target()))
        if nk > 1 and not any(k.signed for k in st.keys) and rng.random() < 0.15:
            # a value set of a struct for the whole tuple (its fields may carry @match kinds)
            name = f"vs{len(self.vsets)}"
            fields = " ".join(f"{rng.choice(['', '', '@match(ternary) ', '@match(lpm) ', '@match(range) '])}"
                              f"bit<{k.width}> k{i};" for i, k in enumerate(st.keys))
            self.vstructs.append(f"struct {name}_t {{ {fields} }}")
            self.vsets.append((name, f"{name}_t"))
            st.cases.insert(rng.randrange(len(st.cases) + 1), ([KS("vset", vset=name)], target()))
        if all(t != spine for _, t in st.cases):
            st.cases[rng.randrange(len(st.cases))] = (st.cases[0][0], spine) if rng.random() < 0.5 else st.cases[-1]
        r = rng.random()
        st.default = None if r < 0.3 else (spine if r < 0.8 else target())

    # -- text
    def source(self) -> str:
        lines = ["#include <core.p4>", "#include <v1model.p4>", "",
                 f"error {{ {', '.join(USER_ERRORS)} }}", OUT_T]
        lines += [t.decl() for t in self.types] + [v.decl() for v in self.vtypes]
        fields = ["    fz_out_t fz_out;"]
        for x in self.insts:
            if x.kind in ("union", "ustack"):
                lines.append(f"header_union {x.name}_t {{ {' '.join(f'{h.name} {m};' for m, h in x.members)} }}")
                fields.append(f"    {x.name}_t{f'[{x.size}]' if x.kind == 'ustack' else ''} {x.name};")
            elif x.kind == "stack":
                fields.append(f"    {x.htype.name}[{x.size}] {x.name};")
            else:
                fields.append(f"    {x.htype.name} {x.name};")
        lines += ["struct headers_t {", *fields, "}",
                  "struct meta_t { " + " ".join(f"bit<{w}> {n};" for n, w in META) + " }", *self.vstructs]
        lines += [s.decl() for s in self.subs]
        pdecl = [f"    value_set<{t}>(4) {n};" for n, t in self.vsets]
        pdecl += [f"    {s.name}() {s.name.lower()};" for s in self.subs]
        lines += ["parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {",
                  *pdecl, *(s.p4() for s in self.states), "}",
                  "control VC(inout headers_t hdr, inout meta_t meta) { apply { } }",
                  "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {",
                  "    apply {", *self._ingress(), "    }", "}",
                  "control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }",
                  "control CC(inout headers_t hdr, inout meta_t meta) { apply { } }",
                  "control D(packet_out pkt, in headers_t hdr) {", "    apply {", *self._deparser(), "    }", "}",
                  "V1Switch(P(), VC(), I(), E(), CC(), D()) main;", ""]
        return "\n".join(lines)

    def _ingress(self) -> list[str]:
        rng = self.rng
        o = "hdr.fz_out"
        out = [f"        {o}.setValid();"]
        chain = " else ".join(f"if (sm.parser_error == error.{e}) {{ {o}.err = {k}; }}"
                              for k, e in enumerate(ERRORS + USER_ERRORS))
        out.append(f"        {chain} else {{ {o}.err = 0xff; }}")
        valids = [v for x in self.insts for v in x.valid_exprs()][:32]
        out += [f"        {o}.valid[{k}:{k}] = (bit<1>){v};" for k, v in enumerate(valids)]
        # meta only after an error-free parse: p4c drops parser writes that every error-free path
        # overwrites later, so after an error BMv2 shows older values (docs/CONFORMANCE.md)
        out.append("        if (sm.parser_error == error.NoError) { "
                   + " ".join(f"{o}.{n} = meta.{n};" for n, _ in META) + " }")
        stacks = [x for x in self.insts if x.kind == "stack"]
        if stacks and rng.random() < 0.3:
            s = rng.choice(stacks)
            f, w, sg = s.htype.fields[-1]    # (a run-time index under isValid(): p4c writes JSON BMv2 refuses)
            out.append(f"        if (sm.parser_error == error.NoError) {{ "   # meta: see above
                       f"hdr.{s.name}[meta.m8a[0:0]].{f} = {const(w, sg, rand_val(rng, w, sg))}; }}")
        if rng.random() < 0.5:
            out.append(f"        sm.egress_spec = (bit<9>){o}.valid[2:0] + 1;")
        else:
            out.append(f"        sm.egress_spec = {rng.randint(1, 3)};")
        fixed = [x for x in self.insts if x.kind in ("fixed", "varbit")]
        if fixed and rng.random() < 0.3:
            out.append(f"        hdr.{rng.choice(fixed).name}.setInvalid();")
        return out

    def _deparser(self) -> list[str]:
        rng = self.rng
        order = [x.name for x in self.insts if rng.random() < 0.85]
        rng.shuffle(order)
        if order and rng.random() < 0.1:
            order.insert(rng.randrange(len(order) + 1), rng.choice(order))
        return ["        pkt.emit(hdr.fz_out);"] + [f"        pkt.emit(hdr.{n});" for n in order]

    # -- frames
    def frames(self) -> list[tuple[int, bytes]]:
        rng = self.rng
        n = rng.randint(6, 10)
        out = []
        for k in range(n):
            w = Walk(rng, 0.9 if k < n - 2 else 0.3)
            state = "start"
            try:
                while state not in ("accept", "reject") and w.steps < 40:
                    w.steps += 1
                    state = self.by_name[state].step(w)
            except Stop:
                pass
            extra = bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))) if rng.random() < 0.7 else b""
            f = w.frame(extra)
            if rng.random() < 0.25 and len(f) > 1:
                f = f[:rng.randint(1, len(f) - 1)]
            out.append((rng.randint(0, 3), f or b"\x00"))
        return out


def generate(seed: int) -> Case:
    """The case of one seed (the same program and frames on every run)."""
    rng = random.Random(f"fuzzp-{seed}")
    prog = Prog(rng)
    src = f"// fuzz_parsers seed {seed}\n" + prog.source()
    return Case(name=f"fuzzp_{seed}", category="random parsers", source=src, frames=prog.frames(),
                json_path=True, note=f"fuzz_parsers seed {seed}")
