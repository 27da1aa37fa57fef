"""Disagreements found by helper fuzz27 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz_exprs seed 10599 (fuzz26's open item): an action's out/inout arguments are copied back
# after its body -- RemoveActionParameters writes the copies for a table's action, InlineActions
# for a call -- and p4c's def-use drops a store the copy-back overwrites, so BMv2 never reads the
# element at a run-time index past the stack's end for it (p4c's JSON has an empty `a1`).
# checkmate-switch read it and dropped the packet (h.a = 3).  Per use: t3 copies back into s[2],
# where the store stays (taken only for an index in range: BMv2 dies on the read past the end).
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
_STK = dict(headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
            deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n")
_STK_FR = [(1, H(a, 0x11, 0x2233, 0x44556677)) for a in (0, 1, 2, 3)]
_COPY_BACK = """
    action a1(inout e_t q) { hdr.s[0] = hdr.s[hdr.h.a[1:0]]; }
    action a2(inout bit<8> q) { hdr.s[1].x = hdr.s[hdr.h.a[1:0]].x + 1; }
    action a3(inout e_t q, inout bit<8> r) { hdr.h.b = hdr.s[hdr.h.a[1:0]].x; { hdr.s[2] = hdr.s[hdr.h.a[1:0]]; } }
    table t1 { actions = { a1(hdr.s[0]); } default_action = a1(hdr.s[0]); }
    table t2 { actions = { a2(hdr.s[1].x); } default_action = a2(hdr.s[1].x); }
    table t3 { actions = { a1(hdr.s[2]); } default_action = a1(hdr.s[2]); }
    table t4 { actions = { a3(hdr.s[2], hdr.h.b); } default_action = a3(hdr.s[2], hdr.h.b); }
"""
for _name, _body in [
        ("table_action", "        t1.apply();\n"),
        ("table_action_field", "        t2.apply();\n"),
        ("table_action_two_arguments_in_a_block", "        t4.apply();\n"),
        ("table_action_live_at_another_table", "        t1.apply();\n        if (hdr.h.a < 3) { t3.apply(); }\n"),
        ("direct_call", "        a1(hdr.s[0]);\n"),
        ("direct_call_field", "        a2(hdr.s[1].x);\n")]:
    CASES.append(case(f"fuzz27_dead_stack_read_overwritten_by_copy_back_{_name}", "stacks", program(
        _body + "        hdr.h.c = 0x7777;\n", ingress_decls=_COPY_BACK, **_STK), frames=_STK_FR))
