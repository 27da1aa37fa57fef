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

from .fuzz22 import _STK_PARSER  # noqa: E402

# opens6's open item: in an action, a call inside an out/inout argument's index, or a member of a call's
# value -- p4c's SideEffectOrdering puts a run-time index of an argument in a temporary before the call,
# so the copy-back writes the element the copy-in read; checkmate-switch evaluated the index again at the
# copy-back (after the index's call ran twice, or an earlier argument's copy-back changed what it reads),
# in an action and in a control alike (switch/runtime/gen_statements.py: StatementGen.fixed_indices).
# The member cases agreed before (guards).
_AF = ("bit<2> gi(inout bit<8> c) { c = c + 1; return c[1:0]; }\n"
       "bit<2> g(in bit<8> c) { return c[1:0]; }\n"
       "void f(inout bit<8> p, in bit<8> q) { p = p + q; }\n"
       "void fw(inout bit<8> i, inout bit<8> p) { i = i + 1; p = p + 5; }\n"
       "bit<8> fv(inout bit<8> p) { p = p + 3; return p; }\n"
       "bit<8> fw2(inout bit<8> i, inout bit<8> p) { i = i + 1; p = p + 5; return p; }\n"
       "struct sv_t { bit<8> a; bit<8> b; }\n"
       "sv_t gs(inout bit<8> c) { c = c + 1; sv_t r = { c, c + 3 }; return r; }\n")
_AA = ("    action ao(inout bit<8> p) { p = p + 3; }\n"
       "    action aw(inout bit<8> i, inout bit<8> p) { i = i + 1; p = p + 5; }\n")
_AC = {
    "inout_index": "f(hdr.s[gi(hdr.h.b)].x, hdr.h.b);",
    "in_index": "f(hdr.s[g(hdr.h.b)].x, hdr.h.b);",
    "index_call_writes_the_other_argument": "f(hdr.s[gi(hdr.h.a)].x, hdr.h.a);",
    "index_written_by_an_earlier_copy_back": "fw(hdr.h.b, hdr.s[hdr.h.b[1:0]].x);",
    "value_call_with_an_inout_index": "hdr.h.d = (bit<32>)fv(hdr.s[gi(hdr.h.b)].x);",
    "value_call_index_written_by_an_earlier_copy_back": "hdr.h.d = (bit<32>)fw2(hdr.h.b, hdr.s[hdr.h.b[1:0]].x);",
    "action_call_with_an_inout_index": "ao(hdr.s[gi(hdr.h.b)].x);",
    "action_call_index_written_by_an_earlier_copy_back": "aw(hdr.h.b, hdr.s[hdr.h.b[1:0]].x);",
    "member_of_a_call_value": "hdr.h.c = (bit<16>)gs(hdr.h.b).b;",
    "member_of_a_call_value_in_an_index": "hdr.s[gs(hdr.h.b).a[1:0]].x = 7;",
    "member_of_a_call_value_as_an_argument": "f(hdr.h.a, gs(hdr.h.b).b);",
}
CASES += [
    case(f"mutz41_call_in_an_action_{name}_{where}", "stacks", program(
        "        a();\n" if where == "in_an_action" else f"        {body}\n",
        ingress_decls=_AA + f"    action a() {{ {body} }}\n", top=_AF, headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
        deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
        frames=[(1, H(a, b, 0x2233, 2) + bytes([0x10, 0x20, 0x30])) for a in (0, 1) for b in (0, 1)])
    for name, body in _AC.items() for where in ("in_an_action", "in_the_control")
]
