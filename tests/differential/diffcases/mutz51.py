"""Disagreements found by helper mutz51 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program
from .fuzz27 import _STK, _STK_FR

CASES = []

# fuzz_mutants --kinds cast_slice,exit_stmt,switch_wrap seed 5831 (`exit_stmt` on
# fuzz27_dead_stack_read_overwritten_by_copy_back_table_action): p4c's RemoveActionParameters puts
# an action's out/inout copy-back before each `exit` of its body too (`q_0 = hdr.s[0]; hdr.s[0] =
# q_0; exit;` in p4c's FrontEndLast, a table's action and a direct call alike), so a store that
# copy-back overwrites is dead before an `exit` as before the body's end or a `return`, and BMv2
# never reads the element past the stack's end for it (h.a = 3: the frame goes out unchanged);
# checkmate-switch read it and dropped the packet.
_EXIT_BACK = """
    action a1(inout e_t q) { hdr.s[0] = hdr.s[hdr.h.a[1:0]]; { exit; } }
    action a2(inout bit<8> q) { hdr.s[1].x = hdr.s[hdr.h.a[1:0]].x + 1; exit; }
    action a3(inout e_t q, inout bit<8> r) { hdr.h.b = hdr.s[hdr.h.a[1:0]].x; { hdr.s[2] = hdr.s[hdr.h.a[1:0]]; exit; } }
    table t1 { actions = { a1(hdr.s[0]); } default_action = a1(hdr.s[0]); }
    table t2 { actions = { a2(hdr.s[1].x); } default_action = a2(hdr.s[1].x); }
    table t4 { actions = { a3(hdr.s[2], hdr.h.b); } default_action = a3(hdr.s[2], hdr.h.b); }
"""
for _name, _body in [
        ("table_action", "        t1.apply();\n"),
        ("table_action_field", "        t2.apply();\n"),
        ("table_action_two_arguments_in_a_block", "        t4.apply();\n"),
        ("direct_call", "        a1(hdr.s[0]);\n"),
        ("direct_call_field", "        a2(hdr.s[1].x);\n")]:
    CASES.append(case(f"mutz51_dead_stack_read_overwritten_by_copy_back_before_exit_{_name}", "stacks", program(
        _body + "        hdr.h.c = 0x7777;\n", ingress_decls=_EXIT_BACK, **_STK), frames=_STK_FR))

# fuzz_mutants default kinds seed 5718 (`sub_wrap` on fuzz22_store_before_nested_self_initializer_dropped):
# a sub-control's store `hdr.h2.b = hdr.h.a / 6` (a division p4c's BMv2 back end cannot evaluate
# at run time) that the caller's self-reading initializer `hdr.h2 = {hdr.h2.a + 1, 7, 8, hdr.h2.d}`
# overwrites -- p4c's def-use takes it as a definition of every field that reads h2.a and h2.d, and
# a setValid() before it reads no field -- is dead, so p4c compiles the program; checkmate-p4c judged
# the store at the call site against the initializer's lowering (setValid + setInvalid) and refused
# the division (mk_stores._view, union_defuse.overwritten).
_DIV_SUB = "control S(inout headers_t hdr) { apply { hdr.h2.b = hdr.h.a / 8w6; } }\n"
for _name, _pre in [("", ""), ("_after_a_set_valid", "        hdr.h2.setValid();\n")]:
    CASES.append(case(f"mutz51_division_store_of_a_sub_control_dead_before_a_self_initializer{_name}", "front end (p4c-compatible)",
                      program("        s.apply(hdr);\n        hdr.h2.d = 5;\n" + _pre +
                              "        hdr.h2 = {hdr.h2.a + 1, 7, 8, hdr.h2.d};\n"
                              "        hdr.h.c = (bit<16>)hdr.h2.b;\n        hdr.h.d = hdr.h2.d;\n",
                              top=_DIV_SUB, ingress_decls="    S() s;\n"),
                      frames=[(1, H2(3, 4, 5, 6, b=b)) for b in (0, 1)] + [(1, H(9, b)) for b in (0, 1)]))
