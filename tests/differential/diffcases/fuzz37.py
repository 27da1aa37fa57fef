"""Disagreements found by helper fuzz37 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

A function with a return value called as a statement in the case of a single-case switch
(``switch (h.a) { 7: { h.b = 5; f1(h.b); } }``, ``bit<8> f1(inout bit<8> p) { p = p + 1; return p; }``):
p4c inlines it, and its copy-back ``h.b = p`` goes on past the switch as if the case always ran
(BMv2 writes 6 on every packet): the copy-in reads the case's values from before the call
(:func:`switch.compiler.switch_copies.single_case_copies`).
fuzz_exprs seed 18358: fuzz36's rule for a sub-control's store before a self-reading initializer
(:func:`switch.compiler.header_init.drop_stores_before_self_init`) holds with the apply in an
``if`` arm, with function calls after the store in the body, and with an ``if`` whose condition
calls a function given a field of the header.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_FR = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]
_F1 = ("bit<8> f1(inout bit<8> p) { p = p + 1; return p; }\nvoid f2(inout bit<8> p) { p = p + 1; }\n"
       "bit<8> f3(inout bit<8> p, inout bit<8> q) { p = q + p; q = 2; return p; }\n")
for _name, _body in [
        ("plain", "switch (hdr.h.a) { 7: { hdr.h.b = 5; f1(hdr.h.b); } } hdr.h.d = (bit<32>)hdr.h.b;"),
        ("of_a_field_value", "switch (hdr.h.a) { 7: { hdr.h.b = hdr.h.c[7:0]; f1(hdr.h.b); } } hdr.h.d = (bit<32>)hdr.h.b;"),
        ("void_function", "switch (hdr.h.a) { 7: { hdr.h.b = 5; f2(hdr.h.b); } } hdr.h.d = (bit<32>)hdr.h.b;"),
        ("two_arguments", "switch (hdr.h.a) { 7: { hdr.h.b = 5; meta.m8 = 9; f3(hdr.h.b, meta.m8); } } "
         "hdr.h.d = hdr.h.b ++ meta.m8 ++ 16w0;"),
        # guard: no value before the call -- the copy-back reads the argument itself, no copy
        ("guard_no_value_before", "switch (hdr.h.a) { 7: { f1(hdr.h.b); } } hdr.h.d = (bit<32>)hdr.h.b;"),
        ]:
    CASES.append(case(f"fuzz37_single_case_switch_copy_back_of_a_function_with_a_value_{_name}", CAT, program(
        "        " + _body + "\n", top=_F1), frames=_FR))

# fuzz_exprs seed 18358: a sub-control given the headers struct in place, applied in an `if` arm,
# stores a field; a later self-reading initializer that does not read it makes the store dead for
# p4c's def-use (BMv2: the field keeps its parsed value) -- fuzz36's rule, now inside a branch too
_FZ = "bit<8> fz(in bit<8> x, out bit<8> y) { y = x; return x + 1; }\n"
_SCI = _FZ + "control SC(inout headers_t hdr, inout meta_t meta, inout bit<8> p0, inout bool p1) { apply { %s } }\n"
_FR2 = [(1, H2(a2, 2, 0x3344, 0x55667788, c=0x1122)) for a2 in (1, 9)]
for _name, _sc, _body in [
        ("in_an_if_arm", "hdr.h2.c = hdr.h.c + 1;",
         "if (hdr.h.a != 0) { bit<8> l7 = 2; bool l8 = hdr.h.b == 2; sc.apply(hdr, meta, l7, l8); } hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("in_an_else_arm", "hdr.h2.c = hdr.h.c + 1;",
         "if (hdr.h.a == 1) { hdr.h.b = 3; } else { bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); } hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        # guard: read between the if and the initializer -- the store stays
        ("in_an_if_arm_read_after", "hdr.h2.c = hdr.h.c + 1;",
         "if (hdr.h.a != 0) { bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); } hdr.h.b = hdr.h2.c[7:0]; hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("with_a_function_call_after_it", "hdr.h2.c = hdr.h.c + 1; hdr.h.b = fz(hdr.h.a, meta.m8);",
         "bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("with_a_function_call_after_it_in_an_if_arm", "hdr.h2.c = hdr.h.c + 1; meta.m8 = fz(hdr.h.a, hdr.h.b) + 1;",
         "if (hdr.h.a != 0) { bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); } hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("in_an_if_arm_on_a_function_writing_the_header", "hdr.h2.c = hdr.h.c + 1;",
         "if (fz(hdr.h.a, hdr.h2.b) != 0) { bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); } hdr.h2 = {hdr.h2.a, hdr.h2.b, 6, 7};"),
        # guard: the function is given the field -- the store stays
        ("with_a_function_reading_it", "hdr.h2.c = hdr.h.c + 1; hdr.h.b = fz(hdr.h2.c[7:0], meta.m8);",
         "bit<8> l7 = 2; bool l8 = true; sc.apply(hdr, meta, l7, l8); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("mux_in_an_if_arm", "hdr.h2.c = (p1 && p1) ? (hdr.h2.c << (bit<3>)p0) : hdr.h2.c;",
         "if (hdr.h.a != 0) { bit<8> l7 = 2; bool l8 = hdr.h.b == 2; sc.apply(hdr, meta, l7, l8); } hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("mux", "hdr.h2.c = (p1 && p1) ? (hdr.h2.c << (bit<3>)p0) : hdr.h2.c;",
         "bit<8> l7 = 2; bool l8 = hdr.h.b == 2; sc.apply(hdr, meta, l7, l8); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ]:
    CASES.append(case(f"fuzz37_self_reading_initializer_after_a_sub_control_store_{_name}", CAT, program(
        "        " + _body + " hdr.h.d = (bit<32>)hdr.h2.c;\n", top=_SCI % _sc, ingress_decls="    SC() sc;"), frames=_FR2))

# fuzz_exprs seed 18175: a single-case switch's copy (`meta.m8 = (bit<8>)(int<8>)hdr.h.c;`) put into
# the inout argument of a function called inside a later expression made that argument a cast:
# checkmate-switch refused the pipeline ("assignment to cast inside an expression")
_TK = "bit<8> tk(inout bit<8> c) { c = c + 1; return c; }\nvoid tv(inout bit<8> c) { c = c + 1; }\n"
for _name, _body in [
        ("cast", "switch (hdr.h.a) { 7: { meta.m8 = (bit<8>)(int<8>)(int<16>)hdr.h.c; } } hdr.h.d = (bit<32>)tk(meta.m8) + 1; hdr.h.b = meta.m8;"),
        ("constant", "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (bit<32>)tk(meta.m8) + 1; hdr.h.b = meta.m8;"),
        ("call_statement", "switch (hdr.h.a) { 7: { meta.m8 = 3; } } tk(meta.m8); hdr.h.b = meta.m8;"),
        ("void_call_statement", "switch (hdr.h.a) { 7: { meta.m8 = 3; } } tv(meta.m8); hdr.h.b = meta.m8;"),
        ]:
    CASES.append(case(f"fuzz37_single_case_switch_copy_into_an_inout_argument_in_an_expression_{_name}", CAT, program(
        "        " + _body + "\n", top=_TK), frames=_FR))
