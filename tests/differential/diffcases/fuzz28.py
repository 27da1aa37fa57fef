"""Disagreements found by helper fuzz28 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H2, case, program

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
