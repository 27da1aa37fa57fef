"""Disagreements found by helper fuzz42 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz41's open items.  (a) A sub-control instance applied at several places with different arguments
gets them through p4c's temporaries (``x_0``, one per instance and parameter), and its inliner
leaves the body's reads of an ``in`` (or ``inout``) header or struct reading the temporary: ``s.apply(hdr.h,
meta.m8);`` with ``y = x.b + 1;`` in the body is ``meta.m8 = x_0.b + 1`` for LocalCopyPropagation, which
a later ``hdr.h.b = 9;`` does not end -- a single case's ``meta.m8 = meta.m8 + 2;`` is ``x_0.b + 3``,
written on every packet after the switch (:func:`switch.compiler.case_entry._inlined_apply`, told
which instances by :func:`switch.compiler.subcontrol_args.differing_instances` before the later
applies are elaborated).  checkmate-switch keeps the ``in`` temporary as BMv2 does (assign_header:
an invalid argument leaves the fields of the previous apply).  Guards: the same arguments at every
apply (used in place), the instance's next apply before the switch (or in an ``if`` there).

(b) A whole-header copy before the switch (``meta.mh = hdr.h2;``) is not ended by an exact copy of
it or of its source elsewhere (``meta.inner.ih = meta.mh;``, ``meta.inner.ih = hdr.h2;``): the case's
``hdr.h = meta.mh;`` still copies ``hdr.h2`` (:func:`switch.compiler.stack_copies.whole_step`, now
also for :func:`switch.compiler.case_entry.entry_copies`).  Inside the case too.  Open (no case): a store
between them that p4c's front end drops as dead because of a store after the switch (``meta.mh =
hdr.h2; hdr.h2 = hdr.h; switch (..) { .. } ..; hdr.h2 = hdr.h;``) still ends it here.
"""
from .base import H, case, program
from .fuzz40 import _FR, _KW, _h

CAT = "front end (p4c-compatible)"

CASES = []

_SW = "switch (hdr.h.a) { 0x31: { %s } }"
_TOP = """
control S4(in h_t x, out bit<8> y) { apply { y = x.b + 1; } }
control S9(in h_t x, inout bit<8> y) { apply { y = y + x.b; } }
control S10(inout h_t x, out bit<8> y) { apply { y = x.b + 1; x.c = 5; } }
control S11(in headers_t h, out bit<8> y) { apply { y = h.h.b + 1; } }
control S12(inout headers_t h, out bit<8> y) { apply { y = h.h.b + 1; h.h2.a = 3; } }
control S14(in h_t x, in bit<8> k, out bit<8> y) { apply { y = x.b + k; } }
"""
_AFTER = " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr.h2, meta.m16[7:0]);"
for _name, _body in [
        ("in_header_several_applies", "s.apply(hdr.h, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("in_header_several_applies_header_invalid", "s.apply(hdr.h, meta.m8); hdr.h.setInvalid(); " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("in_header_several_applies_whole_write", "s.apply(hdr.h, meta.m8); hdr.h = hdr.h2; " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("in_header_several_applies_no_write", "s.apply(hdr.h, meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("guard_in_header_several_applies_second_before", "s.apply(hdr.h, meta.m8); s.apply(hdr.h2, meta.m16[7:0]); hdr.h.b = 9; "
         + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ]:
    CASES.append(case(f"fuzz42_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls="    S4() s;\n", top=_TOP, **_KW), frames=_FR))

for _name, _body in [
        ("inout_scalar_in_header_several_applies", "meta.m8 = 3; s.apply(hdr.h, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ]:
    CASES.append(case(f"fuzz42_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls="    S9() s;\n", top=_TOP, **_KW), frames=_FR))
for _name, _decls, _body in [
        ("inout_header_several_applies", "S10() s;", "s.apply(hdr.h, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("in_struct_several_applies", "S11() s;", "s.apply(hdr, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr, meta.m16[7:0]);"),
        ("inout_struct_several_applies", "S12() s;", "s.apply(hdr, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr, meta.m16[7:0]);"),
        ("in_header_several_applies_in_an_if", "S4() s;", "if (hdr.h2.b == 7) { s.apply(hdr.h, meta.m8); } hdr.h.b = 9; "
         + _SW % "meta.m8 = meta.m8 + 2;" + _AFTER),
        ("in_header_invalid_keeps_the_temporarys_fields", "S4() s;", "s.apply(hdr.h2, meta.m16[7:0]); hdr.h.setInvalid(); s.apply(hdr.h, meta.m8); "
         + "hdr.eth.dst[7:0] = meta.m8; hdr.eth.dst[15:8] = meta.m16[7:0];"),
        ("guard_in_header_same_args_twice", "S4() s;", "s.apply(hdr.h, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr.h, meta.m8);"),
        ("guard_in_header_second_apply_in_an_if_before", "S4() s;", "s.apply(hdr.h, meta.m8); if (hdr.h2.b == 7) { s.apply(hdr.h2, meta.m16[7:0]); } hdr.h.b = 9; "
         + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ]:
    CASES.append(case(f"fuzz42_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls=f"    {_decls}\n", top=_TOP, **_KW), frames=_FR))

for _name, _decls, _body in [
        ("in_case_in_header", "S4() s;", _SW % "s.apply(hdr.h, meta.m8);" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("in_case_inout_struct", "S12() s;", _SW % "s.apply(hdr, meta.m8);" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("in_case_inout_struct_after_a_store", "S12() s;", _SW % "hdr.h.b = hdr.h2.b + 1; s.apply(hdr, meta.m8);" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("in_case_inout_struct_after_a_switch", "S12() s;", "meta.m8 = 1; " + _SW % "meta.m8 = meta.m8 + 1;" + " "
         + _SW % "hdr.h.b = hdr.h2.b + 1; s.apply(hdr, meta.m8);" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("spelled_differently", "S14() s;", "s.apply(hdr.h, 1, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr.h, 8w1, meta.m8);"),
        ("spelled_with_a_cast", "S14() s;", "s.apply(hdr.h, (bit<8>)1, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr.h, 1, meta.m8);"),
        ("spelled_with_names", "S14() s;", "s.apply(x = hdr.h, k = 1, y = meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8; s.apply(hdr.h, 1, meta.m8);"),
        ("in_case_inout_scalar", "S9() s;", "meta.m8 = 3; " + _SW % "s.apply(hdr.h, meta.m8);" + " hdr.h.c = (bit<16>)meta.m8;"),
        ]:
    CASES.append(case(f"fuzz42_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls=f"    {_decls}\n", top=_TOP, **_KW), frames=_FR))

# (b) a whole-header copy before the switch, then an exact whole copy of the header in between
for _name, _body in [
        ("whole_header_before_exact_copy_between", "meta.mh = hdr.h2; hdr.eth.src[15:0] = 1; hdr.h = meta.mh; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_exact_copy_to_another_between", "meta.mh = hdr.h2; meta.inner.ih = meta.mh; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_exact_copy_from_source_between", "meta.mh = hdr.h2; meta.inner.ih = hdr.h2; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_exact_copy_read_after", "meta.mh = hdr.h2; meta.inner.ih = meta.mh; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h; hdr.eth.dst[7:0] = meta.inner.ih.b;"),
        ("whole_header_before_source_function_argument_between", "meta.mh = hdr.h2; hdr.eth.dst[7:0] = fb(hdr.h2); " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_copy_function_argument_between", "meta.mh = hdr.h2; hdr.eth.dst[7:0] = fb(meta.mh); " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_source_mux_arm_between", "meta.mh = hdr.h2; meta.inner.ih = hdr.h.b == 7 ? hdr.h2 : hdr.h; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h; hdr.eth.dst[7:0] = meta.inner.ih.b;"),
        ("guard_whole_header_before_source_compared_between", "meta.mh = hdr.h2; if (hdr.h2 == hdr.h) { hdr.eth.dst[7:0] = 1; } "
         + _SW % "hdr.h = meta.mh;" + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_in_case_source_copied_after", _SW % "meta.mh = hdr.h2; hdr.h.b = 3;" + " meta.inner.ih = hdr.h2; hdr.h = meta.mh;"
         + " hdr.eth.dst[7:0] = meta.inner.ih.b;"),
        ("whole_header_in_case_copy_copied_after", _SW % "meta.mh = hdr.h2; hdr.h.b = 3;" + " meta.inner.ih = meta.mh; hdr.h = meta.inner.ih;"
         + " hdr.eth.dst[7:0] = meta.inner.ih.b;"),
        ("whole_header_before_exact_copy_of_dest_between", "meta.mh = hdr.h2; hdr.h = meta.mh; " + _SW % "hdr.h2.a = 5; hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ]:
    CASES.append(case(f"fuzz42_struct_init_{_name}", CAT, program("        " + _body + "\n", top="bit<8> fb(in h_t x) { return x.b; }\n", **_KW), frames=_FR))

# fuzz_exprs seed 19998 (REJECT): a list of constants in a function p4c inlines twice is its crash
# ("write set already set") unless its front-end def-use drops every use first -- a store a later
# assignment of the same list overwrites before a read (inlined_lists._overwritten_stores)
_TWICE = "        f0(hdr.h.a, hdr.h); f0(hdr.h.b, hdr.h2);\n"
for _name, _body in [
        ("store_overwritten", "tuple<bit<9>> tp1 = {9w508}; p1.c[9:1] = tp1[0]; p1.c = (bit<16>)p0;"),
        ("store_overwritten_by_a_covering_slice", "tuple<bit<9>> tp1 = {9w508}; p1.c[9:1] = tp1[0]; p1.c[15:0] = 5;"),
        ("store_overwritten_by_an_initializer", "tuple<bit<9>> tp1 = {9w508}; p1.c[9:1] = tp1[0]; bit<8> z = p0; "
         "p1 = {z, z, (bit<16>)z, 7};"),
        ("local_store_overwritten", "tuple<bit<9>> tp1 = {9w508}; bit<16> q = 0; q[9:1] = tp1[0]; p1.c = 1; q = 7; p1.c = q;"),
        ("in_a_branch", "if (p0 != 0) { tuple<bit<9>> tp1 = {9w508}; p1.c[9:1] = tp1[0]; p1.c = 5; }"),
        ]:
    CASES.append(case(f"fuzz42_inlined_constant_list_{_name}", CAT, program(
        _TWICE, top=f"void f0(in bit<8> p0, inout h_t p1) {{ {_body} }}\n", **_KW), frames=_FR[:2]))

# fuzz_tables seed 3399 (FRAMES): p4c's front-end def-use takes an extern's `out` argument as written,
# so a table's action storing the place (its only use) before `execute_meter(i, place)` or
# `r.read(place, i)` after the apply loses the store; BMv2 writes nothing there for `i` out of range,
# the place keeps its parsed value (dead_reads.drop_action_stores_before_extern_outs)
_EXT = """
    meter(4, MeterType.packets) mt;
    register<bit<8>>(4) r;
    action a4() { hdr.h2.b = hdr.h.b ^ 8w0x9b; meta.m8 = 1; }
    action a12() { mt.execute_meter((bit<32>)hdr.h.a[2:0], hdr.h2.b); }
    action a13() { r.read(hdr.h2.b, (bit<32>)hdr.h.a[2:0]); }
    table t { key = { hdr.h.b: exact; } actions = { a4; NoAction; } const default_action = a4(); }
"""
_EXT_FR = [(1, H(a1, 7, 0x1234, 0x11223344, _h(0x31, 0x55667788, 2) + bytes(range(0x20, 0x30)))) for a1 in (0x31, 0x36, 0x05)]
for _name, _body in [
        ("meter_after_the_apply", "t.apply(); a12();"),
        ("register_read_after_the_apply", "t.apply(); hdr.h.c = 5; a13();"),
        ("meter_in_the_body_after_the_apply", "t.apply(); mt.execute_meter((bit<32>)hdr.h.a[2:0], hdr.h2.b);"),
        ("guard_read_between", "t.apply(); hdr.h.c = (bit<16>)hdr.h2.b; a12();"),
        ]:
    CASES.append(case(f"fuzz42_table_action_store_before_an_extern_out_{_name}", CAT, program(
        f"        {_body}\n", ingress_decls=_EXT, **_KW), frames=_EXT_FR))

# fuzz_exprs seed 20114 (FRAMES): a single case's copy goes on into a function's inout argument that is
# a slice of the copied field (`tick(hdr.h.c[9:8]);`): p4c's inlined copy-in reads the copy's bits, the
# copy-back writes the slice of the field (switch_copies._copy_in)
_TICK = "bit<8> tick(inout bit<2> c) { c = c + 1; return (bit<8>)c; }\n"
for _name, _body in [
        ("call_statement", _SW % "hdr.h.c = 0x39a;" + " tick(hdr.h.c[9:8]);"),
        ("call_in_a_value", _SW % "hdr.h.c = 0x39a;" + " hdr.h.b = tick(hdr.h.c[9:8]) + 1;"),
        ("nested_slice", _SW % "hdr.h.c = 0x39a;" + " tick(hdr.h.c[11:4][5:4]);"),
        ]:
    CASES.append(case(f"fuzz42_single_case_copy_into_an_inout_slice_argument_{_name}", CAT, program(
        f"        {_body}\n", top=_TICK, **_KW), frames=_FR))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
