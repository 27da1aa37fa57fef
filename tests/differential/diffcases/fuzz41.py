"""Disagreements found by helper fuzz41 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz40's open items.  (a) A struct initializer in a single case that reads its own destination
(``meta.inner = {hdr.h2, meta.inner.v + 2};``) goes through a temporary for p4c (RemoveAliases),
then CopyStructures splits both copies by member and LocalCopyPropagation folds them: after
``meta.inner.v = hdr.h.b;`` before the switch, ``hdr.h.b + 2`` goes on in ``meta.inner.v`` after it
(BMv2 writes it where the case did not run); a later member reading an earlier one reads the old
value, a header member copied onto itself is no copy
(:func:`switch.compiler.stack_copies.struct_member_assigns`).  Guard: the copy before the switch
ended by a write of what it reads.

(b) A sub-control applied before the switch is inlined by p4c with its arguments: ``meta.m8 =
hdr.h.b; s.apply(meta.m8);`` with ``x = x + 5;`` in the body leaves ``hdr.h.b + 5`` in ``meta.m8``, so
``meta.m8 = meta.m8 + 2;`` in the case is a copy that goes on after the switch; an ``out`` argument
from an ``in`` one, an ``in`` header used in place (``y = x.b + 1``), a body with ``if (..) { exit; }``
(:func:`switch.compiler.case_entry.entry_copies`, ``_inlined_apply``; also ``x = x + 1`` before
the switch reads the earlier copy of x).  Guards: the ``in`` argument written between the apply
and the switch, a body that returns (RemoveReturns' flag joins).  A whole-header copy before the switch
(``meta.mh = hdr.h2;``) is in that state too: the case's ``hdr.h = meta.mh;`` copies ``hdr.h2``
(guard: an ``isValid()`` of it in between).

fuzz_exprs seed 19185: p4c's def-use drops a store reading a stack past its end from inside a
block, an ``if`` arm or each iteration of an unrolled loop when what follows overwrites it
(:func:`switch.compiler.dead_reads.drop_dead_indexed_reads`).
"""
from .base import PAYLOAD, H, case, program
from .fuzz40 import _FR, _KW, _OUTI

CAT = "front end (p4c-compatible)"

CASES = []

_SW = "switch (hdr.h.a) { 0x31: { %s } }"
for _name, _body in [
        ("init_reads_itself_after_a_copy", "meta.inner.v = hdr.h.b; " + _SW % "meta.inner = {hdr.h2, meta.inner.v + 2};" + _OUTI),
        ("init_reads_itself_after_a_copy_field", "meta.inner.v = hdr.h.b; " + _SW % "meta.inner = {hdr.h2, meta.inner.v + 2};"
         + " hdr.h.c = (bit<16>)meta.inner.v;"),
        ("init_reads_itself_whole_read", "meta.inner.v = hdr.h.b; " + _SW % "meta.inner = {hdr.h2, meta.inner.v + 2};"
         + " hdr.h = meta.inner.ih; hdr.h.c = (bit<16>)meta.inner.v;"),
        ("init_reads_itself_header_member", "meta.inner.v = hdr.h.b; " + _SW % "meta.inner = {meta.inner.ih, meta.inner.v + 2};" + _OUTI),
        ("init_reads_an_earlier_member", "meta.m8 = hdr.h.b; " + _SW % "meta = {meta.m8 + 1, (bit<16>)meta.m8, meta.m32, meta.mh, meta.inner};"
         + " hdr.h.c = meta.m16; hdr.h.b = meta.m8;"),
        ("init_header_member_itself_whole_read", "meta.inner.ih = hdr.h2; meta.inner.v = hdr.h.b; "
         + _SW % "meta.inner = {meta.inner.ih, meta.inner.v + 2};" + " hdr.h2 = meta.inner.ih; hdr.h.c = (bit<16>)meta.inner.v;"),
        ("nested_init_reads_itself", "meta.inner.v = hdr.h.b; " + _SW % "meta = {1, 2, 3, hdr.h2, {hdr.h2, meta.inner.v + 2}};"
         + " hdr.h.c = (bit<16>)meta.inner.v; hdr.h.b = meta.m8;"),
        ("whole_header_before", "meta.mh = hdr.h2; " + _SW % "hdr.h = meta.mh;" + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("whole_header_before_field_read_between", "meta.mh = hdr.h2; hdr.h.c = (bit<16>)meta.mh.b; " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        ("guard_whole_header_before_valid_between", "meta.mh = hdr.h2; if (hdr.h2.isValid()) { hdr.h.c = 9; } " + _SW % "hdr.h = meta.mh;"
         + " meta.mh.a = 7; hdr.eth.src[31:0] = meta.mh.d; hdr.h2 = hdr.h;"),
        # guards
        ("guard_reads_itself_no_copy_before", "meta.inner.v = hdr.h.b; hdr.h.b = 1; " + _SW % "meta.inner = {hdr.h2, meta.inner.v + 2};"
         + " hdr.h.c = (bit<16>)meta.inner.v;"),
        ]:
    CASES.append(case(f"fuzz41_struct_init_{_name}", CAT, program("        " + _body + "\n", **_KW), frames=_FR))

_TOP = """
control S1(inout bit<8> x) { apply { x = x + 5; } }
control S2(out bit<8> x, in bit<8> y) { apply { x = y + 3; } }
control S3(inout bit<8> x) { apply { if (x == 9) { x = 1; } } }
control S4(in h_t x, out bit<8> y) { apply { y = x.b + 1; } }
control S5(inout bit<8> x) { apply { if (x == 3) { exit; } x = x + 5; } }
control S6(inout bit<8> x, in bit<8> y) { apply { x = x + y; } }
control S7(inout bit<8> x) { apply { if (x == 3) { x = 4; exit; } x = x + 5; } }
control S8(inout bit<8> x) { apply { if (x == 3) { return; } x = x + 5; } }
"""
for _name, _decls, _body in [
        ("inout_adds", "S1() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("inout_adds_copied", "S1() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m16 = (bit<16>)meta.m8;" + " hdr.h.c = meta.m16;"),
        ("out_from_in", "S2() s;", "s.apply(meta.m8, hdr.h.b); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("inout_if", "S3() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("inout_header_field", "S1() s;", "s.apply(hdr.h2.b); " + _SW % "hdr.h.b = hdr.h2.b + 2;" + " hdr.h.c = (bit<16>)hdr.h.b;"),
        ("in_header_param", "S4() s;", "s.apply(hdr.h, meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("in_header_param_written_after", "S4() s;", "s.apply(hdr.h, meta.m8); hdr.h.b = 9; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8;"),
        ("body_exits", "S5() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("two_args", "S6() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8, hdr.h2.b); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("same_field_twice", "S6() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8, meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("chain_before", "S1() s;", "meta.m8 = hdr.h.b; meta.m8 = meta.m8 + 1; " + _SW % "meta.m8 = meta.m8 << 1;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("body_writes_and_exits", "S7() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        # guards
        ("guard_body_returns", "S8() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8); " + _SW % "meta.m8 = meta.m8 + 2;" + " hdr.h.c = (bit<16>)meta.m8;"),
        ("guard_arg_written_after", "S6() s;", "meta.m8 = hdr.h.b; s.apply(meta.m8, hdr.h2.b); hdr.h2.b = 1; " + _SW % "meta.m8 = meta.m8 + 2;"
         + " hdr.h.c = (bit<16>)meta.m8;"),
        ]:
    CASES.append(case(f"fuzz41_scalar_subcontrol_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls=f"    {_decls}\n", top=_TOP, **_KW), frames=_FR))



# p4c's def-use drops a store overwritten before a read also from inside a plain block (an unrolled
# loop's iteration) or an `if` arm when what follows the block or the `if` overwrites it, so BMv2
# never reads `hdr.s[i]` past the end for it (fuzz_exprs seed 19185: `{ bit<16> fi13 = ..; hdr.stk[1] =
# hdr.stk[i]; } hdr.stk[1] = {..};`); checkmate-switch read the element and dropped the packet.
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
CASES.append(case("fuzz41_dead_stack_read_store_in_a_block_or_arm", "stacks", program("""
        if (hdr.h.d[7:0] == 1) {
            { bit<8> z = 1; hdr.s[1] = hdr.s[hdr.h.a[1:0]]; }
            hdr.s[1] = {9};
        } else if (hdr.h.d[7:0] == 2) {
            if (hdr.h.b == 0x11) { hdr.s[1] = hdr.s[hdr.h.a[1:0]]; } else { hdr.h.c = 3; }
            hdr.s[1] = {7};
        } else if (hdr.h.d[7:0] == 3) {
            { { hdr.s[2].x = hdr.s[hdr.h.a[1:0]].x; } hdr.h.c = 4; }
            hdr.s[2].x = 8;
        } else if (hdr.h.d[7:0] == 4) {
            { hdr.s[1] = hdr.s[hdr.h.a[1:0]]; }
            f(hdr.h.b);
            switch (hdr.h.b) { 0x11: { hdr.h.c = 5; } 0x12: { } }
            hdr.s[1] = {4};
        }
""", headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
    top="void f(inout bit<8> v) { v = v + 1; }\n", deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
    frames=[(1, H(a, 0x11, 0x2233, d, bytes([1, 2, 3]) + PAYLOAD)) for d in (1, 2, 3, 4) for a in (0, 1, 2, 3)]))

# the same in a `for (.. in {..})` loop (p4c 1.2.4.8 takes the loop spelled out): each iteration's
# store is read only by the next one's, the last one's overwritten after the loop -- all dead
_LOOP = """
        for (bit<8> k in {1, 2, 3}) {
            hdr.s[1] = hdr.s[hdr.h.a[1:0]];
            hdr.h.c = hdr.h.c + (bit<16>)k;
        }
        hdr.s[1] = {6};
"""
_LOOP_OUT = "".join("""
        {
            bit<8> k = %d;
            hdr.s[1] = hdr.s[hdr.h.a[1:0]];
            hdr.h.c = hdr.h.c + (bit<16>)k;
        }""" % k for k in (1, 2, 3)) + "\n        hdr.s[1] = {6};\n"
_KWS = dict(headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
            deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n")
CASES.append(case("fuzz41_dead_stack_read_store_in_a_loop", "stacks", program(_LOOP, **_KWS),
                  ref_source=program(_LOOP_OUT, **_KWS),
                  frames=[(1, H(a, 0x11, 0x2233, 1, bytes([1, 2, 3]) + PAYLOAD)) for a in (0, 1, 2, 3)]))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
