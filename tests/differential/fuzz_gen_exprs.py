"""Seeded random v1model programs that stress expressions and statements (issue #15, "fuzzx").

:func:`make_case` turns a seed into a :class:`diff_harness.Case`: a program of its own headers
with odd field widths (``bit<3>``, ``int<12>``, ``bit<48>`` ...), whose ingress and egress bodies
are random statements over typed random expression trees, plus 4-8 frames of random header bytes
(the EtherType fixed so the parser extracts everything).  Every computed value lands in a header
field that the deparser emits, so the output frame shows it.

What is generated (the generator is typed: every expression has a ``bit<W>``, ``int<W>`` or
``bool`` type and is built only from parts p4c accepts for that type):

* leaves: header fields (input, output, stack elements with constant and run-time indices, an
  optional header), metadata, locals and parameters in scope; sized literals; infinite-precision
  literals and constant sub-expressions where the other operand gives the width;
* operators: ``+ - * & | ^ ~``, unary ``-``, ``<< >>`` by constants (also at or past the width)
  and by run-time amounts, ``|+| |-|`` on ``bit`` and ``int``, ``/ %`` by positive constants,
  all comparisons (signed too), ``==``/``!=`` on headers and structs, ``?:``, ``!``, ``&& ||``
  with side-effecting calls, ``++``, ``[h:l]`` slices of fields and of expressions, casts
  between every ``bit``/``int`` width (two steps where P4 wants them), ``bool`` <-> ``bit<1>``;
* statements: assignments (also to slices and stack elements), locals in nested blocks that
  shadow outer names, ``if``/``else`` chains, ``switch`` on bit values with shared labels and
  ``default``, calls of functions and actions with ``in``/``out``/``inout`` parameters (the same
  field passed twice, slices and stack elements as arguments), ``exit``/``return`` in actions,
  ``setValid``/``setInvalid``, header copies between valid and invalid headers, header/struct
  initializers ``{...}``, tuples.

Shapes P4 leaves undefined are avoided so that BMv2 can decide every difference: locals are
initialized where they are declared, ``out`` parameters are written before they are read, and
the optional header gets known field values (set valid, assigned, set invalid again) when the
parser did not extract it -- BMv2 reads a never-extracted header's fields as whatever its
packet buffers held before.  No whole-header copy goes into a run-time-indexed stack element
(simple_switch 1.15.5 dies on p4c's JSON for it).
The module is the generator only; :mod:`fuzz_exprs` runs it against both switches.
"""
from __future__ import annotations

import random
import re
import struct
from dataclasses import dataclass, field

from diff_harness import Case

BIT_W = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64]
INT_W = [2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 24, 32, 48, 64]
ETYPE = 0x1234
STACK = 3


def tstr(t) -> str:
    if t == ("hdr",):
        return "el_t"
    return "bool" if t[0] == "bool" else f"{'bit' if t[0] == 'b' else 'int'}<{t[1]}>"


@dataclass
class Var:
    name: str          # how to write it (an lvalue expression)
    t: tuple
    writable: bool = True
    sliceable: bool = True
    readable: bool = True   # (fields of an in/inout header parameter: see Gen.params)


@dataclass
class Ctx:
    """Where statements are generated: what is in scope and which control-flow statements fit."""
    scopes: list = field(default_factory=list)      # [[Var]] innermost last
    kind: str = "apply"                             # apply | action | function
    ret: tuple | None = None                        # a function's return type
    depth: int = 0
    hdr: bool = True                                # hdr/meta reachable
    cond: bool = False                              # inside an if of an action
    fname: str = "zz"                               # calls only reach functions/actions before it


class Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.seed = seed
        self.n = 0
        self.funcs: list = []     # (name, ret type, [(dir, type)])
        self.actions: list = []   # (name, [(dir, type)])
        self.structs = {}         # name -> [(field, type)]
        self.ing_subs: list = []  # sub-control instances ingress may apply (fuzz_gen_exprs2)

    # ------------------------------------------------------------------ small helpers
    def fresh(self, p="v"):
        self.n += 1
        return f"{p}{self.n}"

    def chance(self, p):
        return self.r.random() < p

    def rtype(self, boolp=0.0, maxw=64):
        if self.chance(boolp):
            return ("bool",)
        if self.chance(0.3):
            return ("i", self.r.choice([w for w in INT_W if w <= maxw]))
        return ("b", self.r.choice([w for w in BIT_W if w <= maxw]))

    def lit(self, t):
        r = self.r
        if t[0] == "bool":
            return r.choice(["true", "false"])
        w = t[1]
        if t[0] == "b":
            v = r.choice([0, 1, (1 << w) - 1, 1 << (w - 1), r.getrandbits(w)])
            return f"{w}w{v}" if r.random() < 0.6 else f"{w}w0x{v:x}"
        lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
        v = r.choice([0, 1, -1, lo, hi, r.randint(lo, hi)])
        return f"{w}s{v}" if v >= 0 else f"(-{w}s{-v})" if v != lo else f"(-{w}s{-(v + 1)} - {w}s1)"

    def ilit(self, t):
        """An infinite-precision literal or constant expression that fits ``t`` (the context types it)."""
        w = t[1]
        if t[0] == "b":
            v = self.r.randint(0, min((1 << w) - 1, 1000))
            if self.chance(0.3) and v > 3:
                a = self.r.randint(1, v - 1)
                return f"({a} + {v - a})" if self.chance(0.5) else f"({v + a} - {a})"
            return str(v) if self.chance(0.7) else hex(v)
        hi = min((1 << (w - 1)) - 1, 500)
        v = self.r.randint(-hi - 1, hi)
        if self.chance(0.3):
            return f"({v} * 1)" if v >= 0 else f"(0 - {-v})"
        return str(v) if v >= 0 else f"-{-v}"

    def vars_of(self, ctx, t, writable=False):
        out = {}
        for scope in ctx.scopes:   # inner names shadow outer ones
            for v in scope:
                out[v.name] = v
        return [v for v in out.values() if v.t == t and (v.writable if writable else v.readable)]

    def all_vars(self, ctx):
        out = {}
        for scope in ctx.scopes:
            for v in scope:
                out[v.name] = v
        return list(out.values())

    # ------------------------------------------------------------------ expressions
    def E(self, ctx, t, d):
        """An expression of type ``t``, nesting at most ``d`` more levels."""
        if t[0] == "bool":
            return self.Ebool(ctx, d)
        r = self.r
        vs = self.vars_of(ctx, t)
        if d <= 0 or r.random() < 0.15:
            if vs and r.random() < 0.75:
                return r.choice(vs).name
            if r.random() < 0.7:
                return self.cast_var(ctx, t) or self.lit(t)
            return self.lit(t)
        w, signed = t[1], t[0] == "i"
        k = r.random()
        sub = lambda: self.E(ctx, t, d - 1)  # noqa: E731
        if k < 0.22:
            op = r.choice(["+", "-", "*", "&", "|", "^", "|+|", "|-|", "+", "-"])
            rhs = self.ilit(t) if r.random() < 0.2 else sub()
            return f"({sub()} {op} {rhs})"
        if k < 0.28:
            return f"({r.choice(['~', '-'])}{sub()})"
        if k < 0.36:
            op = r.choice(["<<", ">>"])
            if r.random() < 0.5:
                amt = r.choice([0, 1, w - 1, w, w + 1, r.randint(0, w + 3)])
                return f"({sub()} {op} {max(amt, 0)})"
            st = ("b", r.choice([1, 2, 3, 4, 5, 6, 7, 8]))
            return f"({sub()} {op} {self.E(ctx, st, d - 1)})"
        if k < 0.40 and not signed:
            # p4c's bmv2 backend divides at run time by powers of two only
            c = r.choice([1, 2, 4, 8, 16, 32, 128]) % (1 << w) or 1
            return f"({sub()} {r.choice(['/', '%'])} {c if r.random() < 0.5 else f'{w}w{c}'})"
        if k < 0.47 and not signed and w >= 2:
            a = r.randint(1, w - 1)
            return f"({self.E(ctx, ('b', a), d - 1)} ++ {self.E(ctx, ('b', w - a), d - 1)})"
        if k < 0.55 and not signed:
            src = self.rtype(maxw=128 if w > 64 else 64)
            if src[1] <= w:
                src = (src[0], min(w + r.randint(1, 16), 128))
            lo = r.randint(0, src[1] - w)
            e = self.E(ctx, src, d - 1)
            if e.lstrip("(-").split("s")[0].isdigit() and "w" not in e and src[0] == "i":
                e = f"({tstr(src)}){e}"
            return f"{self.paren(e)}[{lo + w - 1}:{lo}]"
        if k < 0.67:
            return self.cast(ctx, t, d)
        if k < 0.77:
            return f"({self.Ebool(ctx, d - 1)} ? {sub()} : {sub()})"
        if k < 0.85:
            call = self.call_expr(ctx, t, d)
            if call:
                return call
        if vs and r.random() < 0.6:
            return r.choice(vs).name
        return sub()

    @staticmethod
    def paren(e):
        return e if re.fullmatch(r"[A-Za-z_][\w.]*", e) else f"({e})"

    def cast_var(self, ctx, t):
        """A variable of another type, cast to ``t`` (None when nothing numeric is in scope)."""
        vs = [v for v in self.all_vars(ctx) if v.t[0] in ("b", "i") and v.readable]
        if not vs:
            return None
        v = self.r.choice(vs)
        if v.t == t:
            return v.name
        if v.t[0] == t[0] or v.t[1] == t[1]:
            return f"(({tstr(t)}){v.name})"
        return f"(({tstr(t)})({tstr((t[0], v.t[1]))}){v.name})"

    def vtype(self, ctx, boolp=0.0, writable=False):
        """Mostly the type of a variable in scope (so expressions meet data), else a random one."""
        vs = [v for v in self.all_vars(ctx) if v.t[0] in ("b", "i", "bool") and (v.writable if writable else v.readable)]
        if vs and self.r.random() < 0.75:
            t = self.r.choice(vs).t
            if t[0] != "bool" or self.r.random() < boolp * 3:
                return t
        return self.rtype(boolp)

    def cast(self, ctx, t, d):
        r = self.r
        w = t[1]
        if t == ("b", 1) and r.random() < 0.3:
            return f"((bit<1>){self.Ebool(ctx, d - 1)})"
        if r.random() < 0.15:   # an infinite-precision constant, cast
            v = r.randint(-300, 300)
            return f"(({tstr(t)}){v})" if v >= 0 or t[0] == "i" else f"(({tstr(t)})(int<{w}>){v})" \
                if w > 1 else f"(({tstr(t)}){-v})"
        src = self.vtype(ctx)
        if src[0] == "bool":
            src = ("b", 1)
        e = self.E(ctx, src, d - 1)
        if src[0] == t[0] or src[1] == w:
            return f"(({tstr(t)}){e})"
        # sign and width both change: two steps (P4 casts change one of them at a time)
        mid = (t[0], src[1]) if r.random() < 0.5 else (src[0], w)
        return f"(({tstr(t)})({tstr(mid)}){e})"

    def Ebool(self, ctx, d):
        r = self.r
        vs = self.vars_of(ctx, ("bool",))
        if d <= 0 or r.random() < 0.1:
            hv = [v for v in self.all_vars(ctx) if v.t == ("hdr",)]
            if hv and r.random() < 0.3:
                return f"{r.choice(hv).name}.isValid()"
            if vs and r.random() < 0.6:
                return r.choice(vs).name
            if ctx.hdr and r.random() < 0.5:
                return f"{r.choice(self.validity_targets())}.isValid()"
            return r.choice(["true", "false"])
        k = r.random()
        if k < 0.4:
            t = self.vtype(ctx)
            if t[0] == "bool":
                t = ("b", 1)
            op = r.choice(["==", "!=", "<", ">", "<=", ">="])
            rhs = self.ilit(t) if r.random() < 0.2 else self.E(ctx, t, d - 1)
            return f"({self.E(ctx, t, d - 1)} {op} {rhs})"
        if k < 0.5:
            return f"(!{self.Ebool(ctx, d - 1)})"
        if k < 0.68:
            return f"({self.Ebool(ctx, d - 1)} {r.choice(['&&', '||'])} {self.Ebool(ctx, d - 1)})"
        if k < 0.74:
            return f"((bool){self.E(ctx, ('b', 1), d - 1)})"
        if k < 0.8 and ctx.hdr:
            a, b = r.choice(self.hdr_lvals()), r.choice(self.hdr_lvals())
            return f"({a} {r.choice(['==', '!='])} {b})"
        if k < 0.86 and self.structs:
            sv = [v for v in self.all_vars(ctx) if v.t[0] == "struct"]
            if sv:
                a, b = r.choice(sv), r.choice(sv)
                if a.t == b.t:
                    return f"({a.name} {r.choice(['==', '!='])} {b.name})"
        if k < 0.94:
            call = self.call_expr(ctx, ("bool",), d)
            if call:
                return call
        if vs:
            return r.choice(vs).name
        return f"({self.E(ctx, ('b', 4), d - 1)} != 0)"

    def call_expr(self, ctx, t, d):
        cands = [f for f in self.funcs if f[1] == t and (ctx.kind != "function" or f[0] < ctx.fname)]
        if not cands:
            return None
        name, _, params = self.r.choice(cands)
        args = self.args(ctx, params, d)
        return None if args is None else f"{name}({', '.join(args)})"

    def args(self, ctx, params, d):
        out, prev = [], []
        for direction, t in params:
            if t == ("hdr",):   # a header: a parameter in scope, or hdr.opt / a stack element
                cands = [v.name for v in self.all_vars(ctx) if v.t == t and (v.writable or direction == "in")]
                if ctx.hdr:
                    cands += self.hdr_lvals()   # (a run-time-indexed element: simple_switch refuses p4c's JSON)
                if not cands:
                    return None
                out.append(self.r.choice(cands))
                continue
            if direction == "in":
                out.append(self.E(ctx, t, d - 1))
                continue
            if prev and self.chance(0.25):     # alias: the same lvalue passed twice
                same = [p for p, pt in prev if pt == t]
                if same:
                    out.append(self.r.choice(same))
                    continue
            lv = self.lvalue(ctx, t, d)
            if lv is None:
                return None
            prev.append((lv, t))
            out.append(lv)
        return out

    # ------------------------------------------------------------------ lvalues
    def lvalue(self, ctx, t, d=1):
        r = self.r
        vs = self.vars_of(ctx, t, writable=True)
        if t[0] == "b" and r.random() < 0.3:   # a slice of a wider field
            # (a slice of an int<W> lvalue trips p4c 1.2.4.8's type checker: bit fields only)
            wide = [v for v in self.all_vars(ctx) if v.writable and v.sliceable and v.t[0] == "b"
                    and v.t[1] > t[1]]
            if wide:
                v = r.choice(wide)
                lo = r.randint(0, v.t[1] - t[1])
                return f"{v.name}[{lo + t[1] - 1}:{lo}]"
        if ctx.hdr and r.random() < 0.2:       # a stack element, index constant or run-time
            f = [n for n, ft in self.el_fields if ft == t]
            if f:
                return f"{self.stack_ref(ctx, d, write=True)}.{r.choice(f)}"
        if vs:
            return r.choice(vs).name
        return None

    def stack_ref(self, ctx, d, write=False):
        """An element of ``hdr.stk``: a constant index, or a run-time one (to read, a ``bit<2>``
        index may be 3, past the stack's end; simple_switch 1.15.5 dies writing there)."""
        r = self.r
        if r.random() < 0.6:
            return f"hdr.stk[{r.randrange(STACK)}]"
        w = 1 if write or r.random() < 0.8 else 2
        return f"hdr.stk[{self.paren(self.E(ctx, ('b', w), max(d - 1, 0)))}]"

    def validity_targets(self):
        return ["hdr.opt", "hdr.outh", "hdr.inh", "hdr.stk[0]", "hdr.stk[1]", "hdr.stk[2]"]

    def hdr_lvals(self):
        return ["hdr.opt", "hdr.stk[0]", "hdr.stk[1]", "hdr.stk[2]"]

    # ------------------------------------------------------------------ statements
    def block(self, ctx, n, out, ind):
        ctx.scopes.append([])
        for _ in range(n):
            self.S(ctx, out, ind)
        ctx.scopes.pop()

    def S(self, ctx, out, ind):
        r = self.r
        p = "    " * ind
        k = r.random()
        deep = ctx.depth >= 3
        d = r.randint(1, 3)
        if k < 0.30 or (deep and k < 0.6):
            t = self.vtype(ctx, 0.1, writable=True)
            lv = self.lvalue(ctx, t, d)
            if lv:
                out.append(f"{p}{lv} = {self.ilit(t) if t[0] != 'bool' and r.random() < 0.08 else self.E(ctx, t, d)};")
                return
            k = 0.31
        if k < 0.42 or deep:
            t = self.vtype(ctx, 0.1)
            here = {v.name for v in ctx.scopes[-1]}
            outer = [v for v in self.all_vars(ctx) if v.name.startswith("l") and "." not in v.name
                     and v.name not in here]
            name = r.choice(outer).name if outer and r.random() < 0.3 else self.fresh("l")
            out.append(f"{p}{tstr(t)} {name} = {self.E(ctx, t, d)};")
            ctx.scopes[-1].append(Var(name, t))
            return
        if ctx.kind == "action" and ctx.cond:
            # p4c's bmv2 backend predicates an if in an action: assignments only
            if k < 0.85:
                t = self.vtype(ctx, 0.1, writable=True)
                lv = self.lvalue(ctx, t, d)
                if lv:
                    out.append(f"{p}{lv} = {self.E(ctx, t, d)};")
            else:
                out.append(f"{p}return;")
            return
        ctx.depth += 1
        try:
            if ctx.kind == "action" and 0.52 <= k < 0.64:
                k = 0.3 + k   # no block / switch: an assignment or a call instead
            if k < 0.52:
                cond = ctx.cond
                ctx.cond = ctx.kind == "action"
                out.append(f"{p}if ({self.Ebool(ctx, d)}) {{")
                self.block(ctx, r.randint(1, 3), out, ind + 1)
                while r.random() < 0.4:
                    out.append(f"{p}}} else if ({self.Ebool(ctx, d)}) {{")
                    self.block(ctx, r.randint(1, 2), out, ind + 1)
                if r.random() < 0.5:
                    out.append(f"{p}}} else {{")
                    self.block(ctx, r.randint(1, 2), out, ind + 1)
                out.append(f"{p}}}")
                ctx.cond = cond
            elif k < 0.58:
                out.append(f"{p}{{")
                self.block(ctx, r.randint(1, 3), out, ind + 1)
                out.append(f"{p}}}")
            elif k < 0.64 and ctx.kind != "function":   # (p4c: no switch in an action it inlines)
                self.switch(ctx, out, ind)
            elif k < 0.70:
                self.call_stmt(ctx, out, p)
            elif k < 0.74 and ctx.hdr:
                self.index_side_effect(ctx, out, p)
            elif k < 0.84 and ctx.hdr:
                self.header_stmt(ctx, out, p)
            elif k < 0.89:
                self.aggregate_stmt(ctx, out, p)
            elif k < 0.95 and ctx.kind != "function":
                verb = "exit" if ctx.kind != "egress" and r.random() < 0.5 else "return"
                if ctx.kind == "action" and verb == "exit":   # (p4c: no exit under an if in an action)
                    out.append(f"{p}exit;")
                else:
                    out.append(f"{p}if ({self.Ebool(ctx, 2)}) {{")
                    out.append(f"{p}    {verb};")
                    out.append(f"{p}}}")
            elif ctx.kind == "function":
                out.append(f"{p}if ({self.Ebool(ctx, 2)}) {{")
                out.append(f"{p}    return {self.E(ctx, ctx.ret, 2)};")
                out.append(f"{p}}}")
            else:
                t = self.vtype(ctx, writable=True)
                lv = self.lvalue(ctx, t, 1)
                if lv:
                    out.append(f"{p}{lv} = {self.E(ctx, t, 3)};")
        finally:
            ctx.depth -= 1

    def switch(self, ctx, out, ind):
        r = self.r
        p = "    " * ind
        w = r.choice([2, 3, 4, 8, 16])
        out.append(f"{p}switch ({self.E(ctx, ('b', w), 2)}) {{")
        labels = r.sample(range(1 << min(w, 4)), r.randint(1, min(4, 1 << min(w, 4))))
        self.switch_cases(ctx, out, ind, labels, [1, 1, 2], lambda lab: lab if r.random() < 0.5 else f"{w}w{lab}",
                          str, 0.6)

    def switch_cases(self, ctx, out, ind, labels, sizes, label, last_label, p_default):
        """The cases of a ``switch`` whose head is written: ``labels`` in groups of a size drawn
        from ``sizes`` (a group's labels fall through to its last one's block), written by
        ``label`` (``last_label`` for a group's last), then a ``default`` with ``p_default``."""
        r = self.r
        p = "    " * ind
        i = 0
        while i < len(labels):
            group = labels[i:i + r.choice(sizes)]
            i += len(group)
            for lab in group[:-1]:
                out.append(f"{p}    {label(lab)}:")
            out.append(f"{p}    {last_label(group[-1])}: {{")
            self.block(ctx, r.randint(0, 2), out, ind + 2)
            out.append(f"{p}    }}")
        if r.random() < p_default:
            out.append(f"{p}    default: {{")
            self.block(ctx, r.randint(0, 2), out, ind + 2)
            out.append(f"{p}    }}")
        out.append(f"{p}}}")

    def index_side_effect(self, ctx, out, p):
        """A stack element indexed by ``meta.ix`` written from an expression that moves ``meta.ix``
        (which index does the write use?), or such a call inside ``&&``/``||``."""
        r = self.r
        # (not meta.ix itself: simple_switch 1.15.5 dies on an out-of-range run-time index write)
        idx = r.choice(["meta.ix >> 1", "meta.ix >> 1", "(bit<2>)tick(meta.ix) >> 1"])
        name, t = r.choice(self.el_fields)
        call = "tick(meta.ix)" if t == ("b", 8) else f"(({tstr(t)})(int<8>)tick(meta.ix))" if t[0] == "i" \
            else f"(({tstr(t)})tick(meta.ix))"
        rhs = r.choice([call, f"({call} + {self.E(ctx, t, 1)})", f"({self.E(ctx, t, 1)} ^ {call})"])
        out.append(f"{p}hdr.stk[{idx}].{name} = {rhs};")
        if r.random() < 0.4:
            lv = self.lvalue(ctx, ("bool",), 1) or "meta.ix[0:0]"
            b = f"((tick(meta.ix) & 1) == 0) {r.choice(['&&', '||'])} ((tick(meta.ix) & 2) == 2)"
            out.append(f"{p}{lv} = {b};" if "[" not in lv else f"{p}{lv} = (bit<1>)({b});")

    def call_stmt(self, ctx, out, p):
        r = self.r
        if ctx.kind in ("apply", "egress", "action") and self.actions and r.random() < 0.6:
            cands = self.actions if ctx.kind != "action" else [a for a in self.actions if a[0] < ctx.fname]
            if cands:
                name, params = r.choice(cands)
                args = self.args(ctx, params, 2)
                if args is not None:
                    out.append(f"{p}{name}({', '.join(args)});")
                    return
        cands = [f for f in self.funcs if ctx.kind != "function" or f[0] < ctx.fname]
        if cands:
            name, _, params = r.choice(cands)
            args = self.args(ctx, params, 2)
            if args is not None:
                out.append(f"{p}{name}({', '.join(args)});")

    def header_stmt(self, ctx, out, p):
        r = self.r
        k = r.random()
        h = r.choice(self.hdr_lvals() + ["hdr.outh"])
        if k < 0.35:
            out.append(f"{p}{h}.{r.choice(['setValid', 'setInvalid', 'setValid'])}();")
            if h == "hdr.outh" and r.random() < 0.7:
                out.append(f"{p}hdr.outh.setValid();")
        elif k < 0.65:
            # (a whole-header copy into a run-time-indexed element kills simple_switch 1.15.5)
            a, b = r.choice(self.hdr_lvals()), r.choice(self.hdr_lvals())
            if r.random() < 0.3:
                b = self.stack_ref(ctx, 2)
            out.append(f"{p}{a} = {b};")
        else:
            a = r.choice(self.hdr_lvals())
            vals = [self.E(ctx, t, 2) for _, t in self.el_fields]
            if r.random() < 0.5:
                vals = [f"{n} = {v}" for (n, _), v in zip(self.el_fields, vals)]
            out.append(f"{p}{a} = {{{', '.join(vals)}}};")

    def aggregate_stmt(self, ctx, out, p):
        r = self.r
        if r.random() < 0.5 and self.structs:
            sname = r.choice(sorted(self.structs))
            fields = self.structs[sname]
            name = self.fresh("s")
            vals = [self.E(ctx, t, 2) for _, t in fields]
            init = ", ".join(f"{n} = {v}" for (n, _), v in zip(fields, vals)) if r.random() < 0.5 else ", ".join(vals)
            out.append(f"{p}{sname} {name} = {{{init}}};")
            ctx.scopes[-1].append(Var(name, ("struct", sname), writable=False))
            for n, t in fields:
                ctx.scopes[-1].append(Var(f"{name}.{n}", t, sliceable=True))
            return
        ts = [self.rtype(boolp=0.2) for _ in range(r.randint(1, 3))]
        name = self.fresh("tp")
        out.append(f"{p}tuple<{', '.join(tstr(t) for t in ts)}> {name} = {{{', '.join(self.E(ctx, t, 2) for t in ts)}}};")
        i = r.randrange(len(ts))
        lv = self.lvalue(ctx, ts[i], 1)
        if lv:
            out.append(f"{p}{lv} = {name}[{i}];")

    # ------------------------------------------------------------------ declarations
    def fields(self, prefix, n, total_mod8=True, ints=True):
        fs = []
        for i in range(n):
            t = self.rtype() if ints else ("b", self.r.choice(BIT_W))
            fs.append((f"{prefix}{i}", t))
        width = sum(t[1] for _, t in fs)
        if total_mod8 and width % 8:
            fs.append((f"{prefix}pad", ("b", 8 - width % 8)))
        return fs

    def function(self, name):
        r = self.r
        ret = self.rtype(boolp=0.3)
        ctx = Ctx(scopes=[[]], kind="function", ret=ret, hdr=False)
        ctx.fname = name
        body = []
        params = self.params(ctx, ["in", "in", "out", "inout"], "p", body, r.randint(1, 3))
        ctx.scopes.append([])
        for _ in range(r.randint(1, 4)):
            self.S(ctx, body, 2)
        self.header_param_ops(params, "p", body)
        body.append(f"        return {self.E(ctx, ret, 3)};")
        sig = ", ".join(f"{dr} {tstr(t)} p{i}" for i, (dr, t) in enumerate(params))
        self.funcs.append((name, ret, params))
        return [f"{tstr(ret)} {name}({sig}) {{"] + body + ["}"]

    def params(self, ctx, dirs, prefix, body, n):
        """``n`` parameters (a few of header type ``el_t``) declared into ``ctx``; ``out`` ones are
        written first (a header one with an initializer, which makes it valid)."""
        r = self.r
        params = [(r.choice(dirs), ("hdr",) if r.random() < 0.25 else self.rtype(boolp=0.1)) for _ in range(n)]
        scope = ctx.scopes[-1]
        for i, (direction, t) in enumerate(params):
            name, w = f"{prefix}{i}", direction != "in"
            scope.append(Var(name, t, writable=w, sliceable=False))
            if t == ("hdr",):
                # an in/inout copy of an invalid header has the fields the copy held before (BMv2's
                # assign_header from an invalid header; stale bytes of earlier packets): write-only
                scope += [Var(f"{name}.{n}", ft, writable=w, readable=direction == "out") for n, ft in self.el_fields]
                if direction == "out":
                    body.append(f"        {name} = {{{', '.join(self.lit(ft) for _, ft in self.el_fields)}}};")
            elif direction == "out":
                body.append(f"        {name} = {self.lit(t)};")
        return params

    def header_param_ops(self, params, prefix, body):
        """Unconditional validity changes of writable header parameters (p4c refuses conditional
        ones in actions, and functions are inlined into actions).  No ``setInvalid()`` of an ``out``
        one (helper fuzz27, fuzz_exprs seeds 9683 and 10749): its copy-back makes the argument
        invalid and keeps the argument's fields (BMv2's assign_header), while p4c's def-use has
        dropped the stores to the argument before the call as dead -- so a later read of those
        fields sees stale PHV bytes on BMv2, which change from run to run (the same random draws
        are made, so other programs stay as they were)."""
        for i, (direction, t) in enumerate(params):
            if t == ("hdr",) and direction != "in" and self.r.random() < 0.4:
                op = self.r.choice(['setInvalid', 'setValid'])
                if not (op == "setInvalid" and direction == "out"):
                    body.append(f"        {prefix}{i}.{op}();")

    def action(self, name):
        return self.action_in(Ctx(scopes=[self.hdr_vars(), []], kind="action"), name)

    def action_in(self, ctx, name):
        """Action ``name`` over the variables of ``ctx`` (random parameters and statements)."""
        r = self.r
        ctx.fname = name
        body = []
        params = self.params(ctx, ["in", "out", "inout", "inout"], "q", body, r.randint(1, 3))
        ctx.scopes.append([])
        self.header_param_ops(params, "q", body)
        for _ in range(r.randint(1, 4)):
            self.S(ctx, body, 2)
        sig = ", ".join(f"{dr} {tstr(t)} q{i}" for i, (dr, t) in enumerate(params))
        self.actions.append((name, params))
        return [f"    action {name}({sig}) {{"] + body + ["    }"]

    def sub_decls(self):
        """Declarations a later generator adds (sub-control types, their ingress instances)."""
        return [], []

    def hdr_vars(self):
        vs = [Var(f"hdr.inh.{n}", t) for n, t in self.in_fields]
        vs += [Var(f"hdr.outh.{n}", t) for n, t in self.out_fields]
        vs += [Var(f"hdr.opt.{n}", t) for n, t in self.el_fields]
        vs += [Var(f"meta.{n}", t) for n, t in self.meta_fields]
        return vs

    # ------------------------------------------------------------------ the program
    def program(self) -> str:
        r = self.r
        self.in_fields = self.fields("i", r.randint(4, 9))
        self.out_fields = self.fields("o", r.randint(5, 10))
        self.el_fields = self.fields("e", r.randint(2, 4))
        self.meta_fields = [(f"m{i}", self.rtype(boolp=0.1)) for i in range(r.randint(2, 4))]
        self.meta_fields.append(("ix", ("b", 2)))    # a run-time stack index that calls move
        for i in range(r.randint(0, 2)):
            self.structs[f"st{i}_t"] = [(f"x{j}", self.rtype()) for j in range(r.randint(1, 3))]
        decl = lambda fs: " ".join(f"{tstr(t)} {n};" for n, t in fs)  # noqa: E731
        top = [f"header in_t {{ {decl(self.in_fields)} }}", f"header out_t {{ {decl(self.out_fields)} }}",
               f"header el_t {{ {decl(self.el_fields)} }}"]
        top += [f"struct {n} {{ {decl(fs)} }}" for n, fs in sorted(self.structs.items())]
        top.append(f"struct meta_t {{ {decl(self.meta_fields)} }}")
        top.append("struct headers_t { eth_t eth; in_t inh; out_t outh; el_t[3] stk; el_t opt; }")
        # tick(ix): a call with a side effect on a stack index (`hdr.stk[meta.ix].f = tick(meta.ix)`)
        funcs = ["bit<8> tick(inout bit<2> c) {", "    c = c + 1;", "    return (bit<8>)c;", "}"]
        self.funcs.append(("tick", ("b", 8), [("inout", ("b", 2))]))
        for i in range(r.randint(1, 3)):
            funcs += self.function(f"f{i}")
        sub_types, ing_decls = self.sub_decls()
        funcs += sub_types
        for i in range(r.randint(0, 3)):
            ing_decls += self.action(f"a{i}")
        ingress = []
        ctx = Ctx(scopes=[self.hdr_vars(), []], kind="apply")
        ctx.fname = "zz"
        ctx.subs = self.ing_subs
        for _ in range(r.randint(4, 10)):
            self.S(ctx, ingress, 2)
        # egress: its own actions (an action belongs to one control)
        self.actions = []
        egr_decls = []
        for i in range(r.randint(0, 2)):
            egr_decls += self.action(f"b{i}")
        egress = []
        ctx = Ctx(scopes=[self.hdr_vars(), []], kind="egress")
        ctx.fname = "zz"
        for _ in range(r.randint(1, 5)):
            self.S(ctx, egress, 2)
        opt_init = ", ".join(self.lit(t) for _, t in self.el_fields)
        return TEMPLATE.format(top="\n".join(top), opt_init=opt_init, funcs="\n".join(funcs), ing_decls="\n".join(ing_decls),
                               ingress="\n".join(ingress), egr_decls="\n".join(egr_decls),
                               egress="\n".join(egress))

    def frames(self):
        r = self.r
        size = sum(t[1] for _, t in self.in_fields + self.out_fields) // 8 + \
            (STACK + 1) * sum(t[1] for _, t in self.el_fields) // 8
        out = []
        for _ in range(r.randint(4, 8)):
            dst, src = bytes(r.getrandbits(8) for _ in range(6)), bytes(r.getrandbits(8) for _ in range(6))
            body = bytes(r.choice([0, 0xff, r.getrandbits(8), r.getrandbits(8)]) for _ in range(size))
            payload = bytes(r.getrandbits(8) for _ in range(r.randint(0, 6)))
            out.append((r.choice([1, 2, 3]), dst + src + struct.pack("!H", ETYPE) + body + payload))
        return out


TEMPLATE = """\
#include <core.p4>
#include <v1model.p4>

header eth_t {{ bit<48> dst; bit<48> src; bit<16> etype; }}
{top}

{funcs}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {{
            0x1234: parse_in;
            default: accept;
        }}
    }}
    state parse_in {{
        pkt.extract(hdr.inh);
        pkt.extract(hdr.outh);
        pkt.extract(hdr.stk[0]);
        pkt.extract(hdr.stk[1]);
        pkt.extract(hdr.stk[2]);
        transition select(hdr.eth.src[0:0]) {{
            1: parse_opt;
            default: accept;
        }}
    }}
    state parse_opt {{
        pkt.extract(hdr.opt);
        transition accept;
    }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ing_decls}
    apply {{
        sm.egress_spec = 1;
        if (!hdr.opt.isValid()) {{   // BMv2 leaves a never-extracted header's fields stale: give them values
            hdr.opt.setValid();
            hdr.opt = {{{opt_init}}};
            hdr.opt.setInvalid();
        }}
{ingress}
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{egr_decls}
    apply {{
{egress}
    }}
}}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{
    apply {{
        pkt.emit(hdr.eth);
        pkt.emit(hdr.inh);
        pkt.emit(hdr.outh);
        pkt.emit(hdr.stk);
        pkt.emit(hdr.opt);
    }}
}}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def make_case(seed: int) -> Case:
    """The random program + frames of ``seed`` (the same seed always gives the same case; from
    ``fuzz_gen_exprs2.FIRST_SEED`` on with that module's constructs, and p4c's spelling of them
    as the case's ``ref_source``)."""
    from fuzz_gen_exprs2 import FIRST_SEED, Gen2
    if seed < FIRST_SEED:
        g = Gen(seed)
        src = g.program()
        return Case(name=f"fuzzx_{seed}", category="fuzzx", source=src, frames=g.frames(), json_path=True)
    g = Gen2(seed)
    text = g.program()
    src, ref = g.resolve(text, False), g.resolve(text, True)
    return Case(name=f"fuzzx_{seed}", category="fuzzx", source=src, frames=g.frames(), json_path=True,
                ref_source=ref if ref != src else None)


def make_template(seed: int):
    """``(text, resolve)`` for a seed from ``fuzz_gen_exprs2.FIRST_SEED`` on: the program text with
    its placeholders and ``resolve(text, ref)`` spelling it as :func:`make_case` does (``ref``: p4c's
    spelling, the case's ``ref_source``), for ``fuzz_reduce`` to shrink both at once; None below."""
    from fuzz_gen_exprs2 import FIRST_SEED, Gen2
    if seed < FIRST_SEED:
        return None
    g = Gen2(seed)
    text = g.program()
    return text, g.resolve
