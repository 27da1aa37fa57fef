"""Disagreements found by helper mutz51 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import case, program
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
