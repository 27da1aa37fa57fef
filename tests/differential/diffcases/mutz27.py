"""Found by helper mutz27 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch got wrong (their invalid neighbours, and the programs
only the compile side decides, are in tests/p4c/test_mutants6.py)."""
from .base import H2, case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # mutz26's open item (p4c_mutate seed 501): a store to a field of a header that an initializer
    # reading the header itself (`h = {h.a + 1, ...}`) overwrites without reading that field is
    # dropped by p4c's def-use even when its own value reads the header (`h.c = h.c + 7`, a
    # division there no error: test_mutants6); on BMv2 the initializer writes no field (its
    # temporary is never valid), so the field keeps the value from before the dropped store.  A
    # kept store (to a field the initializer reads) keeps the fields its value reads alive
    # (`h.b = h.b + h.d[7:0]` keeps `h.d = 9`, which the initializer does not read).
    case("mutz27_self_reading_store_before_self_initializer_dropped", CAT, program("""
        hdr.h2.c = hdr.h2.c + 7;
        hdr.h2.d = 9;
        hdr.h2.b = hdr.h2.b + hdr.h2.d[7:0];
        hdr.h2 = {hdr.h2.a + 1, hdr.h2.b, 16w3, 32w4};
        hdr.h.c = hdr.h2.c;
        hdr.h.d = hdr.h2.d;
        hdr.h.b = hdr.h2.b;
        hdr.h.a = hdr.h2.a;
"""), frames=[(1, H2(3, 4, 5, 6)), (1, H2(0x10, 0x20, 0x30, 0x40))], json_path=True),
]
