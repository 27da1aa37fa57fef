"""Found by helper mutz43 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

# fuzz_mutants seed 4112 (exit_stmt): a single-case switch whose case is `h.a = 7; if (h.a != 1) { exit; }
# .. return;`.  The mid end folds the `if` with the case's copy of h.a, so the case exits before it sets
# RemoveReturns' flag: the flag after the switch stays false and the statement after it runs on BMv2 where
# the case did not (switch_copies.single_case_copies takes the arm such an `if` folds to).  `not_folded`
# (an `if` p4c cannot fold) and `folded_to_else` (the arm without the exit) agreed before (guards).
_EX = {
    "folded_exit": "hdr.h.a = 7; if (hdr.h.a != 1) { exit; } else { hdr.h.a = hdr.h.a + 1; } return;",
    "folded_exit_no_else": "hdr.h.a = 7; if (hdr.h.a == 7) { exit; } return;",
    "folded_to_else": "hdr.h.a = 7; if (hdr.h.a == 1) { exit; } else { hdr.h.a = hdr.h.a + 1; } return;",
    "plain_exit": "hdr.h.a = 7; exit;",
    "exit_in_an_if": "hdr.h.a = 7; if (hdr.h.c == 1) { exit; }",
    "not_folded": "hdr.h.a = 7; if (hdr.h.c == 1) { exit; } return;",
}
CASES = [
    case(f"mutz43_single_case_switch_whose_case_exits_in_an_if_it_folds_{name}", CAT, program(
        f"        switch (hdr.h.b) {{ 22: {{ {body} }} }}\n"
        "        hdr.h.a = hdr.h.a + 1;\n        hdr.h.d = hdr.h.d + 1;\n"),
        frames=[(1, H(4, 22, 1, 9)), (1, H(4, 21, 1, 9)), (1, H(4, 22, 2, 9)), (1, H(4, 23, 2, 9))])
    for name, body in _EX.items()
]

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
