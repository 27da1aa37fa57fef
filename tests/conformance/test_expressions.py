"""Expressions, evaluated in ingress and written into an inserted result header.

Expected values come from an independent model of the P4-16 spec's semantics
(section "Operations on fixed-width bit types (unsigned integers)" / "signed
integers" / "Concatenation" / "Casts" / "Saturating arithmetic"):
bit<W> results are taken modulo 2^W; int<W> is two's complement; |+| and |-|
clamp to the type's range; x << n and x >> n with n >= W give 0 for bit<W>; >> on
int<W> is arithmetic; a[m:l] is bits m..l; a ++ b puts a in the high bits.
"""
import struct

import pytest

from p4conf import Switch, eth, u8

PROG = "exprs.p4"
PAYLOAD = b"--payload--"

RES_FMT = "!BBBBBbbbBBbBBBHBHHBBBBBBBHBBB"
RES_NAMES = ("add8 sub8 mul8 sat_add sat_sub s_add s_sat_add s_sat_sub shl3 shr3 sshr2 "
             "shl_var shr_var slice concat trunc zext sext neg inv band bor bxor cmp mux "
             "wmix ishr lit inv_read").split()
assert struct.calcsize(RES_FMT) == 33 and len(RES_NAMES) == len(RES_FMT) - 1


@pytest.fixture(scope="module")
def sw():
    return Switch(PROG)


def s8(x):
    x &= 0xFF
    return x - 256 if x & 0x80 else x


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def model(a, b, sa, sb, w, sh):
    m8 = 0xFF
    r = {}
    r["add8"] = (a + b) & m8
    r["sub8"] = (a - b) & m8
    r["mul8"] = (a * b) & m8
    r["sat_add"] = clamp(a + b, 0, 255)
    r["sat_sub"] = clamp(a - b, 0, 255)
    r["s_add"] = s8(sa + sb)
    r["s_sat_add"] = clamp(sa + sb, -128, 127)
    r["s_sat_sub"] = clamp(sa - sb, -128, 127)
    r["shl3"] = (a << 3) & m8
    r["shr3"] = a >> 3
    r["sshr2"] = sa >> 2                       # Python >> on ints is arithmetic
    r["shl_var"] = (a << sh) & m8 if sh < 8 else 0
    r["shr_var"] = a >> sh if sh < 8 else 0
    r["slice"] = (w >> 4) & 0xFF
    r["concat"] = (a << 8) | b
    r["trunc"] = w & 0xFF
    r["zext"] = a
    r["sext"] = sa & 0xFFFF
    r["neg"] = (-a) & m8
    r["inv"] = (~a) & m8
    r["band"], r["bor"], r["bxor"] = a & b, a | b, a ^ b
    c = 0
    c |= 0x01 if a < b else 0
    c |= 0x02 if a >= b else 0
    c |= 0x04 if sa < sb else 0
    c |= 0x08 if a == b else 0
    c |= 0x10 if a != b else 0
    c |= 0x20 if sa > sb else 0
    c |= 0x40 if ((a > 10 and b < 20) or not a == b) else 0
    c |= 0x80 if a <= b else 0
    r["cmp"] = c
    r["mux"] = a if a > b else b
    r["wmix"] = (w & 0x0FF0) | 0x000F
    r["ishr"] = (s8(a) >> 1) & m8
    r["lit"] = (250 + 10) & m8
    r["inv_read"] = None                        # unspecified: field of an invalid header
    return r


CASES = [
    # a,   b,   sa,   sb,   w,      sh
    (200, 100, 100, 100, 0xABCD, 2),
    (5, 9, -1, 1, 0x1234, 7),
    (0, 1, -100, 100, 0xFFFF, 8),
    (255, 255, 127, -128, 0x0000, 9),
    (12, 12, -128, -1, 0x8001, 0),
    (0x80, 0x7F, -100, -100, 0x00F0, 1),
    (11, 19, 64, 64, 0xF00F, 3),
]


@pytest.mark.parametrize("a,b,sa,sb,w,sh", CASES)
def test_expressions(sw, a, b, sa, sb, w, sh):
    inp = u8(a, b, sa, sb) + struct.pack("!H", w) + u8(sh)
    f = eth(0x88B7) + inp + PAYLOAD
    port, out = sw.send1(1, f)
    assert port == 1
    assert out[:14 + 7] == f[:14 + 7]            # ethernet + in_t untouched; opt_t invalid
    res = out[21:21 + 33]
    assert out[21 + 33:] == PAYLOAD
    got = dict(zip(RES_NAMES, struct.unpack(RES_FMT, res)))
    exp = model(a, b, sa, sb, w, sh)
    mism = {k: (got[k], exp[k]) for k in RES_NAMES if exp[k] is not None and got[k] != exp[k]}
    assert not mism, f"(got, expected) per field: {mism}"


# Operator precedence.  P4-16 spec "Operator precedence": C's rules except that the
# bitwise & ^ | bind tighter than the relational operators; p4c's grammar
# (frontends/parsers/p4/p4parser.ypp, %left lines) orders them, lowest first:
# ?:  ||  &&  == !=  < > <= >=  |  ^  &  << >>  ++ + - |+| |-|  * / %  prefix.

def prec_model(a, b):
    m8 = 0xFF
    f2 = 0
    f2 |= 0x01 if (a & 0x0F) == (b & 0x0F) else 0
    f2 |= 0x02 if (a | b) < 0x80 else 0
    f2 |= 0x04 if ((a + ((b * 2) & m8)) & m8) > 100 else 0
    f2 |= 0x08 if ((not a == b) and a != 0) or b == 0 else 0
    f2 |= 0x10 if (a ^ b) != 0 else 0
    return [((a + b) << 1) & m8, (a << 2) & m8, a | (b ^ (0x3C & a)), (a - b - 1) & m8,
            (a << 1 | b) & m8, f2]


@pytest.mark.parametrize("a,b", [(0x13, 0x23), (0x7F, 0x00), (0x80, 0x01), (0x05, 0x05),
                                 (0x40, 0x30), (0, 0)])
def test_operator_precedence(a, b):
    sw = Switch("prec.p4")
    f = eth(0x1234) + u8(a, b) + b"\0" * 6 + PAYLOAD
    port, out = sw.send1(1, f)
    assert port == 1 and out[:16] == f[:16] and out[22:] == PAYLOAD
    assert list(out[16:22]) == prec_model(a, b)


def wrap_model(a, b, sa, sb):
    m = 0xFF
    r = [((a + b) & m) >> 1, ((a * b) & m) >> 4, ((a << 4) & m) >> 4, ((~a) & m) >> 4,
         (min(a + b, 255) + 1) & m]
    o6 = (((a + b) & m) >> 4) & 0xF
    s = s8(sa + sb)
    r += [(o6 << 4) | 0, (s >> 1) & m, (-sa) & m, ((a * b) >> 8) & m]
    f = 0
    f |= 0x01 if ((a + b) & m) < a else 0
    f |= 0x02 if s < 0 else 0
    f |= 0x04 if ((a - b) & m) > a else 0
    f |= 0x08 if ((a + b) & m) == a + b else 0
    f |= 0x10 if a + b > 255 else 0
    return r + [f]


@pytest.mark.parametrize("a,b,sa,sb", [(200, 100, 100, 100), (1, 2, -1, -1), (0xFF, 0xFF, -128, -128),
                                       (16, 15, 127, 1), (0, 1, -128, 0)])
def test_intermediate_results_wrap(a, b, sa, sb):
    sw = Switch("wrap.p4")
    f = eth(0x1234) + u8(a, b, sa, sb) + bytes(10) + PAYLOAD
    port, out = sw.send1(1, f)
    assert port == 1 and out[:18] == f[:18] and out[28:] == PAYLOAD
    assert list(out[18:28]) == wrap_model(a, b, sa, sb)


@pytest.mark.parametrize("a", [0, 5])
def test_short_circuit_and_left_to_right_evaluation(a):
    sw = Switch("sideeffects.p4")
    f = eth(0x1234) + u8(a, 0, 0, 0, 0) + PAYLOAD
    if a == 0:
        # && evaluates tick (n=1), || does not; ?: calls next (n=2); pair(3, 4)
        exp = u8(0, 4, 1 | 2, 2, 3 * 16 + 4)
    else:
        # && skips tick; || evaluates it (n=1, false); ?: takes 0xF0; pair(2, 3)
        exp = u8(a, 3, 0, 0xF0, 2 * 16 + 3)
    assert sw.send1(1, f) == (1, eth(0x1234) + exp + PAYLOAD)


@pytest.mark.parametrize("s,u", [(-16, 0x81), (127, 0x00), (-128, 0xFF), (1, 0x80)])
def test_concatenation_signedness_follows_left_operand(s, u):
    sw = Switch("concat_sign.p4")
    f = eth(0x1234) + u8(s, u) + bytes(8) + PAYLOAD
    a = ((s & 0xFF) << 8) | u                    # s ++ u, as int<16>
    b = (u << 8) | (s & 0xFF)                    # u ++ s, as bit<16>
    a_signed = a - 0x10000 if a & 0x8000 else a
    exp = struct.pack("!HHHH", a, b, (a_signed >> 8) & 0xFFFF, b >> 8)
    assert sw.send1(1, f) == (1, eth(0x1234) + u8(s, u) + exp + PAYLOAD)


# ---- differential check: seeded random bit<8> expression trees, fully parenthesized,
# compiled into one program; expected values from the spec's modulo-2^8 semantics.

def _gen(rng, depth):
    """(P4 text, python function of (a, b, c)) for a random bit<8> expression."""
    M = 0xFF
    if depth == 0 or rng.random() < 0.2:
        pick = rng.randrange(4)
        if pick == 3:
            k = rng.randrange(256)
            return f"8w{k}", (lambda a, b, c, k=k: k)
        name = "abc"[pick]
        return f"hdr.x.{name}", (lambda a, b, c, i=pick: (a, b, c)[i])
    kind = rng.randrange(9)
    l_txt, l = _gen(rng, depth - 1)
    if kind == 0:
        r_txt, r = _gen(rng, depth - 1)
        op = rng.choice(["+", "-", "*", "&", "|", "^"])
        fn = {"+": lambda x, y: (x + y) & M, "-": lambda x, y: (x - y) & M,
              "*": lambda x, y: (x * y) & M, "&": lambda x, y: x & y,
              "|": lambda x, y: x | y, "^": lambda x, y: x ^ y}[op]
        return f"({l_txt} {op} {r_txt})", (lambda a, b, c: fn(l(a, b, c), r(a, b, c)))
    if kind == 1:
        r_txt, r = _gen(rng, depth - 1)
        if rng.random() < 0.5:
            return f"({l_txt} |+| {r_txt})", (lambda a, b, c: min(l(a, b, c) + r(a, b, c), M))
        return f"({l_txt} |-| {r_txt})", (lambda a, b, c: max(l(a, b, c) - r(a, b, c), 0))
    if kind == 2:
        k = rng.randrange(10)
        if rng.random() < 0.5:
            return f"({l_txt} << {k})", (lambda a, b, c: (l(a, b, c) << k) & M)
        return f"({l_txt} >> {k})", (lambda a, b, c: l(a, b, c) >> k)
    if kind == 3:
        if rng.random() < 0.5:
            return f"(~{l_txt})", (lambda a, b, c: (~l(a, b, c)) & M)
        return f"(-{l_txt})", (lambda a, b, c: (-l(a, b, c)) & M)
    if kind == 4:
        r_txt, r = _gen(rng, depth - 1)
        p_txt, p = _gen(rng, depth - 1)
        q_txt, q = _gen(rng, depth - 1)
        cmp = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        f = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
             ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}[cmp]
        return (f"(({l_txt} {cmp} {r_txt}) ? {p_txt} : {q_txt})",
                lambda a, b, c: p(a, b, c) if f(l(a, b, c), r(a, b, c)) else q(a, b, c))
    if kind == 5:
        r_txt, r = _gen(rng, depth - 1)
        return (f"({l_txt}[7:4] ++ {r_txt}[3:0])",
                lambda a, b, c: (l(a, b, c) & 0xF0) | (r(a, b, c) & 0x0F))
    if kind == 6:
        r_txt, r = _gen(rng, depth - 1)
        return (f"((bit<8>) (((bit<16>) {l_txt} * (bit<16>) {r_txt}) >> 8))",
                lambda a, b, c: (l(a, b, c) * r(a, b, c)) >> 8)
    if kind == 7:
        return (f"((bit<8>) (((int<8>) {l_txt}) >> 2))",
                lambda a, b, c: ((l(a, b, c) - 256 if l(a, b, c) & 0x80 else l(a, b, c)) >> 2) & M)
    r_txt, r = _gen(rng, depth - 1)
    return (f"((bit<8>) ((bit<16>) {l_txt} + (bit<16>) {r_txt})[8:1])",
            lambda a, b, c: ((l(a, b, c) + r(a, b, c)) >> 1) & M)


N_EXPR = 40


def _random_program(seed=20261130):
    import random as _random

    rng = _random.Random(seed)
    exprs = [_gen(rng, 4) for _ in range(N_EXPR)]
    fields = " ".join(f"bit<8> o{i};" for i in range(N_EXPR))
    body = "\n".join(f"        hdr.y.o{i} = {t};" for i, (t, _) in enumerate(exprs))
    text = f"""#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etherType; }}
header x_t {{ bit<8> a; bit<8> b; bit<8> c; }}
header y_t {{ {fields} }}
struct headers_t {{ ethernet_t eth; x_t x; y_t y; }}
struct meta_t {{ }}
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.eth); pkt.extract(hdr.x); transition accept; }}
}}
control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{
        hdr.y.setValid();
{body}
        sm.egress_spec = 1;
    }}
}}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ }}
}}
control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control MyDeparser(packet_out pkt, in headers_t hdr) {{
    apply {{ pkt.emit(hdr.eth); pkt.emit(hdr.x); pkt.emit(hdr.y); }}
}}
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
"""
    return text, exprs


def test_random_expression_trees(tmp_path):
    import random as _random

    from switch.compiler import compile_file
    from switch.runtime import Pipeline

    text, exprs = _random_program()
    path = tmp_path / "random_exprs.p4"
    path.write_text(text)
    pipe = Pipeline(compile_file(str(path)).device_config)
    rng = _random.Random(7)
    inputs = [(0, 0, 0), (255, 255, 255), (128, 127, 1)] + \
        [tuple(rng.randrange(256) for _ in range(3)) for _ in range(25)]
    bad = []
    for a, b, c in inputs:
        f = eth(0x1234) + u8(a, b, c) + PAYLOAD
        [(port, out)] = [(int(p), bytes(o)) for p, o in pipe.process(1, f)]
        assert port == 1 and out[:17] == f[:17] and out[17 + N_EXPR:] == PAYLOAD
        for i, (t, fn) in enumerate(exprs):
            if out[17 + i] != fn(a, b, c):
                bad.append((i, (a, b, c), out[17 + i], fn(a, b, c), t))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"
