"""Found by helper fuzz58 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, H2, case, program
from .fuzz28 import _HC, _HC_FR, CAT

CASES = []

# fuzz50's open theory: an action only the flow past a single-case switch whose case exits calls, with a
# local whose store holds a call.  p4c's second front-end SimplifyDefUse (after FunctionsInliner and
# RemoveReturns) drops every store to it and to the `?:` temporaries, keeping the calls: `bool v =
# hdr.h.isValid(); if (v) ..` is false, `bit<8> v = tick(hdr.h.b); hdr.h.c = (v == 2) ? 3 : 4;` writes
# h.b = 0 and h.c = 0.  checkmate-p4c left such an action alone (right past a case that returns: the
# first pass keeps them -- the guards).
_TOP = "bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\nbit<8> g(in bit<8> x) { return x + 3; }\n"
_DECLS = """\
    action l6() { bool v = hdr.o.isValid(); hdr.h.c = v ? 16w3 : 16w4; }
    action l7() { bool v = hdr.h.isValid(); if (v) { hdr.h.c = 3; } else { hdr.h.c = 4; } }
    action l8() { bit<8> v = tick(hdr.h.b); hdr.h.c = (v == 2) ? 16w3 : 16w4; }
    action l9() { bit<8> v = g(hdr.h.b); hdr.h.c = (v == 4) ? 16w3 : 16w4; }
    action m3() { bool v = hdr.o.isValid(); hdr.h.c = (bit<16>)(bit<1>)v + 16w8; }
    action m4() { bit<8> v = tick(hdr.h.b); hdr.h.d = (bit<32>)v; hdr.h.c = (bit<16>)((hdr.h.b == 2) ? 8w3 : 8w4); }
    action g3() { h_t l; l.setValid(); l.a = 3; hdr.h2 = l; }
    action g4() { h_t l = hdr.h; l.setValid(); hdr.h2 = l; hdr.h.c = (bit<16>)l.b; }
    table t2 { actions = { l7; l8; } default_action = l7(); }
"""
_X = "        switch (hdr.h.a) { 6: { exit; } }\n"
_R = "        switch (hdr.h.a) { 6: { return; } }\n"
for _name, _body in [
        ("an_is_valid_read_in_a_mux", _X + "        l6();\n"),
        ("an_is_valid_read_in_an_if", _X + "        l7();\n"),
        ("an_is_valid_read_in_a_cast", _X + "        m3();\n"),
        ("a_function_value_read_in_a_mux", _X + "        l8();\n"),
        ("a_function_without_inout_read_in_a_mux", _X + "        l9();\n"),
        ("a_function_value_and_a_mux", _X + "        m4();\n"),
        ("an_is_valid_read_in_a_table_action", _X + "        t2.apply();\n"),
        ("a_set_valid_call", _X + "        g3();\n"),
        ("a_set_valid_call_after_a_copy", _X + "        g4();\n"),
        ("a_set_valid_call_past_a_case_that_returns", _R + "        g3();\n"),
        # (guards: past a case that returns the first pass keeps them; a call in the visited flow keeps them)
        ("an_is_valid_read_in_a_mux_past_a_case_that_returns", _R + "        l6();\n"),
        ("a_function_value_read_in_a_mux_past_a_case_that_returns", _R + "        l8();\n"),
        ("an_is_valid_read_also_called_before_the_switch", "        l7();\n        hdr.h.c = 1;\n" + _X + "        l7();\n")]:
    CASES.append(case(f"fuzz58_unvisited_action_local_holding_{_name}", CAT,
                      program(_body, ingress_decls=_DECLS, top=_TOP, **_HC), frames=_HC_FR))

# fuzz50's open theory: a whole-header copy a sub-control body's single-case switch leaves at its end
# goes on in the caller after the apply (p4c inlined the body before LocalCopyPropagation), as the
# field copies do (subcontrol_copies.end_copies_after), a case that exits or returns included:
# `switch (hh.h.b) { 1: { hh.h2 = hh.h; } }` in the body, `hdr.h = hdr.h2;` after the apply keeps h
# on every packet.  checkmate-p4c carried only the field copies.
_SUB = """control S(inout headers_t hh, inout meta_t mm) {
    apply {
        %s
    }
}
"""
_FR = [(1, H(1, b, 0x1234, 0x5678)) for b in (0, 1)] + [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=b)) for b in (0, 1)]
_SW = "switch (hh.h.b) { 1: { hh.h2 = hh.h; } }"
for _name, _body, _after in [
        ("into_an_assignment", _SW, "hdr.h = hdr.h2;"),
        ("of_the_other_header", "switch (hh.h.b) { 1: { hh.h = hh.h2; } }", "hdr.h2 = hdr.h;"),
        ("into_a_declaration", _SW, "h_t x = hdr.h2; hdr.h = x;"),
        ("past_a_case_that_exits", "switch (hh.h.b) { 1: { hh.h2 = hh.h; exit; } }", "hdr.h = hdr.h2;"),
        ("past_a_case_that_returns", "switch (hh.h.b) { 1: { hh.h2 = hh.h; return; } }", "hdr.h = hdr.h2;"),
        ("past_a_field_store_of_its_source", _SW, "hdr.h.a = 5; hdr.h = hdr.h2;"),
        ("into_a_mux_arm", _SW, "hdr.h = hdr.h.a == 1 ? hdr.h2 : hdr.h;"),
        ("read_by_field", _SW, "hdr.h.c = hdr.h2.c + 1;"),   # (a guard: fields read the header itself)
        # (a local of the body -- a control local after p4c's inlining -- as the body left it)
        ("of_a_local_of_the_body", "h_t l = hh.h; l.c = 16w77; switch (hh.h.b) { 1: { hh.h2 = l; } }", "hdr.h = hdr.h2;"),
        ("of_a_local_of_the_case", "switch (hh.h.b) { 1: { h_t l = hh.h; l.c = 16w77; hh.h2 = l; } }", "hdr.h = hdr.h2;"),
        ("of_a_local_the_body_changes_later", "h_t l = hh.h; switch (hh.h.b) { 1: { hh.h2 = l; } } l.c = 16w99; "
         "hh.eth.src[15:0] = l.c;", "hdr.h = hdr.h2;"),
        ("of_a_local_past_a_second_apply", "h_t l = hh.h; l.c = l.c + 16w77; switch (hh.h.b) { 1: { hh.h2 = l; } }",
         "hdr.h.d = 1; s.apply(hdr, meta); hdr.eth.src = 0; hdr.h = hdr.h2;")]:
    CASES.append(case(f"fuzz58_sub_control_single_case_switch_whole_header_copy_{_name}", CAT,
                      program("        s.apply(hdr, meta);\n        " + _after + "\n",
                              ingress_decls="    S() s;\n", top=_SUB % _body), frames=_FR))

# the same through header arguments, which p4c's inliner uses in place (`in` ones only read):
# `switch (x.b) { 1: { y = x; } }` in `S(inout h_t x, inout h_t y)`, `s.apply(hdr.h, hdr.h2); hdr.h =
# hdr.h2;` keeps h; a field copy `y.c = x.c + 1` reads hdr.h.c + 1 after the apply.
_SUBH = """control S(inout h_t x, inout h_t y) {
    apply {
        %s
    }
}
control S2(in h_t x, inout h_t y) {
    apply {
        %s
    }
}
"""
_SWH = "switch (x.b) { 1: { y = x; } }"
for _name, _body, _after in [
        ("whole_header_copy", _SWH, "s.apply(hdr.h, hdr.h2); hdr.h = hdr.h2;"),
        ("whole_header_copy_the_other_way", "switch (y.b) { 1: { x = y; } }", "s.apply(hdr.h2, hdr.h); hdr.h = hdr.h2;"),
        ("whole_header_copy_applied_twice", _SWH, "s.apply(hdr.h, hdr.h2); hdr.h = hdr.h2; s.apply(hdr.h2, hdr.h); hdr.h2 = hdr.h;"),
        ("whole_header_copy_from_an_in_argument", _SWH, "s2.apply(hdr.h, hdr.h2); hdr.h = hdr.h2;"),
        ("field_copy", "switch (x.b) { 1: { y.c = x.c + 1; } }", "s.apply(hdr.h, hdr.h2); hdr.h.d = (bit<32>)hdr.h2.c;")]:
    CASES.append(case(f"fuzz58_sub_control_single_case_switch_through_header_arguments_{_name}", CAT,
                      program("        " + _after + "\n", ingress_decls="    S() s;\n    S2() s2;\n",
                              top=_SUBH % (_body, _SWH)), frames=_FR))

# and through fuzz_headers' S2 (a stack, an `in` header, an `out` header): an `out` header argument is
# used in place too (made invalid first: `y = x;` in the case, `hdr.s[0] = hdr.p;` after the apply reads
# hdr.o, hdr.p stays invalid where the case did not run); an `in` one that an out/inout argument
# overlaps (`s2.apply(hdr.s, hdr.s[1], ..)`) is copied in, its copy read after the apply (`st[1].x =
# x.x + 3;` there, `hdr.s[1].x` after it reads the old x + 3 on every packet).
_S2 = """control S2(inout e_t[3] st, in e_t x, out e_t y, in bit<8> ix) {
    apply {
        %s
    }
}
"""
_HCP = dict(_HC, fields=_HC["fields"] + "    e_t p;\n",
            deparser=_HC["deparser"].replace("pkt.emit(hdr.h2);", "pkt.emit(hdr.h2); pkt.emit(hdr.p);"))
for _name, _body, _after, _args in [
        ("an_out_header_copy", "y = x;", "hdr.s[0] = hdr.p;", "hdr.s, hdr.o, hdr.p"),
        ("an_out_header_field", "y.setValid(); y.x = x.x + 1;", "hdr.h.c = (bit<16>)hdr.p.x;", "hdr.s, hdr.o, hdr.p"),
        ("a_stack_element_copy", "st[0] = x;", "hdr.p = hdr.s[0];", "hdr.s, hdr.o, hdr.p"),
        ("a_stack_element_field", "st[1].x = x.x + 3;", "hdr.h.c = (bit<16>)hdr.s[1].x;", "hdr.s, hdr.o, hdr.p"),
        ("a_stack_element_copy_of_an_aliased_in_header", "st[0] = x;", "hdr.o = hdr.s[0];", "hdr.s, hdr.s[1], hdr.p"),
        ("a_stack_element_field_of_an_aliased_in_header", "st[1].x = x.x + 3;", "hdr.h.c = (bit<16>)hdr.s[1].x;",
         "hdr.s, hdr.s[1], hdr.p"),
        ("an_out_header_copy_of_an_aliased_in_header", "y = x;", "hdr.s[0] = hdr.o;", "hdr.s, hdr.s[1], hdr.o")]:
    CASES.append(case(f"fuzz58_sub_control_single_case_switch_through_stack_and_header_arguments_{_name}", CAT,
                      program(("        hdr.o.setValid(); hdr.o.x = hdr.o.x + 0x17;\n" if "hdr.o," in _args else "")   # (no stale read)
                              + f"        s2.apply({_args}, hdr.h.b);\n        {_after}\n", ingress_decls="    S2() s2;\n",
                              top=_S2 % f"switch (ix) {{ 1: {{ {_body} }} }}", **_HCP), frames=_HC_FR))

# a scalar argument no other argument overlaps is used in place too (p4c's `meta.m8 = hdr.h.a + 1;` in the
# case): `switch (hh.h.b) { 1: { o = hh.h.a + 1; } }` in `S(inout headers_t hh, out bit<8> o)`,
# `s.apply(hdr, meta.m8); hdr.h.c = (bit<16>)meta.m8;` writes h.a + 1 on every packet; an `in` one is
# read as the argument.
_SUBS = """control S(inout headers_t hh, %s bit<8> o) {
    apply {
        switch (hh.h.b) { 1: { %s } }
    }
}
"""
for _name, _dir, _case, _after in [
        ("an_out_scalar", "out", "o = hh.h.a + 1;", "hdr.h.c = (bit<16>)meta.m8;"),
        ("an_inout_scalar", "inout", "o = hh.h.a + 1;", "hdr.h.c = (bit<16>)meta.m8;"),
        ("an_in_scalar_read", "in", "hh.h.d = (bit<32>)o;", "hdr.h.c = (bit<16>)hdr.h.d;")]:
    CASES.append(case(f"fuzz58_sub_control_single_case_switch_through_{_name}", CAT,
                      program(f"        meta.m8 = 0x21;\n        s.apply(hdr, meta.m8);\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_SUBS % (_dir, _case)), frames=_FR))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
