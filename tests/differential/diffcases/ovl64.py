"""Found by helper ovl64 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A sub-control applied with an argument that another argument of the same apply overlaps
(``s.apply(hdr, hdr.h.b)``): p4c's SideEffectOrdering copies the overlapping out/inout arguments
(and an ``in`` one an out/inout one overlaps) into temporaries of the caller before inlining, and
the copies a single-case switch leaves at the body's end reach their copy-back (LocalCopyPropagation
after inlining), so ``hdr.h.b = tmp_0`` takes the case's value whether or not the case ran.  The
cases read no invalid header (BMv2 reads a pooled PHV's stale field there).
"""
from .base import H, H2, case, program
from .fuzz28 import _HC, _HC_FR, CAT

CASES = []

_SUBS = """control S(inout headers_t hh, %s bit<8> o) {
    apply {
        switch (hh.h.b) { 1: { %s } }
    }
}
"""
_FR = [(1, H(1, b, 0x1234, 0x5678)) for b in (0, 1, 7)] + [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=b)) for b in (0, 1)]
for _name, _dir, _case, _arg, _after in [
        ("an_out_scalar_field_of_a_struct_argument", "out", "o = hh.h.a + 1;", "hdr.h.b", "hdr.h.c = (bit<16>)hdr.h.b;"),
        ("an_inout_scalar_field_of_a_struct_argument", "inout", "o = hh.h.a + 1;", "hdr.h.b", "hdr.h.c = (bit<16>)hdr.h.b;"),
        ("an_out_scalar_past_a_case_that_exits", "out", "o = hh.h.a + 1; exit;", "hdr.h.b", "hdr.h.c = (bit<16>)hdr.h.b;"),
        ("an_out_scalar_past_a_case_that_returns", "out", "o = hh.h.a + 1; return;", "hdr.h.b", "hdr.h.c = (bit<16>)hdr.h.b;"),
        ("an_out_scalar_other_header", "out", "o = hh.h.a + 1;", "hdr.h2.b", "hdr.h.c = (bit<16>)hdr.h2.b;"),
        ("an_out_scalar_read_after", "out", "o = hh.h.a + 1;", "hdr.h.b", "hdr.h.d = (bit<32>)hdr.h.b + 5;"),
        # (an `in` one: p4c's SideEffectOrdering copies it into a temporary before the apply, the struct
        # stays in place: the case's field copy of it goes on after the apply)
        ("an_in_scalar_field_of_a_struct_argument", "in", "hh.h.a = 9; hh.h.c = (bit<16>)o;", "hdr.h.a",
         "hdr.h.d = (bit<32>)hdr.h.c;"),
        ("an_in_scalar_expression_of_a_struct_argument", "in", "hh.h.a = 9; hh.h.c = (bit<16>)o;", "hdr.h.a + 3",
         "hdr.h.d = (bit<32>)hdr.h.c;"),
        ("an_in_scalar_past_a_case_that_returns", "in", "hh.h.a = 9; hh.h.c = (bit<16>)o; return;", "hdr.h.a",
         "hdr.h.d = (bit<32>)hdr.h.c;")]:
    CASES.append(case(f"ovl64_sub_control_overlapping_arguments_{_name}", CAT,
                      program(f"        s.apply(hdr, {_arg});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_SUBS % (_dir, _case)), frames=_FR))

# (guards) a header argument overlapping the struct argument: the caller's header stays where the case
# did not run (the struct temporary's copy-back comes first)
_SUBH = """control S(inout headers_t hh, %s h_t y) {
    apply {
        switch (hh.h.b) { 1: { %s } }
    }
}
"""
for _name, _dir, _case, _after in [
        ("an_out_header_copy", "out", "y = hh.h;", "hdr.eth.src[15:0] = hdr.h2.c;"),
        ("an_inout_header_copy", "inout", "y = hh.h;", "hdr.eth.src[15:0] = hdr.h2.c;"),
        ("an_inout_header_field", "inout", "y.c = hh.h.c + 1;", "hdr.eth.src[15:0] = hdr.h2.c;")]:
    _after = "if (hdr.h2.isValid()) { " + _after + " }"   # (no stale read of an invalid h2)
    CASES.append(case(f"ovl64_sub_control_overlapping_header_argument_{_name}", CAT,
                      program(f"        s.apply(hdr, hdr.h2);\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_SUBH % (_dir, _case)), frames=_FR))

# through a stack: a scalar argument that is a field of a stack element the stack argument holds
# (`s.apply(hdr.s, hdr.s[1].x)`: both through temporaries, the copy-back `hdr.s[1].x = o_0` takes
# the case's value), an `in` one read as copied in; a header argument that is an element of the
# stack argument (`s.apply(hdr.s, hdr.s[1])`: a guard, as the header argument above)
_SUBST = """control S(inout e_t[3] st, %s) {
    apply {
        switch (st[0].x) { 0x35: { %s } }
    }
}
"""
for _name, _param, _case, _arg, _after in [
        ("an_out_scalar_field_of_a_stack_element", "out bit<8> o", "o = st[0].x + 1;", "hdr.s[1].x",
         "hdr.h.c = (bit<16>)hdr.s[1].x;"),
        ("an_inout_scalar_field_of_a_stack_element", "inout bit<8> o", "o = st[0].x + 1;", "hdr.s[1].x",
         "hdr.h.c = (bit<16>)hdr.s[1].x;"),
        ("an_in_scalar_field_of_a_stack_element", "in bit<8> o", "st[1].x = 9; st[2].x = o;", "hdr.s[1].x",
         "hdr.h.c = (bit<16>)hdr.s[2].x;"),
        ("an_inout_header_element", "inout e_t y", "y = st[0];", "hdr.s[1]", "hdr.h.c = (bit<16>)hdr.s[1].x;"),
        ("an_out_header_element", "out e_t y", "y = st[0];", "hdr.s[1]", "hdr.h.c = (bit<16>)hdr.s[1].x;")]:
    CASES.append(case(f"ovl64_sub_control_overlapping_stack_argument_{_name}", CAT,
                      program(f"        s.apply(hdr.s, {_arg});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_SUBST % (_param, _case), **_HC), frames=_HC_FR))
