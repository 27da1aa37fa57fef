"""Stores p4c's front end drops across a sub-control apply that may exit (lead, session 40;
fuzz_exprs seed 9595 reduced by helper fuzz25; switch/compiler/exit_blind_stores.py), and the
neighbours where the exit is visible and the store stays -- each decided by p4c 1.2.4.8 / BMv2.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_SC = """control SC(inout bit<8> x) { apply { if (x != 0) { exit; } } }
control SO(inout bit<8> x) { SC() inner; apply { inner.apply(x); } }
control SH(inout headers_t hdr) { apply { if (hdr.h.b != 0) { exit; } } }
"""
_FRAMES = [(1, H(0x11, b, 0x2233, 0x44556677)) for b in (0, 5)]

# the store to hdr.h.a is dead for p4c's SimplifyDefUse (overwritten after the apply), which
# runs before sub-controls are inlined: the exit inside SC is not seen, the store is gone, and
# when SC exits BMv2 sends hdr.h.a as parsed (checkmate-switch sent the stored value)
CASES.append(case("lead40_store_before_an_exiting_sub_control_dropped", CAT, program("""
        hdr.h.a = 7;
        sc.apply(hdr.h.b);
        hdr.h.a = 9;
""", top=_SC, ingress_decls="    SC() sc;"), frames=_FRAMES))

# the same through a local, a sub-control applying the exiting one, other stores and a local's
# declaration in between
CASES.append(case("lead40_stores_before_a_nested_exiting_sub_control_dropped", CAT, program("""
        bit<8> l = hdr.h.c[7:0];
        meta.m8 = 5;
        hdr.h.a = l;
        hdr.h.d = 32w1;
        bit<8> k = hdr.h.b + 1;
        so.apply(hdr.h.b);
        hdr.h.d = 32w2;
        hdr.h.a = 9;
        hdr.h.c = (bit<16>)meta.m8;
""", top=_SC, ingress_decls="    SO() so;"), frames=_FRAMES))

# kept: the exit in the control itself, in an action, or a sub-control handed the whole headers
# struct (its body may read the field) -- p4c's pass sees those
CASES.append(case("lead40_store_before_a_visible_exit_kept", CAT, program("""
        hdr.h.a = 7;
        if (hdr.h.b == 5) { exit; }
        hdr.h.a = 8;
        if (hdr.h.b == 6) { ex(); }
        hdr.h.a = 9;
""", ingress_decls="    action ex() { exit; }"), frames=[(1, H(0x11, b, 1, 2)) for b in (0, 5, 6)]))

CASES.append(case("lead40_store_before_a_sub_control_given_the_headers_kept", CAT, program("""
        hdr.h.a = 7;
        sh.apply(hdr);
        hdr.h.a = 9;
""", top=_SC, ingress_decls="    SH() sh;"), frames=_FRAMES))

# kept: the sub-control's argument reads the stored field
CASES.append(case("lead40_store_read_by_the_exiting_sub_controls_argument_kept", CAT, program("""
        hdr.h.b = hdr.h.b + 1;
        sc.apply(hdr.h.b);
        hdr.h.b = 9;
""", top=_SC, ingress_decls="    SC() sc;"), frames=[(1, H(0x11, b, 1, 2)) for b in (0, 0xff, 5)]))
