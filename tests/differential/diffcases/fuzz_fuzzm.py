"""Minimal programs reduced from p4c's own sample programs run with random table entries and
frames (tests/differential/fuzz_samples.py, helper fuzzm, issue #15); each names the sample it
was found with."""
from .base import H2, VALUES, Entry, case, program

CAT = "random entries and frames on real programs"

# samples/gauntlet_exit_combination_3-bmv2.p4: an action bound in a table's actions list with an
# `inout` argument, whose body writes it and exits -- BMv2 keeps the write (p4c substitutes the
# argument into the action), as for a direct call; a slice argument goes through a temporary
# that the exit skips, and two bound arguments naming the same field too
BOUND_EXIT = """
    action w(inout bit<8> v) { v = 0x55; exit; }
    action w2(inout bit<16> v, inout bit<8> u) { v = 0x1234; u = 0x66; exit; }
    action ws(inout bit<4> v) { v = 0xa; exit; }
    action wh(inout h_t x) { x.c = 0x77; exit; }
    table t { key = { hdr.h.a: exact; }
              actions = { w(hdr.h.b); w2(hdr.h.c, hdr.h.b); ws(hdr.h.d[7:4]); wh(hdr.h2); NoAction; } }"""
BOUND_ENTRIES = [Entry("I.t", {"hdr.h.a": 1}, "I.w"), Entry("I.t", {"hdr.h.a": 0xff}, "I.w2"),
                 Entry("I.t", {"hdr.h.a": 0}, "I.ws"), Entry("I.t", {"hdr.h.a": 0xee}, "I.wh")]
BOUND_FRAMES = VALUES + [(1, H2(5, 6, 7, 8, b=9, c=10, d=11))]
# the same bound arguments without exit, where the body also reads/writes the field directly,
# and one field bound twice: whether a bound argument is a copy or the field itself shows
BOUND_ALIAS = """
    action r(inout bit<8> v) { v = 0x10; hdr.h.c = (bit<16>)v + (bit<16>)hdr.h.b; hdr.h.b = 0x20; }
    action rr(inout bit<8> v, inout bit<8> u) { v = v + 1; u = u + 2; hdr.h.c = (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { r(hdr.h.b); rr(hdr.h.b, hdr.h.b); NoAction; } }"""
# samples/gauntlet_uninitialized_bool_struct-bmv2.p4: a bound `out` argument the action never
# writes is copied out uninitialized (zeros / an invalid header on BMv2), not left as it was
BOUND_OUT = """
    action o(out bit<16> v) { }
    action oh(out h_t x, out bit<8> y) { y = 0x42; }
    action op(out bit<16> v, inout bit<8> w) { w = w + 1; }
    table t { key = { hdr.h.a: exact; } actions = { o(hdr.h.c); oh(hdr.h2, hdr.h.b); op(hdr.h.c, hdr.h.b); NoAction; } }"""
# samples/issue1607-bmv2.p4 (`header elem`): checkmate-p4c's device config lists each header
# type's fields under the type's name, and the loader took the names elem/t/ret for type tags
NAMED = dict(headers="header elem { bit<8> x; bit<8> y; }\nheader t { bit<16> z; }\nheader ret { bit<32> w; }\n",
             parser="""    state start { pkt.extract(hdr.eth); pkt.extract(hdr.e); pkt.extract(hdr.t1); pkt.extract(hdr.r);
                  transition accept; }""",
             fields="    elem e;\n    t t1;\n    ret r;\n",
             deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.r); pkt.emit(hdr.t1); pkt.emit(hdr.e);")

CASES = [
    case("fuzzm_table_bound_inout_exit", CAT,
         program("        t.apply(); hdr.h.b = 0x22; hdr.h.d = 0x33;\n", ingress_decls=BOUND_EXIT),
         frames=BOUND_FRAMES, entries=BOUND_ENTRIES),
    case("fuzzm_table_bound_inout_alias", CAT, program("        t.apply();\n", ingress_decls=BOUND_ALIAS),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.r"), Entry("I.t", {"hdr.h.a": 0xff}, "I.rr")]),
    case("fuzzm_table_bound_out_unwritten", CAT, program("        t.apply();\n", ingress_decls=BOUND_OUT),
         frames=BOUND_FRAMES, entries=[Entry("I.t", {"hdr.h.a": 1}, "I.o"), Entry("I.t", {"hdr.h.a": 0xee}, "I.oh"),
                                       Entry("I.t", {"hdr.h.a": 0xff}, "I.op")]),
    case("fuzzm_header_types_named_elem_t_ret", CAT,
         program("        hdr.e.x = hdr.e.y + 1; hdr.t1.z = hdr.t1.z ^ 0xffff; hdr.r.w = hdr.r.w + 3;\n", **NAMED)),
]
