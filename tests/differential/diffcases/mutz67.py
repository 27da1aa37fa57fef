"""Disagreements found by helper mutz67 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import VALUES, case, program

CASES = []

# fuzz_mutants --kinds mux_expr seed 5256 (REJECT; `mux_expr` on a match_kind-comparison base): an `if`
# whose condition compares match_kind members, its arms holding only stores that a later one overwrites
# before any read -- p4c's def-use drops the stores, SimplifyControlFlow removes the emptied `if` (its
# condition calls nothing) and the comparison never reaches the BMv2 back end, so p4c compiles it (an `if`
# that keeps a store, applies a table or returns is still "could not convert expression to Json").
# checkmate-p4c refused the condition at once, and folded `exact == lpm` as a constant, which p4c does
# not: the condition is now tagged like a store (mk_stores.match_kind_if_end) and judged with the body.
_MK = "        hdr.h.b = meta.m8;\n"
for _name, _body in [
        ("a_store", "        if (exact == lpm) { meta.m8 = 1; }\n"),
        ("both_arms", "        if (exact == lpm) { meta.m8 = 1; } else { meta.m8 = 2; }\n"),
        ("nothing", "        if (exact == lpm) { }\n"),
        ("a_nested_if", "        if (exact != lpm) { if (hdr.h.a == 1) { meta.m8 = 1; } else { meta.m8 = 3; } }\n"),
        ("an_unread_local", "        if (exact == lpm) { bool q = true; }\n"),
        ("under_a_mux", "        if ((meta.m8 == 0) ? (((exact == lpm) ? 8w1 : 8w2) != 2) : false) "
                        "{ meta.m8 = (exact == lpm) ? 8w1 : 8w2; }\n"),
        ("and_an_isvalid", "        if (hdr.h2.isValid() && exact != lpm) { meta.m8 = 1; }\n")]:
    CASES.append(case(f"mutz67_match_kind_condition_of_an_if_emptied_by_dead_stores_{_name}", "front end (p4c-compatible)",
                      program(_body + "        meta.m8 = hdr.h.a + 1;\n" + _MK), frames=VALUES))
