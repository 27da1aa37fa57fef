"""Disagreements found by helper fuzz40 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz39's open items, a sub-control applied with different arguments (p4c's inliner copies them
through temporaries) whose body leaves a single-case switch's copy at its end (p4c's
LocalCopyPropagation carries it into the copy-back as if the case always ran,
:func:`switch.compiler.subcontrol_copies.copy_back_copies`):

* a case that returns below the body's top level -- the switch inside a block, or a returning
  switch inside an ``if`` after the copying one: the copy is carried (RemoveReturns puts only what
  follows the statement holding the return under ``if (!flag)``); guards: the returning switch
  before the copying one (the copying switch is under ``if (!flag)``, its join ends the copy), a
  case that returns under an ``if``;
* members of a nested struct of a struct parameter (``m.inner.ih``, ``m.inner.v``): CopyStructures
  splits the copy-back down to them; guards: a header's field (``m.inner.ih.d``: the header is
  copied back whole), a struct parameter that is itself the nested struct.

A whole-struct assignment in a single case -- a struct initializer ``meta.inner = {hdr.h2,
hdr.h2.b + 2}``, a copy ``meta.inner = l``, nested initializers -- is one copy per member for p4c
(CopyStructures runs before LocalCopyPropagation), so each member's copy goes on after the switch:
BMv2 reads ``hdr.h2.b + 2`` in ``meta.inner.v`` where the case did not run
(:func:`switch.compiler.stack_copies.struct_member_assigns`).  Guards: an initializer reading its own
destination, the switch under an ``if``, two cases (a member written after the switch ends only
its own copy).

The copies the statements before a single-case switch leave (``meta.m8 = hdr.h.b;``) are in
LocalCopyPropagation's state as it enters the case, so ``meta.m8 = meta.m8 + 2;`` there is a copy of
``hdr.h.b + 2`` that goes on after the switch -- BMv2 writes it on every packet -- and a value reading
a path written after the switch is the value before (:func:`switch.compiler.switch_copies.entry_copies`).
Also from before a plain block or an ``if`` whose arm holds the switch, through a sub-control applied
before it (p4c has inlined its body), and a ``?:`` before it (p4c's temporary).  Guards: what the
value before reads, or the path itself, written between it and the switch; a read after the ``if``
around the switch (a join).  A dead store to a struct local's member after the switch
(``l.v = 1;``, ``l`` not read again) ends no copy (p4c's front end removed it).
"""
from .base import H, case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

_PARSER = start_state() + """
    state parse_h { pkt.extract(hdr.h); pkt.extract(hdr.h2); transition accept; }"""
_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);"
_KW = dict(meta="    h_t mh;\n    in_t inner;\n", headers="struct in_t { h_t ih; bit<8> v; }", parser=_PARSER, deparser=_DEP)


def _h(a: int, d: int, b: int = 2) -> bytes:
    return bytes([a, b, 0x12, 0x34]) + d.to_bytes(4, "big")


_FR = [(1, H(a1, b1, 0x1234, 0x11223344, _h(a2, 0x55667788, b2) + bytes(range(0x20, 0x30))))
       for a1 in (0x31, 1) for a2 in (0x31, 1) for b1, b2 in ((2, 7), (7, 2))]
_TOP = """
control S20(inout h_t st, in h_t x) { apply { if (x.b == 7) { switch (x.a) { 0x31: { return; } } } switch (x.a) { 0x31: { st = x; } } } }
control S21(inout h_t st, in h_t x) { apply { { switch (x.a) { 0x31: { st = x; return; } } } } }
control S22(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; } } if (x.b == 7) { switch (x.a) { 0x31: { return; } } } } }
control S23(inout h_t st, in h_t x) { apply { if (x.b == 2) { switch (x.a) { 0x31: { st = x; return; } } } } }
control S24(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; if (x.b == 7) { return; } } } } }
control S25(inout meta_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.inner.ih = x; m.inner.v = x.b + 1; } } } }
control S26(inout meta_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.inner = {x, x.b + 2}; } } } }
control S27(inout in_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.ih = x; m.v = x.b + 3; } } } }
control S28(inout meta_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.inner.ih.d = x.d; } } } }
"""
_OUT = (" if (meta.mh.isValid()) { hdr.eth.src[47:16] = meta.mh.d; hdr.eth.dst[7:0] = meta.mh.a;"
        " hdr.eth.dst[15:8] = 0x77; }")
_OUTI = (" if (meta.inner.ih.isValid()) { hdr.eth.src[47:16] = meta.inner.ih.d; hdr.eth.dst[7:0] = meta.inner.ih.a;"
         " hdr.eth.dst[15:8] = 0x77; } hdr.eth.dst[23:16] = meta.inner.v;")
_TWO = "s3.apply(meta.mh, hdr.h2); s3.apply(meta.mh, hdr.h);"
_TWOM = "s3.apply(meta, hdr.h2); s3.apply(meta, hdr.h);"
for _name, _ctl, _body in [
        ("case_returns_in_a_block", "S21", _TWO + _OUT),
        ("return_switch_in_an_if_after", "S22", _TWO + _OUT),
        ("nested_struct_members", "S25", _TWOM + _OUTI),
        ("nested_struct_whole", "S26", _TWOM + _OUTI),
        # guards
        ("guard_return_switch_in_an_if_before", "S20", _TWO + _OUT),
        ("guard_case_returns_switch_in_an_if", "S23", _TWO + _OUT),
        ("guard_case_return_in_an_if", "S24", _TWO + _OUT),
        ("guard_struct_param_of_nested", "S27", "s3.apply(meta.inner, hdr.h2); s3.apply(meta.inner, hdr.h);" + _OUTI),
        ("guard_nested_struct_header_field", "S28", _TWOM + _OUTI),
        ]:
    CASES.append(case(f"fuzz40_copied_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls=f"    {_ctl}() s3;\n", top=_TOP, **_KW), frames=_FR))

_LOCAL = "in_t l = {hdr.h2, hdr.h2.b + 2}; if (hdr.h.b == 7) { l.v = 0x19; } switch (hdr.h.a) { 0x31: { meta.inner = l; } }"
_INIT = "switch (hdr.h.a) { 0x31: { meta.inner = {hdr.h2, hdr.h2.b + 2}; } }"
for _name, _body in [
        ("init", _INIT + _OUTI),
        ("init_then_field", _INIT + " hdr.h.c = (bit<16>)meta.inner.v;"),
        ("from_a_local", "in_t l = {hdr.h2, hdr.h2.b + 2}; if (hdr.h.b == 7) { l.v = 0x19; }"
         " switch (hdr.h.a) { 0x31: { meta.inner = l; } } l.ih.setInvalid();" + _OUTI),
        ("from_a_local_dead_store_after", _LOCAL + " l.v = 1; l.ih.setInvalid();" + _OUTI),
        ("guard_from_a_local_store_read_after", _LOCAL + " l.v = 1; hdr.h2.a = l.v;" + _OUTI),
        ("init_nested", "switch (hdr.h.a) { 0x31: { meta = {1, 2, 3, hdr.h2, {hdr.h2, hdr.h2.b + 2}}; } }"
         " hdr.h.c = (bit<16>)meta.inner.v; hdr.h.b = meta.m8;" + _OUTI),
        ("header_member_init", "switch (hdr.h.a) { 0x31: { meta.inner = {{1, 2, 3, 4}, hdr.h2.b + 2}; } }" + _OUTI),
        # guards
        ("guard_init_reads_itself", "switch (hdr.h.a) { 0x31: { meta.inner = {hdr.h2, meta.inner.v + 2}; } }" + _OUTI),
        ("member_write_after", _INIT + " meta.inner.v = meta.inner.v + 1;" + _OUTI),
        ("guard_in_an_if", f"if (hdr.h.b == 7) {{ {_INIT} }}" + _OUTI),
        ("guard_two_cases", "switch (hdr.h.a) { 0x31: { meta.inner = {hdr.h2, hdr.h2.b + 2}; } 0x32: { } }" + _OUTI),
        ]:
    CASES.append(case(f"fuzz40_single_case_struct_copy_{_name}", CAT, program("        " + _body + "\n", **_KW), frames=_FR))


# the copies the statements before a single-case switch leave go into the case's values (p4c's
# LocalCopyPropagation enters the case with them): a value reading its own destination may no longer
_SW = "switch (hdr.h.a) { 0x31: { %s } }"
for _name, _body in [
        ("reads_itself", "meta.m8 = hdr.h.b; " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("reads_itself_local", "bit<8> t = hdr.h.b; " + _SW % "t = t + 2;" + " hdr.h.c = (bit<16>)t;"),
        ("reads_itself_header_field", "hdr.h2.b = hdr.h.b |+| 3; " + _SW % "hdr.h2.b = hdr.h2.b + 2;" + " hdr.h.c = (bit<16>)hdr.h2.b;"),
        ("reads_itself_chain", "meta.m16 = (bit<16>)hdr.h.b; meta.m8 = (bit<8>)meta.m16 + 1; "
         + _SW % "meta.m8 = meta.m8 << 1;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("source_written_after", "meta.m16 = hdr.h.c; " + _SW % "meta.m8 = (bit<8>)meta.m16 + 1;"
         + " meta.m16 = 7; hdr.h.b = meta.m8; hdr.h.c = meta.m16;"),
        ("mux_before", "meta.m8 = hdr.h.c == 0x1234 ? hdr.h.b : 5; " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("mux_before_copied", "meta.m8 = hdr.h.b == 7 ? hdr.h2.b : 5; " + _SW % "meta.m16 = (bit<16>)meta.m8;" + " hdr.h.c = meta.m16;"),
        ("in_a_block", "meta.m8 = hdr.h.b; { " + _SW % "meta.m8 = meta.m8 + 2;" + " } hdr.h.c = (bit<16>)meta.m8;"),
        ("in_an_if", "meta.m8 = hdr.h.b; if (hdr.h.c == 0x1234) { " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.d = (bit<32>)meta.m8; }"),
        ("in_an_else", "meta.m8 = hdr.h.b; if (hdr.h.c != 0x1234) { hdr.h.b = 1; } else { bit<8> z = 1; " + _SW % "meta.m8 = meta.m8 + z;" + " hdr.h.d = (bit<32>)meta.m8; }"),
        ("after_a_subcontrol", "s9.apply(hdr, meta); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        # guards: what the value before reads, or the path itself, is written before the switch
        ("guard_source_written_between", "meta.m8 = hdr.h.b; hdr.h.b = 3; " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("guard_in_an_if_read_after", "meta.m8 = hdr.h.b; if (hdr.h.c == 0x1234) { " + _SW % "meta.m8 = meta.m8 + 2;"
         + " } hdr.h.d = (bit<32>)meta.m8;"),
        ("guard_written_in_an_if_between", "meta.m8 = hdr.h.b; if (hdr.h.c == 0x1234) { meta.m8 = 1; } "
         + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ]:
    CASES.append(case(f"fuzz40_single_case_value_before_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls="    S9() s9;\n",
        top="control S9(inout headers_t h, inout meta_t m) { apply { m.m8 = h.h.b + 1; } }\n", **_KW), frames=_FR))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
