"""Disagreements found by helper fuzz32 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz_headers seed 8764 (frames): p4c takes a single-case switch's case as always run
# (switch_copies) and hoists the case's locals to the control, so a whole copy out of a case-local
# header or stack (`h_t[3] l = hdr.s; l.push_front(1); hdr.s = l;`, which p4c's CopyStructures
# splits element by element) reaches the exact reads after the switch: `hdr.h = hdr.s[1];` is
# `hdr.h = l_0[1];` in p4c's mid end, and `h_t[3] m = hdr.s;` copies `l_0` element by element --
# where the case did not run, `l_0` was never valid and BMv2 emits no stack element.  A stack
# copied out of another header stack goes on the same way.  checkmate followed whole-header
# copies between fixed paths only, and none whose value reads a local of the case.  Guard: reads
# of fields of the copied headers are left alone.
_SD = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"
_SI = "        hdr.s[0] = hdr.h; hdr.s[0].a = 10; hdr.s[1] = hdr.h; hdr.s[1].a = 11;\n"
_SF = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (1, 2)]
_SC = "switch (hdr.h.b) { 2: { h_t[3] l = hdr.s; l.push_front(1); hdr.s = l; } }\n        "
for _name, _eg in [
        ("seed_8764", "switch (hdr.h.b) { 2: { { h_t[3] l = hdr.s; l[0] = hdr.h; l.push_front(1); hdr.s = l; } } }\n"
                      "        { h_t[3] l = hdr.s; l[2] = hdr.s[1]; l.push_front(1); hdr.s = l; }"),
        ("into_a_stack_local", _SC + "h_t[3] m = hdr.s; hdr.s = m;"),
        ("into_a_stack_local_in_a_block", _SC + "{ h_t[3] m = hdr.s; hdr.s = m; }"),
        ("into_a_header", _SC + "hdr.h = hdr.s[1];"),
        ("field_read_left_alone", _SC + "hdr.h.c = hdr.s[1].c;"),
        ("of_a_header_local", "switch (hdr.h.b) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }\n"
                              "        h_t m = hdr.s[1]; hdr.s[2] = m;"),
        ("of_a_header_local_into_an_element", "switch (hdr.h.b) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }\n"
                                              "        hdr.s[2] = hdr.s[1];"),
        ("from_another_stack", "switch (hdr.h.b) { 2: { hdr.s = hdr.s2; } }\n"
                               "        h_t[3] m = hdr.s; m[2].a = 3; hdr.s = m;"),]:
    CASES.append(case(f"fuzz32_single_case_switch_stack_copy_{_name}", CAT, program(
        _SI, egress="        " + _eg + "\n", fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD), frames=_SF))


# fuzz31's open probe: after a single-case switch (`switch (hdr.h.a) { 7: { hdr.h.d = 1 |
# (bit<32>)hdr.h.c; } }`) a direct action call whose body or arguments read the copied field --
# and write neither it nor what the value reads -- does not end the copy: p4c leaves the call a
# call (its body, specialized with its arguments, reads the field itself), and a later read of
# `hdr.h.d` after it still reads `1 | (bit<32>)hdr.h.c` on BMv2.  checkmate ended the copy at
# any action call that named the field.  Guards: an action writing the field through an inout
# or out argument ends it.
_SW1 = "        hdr.h.d = 32w5;\n        switch (hdr.h.a) { 7: { hdr.h.d = 32w1 | (bit<32>)hdr.h.c; } }\n"
_RD = "        hdr.h.b = (bit<8>)hdr.h.d;\n        hdr.h.c = meta.m16;\n"
for _name, _call, _act in [
        ("a_body_reading_it", "b0();", "action b0() { meta.m16 = (bit<16>)hdr.h.d; }"),
        ("a_body_reading_it_and_the_value", "b0();", "action b0() { meta.m16 = hdr.h.c + (bit<16>)hdr.h.d; }"),
        ("a_body_reading_it_in_an_if", "b0();",
         "action b0() { if (hdr.h.d == 5) { meta.m16 = 1; } else { meta.m16 = 2; } }"),
        ("a_body_reading_its_validity", "b0();",
         "action b0() { meta.m16 = hdr.h.isValid() ? (bit<16>)hdr.h.d : 16w9; }"),
        ("an_in_argument", "b1(hdr.h.d);", "action b1(in bit<32> x) { meta.m16 = (bit<16>)x; }"),
        ("an_in_argument_expression", "b1(hdr.h.d + 1);", "action b1(in bit<32> x) { meta.m16 = (bit<16>)x; }"),
        ("an_inout_argument_left_alone", "b2(hdr.h.d);", "action b2(inout bit<32> x) { meta.m16 = (bit<16>)x; }"),
        ("ended_by_an_inout_argument_written", "b2(hdr.h.d);",
         "action b2(inout bit<32> x) { meta.m16 = (bit<16>)x; x = x + 1; }"),
        ("ended_by_an_out_argument", "b2(hdr.h.d);", "action b2(out bit<32> x) { meta.m16 = 2; x = 7; }"),]:
    CASES.append(case(f"fuzz32_single_case_switch_copy_past_an_action_reading_it_{_name}", CAT, program(
        _SW1 + f"        {_call}\n" + _RD, ingress_decls=f"    {_act}\n"),
        frames=[(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]))


# Around seed 8764 (probes): p4c's walk carries a single-case switch's copies -- whole-header ones
# too -- past a table apply whose actions write neither side (its keys reading the field read
# the field itself), past a direct action call (above), past a push_front of another stack, into
# every case of a later switch (on a value or on a table's action_run; what all cases keep goes
# on after it, a single case's state is the state after it), and the later single-case switch's
# own copies read them: `switch (..) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }` then
# `switch (..) { 7: { h_t l = hdr.s[1]; .. hdr.s[0] = l; } }` copies `l_0` into the second `l`.
# checkmate ended every copy at a table apply, a whole-header one at an action call or
# push_front, and at a later switch any case wrote.  Guard: a case copying the field into what
# the copy reads (`hdr.h.c = (bit<16>)hdr.h.d;`) leaves no copy of it (it would read itself).
_T = ("    action n() { meta.m8 = 1; }\n    action w() { hdr.s[1].b = 7; }\n"
      "    table t { key = { hdr.h.a: exact; } actions = { n; } default_action = n(); }\n"
      "    table t2 { key = { hdr.h.a: exact; } actions = { w; n; } default_action = w(); }\n")
_SL = "switch (hdr.h.b) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }\n        "
_SN = "switch (hdr.h.b) { 2: { hdr.s[1] = hdr.s2[0]; } }\n        "
for _name, _eg in [
        ("past_a_table_apply", _SL + "t.apply(); hdr.s[2] = hdr.s[1];"),
        ("of_another_header_past_a_table_apply", _SN + "t.apply(); hdr.s[2] = hdr.s[1];"),
        ("ended_by_a_table_writing_it", _SL + "t2.apply(); hdr.s[2] = hdr.s[1];"),
        ("past_an_action_call", _SL + "n(); hdr.s[2] = hdr.s[1];"),
        ("of_another_header_past_an_action_call", _SN + "n(); hdr.s[2] = hdr.s[1];"),
        ("past_a_push_front_of_another_stack", _SL + "hdr.s2.push_front(1); hdr.s[2] = hdr.s[1];"),
        ("local_without_initializer", "switch (hdr.h.b) { 2: { h_t l; l.setValid(); l.a = 1; hdr.s[1] = l; } }\n"
                                      "        hdr.s[2] = hdr.s[1];"),
        ("into_a_second_single_case_switch", _SL + "switch (hdr.h.a) { 7: { h_t l = hdr.s[1]; l.a = 6; hdr.s[0] = l; } }\n"
                                                   "        hdr.s[2] = hdr.s[0]; hdr.h = hdr.s[1];"),]:
    CASES.append(case(f"fuzz32_single_case_switch_whole_copy_{_name}", CAT, program(
        _SI, egress="        " + _eg + "\n", egress_decls=_T, fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD),
        frames=_SF))

_TS = ("    action n() { meta.m8 = 1; }\n    action w() { hdr.h.d = 77; }\n"
       "    table t { key = { hdr.h.b: exact; } actions = { n; } default_action = n(); }\n"
       "    table tw { key = { hdr.h.b: exact; } actions = { w; n; } default_action = n(); }\n"
       "    table tk { key = { hdr.h.d: exact; } actions = { n; } default_action = n(); }\n")
for _name, _mid in [
        ("past_a_table_apply", "t.apply();"),
        ("past_a_table_keyed_on_it", "tk.apply();"),
        ("ended_by_a_table_writing_it", "tw.apply();"),
        ("into_the_cases_of_a_later_switch", "switch (hdr.h.b) { 0: { hdr.h.c = (bit<16>)hdr.h.d; } 1: { meta.m8 = 2; } }"),
        ("into_a_later_switch_one_case_writing_it",
         "switch (hdr.h.b) { 0: { hdr.h.c = (bit<16>)hdr.h.d; hdr.h.d = 3; } 1: { meta.m8 = (bit<8>)hdr.h.d; } }"),
        ("into_an_action_run_switch", "switch (t.apply().action_run) { n: { meta.m8 = (bit<8>)hdr.h.d; } }"),
        ("read_by_a_second_single_case_switch",
         "switch (hdr.h.b) { 1: { hdr.h.c = (bit<16>)hdr.h.d; } }\n        hdr.h.d = (bit<32>)hdr.h.c;"),]:
    CASES.append(case(f"fuzz32_single_case_switch_copy_{_name}", CAT, program(
        _SW1 + f"        {_mid}\n        hdr.h.b = (bit<8>)hdr.h.d;\n", ingress_decls=_TS),
        frames=[(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]))


# The same whole-header copy read where p4c makes copies of its own (measured on its mid end): in
# the branches of a later `if` (a branch writing it ends it after the `if`), as an arm of a `?:`
# that is the whole value (p4c's `tmp = l_0;` per branch) and as a function's `in` argument (the
# inliner's `x = l_0;`).  checkmate ended the copy at any such use.  Guard: `==` in a condition.
_G = "bit<16> g(in h_t x) { return x.isValid() ? 16w1 : 16w2; }\n"
for _name, _eg in [
        ("read_in_an_if_branch", _SL + "if (hdr.h.a == 7) { hdr.s[2] = hdr.s[1]; }"),
        ("ended_by_an_if_branch_writing_it",
         _SL + "if (hdr.h.a == 7) { hdr.s[2] = hdr.s[1]; } else { hdr.s[1].a = 1; } hdr.h = hdr.s[1];"),
        ("read_as_an_arm_of_a_conditional", _SL + "hdr.s[2] = hdr.h.a == 7 ? hdr.s[1] : hdr.s[0];"),
        ("read_as_a_function_argument", _SL + "hdr.h.c = g(hdr.s[1]);"),
        ("ended_by_a_comparison", _SL + "if (hdr.s[1] == hdr.s[0]) { hdr.h.c = 1; } hdr.s[2] = hdr.s[1];"),]:
    CASES.append(case(f"fuzz32_single_case_switch_whole_copy_{_name}", CAT, program(
        _SI, egress="        " + _eg + "\n", top=_G, fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD),
        frames=_SF))


# fuzz_exprs seed 15607 (P4Info): in a loop body, what follows a statement that always ends the
# iteration -- `if ((4w8 - 4w1) != 0) { continue; }`, folded -- is unreachable; p4c 1.2.4.8 has no
# loops and the reference spells each iteration out with the rest under `if (!(c)) {..}`, which it
# folds away, so an action called only there is not in the P4Info.  checkmate counted the call.
# Guard: a condition that does not fold keeps it.
_LD = "    action a0() { hdr.h.c = 7; }\n"
for _name, _cond in [("after_a_folded_continue", "(4w8 - 4w1) != 0"), ("kept_after_a_conditional_continue", "hdr.h.b == 1")]:
    _src = "        for (bit<8> i in {1, 2}) { if (%s) { continue; } a0(); }\n" % _cond
    _ref = "".join("        { bit<8> i = %d; if (!(%s)) { a0(); } }\n" % (i, _cond) for i in (1, 2))
    CASES.append(case(f"fuzz32_loop_action_call_{_name}", CAT, program(_src, ingress_decls=_LD),
                      frames=[(1, H(7, b, 0x1234)) for b in (0, 1)], ref_source=program(_ref, ingress_decls=_LD)))


# p4c inlines a sub-control applied after the switch using its header and stack arguments in place,
# so the body's exact reads of a parameter holding the copy read it too: `s2.apply(hdr.s, ..)`
# with `st[2] = st[1];` in the body is `hdr.s[2] = l_0;`, an `in h_t x` given `hdr.s[1]` with
# `y = x;` copies `l_0`.  checkmate passed whole-header copies into sub-control bodies only
# through struct arguments.  Guard: a body writing the parameter's field ends it.
_ST = ("control S2(inout h_t[3] st, in h_t x, out h_t y) { apply { y = x; st[2] = st[1]; } }\n"
       "control S3(inout h_t x) { apply { x.a = x.a + 1; } }\n"
       "control S4(in h_t x, inout h_t y) { apply { y = x; } }\n")
_SC2 = "switch (hdr.h.b) { 2: { h_t[3] l = hdr.s; l.push_front(1); hdr.s = l; } }\n        "
for _name, _eg in [
        ("into_a_sub_control_stack_parameter", _SL + "s2.apply(hdr.s, hdr.h, hdr.h2);"),
        ("of_a_stack_into_a_sub_control_stack_parameter", _SC2 + "s2.apply(hdr.s, hdr.h, hdr.h2);"),
        ("into_a_sub_control_in_parameter", _SL + "s2.apply(hdr.s2, hdr.s[1], hdr.h2); hdr.s[2] = hdr.h2;"),
        ("into_a_sub_control_in_parameter_copied_out", _SL + "s4.apply(hdr.s[1], hdr.s[2]);"),
        ("ended_in_a_sub_control_writing_its_field", _SL + "s3.apply(hdr.s[1]); hdr.s[2] = hdr.s[1];"),]:
    CASES.append(case(f"fuzz32_single_case_switch_whole_copy_{_name}", CAT, program(
        _SI, egress="        " + _eg + "\n", egress_decls="    S2() s2;\n    S3() s3;\n    S4() s4;\n", top=_ST,
        fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD + "\n        pkt.emit(hdr.h2);"), frames=_SF))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
