"""Building blocks of ``fuzz_parsers``: seeded random v1model PARSER / DEPARSER programs and the frames that walk them.

One seed gives one :class:`~diff_harness.Case`: random header types (fields of odd widths,
``bit<1>`` .. ``bit<64>`` and ``int<N>``, whole bytes in all), a random parse graph -- a DAG
of states plus loops over header stacks and meta-counter loops -- whose states extract
(plain headers, ``stack.next``, ``stack[k]``, union members, ``varbit`` with a run-time
length), advance (constant and run-time), look ahead (``bit<N>`` and a header), assign
parser locals and meta fields, ``verify`` with user error codes and apply sub-parsers; the
transitions select on fields, slices, concatenations, locals and lookaheads with values,
masks, ranges, ``_``, empty value sets, ``default`` or none (BMv2: no match ends in accept).
Ingress writes the parser error, every validity bit and the meta fields into an output
header (and may pick the egress port from them); the deparser emits in a random order.

Frames come FROM the graph: :class:`Walk` is a small model of the parser over a frame whose
bits are still free; at a ``select`` it picks a case and writes the key bits that are still
free so the case matches, so the frame takes the path (bits read earlier stay as read).
The model only steers -- BMv2 decides what the right output is -- so it may be approximate.
Truncations, random select values and extra payload are mixed in.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field


ERRORS = ["NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort",
          "ParserTimeout", "ParserInvalidArgument"]
USER_ERRORS = ["FzBad0", "FzBad1"]
META = [("m8a", 8), ("m8b", 8), ("m16", 16), ("m32", 32), ("lc", 8)]   # lc: the counter loop's
WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 9, 11, 12, 13, 16, 16, 17, 24, 31, 32, 33, 48, 63, 64]


class Stop(Exception):
    """The modelled parse ended (an error or the step cap)."""


# ----------------------------------------------------------------------------- types
@dataclass
class HType:
    name: str
    fields: list                      # [(name, width, signed)]

    @property
    def bits(self) -> int:
        return sum(w for _, w, _ in self.fields)

    def offset(self, fname: str) -> tuple[int, int, bool]:
        off = 0
        for n, w, s in self.fields:
            if n == fname:
                return off, w, s
            off += w
        raise KeyError(fname)

    def decl(self) -> str:
        fs = " ".join(f"{'int' if s else 'bit'}<{w}> {n};" for n, w, s in self.fields)
        return f"header {self.name} {{ {fs} }}"


@dataclass
class VType:                          # header with a bit<8> prefix and a varbit tail
    name: str
    maxbits: int

    def decl(self) -> str:
        return f"header {self.name} {{ bit<8> len; varbit<{self.maxbits}> data; }}"


def rand_htype(rng: random.Random, name: str) -> HType:
    fields, total = [], 0
    for i in range(rng.randint(1, 5)):
        w = rng.choice(WIDTHS)
        if total + w > 120:
            break
        fields.append((f"f{i}", w, w >= 2 and rng.random() < 0.2))
        total += w
    if total % 8:
        fields.append((f"f{len(fields)}", 8 - total % 8, False))
    return HType(name, fields)


# ----------------------------------------------------------------------------- instances
@dataclass
class Inst:
    kind: str                         # fixed | stack | union | ustack (a stack of unions) | varbit
    name: str
    htype: object = None              # HType / VType; union: None
    size: int = 0                     # stack, ustack
    members: list = field(default_factory=list)   # union: [(mname, HType)]

    def valid_exprs(self) -> list[str]:
        p = f"hdr.{self.name}"
        if self.kind == "stack":
            return [f"{p}[{i}].isValid()" for i in range(self.size)]
        if self.kind == "ustack":
            return [f"{p}[{i}].{m}.isValid()" for i in range(self.size) for m, _ in self.members]
        if self.kind == "union":
            return [f"{p}.isValid()"] + [f"{p}.{m}.isValid()" for m, _ in self.members]
        return [f"{p}.isValid()"]


# ----------------------------------------------------------------------------- expressions
class Expr:
    width = 8
    signed = False

    def p4(self) -> str:
        raise NotImplementedError

    def src(self, w: "Walk") -> list:
        """The bit sources, most significant first: a frame bit position or ('c', bit)."""
        raise NotImplementedError


@dataclass
class Field(Expr):
    ref: tuple                        # ("fixed", name) ("last", stack) ("idx", stack, k) ("member", u, m) ("local", l)
    htype: HType
    fname: str

    def __post_init__(self):
        _, self.width, self.signed = self.htype.offset(self.fname)

    def p4(self):
        r = self.ref
        base = {"fixed": lambda: f"hdr.{r[1]}", "last": lambda: f"hdr.{r[1]}.last",
                "idx": lambda: f"hdr.{r[1]}[{r[2] if len(r) > 2 else 0}]", "member": lambda: f"hdr.{r[1]}.{r[2]}",
                "local": lambda: r[1]}[r[0]]()
        return f"{base}.{self.fname}"

    def src(self, w):
        base = w.base_of(self.ref)
        if base is None:
            return [("c", 0)] * self.width
        off, width, _ = self.htype.offset(self.fname)
        return list(range(base + off, base + off + width))


@dataclass
class Slice(Expr):
    e: Expr
    hi: int
    lo: int

    def __post_init__(self):
        self.width, self.signed = self.hi - self.lo + 1, False

    def p4(self):
        return f"{self.e.p4()}[{self.hi}:{self.lo}]"

    def src(self, w):
        s = self.e.src(w)
        n = len(s)
        return s[n - 1 - self.hi: n - self.lo]


@dataclass
class Concat(Expr):
    a: Expr
    b: Expr

    def __post_init__(self):
        self.width, self.signed = self.a.width + self.b.width, False

    def p4(self):
        return f"({self.a.p4()} ++ {self.b.p4()})"

    def src(self, w):
        return self.a.src(w) + self.b.src(w)


@dataclass
class Look(Expr):
    n: int

    def __post_init__(self):
        self.width, self.signed = self.n, False

    def p4(self):
        return f"pkt.lookahead<bit<{self.n}>>()"

    def src(self, w):
        return list(range(w.cursor, w.cursor + self.n))


@dataclass
class Var(Expr):                      # a parser local (bit<N>) or a meta field
    name: str
    width: int
    meta: bool = False

    def __post_init__(self):
        self.signed = False

    def p4(self):
        return f"meta.{self.name}" if self.meta else self.name

    def src(self, w):
        if self.meta:
            v = w.meta[self.name]
            return [("c", (v >> (self.width - 1 - i)) & 1) for i in range(self.width)]
        return w.locals.get(self.name, [("c", 0)] * self.width)


def const(width: int, signed: bool, v: int) -> str:
    """``v`` (an unsigned bit pattern) as a typed literal of the key's type."""
    v &= (1 << width) - 1
    if not signed:
        return f"{width}w{v:#x}"
    if v >> (width - 1):
        return f"-{width}s{(1 << width) - v}"
    return f"{width}s{v}"


def to_signed(v: int, width: int) -> int:
    return v - (1 << width) if v >> (width - 1) else v


# ----------------------------------------------------------------------------- keysets
@dataclass
class KS:
    kind: str                         # value | mask | range | any | vset
    a: int = 0
    b: int = 0
    vset: str = ""

    def p4(self, e: Expr) -> str:
        if self.kind == "value":
            return const(e.width, e.signed, self.a)
        if self.kind == "mask":
            return f"{const(e.width, e.signed, self.a)} &&& {const(e.width, e.signed, self.b)}"
        if self.kind == "range":
            return f"{const(e.width, e.signed, self.a)} .. {const(e.width, e.signed, self.b)}"
        if self.kind == "vset":
            return self.vset
        return "_"

    def matches(self, v: int, e: Expr) -> bool:
        if self.kind == "any":
            return True
        if self.kind == "vset":
            return False              # value sets stay empty (BMv2 cannot program them over P4Runtime)
        if self.kind == "value":
            return v == self.a
        if self.kind == "mask":
            return (v & self.b) == (self.a & self.b)
        lo, hi, x = self.a, self.b, v
        if e.signed:
            lo, hi, x = to_signed(lo, e.width), to_signed(hi, e.width), to_signed(v, e.width)
        return lo <= x <= hi

    def pick(self, rng, e: Expr) -> tuple[int, int]:
        """(value, mask) that makes a key of ``e``'s type match."""
        full = (1 << e.width) - 1
        if self.kind == "value":
            return self.a, full
        if self.kind == "mask":
            return self.a, self.b
        if self.kind == "range":
            lo, hi = self.a, self.b
            if e.signed:
                lo, hi = to_signed(lo, e.width), to_signed(hi, e.width)
            return rng.randint(lo, hi) & full if lo <= hi else 0, full
        return 0, 0


def rand_val(rng, width: int, signed: bool) -> int:
    """A constant for an expression of that type; never negative (p4c writes a negative select
    or verify constant as a "-0x.." hex string that simple_switch 1.15.5 dies on)."""
    full = (1 << (width - 1 if signed else width)) - 1
    return rng.randint(0, full) if rng.random() < 0.7 else rng.choice([0, full, 1 & full])


def rand_keyset(rng, e: Expr, in_tuple: bool, vsets: list) -> KS:
    w = e.width
    full = (1 << (w - 1 if e.signed else w)) - 1
    r = rng.random()
    if in_tuple and r < 0.15:
        return KS("any")
    if not in_tuple and not e.signed and r < 0.06:
        name = f"vs{len(vsets)}"
        vsets.append((name, f"bit<{w}>"))
        return KS("vset", vset=name)
    if r < 0.6:
        return KS("value", rand_val(rng, w, e.signed))
    if r < 0.8 or e.signed:   # p4c 1.2.4.8 refuses a range on a signed key (an implicit int -> bit cast)
        m = rng.randint(0, full)
        return KS("mask", rng.randint(0, full) & (m if rng.random() < 0.8 else full), m)
    a, b = rng.randint(0, full), rng.randint(0, full)
    return KS("range", min(a, b), max(a, b))


# ----------------------------------------------------------------------------- the parse model
class Walk:
    """The parser run over a frame under construction: free bits are set by ``force`` (to steer a
    select) or at random when first read; positions are bit offsets in the frame."""

    def __init__(self, rng: random.Random, steer: float):
        self.rng, self.steer = rng, steer
        self.bits: dict[int, int] = {}
        self.cursor = 0
        self.end = 0
        self.bases: dict = {}
        self.nxt: dict[str, int] = {}
        self.locals: dict[str, list] = {}
        self.meta = {n: 0 for n, _ in META}
        self.steps = 0

    def base_of(self, ref):
        if ref[0] == "last":
            n = self.nxt.get(ref[1], 0)
            return self.bases.get(("idx", ref[1], n - 1)) if n else None
        if ref[0] == "idx" and len(ref) == 2:
            ref = ("idx", ref[1], 0)
        return self.bases.get(ref)

    def _touch(self, p):
        self.end = max(self.end, p + 1)

    def read(self, src: list) -> int:
        v = 0
        for s in src:
            if isinstance(s, tuple):
                b = s[1]
            else:
                self._touch(s)
                b = self.bits.setdefault(s, self.rng.randint(0, 1))
            v = (v << 1) | b
        return v

    def force(self, src: list, value: int, mask: int) -> None:
        n = len(src)
        for i, s in enumerate(src):
            bit = n - 1 - i
            if not isinstance(s, tuple) and (mask >> bit) & 1 and s not in self.bits:
                self._touch(s)
                self.bits[s] = (value >> bit) & 1

    def take(self, nbits: int) -> int:
        start = self.cursor
        self.cursor += nbits
        self._touch(self.cursor - 1) if nbits else None
        return start

    def frame(self, extra: bytes) -> bytes:
        nbits = max(self.end, self.cursor)
        out = bytearray((nbits + 7) // 8)
        for p in range(len(out) * 8):
            b = self.bits.get(p)
            if b is None:
                b = self.rng.randint(0, 1)
            if b:
                out[p // 8] |= 0x80 >> (p % 8)
        return bytes(out) + extra


@dataclass
class Op:
    text: str
    run: object                       # callable(walk)


def op_extract(ref: tuple, target: str, ht: HType) -> Op:
    def run(w: Walk):
        r = ref
        if r[0] == "next":
            n = w.nxt.get(r[1], 0)
            if n >= r[2]:
                raise Stop("StackOutOfBounds")
            w.nxt[r[1]] = n + 1
            r = ("idx", r[1], n)
        w.bases[r] = w.take(ht.bits)
    return Op(f"pkt.extract({target});", run)


def length_expr(rng, e: Expr, scale8: bool) -> tuple[str, object]:
    """A run-time bit count from ``e`` (an unsigned expression of <= 8 bits): (p4, value fn)."""
    if scale8:
        form = rng.choice(["mul", "shl"])
        text = f"(bit<32>){e.p4()} * 8" if form == "mul" else f"((bit<32>){e.p4()} << 3)"
        return text, lambda v: v * 8
    return f"(bit<32>){e.p4()}", lambda v: v


def op_varbit(rng, name: str, vt: VType, e: Expr, scale8: bool, self_len: bool) -> Op:
    text, fn = length_expr(rng, e, scale8)

    def run(w: Walk):
        src = e.src(w)
        want = rng.randint(0, vt.maxbits // 8 + (1 if rng.random() < 0.2 else 0))
        w.force(src, want if scale8 else want * 8, (1 << len(src)) - 1)
        nb = fn(w.read(src))
        if nb % 8:
            raise Stop("ParserInvalidArgument")
        if nb > vt.maxbits:
            raise Stop("HeaderTooShort")
        w.bases[("fixed", name)] = w.take(8 + nb)
    return Op(f"pkt.extract(hdr.{name}, {text});", run)


def op_advance_const(nbits: int) -> Op:
    return Op(f"pkt.advance({nbits});", lambda w: w.take(nbits))


def op_advance_rt(rng, e: Expr) -> Op:
    text, fn = length_expr(rng, e, True)

    def run(w: Walk):
        src = e.src(w)
        w.force(src, rng.randint(0, 4), (1 << len(src)) - 1)
        w.take(fn(w.read(src)))
    return Op(f"pkt.advance({text});", run)


def op_look_local(lname: str, ht: HType) -> Op:
    def run(w: Walk):
        w.bases[("local", lname)] = w.cursor
    return Op(f"{ht.name} {lname} = pkt.lookahead<{ht.name}>();", run)


def op_local(lname: str, e: Expr) -> Op:
    def run(w: Walk):
        w.locals[lname] = e.src(w)
    return Op(f"bit<{e.width}> {lname} = {e.p4()};", run)


def cast_to(e: Expr, width: int) -> str:
    inner = f"(bit<{e.width}>){e.p4()}" if e.signed else e.p4()
    return inner if e.width == width and not e.signed else f"(bit<{width}>){inner}"


def op_meta(m: str, mw: int, e: Expr | None, add: int = 0, last_index: str = "") -> Op:
    """meta.m = e (cast) | meta.m + add | stack.lastIndex."""
    mask = (1 << mw) - 1
    if last_index:
        def run(w):
            w.meta[m] = (w.nxt.get(last_index, 0) - 1) & mask
        return Op(f"meta.{m} = (bit<{mw}>)hdr.{last_index}.lastIndex;", run)
    if e is None:
        def run(w):
            w.meta[m] = (w.meta[m] + add) & mask
        return Op(f"meta.{m} = meta.{m} + {add};", run)

    def run(w):
        w.meta[m] = w.read(e.src(w)) & mask
    return Op(f"meta.{m} = {cast_to(e, mw)};", run)


def op_verify(rng, e: Expr, eq: bool, c: int, err: str) -> Op:
    def run(w: Walk):
        src = e.src(w)
        full = (1 << len(src)) - 1
        ok = rng.random() < 0.75
        w.force(src, c if ok == eq else (c ^ (1 << rng.randrange(len(src)))), full)
        v = w.read(src)
        if (v == c) != eq:
            raise Stop(err)
    return Op(f"verify({e.p4()} {'==' if eq else '!='} {const(e.width, e.signed, c)}, error.{err});", run)


@dataclass
class Sub:
    """A sub-parser: extracts its out header, counts in an inout bit<8>, may verify / reject
    (through a state that counts, or straight from a select arm)."""
    name: str
    ht: HType
    mode: str                         # plain | verify | reject
    c: int = 0

    def decl(self) -> str:
        f, w, s = self.ht.fields[0]
        body = "p.extract(x); c = c + 1; "
        if self.mode == "verify":
            body += f"verify(x.{f} != {const(w, s, self.c)}, error.FzBad1); transition accept;"
        elif self.mode == "reject":
            body += f"transition select(x.{f}) {{ {const(w, s, self.c)}: bad; default: accept; }}"
        elif self.mode == "reject_arm":
            body += f"transition select(x.{f}) {{ {const(w, s, self.c)}: reject; default: accept; }}"
        else:
            body += "transition accept;"
        bad = "\n    state bad { c = c + 0x10; transition reject; }" if self.mode == "reject" else ""
        return (f"parser {self.name}(packet_in p, out {self.ht.name} x, inout bit<8> c) {{\n"
                f"    state start {{ {body} }}{bad}\n}}")


def op_sub(rng, sub: Sub, target: str, ref: tuple, m: str) -> Op:
    def run(w: Walk):
        base = w.take(sub.ht.bits)
        w.meta[m] = (w.meta[m] + 1) & 0xff
        if sub.mode != "plain":
            off, fw, _ = sub.ht.offset(sub.ht.fields[0][0])
            src = list(range(base + off, base + off + fw))
            if rng.random() < 0.25:
                w.force(src, sub.c, (1 << fw) - 1)
            if w.read(src) == sub.c:
                raise Stop("sub")
        w.bases[ref] = base
    return Op(f"{sub.name.lower()}.apply(pkt, {target}, meta.{m});", run)


@dataclass
class State:
    name: str
    ops: list = field(default_factory=list)
    keys: list = field(default_factory=list)         # [Expr]; none: direct transition
    cases: list = field(default_factory=list)        # [([KS], target)]
    default: str | None = None                       # target of default, or None (no default)
    nxt: str = "accept"                              # direct transition
    bool_key: bool = False

    def p4(self) -> str:
        body = " ".join(o.text for o in self.ops)
        if not self.keys:
            tr = f"transition {self.nxt};"
        elif self.bool_key:
            k = self.keys[0]
            tr = (f"transition select({k.p4()} == {const(k.width, k.signed, self.cases[0][0][0].a)}) "
                  f"{{ true: {self.cases[0][1]}; false: {self.default}; }}")
        else:
            arms = []
            for kss, tgt in self.cases:
                ks = [k.p4(e) for k, e in zip(kss, self.keys)]
                arms.append(f"{ks[0] if len(ks) == 1 else '(' + ', '.join(ks) + ')'}: {tgt};")
            if self.default is not None:
                arms.append(f"default: {self.default};")
            tr = f"transition select({', '.join(k.p4() for k in self.keys)}) {{ {' '.join(arms)} }}"
        return f"    state {self.name} {{ {body} {tr} }}"

    def step(self, w: Walk) -> str:
        for o in self.ops:
            o.run(w)
        if not self.keys:
            return self.nxt
        srcs = [k.src(w) for k in self.keys]
        if self.cases and w.rng.random() < w.steer:
            kss, _ = w.rng.choice(self.cases)
            for ks, k, s in zip(kss, self.keys, srcs):
                v, m = ks.pick(w.rng, k)
                w.force(s, v, m)
        vals = [w.read(s) for s in srcs]
        for kss, tgt in self.cases:
            if all(ks.matches(v, k) for ks, k, v in zip(kss, self.keys, vals)):
                return tgt
        return self.default or "accept"


