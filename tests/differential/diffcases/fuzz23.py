"""Disagreements found by helper fuzz23 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program
from .fuzz14 import _UDEPARSER, _UNION, _UPARSER, _UVALID

CAT = "front end (p4c-compatible)"

CASES = []

# p4c's inliner starts a sub-control's `out` argument passed in place with `arg.setInvalid()`, so
# a union-member store before the apply is dead for its def-use pass also when the body writes the
# parameter (fuzz_headers 5783: `y = st[0]` in the body); with the store gone BMv2 keeps the parsed
# sibling `u.w` valid when what the body writes is invalid, or when it exits first.  checkmate kept
# the store (taken to be needed for the body's own sibling invalidation, which the tracked copy of
# the member makes anyway: b == 2) and invalidated `u.w`.
CASES.append(case("fuzz23_union_store_before_control_writing_its_out_parameter", CAT, program("""
        if (hdr.h.b == 0) { hdr.u.x = {1, 2, 3, 4}; sz.apply(hdr.u.x, hdr.h2); }
        else if (hdr.h.b == 1) { hdr.u.x = {1, 2, 3, 4}; se.apply(hdr.u.x, hdr.h.c[7:0]); }
        else { hdr.u.x = {1, 2, 3, 4}; sv.apply(hdr.u.x, hdr.h.c[7:0]); }
""" + _UVALID, headers=_UNION, fields="    u_t u;\n", parser=_UPARSER, deparser=_UDEPARSER,
    top="control SZ(out h_t y, in h_t z) { apply { y = z; } }\n"
        "control SE(out h_t y, in bit<8> c) { apply { if (c == 1) { exit; } y.setValid(); y.a = c; } }\n"
        "control SV(out h_t y, in bit<8> c) { apply { y.setValid(); y.b = c; if (c == 1) { y.setInvalid(); } } }\n",
    ingress_decls="    SZ() sz;\n    SE() se;\n    SV() sv;\n"),
    frames=[(1, H(3, b, c, payload=bytes([1, 0x6c, 0xf3]))) for b in range(3) for c in (0, 1)], json_path=True))


# A tuple local with a constant initializer in a function called twice (or a sub-control applied
# twice) makes p4c 1.2.4.8's def-use pass die only when something names the local: p4c's front end
# removes an unused declaration before it inlines (fuzz_exprs 6918, 6919).  checkmate-p4c refused
# the program (`inlined_lists`; `tp[0]` read: still refused, tests/p4c/test_mutants3.py).
CASES.append(case("fuzz23_unread_constant_tuple_in_function_inlined_twice", CAT, program("""
        hdr.h.c[0:0] = (bit<1>)f(hdr.h.a == 1);
        f(hdr.h.b == 1);
        s1.apply(hdr.h.d);
        s2.apply(hdr.h.d);
""", top="bool f(in bool p) { tuple<bit<6>, bool> tp = {6w0, true}; if (p) { tuple<bit<6>> t2 = {1}; } return !p; }\n"
        "control S(inout bit<32> d) { tuple<bit<8>> tq = {8w7}; apply { d = d + 1; } }\n",
    ingress_decls="    S() s1;\n    S() s2;\n"), frames=[(1, H(a)) for a in (0, 1)]))
