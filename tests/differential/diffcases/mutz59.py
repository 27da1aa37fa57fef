"""Disagreements found by helper mutz59 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program

CASES = []

# fuzz_mutants --kinds mux_expr seed 3793 (`mux_expr` on fuzz22_single_case_switch_drop_ends_at_next_return):
# p4c's front-end SimplifyDefUse (before RemoveReturns) takes the flow after a single-case switch whose
# case returns as unreachable up to the next join, so SideEffectOrdering's `?:` temporary there, read
# only there, loses its stores: FrontEndLast has `hdr.h.d = ~tmp;` and BMv2 writes 0xffffffff.  The
# mid end's rule (the flag taken as set after the first such switch: elab_common.live_prefix) drops
# the statements up to the next one that may return and runs the rest -- live_prefix un-marked the
# switch for that, and the front end's walk (switch_cases.drop_unvisited_locals) then saw it as a
# plain switch and kept the stores; `fe_returns` keeps the front end's view.  The same flow loses a
# table action's `?:` temporary, a local's stores, a field store a later one overwrites.
_FR = [(1, H(a, b, 2, d)) for a in (0, 7) for b in (0, 5, 6) for d in (0, 1)]
_TWO = """        switch (hdr.h.b) { 5: { return; } }
        hdr.h.a = 7;
        switch (hdr.h.b) { 6: { return; } }
"""
_T = """    action a0() { hdr.h.b = (hdr.h.b != 1) ? 8w0x11 : hdr.h.b; }
    table t2 { actions = { a0; } default_action = a0(); }
"""
for _name, _body, _decls in [
        ("mux_temporary_under_a_complement", _TWO + "        hdr.h.d = ~((hdr.h.d != 1) ? (8) : hdr.h.d);\n", ""),
        ("mux_temporary", _TWO + "        hdr.h.d = (hdr.h.d != 1) ? (8) : hdr.h.d;\n", ""),
        ("mux_temporary_in_an_if", "        if (hdr.h.c == 2) {\n" + _TWO.replace("        ", "            ") +
         "            hdr.h.d = ~((hdr.h.d != 1) ? (8) : hdr.h.d);\n        }\n", ""),
        ("mux_temporary_first_switch_in_a_block", "        { switch (hdr.h.b) { 5: { return; } } }\n" + _TWO.split("\n", 1)[1] +
         "        hdr.h.d = ~((hdr.h.d != 1) ? (8) : hdr.h.d);\n", ""),
        ("mux_temporary_the_second_an_if_that_returns", _TWO.replace("switch (hdr.h.b) { 6: { return; } }", "if (hdr.h.b == 6) { return; }") +
         "        hdr.h.d = ~((hdr.h.d != 1) ? (8) : hdr.h.d);\n", ""),
        ("table_action_mux_temporary", _TWO + "        t2.apply();\n", _T),
        ("local_initializer_and_store", "        bit<8> v = 1;\n" + _TWO + "        v = 2;\n        hdr.h.a = v;\n", ""),
        ("field_store_overwritten", _TWO + "        hdr.h.c = 1;\n        hdr.h.d = (bit<32>)hdr.h.c;\n"
         "        hdr.h.c = hdr.h.c + 1;\n", "")]:
    CASES.append(case(f"mutz59_after_two_single_case_switches_that_return_{_name}", "front end (p4c-compatible)",
                      program(_body + "        hdr.h.c = hdr.h.c + 16;\n", ingress_decls=_decls), frames=_FR))

# ... and a local's store in the flow the front end does visit, before such a switch (one that returns,
# or one that exits), is dead for SimplifyDefUse where only that unvisited flow reads it after: `v = 3`
# goes and BMv2 reads the value before it (h.a keeps its value); checkmate-p4c dropped only the stores
# inside the unvisited flow (`drop_unvisited_locals`' ``late``).
for _name, _sw, _mid in [("that_returns", "return", "        hdr.h.a = 7;\n        switch (hdr.h.b) { 6: { return; } }\n"),
                         ("that_exits", "exit", "")]:
    CASES.append(case(f"mutz59_local_store_read_only_past_a_single_case_switch_{_name}", "front end (p4c-compatible)",
                      program(f"""        bit<8> v = hdr.h.a;
        hdr.h.d = (bit<32>)v;
        v = 3;
        switch (hdr.h.b) {{ 5: {{ {_sw}; }} }}
{_mid}        hdr.h.a = v;
        hdr.h.c = hdr.h.c + 16;
"""), frames=_FR))

# A `return` past a single-case switch whose case exits: p4c's RemoveReturns makes it `hasReturned =
# true` and puts what follows the statement holding it under `if (!hasReturned)`; its second front-end
# SimplifyDefUse does not visit that flow either, so where no visited statement follows the return (no
# visited read of the flag) the store goes -- with the flag's initializer where nothing visited reads
# it -- and the return does nothing on BMv2: the statements after it run (FrontEndLast: `switch (..)
# { 8w6: { } }`, `if (hasReturned) ; else { hdr.h.a = v_0; .. }` with no store to the flag).
# checkmate-switch returned.  The `_kept` twins have a visited statement after the `if` around them:
# the flag is live there and the return works (switch_cases.drop_unvisited_locals' ``flag_dead``).
_FR2 = [(1, H(a, b, c, 0)) for a in (0, 7) for b in (0, 5, 6) for c in (1, 2)]
_EX = "switch (hdr.h.b) { 5: { exit; } }"
for _name, _body in [
        ("in_an_if", f"        {_EX}\n        if (hdr.h.b == 6) {{ return; }}\n        hdr.h.a = 1;\n        hdr.h.c = hdr.h.c + 16;\n"),
        ("after_a_store", f"        {_EX}\n        if (hdr.h.b == 6) {{ hdr.h.d = 3; return; }}\n        hdr.h.a = 1;\n"),
        ("of_a_second_single_case_switch", f"        bit<8> v = 1;\n        {_EX}\n        hdr.h.a = 7;\n"
         "        switch (hdr.h.b) { 6: { return; } }\n        v = 2;\n        hdr.h.a = v;\n        hdr.h.c = hdr.h.c + 16;\n"),
        ("nested_nothing_after", f"        if (hdr.h.c == 2) {{\n            {_EX}\n            if (hdr.h.b == 6) {{ return; }}\n"
         "            hdr.h.a = 1;\n            hdr.h.c = hdr.h.c + 16;\n        }\n"),
        ("nested_an_else_after", f"        if (hdr.h.c == 2) {{\n            {_EX}\n            if (hdr.h.b == 6) {{ return; }}\n"
         "            hdr.h.a = 1;\n        } else {\n            hdr.h.d = 9;\n        }\n"),
        ("kept_by_a_statement_after_the_if", f"        if (hdr.h.c == 2) {{\n            {_EX}\n            if (hdr.h.b == 6) {{ return; }}\n"
         "            hdr.h.a = 1;\n        }\n        hdr.h.c = hdr.h.c + 16;\n"),
        ("kept_by_a_statement_after_an_inner_if", f"        if (hdr.h.c == 2) {{\n            if (hdr.h.a == 7) {{\n                {_EX}\n"
         "                if (hdr.h.b == 6) { return; }\n                hdr.h.a = 1;\n            }\n            hdr.h.d = 4;\n        }\n")]:
    CASES.append(case(f"mutz59_return_past_a_single_case_switch_that_exits_{_name}", "front end (p4c-compatible)",
                      program(_body), frames=_FR2))

# ... also a `return` in a case of a table's action_run switch there (the walk did not go into those cases)
_TA = """    action a0() { hdr.h.d = 5; }
    action a1() { hdr.h.d = 6; }
    table t { key = { hdr.h.b: exact; } actions = { a0; a1; } const entries = { 6: a0(); } default_action = a1(); }
"""
CASES.append(case("mutz59_return_past_a_single_case_switch_that_exits_in_an_action_run_case", "front end (p4c-compatible)",
                  program(f"        {_EX}\n        switch (t.apply().action_run) {{ a0: {{ return; }} }}\n        hdr.h.a = 1;\n",
                          ingress_decls=_TA), frames=_FR2))

# fuzz_mutants --kinds cast_slice,exit_stmt,switch_wrap seed 6298 (`exit_stmt` on
# fuzz28_store_before_self_init_dropped_through_a_local_slice_store_after_the_switch): p4c's def-use
# takes the self-reading initializer `hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3}` as a definition
# of every field, so in the inlined action body `hdr.h2.c = 342; if (hdr.h2.c == 2) { return; }
# hdr.h2.c = hdr.h2.c + 3;` the last store is dead (the `if` reads only the first) -- also on the
# path the return skips it -- and p4c drops it (FrontEndLast); the initializer writes no field on
# BMv2 (a never-valid temporary), so h.c reads 342.  checkmate-p4c gave up on a body holding an `if`
# that reads the header (header_init.body_stores_dead) and kept 345.
from .fuzz28 import _FR_H2, _SELF  # noqa: E402
for _name, _act in [
        ("after_an_if_that_returns", "hdr.h2.c = 342; if (hdr.h2.c == 2) { return; } hdr.h2.c = hdr.h2.c + 3; hdr.h.d = 7;"),
        ("after_an_if_reading_another_field", "hdr.h2.c = 342; if (hdr.h2.b == 2) { hdr.h.d = 9; } hdr.h2.c = 5; hdr.h.d = 7;"),
        ("kept_a_store_the_if_reads", "hdr.h2.b = 9; if (hdr.h2.b == 2) { return; } hdr.h2.c = 5; hdr.h.d = 7;")]:
    CASES.append(case(f"mutz59_action_store_dead_before_a_self_initializer_{_name}", "front end (p4c-compatible)",
                      program("        switch (hdr.h.b) { default: { a1(1); } }\n" + _SELF,
                              ingress_decls=f"    action a1(in bit<8> q) {{ hdr.h.setValid(); {_act} }}\n"), frames=_FR_H2))

# fuzz_mutants --kinds mux_expr seed 4577 (`mux_expr` on spec5_union_member_assign): `u.y = (u.x == u.y) ?
# u.y : u.x;` with u.x valid -- p4c's SideEffectOrdering copies the `?:` into a temporary header first
# (`tmp = u_0.x; u_0.y = tmp;`), so y takes the valid copy and x goes invalid (h.a = 2, h.b = 1 on BMv2);
# checkmate-switch chose the member itself and invalidated x before copying it, as for the plain `u.y =
# u.x` (both invalid, spec5's case).  The choice is now copied first (gen_statements, a union member's
# assignment from a `?:`).
for _name, _rhs in [("choosing_the_sibling", "((u.x) == u.y) ? u.y : (u.x)"),
                    ("choosing_the_sibling_by_a_field", "(hdr.h.a == 7) ? u.x : u.y"),
                    ("choosing_itself", "(hdr.h.a != 7) ? u.x : u.y")]:
    CASES.append(case(f"mutz59_union_member_assigned_a_mux_{_name}", "header unions", program(f"""\
        u.x = hdr.h;
        if (u.x.isValid() && !u.y.isValid()) {{
            u.y = {_rhs};
            hdr.h.a = u.x.isValid() ? 8w1 : 8w2;
            hdr.h.b = u.y.isValid() ? 8w1 : 8w2;
        }}
""", top="header_union u_t { h_t x; h_t y; }\n", ingress_decls="    u_t u;"),
        frames=[(0, H(7, 7)), (0, H(3, 7))], json_path=True))

# fuzz_mutants --kinds mux_expr seed 4648 (`mux_expr` on mutz31_parser_store_into_a_stack_element_dropped_with_a_division):
# a parser store with a division under a `?:` (`hdr.s[0].a = (hdr.s[0].a == 0) ? (hdr.h.b / 3) : hdr.s[0].a;`) that
# a later store overwrites is dead for p4c's def-use, and so are SideEffectOrdering's temporaries and the ifs
# assigning them, conditions and all: p4c compiles it (FrontEndLast keeps none of it).  checkmate-p4c refused
# the division: the store, made the last statement of the block of ifs predication.dismantle_muxes builds,
# was not at the state's top level where mk_stores.settle_parser_stores judges it.
from .mutz31 import _S0_PARSER  # noqa: E402
for _name, _first in [("in_an_arm", "(hdr.s[0].a == 0) ? (hdr.h.b / 3) : hdr.s[0].a"),
                      ("in_the_condition", "((hdr.h.b / 3) != 2) ? 8w1 : hdr.s[0].a"),
                      ("nested", "(hdr.s[0].a == 0) ? (((hdr.h.b / 3) != 2) ? (hdr.h.b / 3) : hdr.s[0].a) : hdr.s[0].a")]:
    CASES.append(case(f"mutz59_parser_store_with_a_division_under_a_mux_dropped_{_name}", "front end (p4c-compatible)", program(
        "        if (sm.parser_error != error.NoError) { hdr.h.d = 0xee; }\n", fields="    h_t[2] s;\n",
        parser=_S0_PARSER.format(first=_first), deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4, payload=b"")), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(40)))]))

# fuzz_mutants seed 6376 (default kinds, `op_swap` on fuzz23_single_case_switch_copies_past_enclosing_blocks):
# `hdr.h.d = (bit<32>)v << (bit<32>)hdr.h.c;` after `switch (hdr.h.a) { 5: { v = 2; hdr.h.c = 7; } }` --
# p4c's mid end takes the single case as always run and folds the shift to 256 (MidEndLast: `hdr.h.d =
# 32w256;`), so its BMv2 back end never sees a bit<32> shift amount; checkmate-p4c refused it at once
# ("shift amount limited to 8 bits").  The check now waits for the body's constants as a division does.
CASES.append(case("mutz59_wide_shift_folded_by_a_single_case_switch_copy", "front end (p4c-compatible)", program("""
        bit<8> v = 1;
        { { switch (hdr.h.a) { 5: { v = 2; hdr.h.c = 7; } } } hdr.h.b = v; }
        hdr.h.d = (bit<32>)v << (bit<32>)hdr.h.c;
        hdr.h2.setValid();
        hdr.h2.d = (bit<32>)v + (bit<32>)hdr.h.c;
"""), frames=[(1, H(a, b, 3, 4)) for a in (5, 6) for b in (0, 9)]))

# fuzz_mutants --kinds cast_slice,exit_stmt,switch_wrap seed 6505 (`exit_stmt` on hash_into_bool): past a
# plain `return;` in a control p4c's RemoveReturns drops the rest, so its JSON has no `hash` into a bool
# and simple_switch loads it; checkmate-p4c marked the build refused (the load refusal skipped code past
# a plain `exit` only: elab_statements._plain_exit).
CASES.append(case("mutz59_load_refusal_past_a_plain_return_dropped", "front end (p4c-compatible)", program(
    "        return;\n        bool hb; hash(hb, HashAlgorithm.crc16, 16w0, { hdr.h.d }, 32w2);\n"
    "        if (hb) { hdr.h.b = 0xb1; }\n"), frames=[(1, H(1, 2, 3, 4))]))

# fuzz_mutants --kinds mux_expr seed 5106 (`mux_expr` on open8_union_store_dead_across_inlined_control): a
# sub-control's `hh.u.x = hh.h; hh.u.x.a = ~((hh.u.x.a == 0) ? 3 : hh.u.x.a);` whose caller overwrites u.x
# after the call -- p4c's def-use after inlining drops the field store and the `?:` temporary's, emptying
# SideEffectOrdering's `if (hdr.u.x.a == 0)`, but that `if` goes only after that pass: its condition's read
# keeps `hdr.u.x = hdr.h;` (FrontEndLast), so BMv2 invalidates the sibling u.w.  checkmate-p4c took the
# emptied `if` as gone before the store was judged (union_defuse._emptied, right for the caller's own ifs:
# fuzz_mutants seed 1878) and dropped the store.  The `_caller_if` twin: the same `if` in the caller's own
# body between the stores goes first (mutz42's rule), the store is dead.
from .open8 import U_HDR, U_OBS, U_PARSER, U_DEP, _u_frames  # noqa: E402
for _name, _sub, _body in [
        ("in_the_sub_control", "hh.u.x = hh.h; hh.u.x.a = ~((hh.u.x.a == 0) ? (3) : hh.u.x.a);", "s11.apply(hdr);"),
        ("in_the_sub_control_plain_if", "hh.u.x = hh.h; if (hh.u.x.a == 0) { hh.u.x.a = 3; }", "s11.apply(hdr);")]:
    CASES.append(case(f"mutz59_union_store_of_a_sub_control_kept_by_an_if_emptied_after_inlining_{_name}", "header unions", program(
        f"        if (hdr.h.b == 8) {{ {_body} hdr.u.x = hdr.h2; }}\n" + U_OBS,
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER, deparser=U_DEP,
        top=f"control S11(inout headers_t hh) {{ apply {{ {_sub} }} }}\n", ingress_decls="    S11() s11;\n"),
        frames=_u_frames((2, 8)), json_path=True))
