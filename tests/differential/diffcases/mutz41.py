"""Found by helper mutz41 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

# mutz40's open item: the flow past a single-case switch whose case returns (or exits) is not visited
# by p4c's front-end SimplifyDefUse -- a read there uses no store -- also across and inside a switch
# and a table apply there.  Probes: all of these agreed before (p4c's def-use keeps a store that a switch
# or a table apply may overwrite; checkmate's scan walks a case's body as a list of that flow): guards.
_T = ("    action a0() { hdr.h.c = hdr.h.c + 4; }\n"
      "    action a1() { hdr.h.d = 5; }\n"
      "    table t2 { actions = { a0; } default_action = a0(); }\n"
      "    table t3 { actions = { a1; NoAction; } default_action = a1(); }\n")
_FR = [(1, H(a, b, 0x1234, d=0x10)) for a in (3, 4) for b in (0, 5)]
_SW = {
    "in_a_switch_case": "switch (hdr.h.a) { 3: { hdr.h.c = 1; hdr.h.c = hdr.h.c + 1; } default: { } }",
    "across_a_switch_overwriting_in_every_case": "hdr.h.c = 1; switch (hdr.h.a) { 3: { hdr.h.c = hdr.h.c + 4; } default: { hdr.h.c = 3; } }",
    "across_a_switch_writing_nothing": "hdr.h.c = 1; switch (hdr.h.a) { 3: { hdr.h.d = 2; } default: { hdr.h.d = 3; } } hdr.h.c = hdr.h.c + 1;",
    "guard_across_a_switch_overwriting_in_one_case": "hdr.h.c = 1; switch (hdr.h.a) { 3: { hdr.h.c = hdr.h.c + 4; } default: { } }",
    "across_a_table_apply_writing_other_fields": "hdr.h.c = 1; t3.apply(); hdr.h.c = hdr.h.c + 1;",
    "across_a_table_apply_overwriting": "hdr.h.c = 1; t2.apply();",
    "in_an_action_run_switch_case": "switch (t3.apply().action_run) { a1: { hdr.h.c = 1; hdr.h.c = hdr.h.c + 1; } }",
    "in_a_hit_if": "if (t3.apply().hit) { hdr.h.c = 1; hdr.h.c = hdr.h.c + 1; }",
}
CASES = [
    case(f"mutz41_field_store_past_a_single_case_switch_whose_case_returns_{name}", CAT, program(
        f"        switch (hdr.h.b) {{ 5: {{ return; }} }}\n        {body}\n", ingress_decls=_T), frames=_FR)
    for name, body in _SW.items()
]

# mutz40's open item: a function's value under `?:`, `&&`, `||` past a single-case switch whose case exits.
# SideEffectOrdering makes a temporary of each `?:` of the statement (calling or not), and of each binary
# operation over a call (`&&`/`||` too; `!(a == b)` is one `!=` by then); the mid end's
# LocalCopyPropagation drops their stores there, so BMv2 reads 0/false for them (`if (b == 3 || g(b) == 4)`
# is false where b == 3); unary operations, casts and slices stay (`~(bit<16>)g(b)` is 0xffff).  The
# `return` twins agree (the front end keeps them).
_FV = "bit<8> g(in bit<8> v) { return v + 1; }\n"
_FVC = {
    "and": "if (hdr.h.b == 3 && g(hdr.h.b) == 4) { hdr.h.c = 1; }",
    "or": "if (hdr.h.b == 3 || g(hdr.h.b) == 4) { hdr.h.c = 1; }",
    "or_false_left": "if (hdr.h.b == 7 || g(hdr.h.b) == 4) { hdr.h.c = 1; }",
    "else_arm": "hdr.h.c = (hdr.h.b == 3) ? 16w1 : (bit<16>)g(hdr.h.b);",
    "in_a_sum": "hdr.h.c = (bit<16>)g(hdr.h.b) + ((hdr.h.b == 3) ? 16w1 : 16w2);",
    "mux_in_a_sum": "hdr.h.c = 16w8 + ((hdr.h.b == 3) ? 16w1 : 16w2);",
    "not_equal": "if (!(g(hdr.h.b) == 4)) { hdr.h.c = 1; }",
    "complement": "hdr.h.c = ~(bit<16>)g(hdr.h.b);",
    "concatenation": "hdr.h.c = (bit<16>)(g(hdr.h.b)[7:1] ++ 1w1);",
    "and_without_a_call_in_a_sum": "hdr.h.c = (bit<16>)g(hdr.h.b) + (bit<16>)(bit<1>)(hdr.h.b == 3 && hdr.h.a == 4);",
    "conditional_expression_with_an_and_condition": "hdr.h.c = (hdr.h.b == 3 && hdr.h.a == 4) ? 16w5 : (bit<16>)g(hdr.h.b);",
    "and_assigned": "bool z = hdr.h.b == 3 && g(hdr.h.b) == 4; if (z) { hdr.h.c = 1; }",
}
CASES += [
    case(f"mutz41_function_value_past_a_single_case_switch_whose_case_{end}s_{name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; {end}; }} }}\n        {body}\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        top=_FV), frames=[(1, H(4, 3, 9)), (1, H(4, 2, 9)), (1, H(5, 3, 9))])
    for name, body in _FVC.items() for end in ("exit", "return")
]
