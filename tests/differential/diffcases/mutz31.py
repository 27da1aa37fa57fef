"""Found by helper mutz31 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import case
from .fuzz27 import _SC_FR, _across

CAT = "front end (p4c-compatible)"

CASES = [
    # p4c_mutate seed 524 (late_store, mutz30's open item): a store p4c's def-use drops across a
    # sub-control apply that may `exit` (blind to the exit: exit_blind_stores) takes its division
    # with it, and a store read only by it goes next -- p4c compiles both, and where SC exits
    # (h.b != 0) BMv2 sends s[0].x as parsed (checkmate-p4c refused "% 5": its division check did
    # not see the stores as dead)
    case(f"mutz31_division_in_a_store_dropped_across_an_exiting_sub_control_{name}", CAT,
         _across(store, "", "hdr.s[hdr.h.a[0:0]].y = hdr.h.b;"), frames=_SC_FR)
    for name, store in [("read_by_the_store", "hdr.s[0].x = hdr.h.a + 1; hdr.s[0].x = hdr.s[0].x % 5;"),
                        ("read_only_by_a_dropped_store", "hdr.s[0].x = (hdr.h.a + 1) % 5; hdr.s[0].x = hdr.s[0].x + 1;")]
]
