"""Minimal programs reduced from p4c's own sample programs run with random table entries and
frames (tests/differential/fuzz_samples.py, helper fuzzm, issue #15); each names the sample it
was found with."""
from .base import H2, VALUES, Entry, case, eth, hdr, program

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
# samples/parser-inline-test13.p4: a sub-parser whose `out`/`inout` struct argument it extracts
# into, and which fails (PacketTooShort) after a first extract
SUB_TOP = """parser SP(packet_in pkt, out inner_t s) { state start { pkt.extract(s.x); pkt.extract(s.y); transition accept; } }
parser SPH(packet_in pkt, out h_t x, out h_t y) { state start { pkt.extract(x); pkt.extract(y); transition accept; } }
parser SPI(packet_in pkt, inout inner_t s) { state start { pkt.extract(s.x); pkt.extract(s.y); transition accept; } }
"""
SUB_PARSER = """    SP() sp; SPH() sph; SPI() spi;
    state start { pkt.extract(hdr.eth);
                  transition select(hdr.eth.etype) { 0x1234: a; 0x1235: b; 0x1236: c; default: accept; } }
    state a { sp.apply(pkt, hdr.s); transition accept; }
    state b { sph.apply(pkt, hdr.s.x, hdr.s.y); transition accept; }
    state c { spi.apply(pkt, hdr.s); transition accept; }"""
# the same instance applied in two states with different arguments: p4c passes them through
# temporaries, copied back only when the sub-parser accepts (an error keeps the caller's values)
SUB2_TOP = """parser SQ(packet_in pkt, out inner_t s, inout h_t w) {
    state start { pkt.extract(s.x); w.b = 0x77; transition select(s.x.a) { 1: two; 2: reject; default: accept; } }
    state two { pkt.extract(s.y); transition accept; } }
"""
SUB2_PARSER = """    SQ() sq;
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h2);
                  transition select(hdr.eth.etype) { 0x1234: a; 0x1235: b; default: accept; } }
    state a { sq.apply(pkt, hdr.s, hdr.h2); transition accept; }
    state b { inner_t loc; sq.apply(pkt, loc, hdr.h2); hdr.s = loc; transition accept; }"""
SUB2_FRAMES = [(1, eth(t) + hdr(9, 9, 9, 9) + tail) for t in (0x1234, 0x1235)
               for tail in (hdr(1, 2, 3, 4) + hdr(5, 6, 7, 8) + b"\x99", hdr(1, 2, 3, 4) + b"\x05\x06",
                            hdr(2, 2, 2, 2) + hdr(5, 6, 7, 8), hdr(3, 3, 3, 3) + b"\x42", b"\x01")]
SUB_FRAMES = [(1, eth(t) + tail) for t in (0x1234, 0x1235, 0x1236)
              for tail in (hdr(1, 2, 3, 4) + hdr(5, 6, 7, 8) + b"\x99", hdr(1, 2, 3, 4) + b"\x05\x06\x07", b"\x01\x02")]

CASES = [
    case("fuzzm_table_bound_inout_exit", CAT,
         program("        t.apply(); hdr.h.b = 0x22; hdr.h.d = 0x33;\n", ingress_decls=BOUND_EXIT),
         frames=BOUND_FRAMES, entries=BOUND_ENTRIES),
    case("fuzzm_table_bound_inout_alias", CAT, program("        t.apply();\n", ingress_decls=BOUND_ALIAS),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.r"), Entry("I.t", {"hdr.h.a": 0xff}, "I.rr")]),
    case("fuzzm_table_bound_out_unwritten", CAT, program("        t.apply();\n", ingress_decls=BOUND_OUT),
         frames=BOUND_FRAMES, entries=[Entry("I.t", {"hdr.h.a": 1}, "I.o"), Entry("I.t", {"hdr.h.a": 0xee}, "I.oh"),
                                       Entry("I.t", {"hdr.h.a": 0xff}, "I.op")]),
    case("fuzzm_subparser_error_after_extract", CAT,
         program("        if (sm.parser_error == error.PacketTooShort) { hdr.eth.src = 0xee; }\n", headers="struct inner_t { h_t x; h_t y; }\n",
                 fields="    inner_t s;\n", top=SUB_TOP, parser=SUB_PARSER,
                 deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.s.x); pkt.emit(hdr.s.y);"), frames=SUB_FRAMES),
    case("fuzzm_subparser_two_call_sites_temporaries", CAT,
         program("        if (sm.parser_error == error.PacketTooShort) { hdr.eth.src = 0xee; }\n",
                 headers="struct inner_t { h_t x; h_t y; }\n", fields="    inner_t s;\n", top=SUB2_TOP,
                 parser=SUB2_PARSER, deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h2); pkt.emit(hdr.s.x); pkt.emit(hdr.s.y);"),
         frames=SUB2_FRAMES),
    # one call site: the `out` struct argument's headers are reset where the call starts (p4c)
    case("fuzzm_subparser_out_struct_reset", CAT,
         program("", headers="struct inner_t { h_t x; h_t y; }\n", fields="    inner_t s;\n",
                 top="parser SR(packet_in pkt, out inner_t s) { state start { transition select(pkt.lookahead<bit<8>>()) "
                     "{ 1: one; default: accept; } } state one { pkt.extract(s.y); transition accept; } }\n",
                 parser="""    SR() sr;
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.s.x); sr.apply(pkt, hdr.s); transition accept; }""",
                 deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.s.x); pkt.emit(hdr.s.y);"),
         frames=[(1, eth(0x1234) + hdr(7, 7, 7, 7) + hdr(1, 2, 3, 4)), (1, eth(0x1234) + hdr(7, 7, 7, 7) + hdr(2, 2, 3, 4))]),
    # p4testA/gauntlet_nested_switch-bmv2.p4: a table applied only in a branch p4c folds away is in
    # p4c's P4Info but not in its BMv2 JSON; BMv2 loads that JSON, checkmate-switch refused it
    case("fuzzm_table_only_in_folded_branch", CAT,
         program("        bit<16> v = 2;\n        if (v <= 5) { hdr.h.b = 0x11; } else { t.apply(); }\n",
                 ingress_decls="    action a() { hdr.h.c = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { a; } }"),
         json_path=True),
    case("fuzzm_header_types_named_elem_t_ret", CAT,
         program("        hdr.e.x = hdr.e.y + 1; hdr.t1.z = hdr.t1.z ^ 0xffff; hdr.r.w = hdr.r.w + 3;\n", **NAMED)),
]
