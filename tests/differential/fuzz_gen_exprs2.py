"""Constructs the expression generator (:mod:`fuzz_gen_exprs`) did not make, for seeds from
:data:`FIRST_SEED` on (helper fuzz21, issue #15).

Seeds below :data:`FIRST_SEED` keep their programs: :func:`fuzz_gen_exprs.make_case` builds them
with the original :class:`~fuzz_gen_exprs.Gen`; from :data:`FIRST_SEED` on it builds them with
:class:`Gen2`, which draws from the same random stream but may insert, at every statement:

* compound assignments (``+= -= *= &= |= ^= <<= >>= |+|= |-|=``, also on slices) with
  side-effect-free left-hand sides (constant stack indices only);
* ``for`` loops in control bodies and functions: ``for (bit<W> i = a; i < b; i = i + s)``,
  ``!=``/``<=`` conditions, ``i += s`` updates, ``for (bit<W> x in {..})``,
  nested, with ``break``/``continue`` under an ``if`` at the top of the body;
* sub-controls with scalar and header ``in``/``out``/``inout`` parameters besides ``meta`` (not
  ``hdr``: see :meth:`Gen2.call_stmt`), their own actions, ``exit``/``return``, instantiated in ingress once or twice and
  applied with random arguments (aliases, slices, stack elements), a later one applying an
  instance of an earlier one inside its body.

p4c 1.2.4.8 has neither compound assignment nor ``for`` loops, so every such construct is
written twice: as generated (what checkmate-p4c compiles) and spelled out (``x = x op (e)``; the
loop unrolled into blocks that declare the loop variable as a constant, ``break`` through a flag,
``continue`` as the rest of the body under ``!(c)``), which is the case's ``ref_source`` for p4c.
The two texts are one program text with placeholders (``/*@N@*/``) resolved either way.

Later thresholds add more without changing earlier seeds' programs (each draws from the stream
only past its own threshold): ``V3_SEED`` (sub-controls taking ``hdr``, the loop variable as a
stack index, a serializable enum, ``int ++ int``, ``bool == bool``), ``V4_SEED`` (keyless ingress
tables over the actions), ``V5_SEED`` (every sub-control instance applied once with arguments
that name neither ``hdr`` nor ``meta``, no table applied in a loop, no enum cast of a constant:
what p4c 1.2.4.8 or BMv2 1.15.5 cannot take, seen in the earlier ranges), ``V6_SEED`` (no
sub-control applied in a loop, no counted loop that never runs: the actions only it calls stay in
checkmate-p4c's P4Info, not in that of the unrolled reference).
"""
from __future__ import annotations

import re

from fuzz_gen_exprs import Ctx, Gen, Var, tstr

FIRST_SEED = 5000
#: from here on also: sub-controls taking ``hdr`` in place, the loop variable as a stack index,
#: a serializable enum (casts, comparisons, ``switch``), signed ``++``, ``bool == bool``
V3_SEED = 5300
#: from here on also: keyless tables in ingress over its actions, their arguments bound
V4_SEED = 5450
#: from here on every sub-control instance is applied once, with no argument naming hdr or meta
V5_SEED = 5600
#: from here on no sub-control is applied in a loop (unrolled for p4c, an apply at several places:
#: with an exit in the body p4c 1.2.4.8 miscompiles or refuses it, fuzz_exprs 5657)
V6_SEED = 5760
CA_OPS = ["+", "-", "*", "&", "|", "^", "|+|", "|-|", "<<", ">>"]
_TOKEN = re.compile(r"/\*@(\d+)@\*/")


class Gen2(Gen):
    def __init__(self, seed: int):
        super().__init__(seed)
        self.alts: dict[int, tuple[str, str]] = {}    # placeholder -> (as generated, for p4c)
        self.subtypes: list = []                       # (control type, [(dir, type)], takes hdr)
        self.v3 = seed >= V3_SEED
        self.hdr_applied: set = set()                  # instances taking hdr, applied once each
        self.enum = None                               # (width, [(name, value)]) of En_t (v3)
        self.v4 = seed >= V4_SEED
        self.v5 = seed >= V5_SEED
        self.v6 = seed >= V6_SEED
        self.tables: list = []                         # ingress table declarations (v4)
        if self.v3:
            w = self.r.choice([4, 8, 16])
            vals = self.r.sample(range(1 << min(w, 8)), 3)
            self.enum = (w, list(zip(["A", "B", "C"], vals)))

    # ------------------------------------------------------------------ two spellings
    def alt(self, src: str, ref: str) -> str:
        k = len(self.alts)
        self.alts[k] = (src, ref)
        return f"/*@{k}@*/"

    def resolve(self, text: str, ref: bool) -> str:
        while _TOKEN.search(text):
            text = _TOKEN.sub(lambda m: self.alts[int(m.group(1))][ref], text)
        return text

    def program(self) -> str:
        text = super().program()
        if self.tables:   # after ingress's actions, before its apply block
            i = text.index("\n    apply {\n", text.index("control I(inout headers_t hdr"))
            text = text[:i] + "\n" + "\n".join(self.tables) + text[i:]
        if self.enum:   # declared before the functions (which may use it)
            w, members = self.enum
            decl = f"enum bit<{w}> En_t {{ {', '.join(f'{n} = {v}' for n, v in members)} }}\n"
            text = text.replace("bit<8> tick(", decl + "bit<8> tick(", 1)
        return text

    # ------------------------------------------------------------------ expressions (v3)
    def E(self, ctx, t, d):
        if self.v3 and t[0] != "bool" and d > 0:
            k = self.r.random()
            if k < 0.04 and t[0] == "i" and t[1] >= 4:   # a signed ++ (int ++ bit: see fuzz21.py)
                a = self.r.randint(2, t[1] - 2)
                return f"({self.E(ctx, ('i', a), d - 1)} ++ {self.E(ctx, ('i', t[1] - a), d - 1)})"
            if k < 0.07 and self.enum and t == ("b", self.enum[0]):
                w, members = self.enum
                if self.r.random() < 0.5:
                    return f"((bit<{w}>)En_t.{self.r.choice(members)[0]})"
                if self.v5:   # (p4c 1.2.4.8 crashes on a cast of a constant to the enum and back)
                    vs = self.vars_of(ctx, t)
                    if vs:
                        return f"((bit<{w}>)((En_t){self.r.choice(vs).name}))"
                    return super().E(ctx, t, d)
                return f"((bit<{w}>)((En_t){self.E(ctx, t, d - 1)}))"
        return super().E(ctx, t, d)

    def Ebool(self, ctx, d):
        if self.v3 and d > 0:
            k = self.r.random()
            if k < 0.04:
                return f"({self.Ebool(ctx, d - 1)} {self.r.choice(['==', '!='])} {self.Ebool(ctx, d - 1)})"
            if k < 0.08 and self.enum:
                w, members = self.enum
                return (f"((En_t){self.E(ctx, ('b', w), d - 1)} {self.r.choice(['==', '!='])} "
                        f"En_t.{self.r.choice(members)[0]})")
        return super().Ebool(ctx, d)

    def enum_switch(self, ctx, out, ind):
        """``switch`` on a value cast to the serializable enum (values outside it go to default)."""
        r = self.r
        p = "    " * ind
        w, members = self.enum
        out.append(f"{p}switch ((En_t){self.E(ctx, ('b', w), 2)}) {{")
        labels = r.sample([n for n, _ in members], r.randint(1, 3))
        self.switch_cases(ctx, out, ind, labels, [1, 2], "En_t.{}".format, "En_t.{}".format, 0.5)

    # ------------------------------------------------------------------ statements
    def S(self, ctx, out, ind):
        r = self.r
        if self.v3 and any((w or self.v5) and i not in self.hdr_applied for i, _, w in getattr(ctx, "subs", ())) \
                and ctx.kind == "apply" and not (self.v6 and getattr(ctx, "loops", 0)) and r.random() < 0.2:
            self.call_stmt(ctx, out, "    " * ind)
            return
        if self.v3 and self.enum and ctx.kind in ("apply", "egress") and ctx.depth < 3 and r.random() < 0.04:
            ctx.depth += 1
            try:
                self.enum_switch(ctx, out, ind)
            finally:
                ctx.depth -= 1
            return
        k = r.random()
        if k < 0.10:
            if self.compound(ctx, out, ind):
                return
        elif k < 0.16 and ctx.kind in ("apply", "egress", "function") and ctx.depth < 3:
            if self.for_loop(ctx, out, ind):
                return
        super().S(ctx, out, ind)

    def compound(self, ctx, out, ind):
        r = self.r
        t = self.vtype(ctx, writable=True)
        if t[0] == "bool":
            return False
        lv = self.lvalue(ctx, t, 1)
        if lv is None or re.search(r"\[[^\]0-9]", lv):   # a run-time index: evaluated once vs twice
            return False
        op = r.choice(CA_OPS)
        if op in ("<<", ">>"):
            rhs = str(r.choice([0, 1, 2, t[1] - 1, t[1], t[1] + 2])) if r.random() < 0.5 else \
                self.E(ctx, ("b", r.choice([2, 3, 4, 8])), 2)
        else:
            rhs = self.ilit(t) if r.random() < 0.2 else self.E(ctx, t, r.randint(1, 3))
        p = "    " * ind
        out.append(p + self.alt(f"{lv} {op}= {rhs};", f"{lv} = {lv} {op} ({rhs});"))
        return True

    def for_loop(self, ctx, out, ind):
        r = self.r
        p = "    " * ind
        w = r.choice([4, 8, 8, 16])
        i = self.fresh("fi")
        form = r.random()
        if form < 0.55:
            a, s = r.randint(0, 2), r.choice([1, 1, 2])
            n = r.randint(0, 4)
            if self.v6 and n == 0:   # (a loop that never runs: see V6_SEED)
                n = 1
            b = a + n * s
            cond = r.choice([f"{i} < {b}", f"{i} <= {b - 1}", f"{i} != {b}"])
            if cond.startswith(f"{i} <= ") and b - 1 < a:
                cond = f"{i} < {b}"
            upd = r.choice([f"{i} = {i} + {s}", f"{i} += {s}", f"{i} = {i} + {w}w{s}"])
            values = list(range(a, b, s))
            head_src = f"for (bit<{w}> {i} = {a}; {cond}; {upd})"
        else:   # (``in lo .. hi``: checkmate-p4c iterates list expressions only)
            values = [r.randrange(1 << w) for _ in range(r.randint(0, 4))]
            if not values:
                return False
            head_src = f"for (bit<{w}> {i} in {{{', '.join(str(v) for v in values)}}})"
        # the body: its own scope, the loop variable readable only
        ctx.depth += 1
        ctx.loops = getattr(ctx, "loops", 0) + 1
        ctx.scopes.append([Var(i, ("b", w), writable=False, sliceable=False)])
        pre, brk, post = [], None, []
        try:
            for _ in range(r.randint(0, 2)):
                self.S(ctx, pre, ind + 1)
            if self.v3 and ctx.hdr and values and max(values) < 3 and r.random() < 0.5:
                # the loop variable as a stack index (a constant for p4c once unrolled)
                f, ft = r.choice(self.el_fields)
                el = f"hdr.stk[{i}].{f}"
                if r.random() < 0.5:
                    pre.append(f"{'    ' * (ind + 1)}{el} = {self.E(ctx, ft, 2)};")
                else:
                    lv = self.lvalue(ctx, ft, 1)
                    if lv:
                        pre.append(f"{'    ' * (ind + 1)}{lv} = {el};")
            if r.random() < 0.4:
                brk = (r.choice(["break", "continue"]), self.Ebool(ctx, 2))
                for _ in range(r.randint(0, 2)):
                    self.S(ctx, post, ind + 2)
            else:
                for _ in range(r.randint(0, 2)):
                    self.S(ctx, post, ind + 1)
        finally:
            ctx.scopes.pop()
            ctx.depth -= 1
            ctx.loops -= 1
        q = "    " * (ind + 1)
        src = [head_src + " {"] + pre
        if brk:
            src += [f"{q}if ({brk[1]}) {{", f"{q}    {brk[0]};", f"{q}}}"] + post
        else:
            src += post
        src.append(p + "}")
        ref = []
        flag = None
        if brk and brk[0] == "break":
            flag = self.fresh("fb")
            ref.append(f"bool {flag} = false;")
        for v in values:
            it = [f"{q}bit<{w}> {i} = {v};"] + pre
            if brk is None:
                it += post
            elif brk[0] == "continue":
                it += [f"{q}if (!({brk[1]})) {{"] + post + [f"{q}}}"]
            else:
                it += [f"{q}if ({brk[1]}) {{", f"{q}    {flag} = true;", f"{q}}} else {{"] + post + [f"{q}}}"]
            if flag and v != values[0]:
                ref += [f"{p}if (!{flag}) {{", f"{p}{{"] + it + [f"{p}}}", f"{p}}}"]
            else:
                ref += [f"{p}{{"] + it + [f"{p}}}"]
        out.append(p + self.alt("\n".join(src), "\n".join(ref).lstrip() or ";"))
        return True

    # ------------------------------------------------------------------ sub-controls
    # A sub-control takes ``meta`` and its own parameters, not ``hdr``: p4c passes arguments
    # through temporaries when they overlap (``hdr`` and ``hdr.opt``) or when an instance is
    # applied with different ones, and a header copied into a temporary while invalid keeps
    # the temporary's fields (BMv2's assign_header) -- stale bytes BMv2 cannot decide.
    def table_stmt(self, ctx, out, p):
        """A keyless table over one ingress action (its arguments bound to control-level
        l-values and constants, no calls), applied once: plainly, on ``hit``/``miss`` or in a
        ``switch`` on ``action_run``; its default action the bound one or ``NoAction``."""
        r = self.r
        name, params = r.choice(self.actions)
        top = Ctx(scopes=[self.hdr_vars()], kind="apply", hdr=True, fname="zz")
        args = []
        for direction, t in params:
            if t == ("hdr",):
                args.append(r.choice(self.hdr_lvals()))
            elif direction == "in":
                vs = self.vars_of(top, t)
                args.append(r.choice(vs).name if vs and r.random() < 0.6 else self.lit(t))
            else:
                lv = self.lvalue(top, t, 0)
                if lv is None or "(" in lv:
                    return False
                args.append(lv)
        bound = f"{name}({', '.join(args)})"
        t = f"t{len(self.tables)}"
        dflt = bound if r.random() < 0.7 else "NoAction()"
        self.tables.append(f"    table {t} {{ actions = {{ {bound}; NoAction; }} default_action = {dflt}; }}")
        form = r.random()
        if form < 0.35:
            out.append(f"{p}{t}.apply();")
            return True
        ind = len(p) // 4
        if form < 0.65:
            out.append(f"{p}if ({'!' if r.random() < 0.3 else ''}{t}.apply().{r.choice(['hit', 'miss'])}) {{")
            self.block(ctx, r.randint(1, 2), out, ind + 1)
            out.append(f"{p}}} else {{")
            self.block(ctx, r.randint(0, 2), out, ind + 1)
            out.append(f"{p}}}")
            return True
        out.append(f"{p}switch ({t}.apply().action_run) {{")
        for lab in r.sample([name, "NoAction"], r.randint(1, 2)):
            out.append(f"{p}    {lab}: {{")
            self.block(ctx, r.randint(0, 2), out, ind + 2)
            out.append(f"{p}    }}")
        if r.random() < 0.4:
            out.append(f"{p}    default: {{")
            self.block(ctx, r.randint(0, 2), out, ind + 2)
            out.append(f"{p}    }}")
        out.append(f"{p}}}")
        return True

    def call_stmt(self, ctx, out, p):
        # (v5: not in a loop -- unrolled for p4c, the table would be applied more than once)
        if self.v4 and getattr(ctx, "subs", None) is self.ing_subs and self.actions and ctx.depth < 3 \
                and not (self.v5 and getattr(ctx, "loops", 0)) and self.r.random() < 0.4:
            ctx.depth += 1
            try:
                if self.table_stmt(ctx, out, p):
                    return
            finally:
                ctx.depth -= 1
        subs = getattr(ctx, "subs", []) if not (self.v6 and getattr(ctx, "loops", 0)) else []
        if subs and ctx.kind in ("apply", "egress") and self.r.random() < 0.5:
            inst, params, with_hdr = self.r.choice(subs)
            if self.v5 and inst not in self.hdr_applied:
                if self.apply_in_place(ctx, out, p, inst, params, with_hdr):
                    return
            elif self.v5:
                pass
            elif not with_hdr:
                args = self.args(ctx, params, 2)
                if args is not None:
                    out.append(f"{p}{inst}.apply({', '.join(['meta'] + args)});")
                    return
            elif inst not in self.hdr_applied:
                # in place for p4c: applied once, no argument overlapping hdr
                no_hdr = Ctx(scopes=[[v for v in sc if not v.name.startswith("hdr.")] for sc in ctx.scopes],
                             kind=ctx.kind, depth=ctx.depth, hdr=False, fname=ctx.fname)
                for direction, t in params:   # locals the out/inout arguments may be (read: hdr too)
                    if direction != "in" and self.r.random() < 0.7:
                        v = self.fresh("l")
                        init = "{" + ", ".join(self.lit(ft) for _, ft in self.el_fields) + "}" \
                            if t == ("hdr",) else self.E(ctx, t, 2)
                        out.append(f"{p}{tstr(t)} {v} = {init};")
                        ctx.scopes[-1].append(Var(v, t))
                        no_hdr.scopes[-1].append(Var(v, t))
                        if t == ("hdr",):
                            no_hdr.scopes[-1] += [Var(f"{v}.{n}", ft) for n, ft in self.el_fields]
                            ctx.scopes[-1] += [Var(f"{v}.{n}", ft) for n, ft in self.el_fields]
                args = self.args(no_hdr, params, 2)
                if args is not None:
                    self.hdr_applied.add(inst)
                    out.append(f"{p}{inst}.apply({', '.join(['hdr', 'meta'] + args)});")
                    return
        super().call_stmt(ctx, out, p)

    def apply_in_place(self, ctx, out, p, inst, params, with_hdr) -> bool:
        """(v5) An apply p4c makes in place: the instance applied once, no argument naming
        ``meta`` or ``hdr`` (p4c's JSON of ``meta`` copied into a temporary names its fields
        ``userMetadata.<f>``, which BMv2 cannot load); locals declared for the out/inout ones."""
        keep = lambda v: not v.name.startswith(("hdr.", "meta."))  # noqa: E731
        plain = Ctx(scopes=[[v for v in sc if keep(v)] for sc in ctx.scopes],
                    kind=ctx.kind, depth=ctx.depth, hdr=False, fname=ctx.fname)
        for direction, t in params:
            if direction != "in" and self.r.random() < 0.8:
                v = self.fresh("l")
                init = "{" + ", ".join(self.lit(ft) for _, ft in self.el_fields) + "}" \
                    if t == ("hdr",) else self.E(ctx, t, 2)
                out.append(f"{p}{tstr(t)} {v} = {init};")
                new = [Var(v, t)] + ([Var(f"{v}.{n}", ft) for n, ft in self.el_fields] if t == ("hdr",) else [])
                ctx.scopes[-1] += new
                plain.scopes[-1] += new
        args = self.args(plain, params, 2)
        if args is None:
            return False
        self.hdr_applied.add(inst)
        out.append(f"{p}{inst}.apply({', '.join(['hdr'] * with_hdr + ['meta'] + args)});")
        return True

    def meta_vars(self):
        return [Var(f"meta.{n}", t) for n, t in self.meta_fields]

    def sub_action(self, name):
        """An action of a sub-control (no ``hdr`` there): :meth:`Gen.action` over ``meta``."""
        return self.action_in(Ctx(scopes=[self.meta_vars(), []], kind="action", hdr=False), name)

    def subcontrol(self, k):
        """Control type ``SC<k>``: ``meta`` (from V3_SEED on sometimes ``hdr`` too, see
        :meth:`call_stmt`) and scalar/header parameters, actions, a body that may apply an
        instance of an earlier sub-control; returns its declaration lines."""
        r = self.r
        name = f"SC{k}"
        with_hdr = self.v3 and r.random() < 0.5
        saved = self.actions
        self.actions = []
        decls = []
        inner = []
        if self.subtypes and r.random() < 0.5:
            typ, params, inner_hdr = r.choice(self.subtypes)
            if with_hdr or not inner_hdr:
                inst = f"in{k}"
                decls.append(f"    {typ}() {inst};")
                inner.append((inst, params, inner_hdr))
        for j in range(r.randint(0, 2)):
            decls += self.action(f"c{k}a{j}") if with_hdr else self.sub_action(f"c{k}a{j}")
        ctx = Ctx(scopes=[self.hdr_vars() if with_hdr else self.meta_vars(), []], kind="apply", hdr=with_hdr)
        ctx.fname = "zz"
        ctx.subs = inner
        body = []
        params = self.params(ctx, ["in", "out", "inout", "inout"], "p", body, r.randint(1, 3))
        ctx.scopes.append([])
        for _ in range(r.randint(2, 6)):
            self.S(ctx, body, 2)
        self.actions = saved
        self.subtypes.append((name, params, with_hdr))
        sig = ", ".join(["inout headers_t hdr"] * with_hdr + ["inout meta_t meta"]
                        + [f"{dr} {tstr(t)} p{i}" for i, (dr, t) in enumerate(params)])
        return [f"control {name}({sig}) {{"] + decls + ["    apply {"] + body + ["    }", "}"]

    def sub_decls(self):
        """Zero to two sub-control types after the functions, and their instances in ingress
        (one of a type taking ``hdr``)."""
        r = self.r
        types, insts = [], []
        for k in range(r.choice([0, 1, 1, 2])):
            types += self.subcontrol(k)
        for typ, params, with_hdr in self.subtypes:
            for j in range(1 if with_hdr else r.choice([1, 1, 2])):
                inst = f"{typ.lower()}_{j}"
                insts.append(f"    {typ}() {inst};")
                self.ing_subs.append((inst, params, with_hdr))
        return types, insts
