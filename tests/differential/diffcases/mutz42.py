"""Found by helper mutz42 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, H2, case, program
from .fuzz22 import _STK_PARSER

CAT = "front end (p4c-compatible)"

# mutz41's open item: a call with an out/inout argument under `?:`, `&&`, `||` past a single-case switch
# whose case exits.  SideEffectOrdering puts the inlined call in an `if` on the arm's condition, and the mid
# end's LocalCopyPropagation drops every store of its variables there, so the argument gets 0 (an invalid
# header) where the condition holds and keeps its value elsewhere; the value (and the `?:`/`&&`/`||`
# temporary) reads 0 either way (switch_cases._uninitialized_copy_backs).  The `return` twins agree (guards).
_FO = ("bit<8> fi(inout bit<8> p) { p = p + 3; return p; }\n"
       "bit<8> fo(out bit<8> p) { p = 9; return 1; }\n"
       "bool fh(inout h_t x) { x.c = 5; return true; }\n")
_FOC = {
    "then_arm": "hdr.h.c = (hdr.h.b == 3) ? (bit<16>)fi(hdr.h.b) : 16w2;",
    "else_arm": "hdr.h.c = (hdr.h.b == 3) ? 16w2 : (bit<16>)fi(hdr.h.b);",
    "and": "if (hdr.h.b == 3 && fi(hdr.h.b) == 6) { hdr.h.c = 1; }",
    "or": "if (hdr.h.b == 3 || fi(hdr.h.b) == 6) { hdr.h.c = 1; }",
    "out_and": "if (hdr.h.b == 3 && fo(hdr.h.a) == 1) { hdr.h.c = 1; }",
    "out_other_field": "hdr.h.c = (hdr.h.b != 3) ? (bit<16>)fo(hdr.h.a) : 16w2;",
    "header_and": "if (hdr.h.b == 3 && fh(hdr.h2)) { hdr.h.c = 1; }",
    "nested": "hdr.h.c = (hdr.h.b == 3) ? ((hdr.h.a == 4) ? (bit<16>)fi(hdr.h.b) : 16w3) : 16w2;",
    "assigned_bool": "bool z = hdr.h.b == 3 && fi(hdr.h.b) == 6; hdr.h.c = z ? 16w1 : 16w9;",
}
CASES = [
    case(f"mutz42_call_with_an_out_argument_under_a_condition_past_a_single_case_switch_whose_case_{end}s_{name}",
         CAT, program(
             f"        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; {end}; }} }}\n        {body}\n"
             "        hdr.h.d = (bit<32>)hdr.h.c;\n", top=_FO),
         frames=[(1, H(4, 3, 9)), (1, H(4, 2, 9)), (1, H(5, 3, 9)), (1, H(0xee, 3, 9) + bytes(range(12))),
                 (1, H(0xee, 2, 9) + bytes(range(12)))])
    for name, body in _FOC.items() for end in ("exit", "return")
]

# mutz41's open item: a sub-control's apply argument with a run-time stack index.  p4c's SideEffectOrdering
# puts the index of an out/inout argument in a temporary before the apply (then inlines the body, in place
# or through the argument's temporaries), so the copy-back writes the element the copy-in read; checkmate-
# switch evaluated the index again at the copy-back (switch/runtime/gen_subcontrol.py, apply_control).
# `plain`, `..._later_copy_back` agreed before (guards).  (A whole header element at a run-time index copied
# through a temporary -- `c.apply(hdr.h, hdr.s[hdr.h.b[1:0]])` -- is p4c's assign_header into a
# dereference_header_stack: simple_switch_grpc dies, SIGSEGV; not a case here.)
_SC = ("control C1(inout bit<8> p) { apply { p = p + 3; } }\n"
       "control C2(inout bit<8> i, inout bit<8> p) { apply { i = i + 1; p = p + 5; } }\n"
       "control C3(inout h_t h, inout bit<8> p) { apply { h.b = h.b + 1; p = p + 5; } }\n"
       "control C4(inout bit<8> p, inout bit<8> i) { apply { i = i + 1; p = p + 5; } }\n"
       "control C5(out bit<8> p, inout bit<8> i) { apply { i = i + 1; p = 0x44; } }\n"
)
_SCD = "    C1() c1; C2() c2; C3() c3; C4() c4; C5() c5;\n"
_SCC = {
    "index_written_by_an_earlier_copy_back": "c2.apply(hdr.h.b, hdr.s[hdr.h.b[1:0]].x);",
    "index_written_by_a_later_copy_back": "c4.apply(hdr.s[hdr.h.b[1:0]].x, hdr.h.b);",
    "out_index_written_by_a_later_copy_back": "c5.apply(hdr.s[hdr.h.b[1:0]].x, hdr.h.b);",
    "index_in_a_header_argument": "c3.apply(hdr.h, hdr.s[hdr.h.b[1:0]].x);",
    "index_with_a_call": "c1.apply(hdr.s[gi(hdr.h.b)].x);",
    "index_with_a_call_after_an_argument_it_writes": "c2.apply(hdr.h.b, hdr.s[gi(hdr.h.b)].x);",
    "applied_twice": "c3.apply(hdr.h, hdr.s[hdr.h.b[1:0]].x); c3.apply(hdr.h, hdr.s[0].x);",
    "plain": "c1.apply(hdr.s[hdr.h.b[1:0]].x);",
}
_GI = "bit<2> gi(inout bit<8> c) { c = c + 1; return c[1:0]; }\n"
CASES += [
    case(f"mutz42_sub_control_argument_with_a_run_time_index_{name}", "stacks", program(
        f"        {body}\n", ingress_decls=_SCD, top=_GI + _SC,
        headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
        deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
        frames=[(1, H(a, b, 0x2233, 2) + bytes([0x10, 0x20, 0x30])) for a in (0, 1) for b in (0, 1)])
    for name, body in _SCC.items()
]

# The same order for a function's and an action's arguments: SideEffectOrdering evaluates the arguments
# left to right, each index temporary where its argument stands -- an earlier argument's copy-in is taken
# before a call in a later argument's index runs (ExpressionGen.after_pins; the value call agreed before).
from .mutz41 import _AA, _AF  # noqa: E402
_FC = {
    "function": "fw(hdr.h.b, hdr.s[gi(hdr.h.b)].x);",
    "function_value": "hdr.h.d = (bit<32>)fw2(hdr.h.b, hdr.s[gi(hdr.h.b)].x);",
    "action": "aw(hdr.h.b, hdr.s[gi(hdr.h.b)].x);",
}
CASES += [
    case(f"mutz42_call_in_an_index_after_an_argument_it_writes_{name}_{where}", "stacks", program(
        "        a();\n" if where == "in_an_action" else f"        {body}\n",
        ingress_decls=_AA + f"    action a() {{ {body} }}\n", top=_AF, headers="header e_t { bit<8> x; }\n",
        fields="    e_t[3] s;\n", parser=_STK_PARSER, deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
        frames=[(1, H(a, b, 0x2233, 2) + bytes([0x10, 0x20, 0x30])) for a in (0, 1) for b in (0, 1)])
    for name, body in _FC.items() for where in ("in_an_action", "in_the_control")
]

# fuzz_mutants --kinds mux_expr seed 1761: past a single-case switch whose case returns (or exits), a `?:`
# whose arm is the assignment's own destination reads 0 too (its SideEffectOrdering temporary loses its stores).
_MS = {
    "else_arm_is_the_destination": "hdr.h.a = (hdr.h.a == 0) ? (7) : hdr.h.a;",
    "then_arm_is_the_destination": "hdr.h.a = (hdr.h.a != 0) ? hdr.h.a : 8w7;",
    "nested": "if (hdr.h.c == 5) { switch (hdr.h.b) { 5: { return; } } hdr.h.a = (hdr.h.a == 0) ? (7) : hdr.h.a; }",
    "after_an_if_return": "if (hdr.h.d == 2) { return; } switch (hdr.h.b) { 5: { return; } } "
                          "hdr.h.a = (hdr.h.a == 0) ? (7) : hdr.h.a;",
    "nested_after_an_if_return": "if (hdr.h.c == 5) { if (hdr.h.d == 2) { return; } switch (hdr.h.b) { 5: { return; } } "
                                 "hdr.h.a = (hdr.h.a == 0) ? (7) : hdr.h.a; }",
}
CASES += [
    case(f"mutz42_conditional_expression_past_a_single_case_switch_whose_case_{end}s_{name}", CAT, program(
        ("" if "nested" in name or "after" in name else f"        switch (hdr.h.b) {{ 5: {{ {end}; }} }}\n")
        + f"        {body.replace('return', end)}\n        hdr.h.c = hdr.h.c + 16;\n"),
        frames=[(1, H(a, b, c, d)) for a in (0, 1) for b in (0, 5) for c in (5,) for d in (0, 2)])
    for name, body in _MS.items() for end in ("exit", "return")
]

_FR2 = ("bit<8> g(in bit<8> v) { return v + 1; }\n"
        "bit<8> fi(inout bit<8> p) { p = p + 3; return p; }\n"
        "void fs(inout bit<8> p) { p = p + 3; }\n")
_AR = {
    "mux": "hdr.h.c = (hdr.h.b == 3) ? 16w1 : 16w2;",
    "mux_in_a_sum": "hdr.h.c = 16w8 + ((hdr.h.b == 3) ? 16w1 : 16w2);",
    "mux_with_a_function_arm": "hdr.h.c = (hdr.h.b == 3) ? 16w1 : (bit<16>)g(hdr.h.b);",
    "function_value": "hdr.h.c = (bit<16>)g(hdr.h.b);",
    "function_value_in_a_sum": "hdr.h.c = (bit<16>)g(hdr.h.b) + 16w1;",
    "or_over_a_function": "if (hdr.h.b == 3 || g(hdr.h.b) == 4) { hdr.h.c = 1; }",
    "inout_call_statement": "fs(hdr.h.b);",
    "inout_call_value": "hdr.h.c = (bit<16>)fi(hdr.h.b);",
    "local": "bit<8> v = hdr.h.b + 1; hdr.h.c = (bit<16>)v;",
}
CASES += [
    case(f"mutz42_past_a_single_case_switch_whose_case_returns_after_an_if_return_{name}", CAT, program(
        f"        if (hdr.h.d == 2) {{ return; }}\n        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; return; }} }}\n"
        f"        {body}\n        hdr.h.d = (bit<32>)hdr.h.c;\n", top=_FR2),
        frames=[(1, H(4, 3, 9)), (1, H(4, 2, 9)), (1, H(5, 3, 9)), (1, H(4, 3, 9, 2))])
    for name, body in _AR.items()
]

# Behind an earlier statement that may return, a single-case switch whose case returns (or exits, in a
# control that holds a return) ends RemoveReturns' group `if (!hasReturned) { .. }`: the join at its end
# ends the case's copies, so what follows reads the field (checkmate-switch read the case's value).
_CP = {
    "returns": "switch (hdr.h.a) { 5: { hdr.h.c = 7; return; } }",
    "exits": "switch (hdr.h.a) { 5: { hdr.h.c = 7; exit; } }",
    "assigns_only": "switch (hdr.h.a) { 5: { hdr.h.c = 7; } }",
}
CASES += [
    case(f"mutz42_case_copy_after_an_if_return_past_a_single_case_switch_that_{name}", CAT, program(
        f"        if (hdr.h.d == 2) {{ return; }}\n        {sw}\n        hdr.h.d = (bit<32>)hdr.h.c;\n"),
        frames=[(1, H(4, 3, 9)), (1, H(5, 3, 9)), (1, H(4, 3, 9, 2))])
    for name, sw in _CP.items()
]

# fuzz_mutants seed 3955 (default kinds): verify_checksum whose checksum field is in an invalid header.
_VC = {
    "field_in_an_invalid_header": "verify_checksum(true, { hdr.h.a, hdr.h.b }, hdr.h2.c, HashAlgorithm.csum16);",
    "data_all_invalid": "verify_checksum(true, { hdr.h2.a, hdr.h2.b }, hdr.h.c, HashAlgorithm.csum16);",
}
CASES += [
    case(f"mutz42_verify_checksum_{name}", "externs", program(
        "        hdr.h.d = (bit<32>)(bit<1>)sm.checksum_error;\n", verify=f"apply {{ {body} }}"),
        frames=[(1, H(1, 2, 0)), (1, H(1, 2, 0xffff)), (1, H(1, 2, 0xfdfc)), (1, H(0xee, 2, 0) + bytes(12)),
                (1, H(0xee, 2, 0xffff) + bytes([0, 0, 0xff, 0xff]) + bytes(8))])
    for name, body in _VC.items()
]

# fuzz_mutants seed 3999 (cast_slice,exit_stmt,switch_wrap): a direct counter a table property
# declares goes with its table when p4c drops the table (never applied, or applied only after a `return`):
# no type_info in p4c's P4Info (checkmate-p4c wrote an empty one).  `declared_in_the_control` is a guard.
_DT = ("    action s(bit<8> v) { hdr.h.b = v; }\n"
       "    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; }\n"
       "              @name(\"t_hits\") counters = direct_counter(CounterType.packets_and_bytes); }\n")
_DTC = {
    "applied_after_a_return": ("        return;\n        t.apply();\n", _DT),
    "never_applied": ("", _DT),
    "declared_in_the_control": ("", "    direct_counter(CounterType.packets) dc;\n" + _DT.replace(
        "@name(\"t_hits\") counters = direct_counter(CounterType.packets_and_bytes)", "counters = dc")),
}
CASES += [
    case(f"mutz42_direct_resource_of_a_dropped_table_{name}", "front end: P4Info as p4c's", program(body, ingress_decls=decls),
         frames=[(1, H(1, 2, 3))])
    for name, (body, decls) in _DTC.items()
]

# fuzz_mutants --kinds action_if seeds 4243 and 4381: a store in an action body followed by a `return`
# that the call site's copy-back (4243: the action's inout header argument) or the statements after the
# call (4381: a union member) overwrite is dead for p4c's def-use as on the path without the return;
# BMv2 keeps the header's fields (4243) or the member's sibling valid (4381).  checkmate-p4c kept the
# store (dead_reads._drop_dead_before, union_defuse.action_store_verdicts: a `return` goes on with the
# copy-back or the site's rest).
from .fuzz18 import _U  # noqa: E402
from .fuzz29 import _FR_OPT  # noqa: E402
CASES.append(case("mutz42_action_header_copy_back_drops_a_field_store_before_a_return", CAT, program(
    "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
    ingress_decls="    action a0(inout h_t q) { hdr.h2.setValid(); if (hdr.h2.c == 0) { hdr.h2.c = 3; return; } "
                  "hdr.h2.c = hdr.h2.c + 5; hdr.h.b = hdr.h2.b; }\n"), frames=_FR_OPT + [(1, H2(0x31, 0x32, 0, 0x35363738, b=1))]))
CASES.append(case("mutz42_action_union_store_before_a_return_dead_at_the_call_site", CAT, program(
    "        if (hdr.h.d == 2) { b(); hdr.u.x = hdr.h2; } else { b(); }\n"
    "        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());\n",
    ingress_decls="    action b() { hdr.u.x = hdr.h; if (hdr.h.b != 0) { hdr.h.b = 4; return; } hdr.h.b = hdr.h.b + 5; }\n", **_U),
    frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3) for d in (1, 2) for b in (0, 2)]))

# fuzz_mutants --kinds exit_stmt seed 4015: past a single-case switch whose case exits, the mid end's
# LocalCopyPropagation still puts in the values it knows (`h.c = (bit<16>)v` reads v's 3); what loses its
# stores is a local the front end finds read only there -- not one a visited read keeps live, also where
# that read is one the mid end replaces by another switch's case copy (`v = h.a + 4` in t's case).
# checkmate-p4c judged the liveness after its copies (switch_copies.propagate_copies' `fe_reads`).
CASES.append(case("mutz42_local_read_past_a_single_case_switch_whose_case_exits_kept_live_by_a_replaced_read", CAT, program("""
        bit<8> v = 3;
        if (hdr.h.c == 2) {
            switch (hdr.h.b) { 5: { v = hdr.h.a + 4; } }
            hdr.h.c = (bit<16>)v;
        } else if (hdr.h.c == 3) {
            switch (hdr.h.b) { 5: { exit; } }
            hdr.h.c = (bit<16>)v;
        }
        hdr.h.b = hdr.h.b + 0x10;
"""), frames=[(1, H(1, b, c, 0x77)) for b in (0, 5) for c in (1, 2, 3)]))

# fuzz_mutants --kinds mux_expr seed 1878: a union member's copy-back read only by a store that p4c's
# repeated def-use drops -- after an `if` whose only store is dead goes (SimplifyControlFlow), its
# condition's read with it -- is dead too: BMv2 keeps the sibling valid (union_defuse._emptied).  The
# `..._kept` twin (the `if` writes h.d, read at the end) is a guard.
for _name, _arm in (("dropped", "hdr.h.c = 7;"), ("kept", "hdr.h.d = 7;")):
    CASES.append(case(f"mutz42_union_copy_back_read_by_a_store_dead_past_an_emptied_if_{_name}", CAT, program(f"""
        a(hdr.u.x);
        hdr.h.c = (hdr.h.c < 8) ? (hdr.u.x.c) : hdr.h.c;
        if (hdr.h.c == 2) {{ {_arm} }}
        hdr.u.x = hdr.h2;
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", ingress_decls="    action a(out h_t p) { p = {9, 9, 9, 9}; }\n", **_U),
        frames=[(1, H(a, b, 2, d=0, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3) for b in (1, 2)]))
