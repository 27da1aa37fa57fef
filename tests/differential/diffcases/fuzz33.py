"""Disagreements found by helper fuzz33 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case (``CASES``) or, for programs p4c refuses, in ``INVALID`` (read by
test_invalid.py).
"""
from controller.entities import Entry

from .base import H, case, program

CAT = "front end (p4c-compatible)"

_T0 = ("    action a0(bit<8> v) { hdr.h.b = v; }\n"
       "    table t0 { key = { hdr.h.a: exact; } actions = { a0; NoAction; } default_action = NoAction; }\n")
_F = [(1, H(1, 1, 0x10)), (1, H(2, 3, 0x20)), (1, H(1, 7, 0x30)), (1, H(2, 9, 0x40))]
_E = [Entry("I.t0", {"hdr.h.a": 1}, "I.a0", {"v": 0x11})]

CASES = [
    # guard of the fix below: `if (!t0.apply().hit)` is the table's hit/miss successors swapped, so
    # with both `if`s empty the two applies go on to the same step and p4c compiles it
    case("fuzz33_negated_hit_and_hit_with_one_successor", CAT, program("""
        if (hdr.h.a == 1) { if (t0.apply().hit) { } } else { if (!t0.apply().hit) { } }
        hdr.h.c = hdr.h.c + (bit<16>)hdr.h.b;
""", ingress_decls=_T0), frames=_F, entries=_E),
    case("fuzz33_double_negated_hit_with_one_successor", CAT, program("""
        if (hdr.h.a == 1) { if (!t0.apply().miss) { } } else { if (!!t0.apply().hit) { } }
        hdr.h.c = hdr.h.c + (bit<16>)hdr.h.b;
""", ingress_decls=_T0), frames=_F, entries=_E),
]

# fuzz_headers seed 9222 (INVALID-ACCEPTED): a table applied in `if (!t0.apply().hit)` (a `!` over
# the hit) at one place and otherwise at another has two successors for p4c's BMv2 back end
# ("table I.t0 has multiple successors"); checkmate-p4c took the negated condition for an
# expression that reads the table and skipped the check (table_successors._hit_cond)
INVALID = {
    "fuzz33_negated_hit_against_empty_hit_if": (program("""
        if (hdr.h.a == 1) { if (t0.apply().hit) { } else { } hdr.h.a = 3; }
        else { if (!t0.apply().hit) { hdr.h.a = 4; } else { hdr.h.a = 5; } }
""", ingress_decls=_T0), ("multiple successors",), ""),
    "fuzz33_negated_hit_against_plain_apply": (program("""
        if (hdr.h.a == 1) { t0.apply(); hdr.h.a = 3; }
        else { if (!t0.apply().hit) { hdr.h.a = 4; } }
""", ingress_decls=_T0), ("multiple successors",), ""),
    "fuzz33_negated_miss_against_hit": (program("""
        if (hdr.h.a == 1) { if (t0.apply().hit) { hdr.h.a = 4; } }
        else { if (!t0.apply().miss) { hdr.h.a = 4; } }
""", ingress_decls=_T0), ("multiple successors",), ""),
}

# fuzz_exprs seed 16465 (REJECT): p4c's def-use pass takes the control's bodies as one unit and each
# action as one, so a function holding a list of constants called once in the apply body and once
# in an action (called there, listed in a table, or never used) compiles; checkmate-p4c counted
# the action's call as a second copy and refused it as p4c's "write set already set" crash
# (inlined_lists: per-unit counts).  Two calls in one action, or a list in an action that another
# used action calls twice, is p4c's crash (INVALID below; the second a guard, refused before too)
_FL = ("bit<8> f0(inout h_t p) {\n    tuple<bit<8>, bit<8>> tp = {8w1, 8w2};\n"
       "    p.b = p.b + tp[1];\n    return p.a;\n}\n")
CASES.append(case("fuzz33_constant_list_function_in_body_and_in_actions", CAT, program("""
        if (hdr.h.a == 1) { hdr.h.c = (bit<16>)f0(hdr.h); }
        t0.apply();
        a2();
""", top=_FL, ingress_decls="""
    action a2() { hdr.h.d = (bit<32>)f0(hdr.h); }
    action a3() { hdr.h.a = f0(hdr.h); }
    action a0(bit<8> v) { hdr.h.b = v; hdr.h.c = hdr.h.c + (bit<16>)f0(hdr.h); }
    table t0 { key = { hdr.h.a: exact; } actions = { a0; NoAction; } default_action = NoAction; }
"""), frames=_F, entries=_E))

_AL = "    action a4() { tuple<bit<8>, bit<8>> tq = {8w1, 8w2}; hdr.h.b = tq[1]; }\n"
INVALID.update({
    "fuzz33_constant_list_action_called_twice_in_an_action": (program(
        "        t0.apply();\n", ingress_decls=_AL + """
    action a3() { a4(); a4(); }
    table t0 { key = { hdr.h.a: exact; } actions = { a3; NoAction; } default_action = NoAction; }
"""), ("write set already set",), ""),
    "fuzz33_constant_list_function_in_an_action_and_one_it_calls": (program(
        "        a3();\n", top=_FL, ingress_decls="""
    action a2() { hdr.h.d = (bit<32>)f0(hdr.h); }
    action a3() { a2(); hdr.h.c = (bit<16>)f0(hdr.h); }
"""), ("write set already set",), ""),
})
