"""Disagreements found by helper fuzz15 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

A header passed to two ``out``/``inout`` parameters of one call (``f2(hdr.opt, hdr.opt)``,
fuzz_exprs seed 2878): p4c copies the arguments back one after the other (``hdr.opt = p0;
hdr.opt = p1;``) and its def-use pass drops the first, which the second overwrites unread.  So
when the last parameter is an invalid header, BMv2's assign_header from it only makes the
argument invalid and the fields are those from before the call -- not the first parameter's,
as checkmate-switch had them (a later read of them chose another branch).  The same for a
function called as a statement, in an expression, for an action and a sub-control.  The fields
are read only when h2 was parsed: an h2 that was never valid would show BMv2's stale PHV
(repeat_cases.py: 1 of 4 runs differed)."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

_G = ("bit<8> g(out h_t p0, inout h_t p1) { p0 = {8, 9, 10, 11}; p1.setInvalid(); return 0; }\n"
      "bit<8> k(inout h_t p1, out h_t p0) { p0 = {8, 9, 10, 11}; p1.setInvalid(); return 0; }\n")
_G += "control C1(out h_t p0, inout h_t p1) { apply { p0 = {8, 9, 10, 11}; p1.setInvalid(); } }\n"
_ACT = """
    C1() c1;
    action a1(out h_t p0, inout h_t p1) { p0 = {7, 6, 5, 4}; p1.setInvalid(); }"""

CASES = [
    case("fuzz15_same_header_to_two_out_parameters", CAT, program("""
        if (hdr.h.d == 0) { g(hdr.h2, hdr.h2); }
        else if (hdr.h.d == 1) { k(hdr.h2, hdr.h2); }
        else if (hdr.h.d == 2) { hdr.h.b = g(hdr.h2, hdr.h2) + 1; }
        else if (hdr.h.d == 3) { a1(hdr.h2, hdr.h2); }
        else if (hdr.h.d == 4) { k(hdr.h, hdr.h2); }
        else if (hdr.h.d == 5) { c1.apply(hdr.h2, hdr.h2); }
        hdr.h.b = hdr.h.b + (hdr.h2.isValid() ? 8w1 : 8w0);
        if (hdr.h.a == 0xee) { hdr.h.c = (bit<16>)hdr.h2.a; }  // (h2 parsed: never a never-written field)
""", top=_G, ingress_decls=_ACT), frames=[(1, H2(5, 6, d=d)) for d in range(6)] + [(1, H(1, d=d)) for d in range(6)]),
]

