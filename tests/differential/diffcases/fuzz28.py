"""Disagreements found by helper fuzz28 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_A342 = "    action a1(in bit<8> q) { hdr.h.setValid(); hdr.h2.c = 342; hdr.h.d = 7; }\n"
_SELF = "        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3};\n        hdr.h.c = hdr.h2.c;\n"
_FR_H2 = [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)), (1, H2(0x41, 0x42, 0x4344, 0x45464748, b=2))]
_TICK = "bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\nbit<8> rd(in bit<8> c) { return c + 1; }\n"
for _name, _body in [
        ("a_function_call_in_an_expression_of_another_case",
         "        switch (hdr.h.b) { 1: { hdr.h.a = tick(meta.m8); } default: { a1(1); } }\n" + _SELF),
        ("a_function_call_in_an_expression_after_the_store",
         "        hdr.h2.c = 342;\n        hdr.h.a = tick(meta.m8);\n        bit<8> l = tick(meta.m8) + 1;\n"
         "        tick(meta.m8);\n" + _SELF),
        ("kept_a_function_call_reading_the_field",
         "        hdr.h2.c = 342;\n        hdr.h.a = rd(hdr.h2.c[7:0]);\n" + _SELF),
        ("kept_a_function_call_reading_the_field_in_a_case",
         "        hdr.h2.c = 342;\n        switch (hdr.h.b) { 1: { hdr.h.a = rd(hdr.h2.c[7:0]); } }\n" + _SELF),
        ("a_read_of_another_field_after_the_call",
         "        switch (hdr.h.b) { default: { a1(1); hdr.h.a = hdr.h2.b; } }\n" + _SELF),
        ("a_local_slice_store_after_the_switch",
         "        h_t l = {1, 2, 3, 4};\n        switch (hdr.h.b) { default: { a1(1); } }\n"
         "        l.d[15:0] = hdr.h.c;\n" + _SELF)]:
    CASES.append(case(f"fuzz28_store_before_self_init_dropped_through_{_name}", CAT,
                      program(_body, ingress_decls=_A342, top=_TICK), frames=_FR_H2))

# fuzz_exprs seed 11091 (fuzz27's open item): p4c inlines a function called in the single case of
# a `switch` (`p_1 = arg; ..body..; arg = p_1;`) before LocalCopyPropagation, which takes the case
# as always run (switch_copies): after the switch the out/inout argument reads what the inlined
# body leaves -- the parameter's own variable where its last write follows a join (an `if`, or
# anything after a conditional `return`: RemoveReturns' flag), zero where the case did not run,
# else the value it was last given, in the caller's terms (measured on p4c's mid end: `p = q + 1`
# reads `hdr.h.d[7:0] + 1`).  checkmate-switch read the argument itself.  Guard: an inout the body
# adds to (`p = p + 1`) reads itself, no copy.
_FN_FR = [(1, H(a, b, 0x0102, 0x03040506 + a)) for a, b in ((5, 1), (6, 1), (5, 2), (6, 7), (6, 2))]
for _name, _fn, _call in [
        ("the_parameter_after_an_if", "void f(out bit<8> p, in bool c) { p = 1; if (c) { p = 2; } }",
         "f(hdr.h.b, hdr.h.b == 1);"),
        ("the_parameter_after_a_conditional_return",
         "void f(out bit<8> p, in bool c) { p = 1; if (c) { return; } p = 2; }", "f(hdr.h.b, hdr.h.b == 1);"),
        ("the_parameter_of_an_inout_after_an_if", "void f(inout bit<8> p, in bool c) { if (c) { p = 2; } }",
         "f(hdr.h.b, hdr.h.b == 1);"),
        ("a_constant", "bit<8> f(out bit<8> p) { p = 3; return 4; }", "f(hdr.h.b);"),
        ("the_value_of_an_in_argument", "void f(out bit<8> p, in bit<8> q) { p = q + 1; }",
         "f(hdr.h.b, hdr.h.d[7:0]);"),
        ("kept_an_inout_reading_itself", "void f(inout bit<8> p) { p = p + 1; }", "f(hdr.h.b);"),]:
    CASES.append(case(f"fuzz28_function_out_argument_in_a_single_case_switch_reads_{_name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ {_call} }} }}\n        hdr.h.c = (bit<16>)hdr.h.b;\n", top=_fn + "\n"),
        frames=_FN_FR))

# fuzz_exprs seed 11091 itself: the function's loop may return (`for (.. in {..})` over two values,
# spelled out for p4c), so its last pass -- the parameter's last write -- runs under RemoveReturns'
# flag: after the switch the argument reads the parameter's variable (zero where the case did not run).
_LOOP_FN = "void f(out bit<8> p, in bool c) {{ p = 1; {loop} }}\n"
_LOOP = "for (bit<8> i in {2, 3}) { if (c) { return; } p = p + i; }"
_LOOP_REF = "if (c) { return; } p = p + 2; if (c) { return; } p = p + 3;"
_LOOP_BODY = "        switch (hdr.h.a) { 5: { f(hdr.h.b, hdr.h.b == 1); } }\n        hdr.h.c = (bit<16>)hdr.h.b;\n"
CASES.append(case("fuzz28_function_out_argument_in_a_single_case_switch_reads_the_parameter_after_a_loop_that_may_return",
                  CAT, program(_LOOP_BODY, top=_LOOP_FN.format(loop=_LOOP)), frames=_FN_FR,
                  ref_source=program(_LOOP_BODY, top=_LOOP_FN.format(loop=_LOOP_REF))))

# fuzz_exprs seed 12077: a store whose value reads a stack at a run-time index is dead for p4c's
# def-use when the target is overwritten before anything reads it -- also across a local's
# declaration (`int<7> l14 = ..;` between), so BMv2 never reads the element past the stack's end
# and forwards the packet; checkmate-p4c's walk (dead_reads) stopped at the declaration and
# checkmate-switch dropped it.  Guard: a declaration reading the target keeps the store.
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
_STK = dict(headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
            deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n")
_STK_FR = [(1, H(a, 0x11, 0x2233, 0x44556677) + bytes([0x30 + a, 0x40 + a, 0x50 + a])) for a in (0, 1, 2, 3)]
for _name, _decl in [("a_declaration", "bit<8> l = ~hdr.h.b;"), ("a_declaration_without_a_value", "bit<8> l;"),
                     ("kept_a_declaration_reading_it", "bit<8> l = hdr.s[2].x;")]:
    CASES.append(case(f"fuzz28_dead_stack_read_across_{_name}", "stacks", program(
        f"        hdr.s[2] = hdr.s[hdr.h.a[1:0]];\n        {_decl}\n        hdr.s[2] = hdr.s[0];\n"
        "        hdr.h.c = (bit<16>)l;\n", **_STK),
        frames=_STK_FR[:3] if _name.startswith("kept") else _STK_FR))

# fuzz_exprs seed 12177: p4c's LocalCopyPropagation keeps a whole-header copy made in the single
# case of a `switch` too (switch_copies): after the switch an assignment or declaration whose value
# is the copied header reads the header it was copied from (`hdr.s[0] = hdr.s[1];` is `hdr.s[0] =
# hdr.o;` in p4c's mid end, even where the case did not run; `hdr.h = hdr.h2;` after `hdr.h2 =
# hdr.h` is gone) -- reads of its fields are left alone and go on with the copy; an isValid() of
# either header, or a write to either, ends it (guards).  checkmate-switch copied hdr.s[1].
_HC = dict(headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n    e_t o;\n", parser="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); transition select(hdr.h.b) {
                  1: s1; 2: s2; default: accept; } }
    state s1 { pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]); pkt.extract(hdr.s[2]); transition accept; }
    state s2 { pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]); pkt.extract(hdr.o); transition accept; }
""", deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s); pkt.emit(hdr.o); pkt.emit(hdr.h2);\n")
_HC_FR = [(1, H(a, b, 0x2233, 0x44556677) + bytes([0x30 + a, 0x40 + a, 0x50 + a, 0x60])) for a in (5, 6) for b in (1, 2)]
_SW = "        switch (hdr.h.a) { 5: { hdr.s[1] = hdr.o; } }\n"
for _name, _body in [
        ("an_assignment", _SW + "        hdr.s[0] = hdr.s[1];\n"),
        ("a_declaration", _SW + "        e_t l = hdr.s[1];\n        hdr.h.c = (bit<16>)l.x;\n"),
        ("past_a_field_read", _SW + "        hdr.h.d = (bit<32>)hdr.s[1].x;\n        hdr.s[0] = hdr.s[1];\n"),
        ("of_a_stack_element", "        switch (hdr.h.a) { 5: { hdr.o = hdr.s[2]; } }\n        hdr.s[0] = hdr.o;\n"),
        ("back_into_its_source", "        switch (hdr.h.a) { 5: { hdr.h2 = hdr.h; } }\n        hdr.s[0].x = hdr.h.b;\n"
         "        hdr.h = hdr.h2;\n"),
        ("kept_an_is_valid_between", _SW + "        hdr.h.c = hdr.s[1].isValid() ? 16w1 : 16w2;\n        hdr.s[0] = hdr.s[1];\n"),
        ("kept_an_is_valid_of_the_source", _SW + "        hdr.h.c = hdr.o.isValid() ? 16w1 : 16w2;\n        hdr.s[0] = hdr.s[1];\n"),
        ("kept_a_write_to_the_source", _SW + "        hdr.o.x = 3;\n        hdr.s[0] = hdr.s[1];\n")]:
    # (a declaration's value is read field by field: where hdr.o is not parsed (b = 1) l.x would be
    # a stale PHV value, which depends on BMv2's pool and timing -- only frames that parse it)
    CASES.append(case(f"fuzz28_whole_header_copy_in_a_single_case_switch_read_by_{_name}", CAT,
                      program(_body, **_HC), frames=_HC_FR[1::2] if _name == "a_declaration" else _HC_FR))

# fuzz_exprs seed 12281: p4c drops the copy-in/copy-out of an action's parameter the body never uses
# when the argument has a run-time stack index (`tmp = x; a(); x = tmp;` folds away) -- but not when
# an earlier out/inout argument of the same call is copied back over what it may name
# (`a(hdr.s[1], hdr.s[i].x)`: p4c's mid end keeps `hdr.s[1] = tmp; hdr.s[i].x = tmp_1;`), so for
# i = 1 BMv2 restores x after the header's copy-back.  checkmate-switch left the copy out and sent
# the body's 9.  Guards: the other order (the later copy-back p4c folds away) and another field.
_UNUSED = ("    action a(out e_t q0, inout bit<8> q) { q0 = {9}; }\n"
           "    action b(inout bit<8> q, out e_t q0) { q0 = {9}; }\n"
           "    action c(out bit<8> q0, inout bit<8> q) { q0 = 9; }\n")
_FR_IDX = [(1, H(a, 0x11, 0x2233, 0x44556677) + bytes([0x30 + a, 0x40 + a, 0x50 + a, 0x60 + a, 0x70 + a, 0x80 + a]))
           for a in (0, 1)]
_STK2 = dict(_STK, headers="header e_t { bit<8> x; }\nheader f_t { bit<8> x; bit<8> y; }\n", fields="    e_t[3] s;\n    f_t[2] t;\n",
             parser=_STK_PARSER.replace("pkt.extract(hdr.s[2]);", "pkt.extract(hdr.s[2]); pkt.extract(hdr.t[0]); pkt.extract(hdr.t[1]);"),
             deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s); pkt.emit(hdr.t);\n")
for _name, _call in [("after_an_earlier_copy_back_over_it", "a(hdr.s[1], hdr.s[hdr.h.a[0:0]].x);"),
                     ("kept_elided_before_a_later_copy_back", "b(hdr.s[hdr.h.a[0:0]].x, hdr.s[1]);"),
                     ("kept_elided_after_a_copy_back_of_another_field", "c(hdr.t[1].x, hdr.t[hdr.h.a[0:0]].y);")]:
    CASES.append(case(f"fuzz28_unused_run_time_indexed_action_argument_copied_back_{_name}", "stacks",
                      program(f"        {_call}\n", ingress_decls=_UNUSED, **_STK2), frames=_FR_IDX))

# fuzz_exprs seed 12502 (REJECT): a constant list in a function p4c inlines at two places or more
# is p4c 1.2.4.8's crash (inlined_lists) -- but not when only a store to a local nothing reads names
# it (`tuple<..> tp = {..}; l1 = tp[0];`, l1 never read): p4c's front-end def-use removes the store
# and then the unused declaration before it inlines.  checkmate-p4c refused the program.
CASES.append(case("fuzz28_constant_tuple_read_only_by_a_dead_store_in_a_function_inlined_twice", CAT, program(
    "        hdr.h.c[0:0] = (bit<1>)f(hdr.h.a == 1);\n        f(hdr.h.b == 1);\n",
    top="bool f(in bool p) { bool l1 = p; tuple<bool, bit<8>> tp = {true, 8w3}; l1 = tp[0]; return !p; }\n"),
    frames=[(1, H(a)) for a in (0, 1)]))

# fuzz_exprs seed 12568 (P4Info): p4c's strength reduction slices the side of a `++` a slice's range
# lies in (`(x ++ 11w0)[2:0]` is `11w0[2:0]`, 0), so `switch` on it is constant: only the case
# matching 0 (or `default`) stays and an action called only in another case is not in the P4Info,
# nor a table applied only under `if` on it; checkmate-p4c kept them (fold_conditions).  A slice of
# the high side folds when that side does (`(8w3 ++ x)[10:9]` is 1).
_CAT_ACT = ("    action s7() { hdr.h.c = 7; }\n    action s9() { hdr.h.c = 9; }\n"
            "    table t9 { actions = { s9; } default_action = s9(); }\n")
for _name, _body in [
        ("switch_case", "        switch (((hdr.h.a[1:0] ++ 11w0))[2:0]) { 4: { s7(); } default: { hdr.h.b = 2; } }\n"),
        ("if_on_the_high_side", "        if ((8w3 ++ hdr.h.b)[10:9] != 1) { t9.apply(); } else { hdr.h.b = 3; }\n")]:
    CASES.append(case(f"fuzz28_slice_of_a_concat_folded_{_name}", CAT, program(_body, ingress_decls=_CAT_ACT),
                      frames=[(1, H(a, a)) for a in (0, 4, 0xee)]))
