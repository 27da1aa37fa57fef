"""Disagreements found by helper fuzz16 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

A header assigned a struct expression that reads the header itself (``hdr.h2 = {a = hdr.h2.a,
...}``) is built by p4c in a temporary it never makes valid, so BMv2 leaves the header invalid
with its fields unchanged; one that does not read it makes it valid.  Whether an element reads
the header is decided after p4c's constant folding and strength reduction, and an element that
is a ``?:`` as a whole is evaluated into a temporary beforehand (no read).  checkmate-p4c had
three parts of that wrong:

* the reductions on ``int<W>`` (``x ^ x``, ``x - x``, ``x & 0``, ``x * 0`` are 0, ``x + 0`` is
  ``x``) -- it reduced ``bit<W>`` only (fuzz_exprs seed 3002: ``e2 = ... |+| (hdr.opt.e2 ^
  hdr.opt.e2)`` on an ``int<16>``; BMv2 emitted the header, checkmate-switch did not);
* ``c ? x : x`` is ``x``, a read (fuzz_exprs seed 2881, also after folding ``true ? x : y``
  or ``x + 0`` in an arm) -- but not where the expression calls ``isValid()`` (fuzz_exprs seed
  1025, which broke the first fix of 2881): the strength reduction takes every method call for
  a side effect, and so keeps ``(h.isValid() ? x : y) & 0`` as it is too;
* an element ``true ? x : y`` is ``x`` (constant folding comes first), a read, not a hoisted ``?:``.

Saturating operators are not reduced (``x |-| x``, ``(c ? x : 1) |+| 0``).  The header's
fields are read only when h2 was parsed or given known values (an arm that is evaluated
beforehand reads them when h2 was never valid: BMv2's stale PHV, repeat_cases.py 2 of 6 runs)."""
from .base import H, H2, case, parse_h_state, program, start_state

CAT = "front end (p4c-compatible)"

_FR = [(1, H2(5, 6, d=d)) for d in range(16)] + [(1, H(1, d=d)) for d in range(16)]

CASES = [
    case("fuzz16_header_initializer_strength_reduction", CAT, program("""
        if (!hdr.h2.isValid()) { hdr.h2.setValid(); hdr.h2 = {0x44, 0x55, 0x66, 0x77}; hdr.h2.setInvalid(); }
        if (hdr.h.d == 0) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a ^ (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 1) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a - (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 2) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a * 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 3) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a & 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 4) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a |-| (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 5) { hdr.h2 = {a = 1, b = (bit<8>)((hdr.h.b > 2 ? (int<8>)hdr.h2.a : 8s1) + 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 6) { hdr.h2 = {a = 1, b = hdr.h2.a |-| hdr.h2.a, c = 2, d = 3}; }
        else if (hdr.h.d == 7) { hdr.h2 = {a = 1, b = (hdr.h.b > 2 ? hdr.h2.a : 8w1) |+| 0, c = 2, d = 3}; }
        else if (hdr.h.d == 8) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 9) { hdr.h2 = {hdr.h2.isValid() ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 10) { hdr.h2 = {hdr.h.isValid() ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 11) { hdr.h2 = {a = 1, b = ((hdr.h.isValid() ? hdr.h2.a : 8w1) & 0), c = 2, d = 3}; }
        else if (hdr.h.d == 12) { hdr.h2 = {true ? hdr.h2.a : 8w1, 1, 2, 3}; }
        else if (hdr.h.d == 13) { hdr.h2 = {hdr.h.b > 2 ? (true ? hdr.h2.a : 8w1) : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 14) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a + 0 : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 15) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a : hdr.h2.a, (bit<8>)((int<8>)hdr.h.a ^ (int<8>)hdr.h.a), 2, 3}; }
        hdr.h.b = hdr.h2.isValid() ? 8w1 : 8w0;
        if (hdr.h.a == 0xee) { hdr.h.c = hdr.h2.a ++ hdr.h2.b; }
"""), frames=_FR),
]


# A call's copy-out that a later copy-out of the same call overwrites whole is dropped by p4c's
# def-use pass -- not only the same path twice (fuzz_exprs seed 2878, fuzz15) but a field, a
# slice or a header inside a later header or struct argument: `g2(hdr.h2.a, hdr.h2)` copies
# back `hdr.h2.a = p0; hdr.h2 = p1;`, the first is dropped, and with p1 invalid BMv2 keeps
# h2.a as it was (checkmate-switch stored 9).  For functions (statement and expression),
# actions and sub-controls; a later field inside an earlier header is no overwrite (d == 3).
_G = """
bit<8> g2(out bit<8> p0, inout h_t p1) { p0 = 9; p1.setInvalid(); return 0; }
bit<8> g3(out h_t p0, inout headers_t p1) { p0 = {8, 9, 10, 11}; p1.h2.setInvalid(); return 0; }
bit<8> g4(out bit<4> p0, inout h_t p1) { p0 = 7; p1.setInvalid(); return 0; }
bit<8> g6(inout h_t p1, out bit<8> p0) { p0 = 9; p1.setInvalid(); return 0; }
control C2(out bit<8> p0, inout h_t p1) { apply { p0 = 9; p1.setInvalid(); } }
"""
_ACT2 = """
    C2() c2;
    action a2(out bit<8> p0, inout h_t p1) { p0 = 9; p1.setInvalid(); }"""

CASES.append(case("fuzz16_copy_out_into_a_later_whole", CAT, program("""
        if (hdr.h.d == 0) { g2(hdr.h2.a, hdr.h2); }
        else if (hdr.h.d == 1) { g3(hdr.h2, hdr); }
        else if (hdr.h.d == 2) { g4(hdr.h2.a[3:0], hdr.h2); }
        else if (hdr.h.d == 3) { g6(hdr.h2, hdr.h2.a); }
        else if (hdr.h.d == 4) { a2(hdr.h2.a, hdr.h2); }
        else if (hdr.h.d == 5) { c2.apply(hdr.h2.a, hdr.h2); }
        else if (hdr.h.d == 6) { hdr.h.b = g2(hdr.h2.a, hdr.h2) + 1; }
        else if (hdr.h.d == 7) { g3(hdr.h2, hdr); }
        hdr.h.b = hdr.h.b + (hdr.h2.isValid() ? 8w1 : 8w0);
        if (hdr.h.a == 0xee) { hdr.h.c = hdr.h2.a ++ hdr.h2.b; }
""", top=_G, ingress_decls=_ACT2), frames=[(1, H2(5, 6, d=d)) for d in range(8)] + [(1, H(1, d=d)) for d in range(8)]))

# A sub-parser whose arguments overlap (`sp.apply(pkt, hdr.h2.a, hdr.h2)`, `(pkt, hdr.h2,
# hdr.h2)`, `(pkt, hdr.h2, hdr)`): p4c's inliner passes those arguments through temporaries
# even when every call has the same arguments (checkmate-p4c substituted them in place), copies
# them back in parameter order after the sub-parser accepts, and its def-use pass drops a copy
# a later one overwrites, as above.  Arguments that overlap nothing stay in place (s4: `hdr.h.d`
# written although the sub-parser rejects; h2 untouched).
_SUBP = """
parser SP0(packet_in pkt, out bit<8> p0, inout h_t p1) { state start { p0 = 9; p1.setInvalid(); transition accept; } }
parser SP1(packet_in pkt, out h_t p0, inout h_t p1) { state start { p0 = {8, 9, 10, 11}; p1.setInvalid(); transition accept; } }
parser SP2(packet_in pkt, out h_t p0, inout headers_t p1) { state start { p0 = {8, 9, 10, 11}; p1.h2.setInvalid(); transition accept; } }
parser SP3(packet_in pkt, out bit<4> p0, inout h_t p1) { state start { p0 = 7; p1.setInvalid(); transition accept; } }
parser SP5(packet_in pkt, out bit<8> p0, inout h_t p1, out bit<32> p2) {
    state start { p0 = 9; p2 = 4; p1.setInvalid(); transition reject; } }
parser SP6(packet_in pkt, inout h_t p1, out bit<8> p0) { state start { p0 = 9; p1.b = 7; transition accept; } }
"""
_PARSER = "\n    SP0() sp0; SP1() sp1; SP2() sp2; SP3() sp3; SP5() sp5; SP6() sp6;\n" + start_state() + "\n" \
    + parse_h_state() + """
    state parse_h2 {
        pkt.extract(hdr.h2);
        transition select(hdr.h.d) { 0: s0; 1: s1; 2: s2; 3: s3; 4: s4; 5: s5; default: accept; }
    }
    state s0 { sp0.apply(pkt, hdr.h2.a, hdr.h2); transition accept; }
    state s1 { sp1.apply(pkt, hdr.h2, hdr.h2); transition accept; }
    state s2 { sp2.apply(pkt, hdr.h2, hdr); transition accept; }
    state s3 { sp3.apply(pkt, hdr.h2.a[3:0], hdr.h2); transition accept; }
    state s4 { sp5.apply(pkt, hdr.h2.a, hdr.h2, hdr.h.d); transition accept; }
    state s5 { sp6.apply(pkt, hdr.h2, hdr.h2.a); transition accept; }"""

CASES.append(case("fuzz16_subparser_aliased_arguments", CAT, program("""
        hdr.h.b = hdr.h2.isValid() ? 8w1 : 8w0;
        if (hdr.h.a == 0xee) { hdr.h.c = hdr.h2.a ++ hdr.h2.b; }
""", top=_SUBP, parser=_PARSER), frames=[(1, H2(5, 6, d=d)) for d in range(7)]))


# The same strength reduction decides which branches are dead code for p4c (their tables and
# actions stay out of the P4Info): `(int<8>)x ^ (int<8>)x` and `(int<8>)x * 8s0` are 0 as on
# bit<W> (checkmate-p4c kept t1 and t2), while `(h.isValid() ? x : 1) & 0` is not reduced -- the
# isValid() call counts as a side effect (checkmate-p4c removed t3).  Found by probing the
# reduction behind fuzz_exprs seeds 3002 and 1025.  A slice of such a 0 is constant too
# (fuzz_exprs seed 3144: `((o3 - o3))[7:4] != 0` on an int<32>, its action stayed in the P4Info).
_T = """
    action a1() { hdr.h.b = 1; }
    action a2() { hdr.h.b = 2; }
    action a3() { hdr.h.b = 3; }
    table t1 { key = { hdr.h.a : exact; } actions = { a1; NoAction; } }
    table t2 { key = { hdr.h.a : exact; } actions = { a2; NoAction; } }
    table t3 { key = { hdr.h.a : exact; } actions = { a3; NoAction; } }
    table t4 { key = { hdr.h.a : exact; } actions = { a1; NoAction; } }
    table t5 { key = { hdr.h.a : exact; } actions = { a2; NoAction; } }"""
CASES.append(case("fuzz16_dead_branch_strength_reduction", CAT, program("""
        if (((int<8>)hdr.h.a ^ (int<8>)hdr.h.a) != 0) { t1.apply(); }
        if (((int<8>)hdr.h.a * 8s0) != 0) { t2.apply(); }
        if (((hdr.h.isValid() ? hdr.h.a : 8w1) & 0) != 0) { t3.apply(); }
        if ((((int<32>)hdr.h.d - (int<32>)hdr.h.d))[7:4] != 0) { t4.apply(); }
        if ((hdr.h.c - hdr.h.c)[3:0] == 1) { t5.apply(); }
        hdr.h.c = 0x1234;
""", ingress_decls=_T)))

# An initializer element that p4c's strength reduction turns into a `?:` (under unary operators)
# is hoisted like one (no read of the header): `0 - (c ? x : y)` is `-(c ? x : y)`, `e & e` and
# `e | e` are `e`; checkmate-p4c counted them as reads and left h2 invalid.  Not reduced:
# `0 |-| e` and `e * 2` (a shift).  Probes beside fuzz_exprs seed 2881.
_C = "hdr.h.b > 2 ? hdr.h2.a : 8w1"
CASES.append(case("fuzz16_header_initializer_hoisted_after_reduction", CAT, program(f"""
        if (!hdr.h2.isValid()) {{ hdr.h2.setValid(); hdr.h2 = {{0x44, 0x55, 0x66, 0x77}}; hdr.h2.setInvalid(); }}
        if (hdr.h.d == 0) {{ hdr.h2 = {{a = 1, b = 0 - ({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 1) {{ hdr.h2 = {{a = 1, b = ({_C}) & ({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 2) {{ hdr.h2 = {{a = 1, b = ({_C}) | ({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 3) {{ hdr.h2 = {{a = 1, b = ~~({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 4) {{ hdr.h2 = {{a = 1, b = ({_C}) % 1, c = 2, d = 3}}; }}
        else if (hdr.h.d == 5) {{ hdr.h2 = {{a = 1, b = 8w0 |-| ({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 6) {{ hdr.h2 = {{a = 1, b = -({_C}), c = 2, d = 3}}; }}
        else if (hdr.h.d == 7) {{ hdr.h2 = {{a = 1, b = ({_C}) * 2, c = 2, d = 3}}; }}
        hdr.h.b = hdr.h2.isValid() ? 8w1 : 8w0;
        if (hdr.h.a == 0xee) {{ hdr.h.c = hdr.h2.a ++ hdr.h2.b; }}
"""), frames=[(1, H2(5, 6, d=d)) for d in range(8)] + [(1, H(1, d=d)) for d in range(8)]))
