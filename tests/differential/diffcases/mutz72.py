"""Disagreements found by helper mutz72 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import VALUES, case, program

CASES = []

# mutz67's open item (a hand probe on the `mux_expr` bases): an action's store of a match_kind comparison
# into its control's variables (`meta.m8 = (exact == lpm) ? 8w1 : 8w2;`, also the arm of an `if` on one) that
# only the call site makes dead -- p4c inlines `b();` into the apply block, its def-use drops the store the
# caller's `meta.m8 = hdr.h.b;` overwrites, and the comparison never reaches the BMv2 back end; p4c's def-use
# sees a table's apply as its actions too, so a store of an action a table lists is dropped the same way.
# checkmate-p4c judged the store in the action's body, where the control's parameters are live at the end,
# and refused it: the store is now held for the call sites (mk_stores._mk_globals), as an action's `out`
# parameters' are.  (A store read after the call, at an `exit` in the action, or before the control's end
# stays refused: tests/p4c/test_mutz72.py.)
_B = "    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; }\n"
_T = "    table t { key = { hdr.h.a: exact; } actions = { b; NoAction; } default_action = b(); }\n"
_OUT = "        hdr.h.c = (bit<16>)meta.m8 + 1;\n"
_SUB = """control S(inout headers_t hdr, inout meta_t meta) {
    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; }
    apply { b(); }
}
"""
_DEAD = {
    "a_direct_call": (_B, "        b();\n        meta.m8 = hdr.h.b;\n"),
    "an_if_arm": ("    action b() { if (exact == lpm) { meta.m8 = 1; } }\n", "        b();\n        meta.m8 = hdr.h.b;\n"),
    "a_header_field": ("    action b() { hdr.h.b = (exact == lpm) ? 8w1 : 8w2; }\n",
                       "        b();\n        hdr.h.b = hdr.h.a;\n        meta.m8 = 3;\n"),
    "a_whole_header": ("    action b() { hdr.h.b = (exact == lpm) ? 8w1 : 8w2; }\n",
                       "        b();\n        hdr.h = {hdr.h.a, 2, 3, 4};\n        meta.m8 = 3;\n"),
    "a_control_local": ("    bit<8> x;\n    action b() { x = (exact == lpm) ? 8w1 : 8w2; }\n",
                        "        b();\n        x = hdr.h.b;\n        meta.m8 = x;\n"),
    "a_control_local_never_read": ("    bit<8> x;\n    action b() { x = (exact == lpm) ? 8w1 : 8w2; }\n",
                                   "        b();\n        meta.m8 = 9;\n"),
    "an_action_calling_it": (_B + "    action c() { b(); hdr.h.a = 3; }\n", "        c();\n        meta.m8 = 4;\n"),
    "an_if_in_an_action_calling_it": ("    action b() { if (exact == lpm) { meta.m8 = 1; } }\n"
                                      "    action c() { b(); hdr.h.a = 3; }\n", "        c();\n        meta.m8 = 7;\n"),
    "a_table": (_B + _T, "        t.apply();\n        meta.m8 = hdr.h.b;\n"),
    "a_table_switch": (_B + _T, "        switch (t.apply().action_run) { b: { hdr.h.a = 1; } default: { } }\n"
                                "        meta.m8 = hdr.h.b;\n"),
    "a_table_hit": (_B + _T, "        if (t.apply().hit) { hdr.h.a = 1; }\n        meta.m8 = hdr.h.b;\n"),
    "two_calls": (_B, "        b();\n        meta.m8 = hdr.h.b;\n        b();\n        meta.m8 = hdr.h.a;\n"),
    "a_call_under_an_if": (_B, "        if (hdr.h.a == 1) { b(); }\n        meta.m8 = hdr.h.b;\n"),
    "the_next_action": (_B + "    action c() { meta.m8 = hdr.h.b; }\n", "        b();\n        c();\n"),
    "a_struct_assignment": (_B, "        b();\n        meta = {hdr.h.b, 2, 3};\n"),
    "an_out_argument_too": ("    action b(out bit<8> o) { meta.m8 = (exact == lpm) ? 8w1 : 8w2; o = meta.m8; }\n",
                            "        b(hdr.h.a);\n        meta.m8 = hdr.h.b;\n        hdr.h.a = 1;\n"),
    "a_call_in_a_switch_case": (_B, "        switch (hdr.h.a) { 1: { b(); } default: { } }\n        meta.m8 = hdr.h.b;\n"),
    "a_table_miss": (_B + _T, "        if (t.apply().miss) { hdr.h.a = 2; }\n        meta.m8 = hdr.h.b;\n"),
    "mark_to_drop_in_between": (_B, "        b();\n        mark_to_drop(sm);\n        sm.egress_spec = 1;\n"
                                    "        meta.m8 = hdr.h.b;\n"),
    "through_an_action_local": ("    action b() { bit<8> v = (exact == lpm) ? 8w1 : 8w2; meta.m8 = v; }\n",
                                "        b();\n        meta.m8 = 7;\n"),
}
for _name, (_decls, _body) in _DEAD.items():
    CASES.append(case(f"mutz72_action_store_dead_at_its_call_site_{_name}", "front end (p4c-compatible)",
                      program(_body + _OUT, ingress_decls=_decls), frames=VALUES))
CASES.append(case("mutz72_action_store_dead_at_its_call_site_in_egress", "front end (p4c-compatible)",
                  program("", egress="        b();\n        meta.m8 = hdr.h.b;\n" + _OUT, egress_decls=_B), frames=VALUES))
CASES.append(case("mutz72_action_store_dead_at_its_call_site_a_sub_control", "front end (p4c-compatible)",
                  program("        s.apply(hdr, meta);\n        meta.m8 = hdr.h.b;\n" + _OUT, top=_SUB,
                          ingress_decls="    S() s;\n"), frames=VALUES))
CASES.append(case("mutz72_action_store_dead_at_its_call_site_a_sub_control_local", "front end (p4c-compatible)",
                  program("        s.apply(hdr, meta);\n" + _OUT, top=_SUB.replace(
                      "    action b() { meta.m8", "    bit<8> x;\n    action b() { x").replace("apply { b(); }",
                                                                                         "apply { b(); hdr.h.b = hdr.h.a; }"),
                          ingress_decls="    S() s;\n"), frames=VALUES))
