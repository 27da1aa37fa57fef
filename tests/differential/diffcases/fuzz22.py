"""Disagreements found by helper fuzz22 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []


# An initializer that reads its own header (`h2 = {h2.a + 1, ..}`: built by p4c in a temporary that
# is never valid, so BMv2 writes no field of h2 and leaves it invalid) makes p4c's def-use pass drop
# an earlier store to another field of h2 -- also when the initializer sits in nested blocks, with a
# `setValid()` and a `switch` that does not read the field in between (fuzz_exprs seed 6247:
# `hdr.opt.e1 = ..; { ..; { ..; hdr.opt.setValid(); } { switch (..) {..} hdr.opt = {e0 = ..hdr.opt.e0..,
# e1 = .., ..}; } }`, then `hdr.opt.e1` read).  The field keeps its value from before the store on
# BMv2; checkmate dropped the store only when the initializer followed it in the same block.
CASES.append(case("fuzz22_store_before_nested_self_initializer_dropped", CAT, program("""
        hdr.h2.b = hdr.h.a;
        hdr.h2.d = 5;
        {
            bit<8> l = hdr.h.b;
            { hdr.h2.setValid(); }
            {
                switch (hdr.h.b) { 0: { } default: { hdr.h2.c = hdr.h2.c + 1; } }
                hdr.h2 = {hdr.h2.a + 1, 7, 8, hdr.h2.d};
            }
        }
        hdr.h.c = (bit<16>)hdr.h2.b;
        hdr.h.d = hdr.h2.d;
"""), frames=[(1, H2(3, 4, 5, 6, b=b)) for b in (0, 1)] + [(1, H(9, b)) for b in (0, 1)]))


# `for (T x in lo .. hi)` (P4-16 1.2.5) over constant bounds: lo, lo + 1, ..., hi, none when lo > hi,
# signed bounds too.  p4c 1.2.4.8 has no loops: the reference is the unrolled loop.  checkmate-p4c
# refused a range ("list expression only", left open by fuzz21).
CASES.append(case("fuzz22_for_in_constant_range", "language", program("""
        for (bit<8> i in 1 .. 3) { hdr.h.b = hdr.h.b + i; }
        for (bit<8> i in 5 .. 4) { hdr.h.a = 0; }
        for (int<8> j in -2 .. 1) { hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)j; }
"""), ref_source=program("""
        hdr.h.b = hdr.h.b + 1; hdr.h.b = hdr.h.b + 2; hdr.h.b = hdr.h.b + 3;
        hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)(-8s2); hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)(-8s1);
        hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)8s0; hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)8s1;
"""), frames=[(1, H(1, 2, 3)), (1, H(7, 0xff, 0xfffe))]))
