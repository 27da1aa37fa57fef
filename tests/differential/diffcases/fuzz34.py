"""Disagreements found by helper fuzz34 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz_exprs seed 16651 (FRAMES): p4c's front-end def-use (blind to an ``exit`` inside a
sub-control, :mod:`switch.compiler.exit_blind_stores`) tracks the bits a slice writes -- a store
is overwritten by a later slice holding all its bits (``x[19:9] = ..; sc.apply(..);
x[47:0] = 398;``: the first store gone, BMv2 sends the parsed bits where SC exits), while a slice
that does not hold them all reads the field's other bits (it keeps the store) unless it is itself
overwritten before a read, and a read of the field anywhere (a slice of other bits too) keeps it.
Stores in between that read the stored field are dropped first when they are dead themselves
(p4c's pass repeats), in a branch too when the whole field is overwritten after it.  Probed on p4c's front-end output (38 programs) and checked here on BMv2.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

_SC = "control SC(inout bit<8> x) { apply { if (x != 0) { exit; } } }\n"
_FRAMES = [(1, H(0x11, b, 0x2233, 0x44556677)) for b in (0, 5)]


def _case(name: str, body: str):
    return case(name, CAT, program(body, top=_SC, ingress_decls="    SC() sc;"), frames=_FRAMES)


CASES = [
    # dropped: a later slice holds every bit stored (a slice store or the whole field), a slice
    # of a slice counted from the field's bit 0
    _case("fuzz34_slice_stores_before_an_exiting_sub_control_dropped_by_covering_slices", """
        hdr.h.c[11:4] = 7;
        hdr.h.d[31:31] = 1;
        hdr.h.a = 3;
        meta.m16[11:4] = 7;
        sc.apply(hdr.h.b);
        hdr.h.c[11:0] = 9;
        hdr.h.d[31:0] = 5;
        hdr.h.a[7:0] = 6;
        meta.m16[12:0][11:4] = 9;
        hdr.h.b = (bit<8>)meta.m16[15:8];
"""),
    # dropped: stores in between that read the stored field, or write other bits of it, are
    # overwritten themselves before a read, so p4c drops them first and then the store
    _case("fuzz34_store_read_only_by_dead_stores_after_an_exiting_sub_control_dropped", """
        hdr.h.c[11:4] = 7;
        hdr.h.d = 32w7;
        hdr.h.a = 3;
        sc.apply(hdr.h.b);
        hdr.h.c[3:0] = 1;
        hdr.h.c = 9;
        meta.m8 = hdr.h.d[7:0];
        meta.m8 = 1;
        hdr.h.d = 5;
        hdr.h.a[7:4] = 2;
        hdr.h.a = 4;
"""),
    # kept (guards): a slice that does not hold every bit stored, one that is not dead itself,
    # a read of other bits of the field
    _case("fuzz34_slice_stores_before_an_exiting_sub_control_kept", """
        hdr.h.c[11:4] = 7;
        hdr.h.d[7:4] = 7;
        hdr.h.a[7:4] = 3;
        sc.apply(hdr.h.b);
        hdr.h.c[7:0] = 9;
        hdr.h.d[15:8] = 1;
        hdr.h.d[7:0] = 9;
        hdr.h.b = hdr.h.a[3:0] ++ 4w1;
        hdr.h.a = 1;
"""),
]

# dropped: a write of other bits in a branch is overwritten itself after the `if` (p4c drops it,
# then the store); kept (guard, hdr.h.d): the branch's write is not overwritten whole after it
CASES.append(_case("fuzz34_store_past_a_dead_slice_write_in_a_branch_dropped", """
        hdr.h.c[11:4] = 7;
        hdr.h.d[11:4] = 7;
        sc.apply(hdr.h.b);
        if (hdr.h.a == 0x11) { hdr.h.c[3:0] = 1; hdr.h.d[3:0] = 1; } else { hdr.h.c = 2; }
        hdr.h.c = 9;
        hdr.h.d[15:4] = 9;
"""))
