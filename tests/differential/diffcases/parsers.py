"""Parsers: select on values, masks, ranges, tuples, default and no default (BMv2: no match
ends in accept), lookahead, advance, verify, loops, sub-state chains, parser errors seen
by ingress, value sets, short packets."""
from .base import H, PAYLOAD, VALUES, case, eth, hdr, program

CAT = "parser / select"

ERR_TO_B = "        hdr.h.b = (bit<8>)(sm.parser_error == error.NoError ? 8w0 : 8w1);\n"
REPORT = ("        if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype = 0xe001; }\n"
          "        else if (sm.parser_error == error.NoMatch) { hdr.eth.etype = 0xe002; }\n"
          "        else if (sm.parser_error == error.StackOutOfBounds) { hdr.eth.etype = 0xe003; }\n"
          "        else if (sm.parser_error == error.HeaderTooShort) { hdr.eth.etype = 0xe004; }\n"
          "        else if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe0ff; }\n")

MIXED = VALUES + [(1, H(0xee, 1, 2, 3) + hdr(5, 6, 7, 8)), (2, eth(0x1234) + b"\x01\x02"),
                  (3, eth(0x0800) + PAYLOAD), (1, eth(0x1235) + hdr(9, 9, 9, 9) + PAYLOAD)]


def P(states: str) -> str:
    return states


PARSERS = {
    "sel_value": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; 0x1235: ph2; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_mask": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234 &&& 0xfffe: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 0x00 &&& 0x80: ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_range": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1230 .. 0x1236: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 0 .. 0x10: accept; 0x11 .. 0x7f: ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_tuple": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a, hdr.h.b) { (0xee, _): ph2; (0xff, 0x80): ph2; (_, 2): ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_no_default": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 0xee: ph2; 0x01: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_no_default_then_more": """
    state start { pkt.extract(hdr.eth); meta.m8 = 1; transition select(hdr.eth.etype) { 0x0800: accept; 0x1234: ph; } }
    state ph { meta.m8 = 2; pkt.extract(hdr.h); transition select(hdr.h.b) { 2: ph2; } }
    state ph2 { meta.m8 = 3; pkt.extract(hdr.h2); transition accept; }""",
    "sel_slice": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype[15:8]) { 0x12: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.c[15:15], hdr.h.a[0:0]) { (1, _): ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }""",
    "sel_default_only": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { default: ph; } }
    state ph { pkt.extract(hdr.h); transition accept; }""",
    "lookahead_bits": """
    state start { pkt.extract(hdr.eth); transition select(pkt.lookahead<bit<8>>()) { 0xee: two; 0x00 .. 0x7f: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }
    state two { pkt.extract(hdr.h); pkt.extract(hdr.h2); transition accept; }""",
    "lookahead_header": """
    state start { pkt.extract(hdr.eth); h_t peek = pkt.lookahead<h_t>(); meta.m16 = peek.c; transition select(peek.b) { 0x80: ph; 2: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }""",
    "advance": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: skip; default: accept; } }
    state skip { pkt.advance(16); pkt.extract(hdr.h); transition accept; }""",
    "verify_user_error": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); verify(hdr.h.a != 0xff, error.ParserInvalidArgument); pkt.extract(hdr.h2); transition accept; }""",
    "short_packet": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); pkt.extract(hdr.h2); transition accept; }""",
    "state_chain_meta": """
    state start { meta.m8 = 1; pkt.extract(hdr.eth); transition s1; }
    state s1 { meta.m8 = meta.m8 + 1; transition select(hdr.eth.etype) { 0x1234: s2; default: accept; } }
    state s2 { meta.m8 = meta.m8 << 2; pkt.extract(hdr.h); meta.m16 = hdr.h.c; transition accept; }""",
    "loop_counter": """
    state start { pkt.extract(hdr.eth); meta.m8 = 0; transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition loop; }
    state loop { meta.m8 = meta.m8 + 1; transition select(meta.m8) { 3: accept; default: loop; } }""",
    "sel_bool": """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype == 0x1234) { true: ph; false: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }""",
}

META_OUT = "        hdr.eth.src[7:0] = meta.m8; hdr.eth.src[23:8] = meta.m16;\n"

CASES = [case(f"parse_{n}", CAT, program(META_OUT + REPORT, parser=p), frames=MIXED)
         for n, p in PARSERS.items()]

# value set
VS_PARSER = """
    value_set<bit<16>>(4) types;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { types: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }"""
CASES.append(case("parse_value_set_empty", CAT, program(REPORT, parser=VS_PARSER), frames=MIXED))

# struct-typed value sets: a tuple of keys against the struct's fields (one P4Runtime match
# field each), a one-field struct on a single key, an @match(ternary) field; unused value
# sets, one of a type no value set may have (p4c drops them before checking, and leaves them
# out of the P4Info and the JSON)
VS_STRUCT_TOP = """
struct vs_pair_t { bit<16> etype; bit<8> first; }
struct vs_one_t { bit<8> b; }
struct vs_tern_t { @match(ternary) bit<8> a; bit<16> c; }
"""
VS_STRUCT_PARSER = """
    value_set<vs_pair_t>(4) pair;
    value_set<vs_one_t>(2) one;
    value_set<vs_tern_t>(2) tern;
    value_set<bit<16>>(2) unused16;
    value_set<vs_pair_t>(2) unused_s;
    value_set<bool>(2) unused_b;
    state start { pkt.extract(hdr.eth);
        transition select(hdr.eth.etype, pkt.lookahead<bit<8>>()) { pair: ph; (0x1235, _): ph; default: accept; } }
    state ph { pkt.extract(hdr.h); meta.m8 = 1; transition select(hdr.h.b) { one: ph2; default: t2; } }
    state t2 { meta.m8 = 2; transition select(hdr.h.a, hdr.h.c) { tern: ph2; default: accept; } }
    state ph2 { meta.m8 = meta.m8 + 4; pkt.extract(hdr.h2); transition accept; }"""
VS_FRAMES = [(1, H(1, 2, 3, 4)), (1, H(0x22, 7, 3, 4)), (2, H(0x22, 8, 0x0102, 4) + hdr(1, 2, 3, 4)),
             (1, eth(0x1235) + hdr(0x30, 0x30, 0x0102, 1) + hdr(5, 6, 7, 8)),
             (3, eth(0x1235) + hdr(0x3f, 0x31, 0x0102, 1) + hdr(5, 6, 7, 8)),
             (3, eth(0x1235) + hdr(0x40, 0x31, 0x0102, 1)), (4, eth(0x8888) + hdr(0x10, 7, 0, 0) + hdr(1, 1, 1, 1)),
             (4, eth(0x8888) + hdr(0x11, 7, 0, 0)), (1, eth(0x0800) + PAYLOAD)]
# every @match kind, slices as keys, next to constant tuple cases with masks and ranges
VS_KINDS_TOP = """
struct vs_kinds_t { @match(ternary) bit<8> t; @match(lpm) bit<4> l; @match(exact) bit<6> e; @match(range) bit<6> r; }
"""
VS_KINDS_PARSER = """
    value_set<vs_kinds_t>(4) kinds;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b[7:4], hdr.h.c[15:10], hdr.h.c[5:0]) {
            kinds: ph2;
            (0xee, 0x8 &&& 0xc, _, 2 .. 9): ph2;
            (0x01, _, 0x3f &&& 0x30, _): ph2;
            default: accept; } }
    state ph2 { meta.m8 = 7; pkt.extract(hdr.h2); transition accept; }"""
CASES.append(case("parse_value_set_struct_kinds", CAT,
                  program(META_OUT + REPORT, top=VS_KINDS_TOP, parser=VS_KINDS_PARSER),
                  frames=MIXED + [(1, H(0x01, 0, 0xf000)), (2, H(0xee, 0x90, 5)), (2, H(0xee, 0x90, 12)), (3, H(0xee, 0xb0, 9))],
                  json_path=True))

# (empty: simple_switch_grpc 1.15.5 answers a ValueSetEntry write with UNIMPLEMENTED; the
# members' matching is tested in tests/pipeline/test_features.py and over gRPC in
# tests/switch_proc -- see docs/CONFORMANCE.md)
CASES.append(case("parse_value_set_struct", CAT,
                  program(META_OUT + REPORT, top=VS_STRUCT_TOP, parser=VS_STRUCT_PARSER), frames=VS_FRAMES,
                  json_path=True))

# parser error visible to ingress and the packet kept
CASES.append(case("parse_error_too_short_hdr", CAT, program(REPORT + "        hdr.h.setValid(); hdr.h.a = 0x77;\n",
                                                            parser=PARSERS["short_packet"]),
                  frames=[(1, eth(0x1234) + b"\x01"), (1, eth(0x1234) + hdr(1, 2, 3, 4) + b"\x09" * 5)]))

# found with p4c's STF tests: a lookahead whose value is dropped (a statement) still ends
# the parse with PacketTooShort on a short packet (checkmate-p4c refused the statement)
CASES.append(case("parse_lookahead_statement", CAT, program(REPORT, top="struct look_t { bit<32> x; bit<48> y; }\n",
                                                            parser="""
    state start { pkt.extract(hdr.eth); pkt.lookahead<look_t>(); pkt.lookahead<bit<8>>(); transition select(hdr.eth.etype) {
        0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }"""),
                  frames=[(1, eth(0x1234) + b"\x01\x02"), (2, H(1, 2, 3, 4)), (3, eth(0x0800) + b"\x09" * 9),
                          (1, eth(0x0800) + b"\x09" * 10)]))

# found with p4c's STF tests: a sub-parser's scalar out / inout parameters are copied back
# to the caller's arguments (checkmate-p4c refused them)
CASES.append(case("parse_subparser_scalar_out", CAT, program("        hdr.h.c = meta.m16; hdr.h.d = (bit<32>)meta.m8;\n", top="""
parser Sub(packet_in p, out h_t x, out bit<8> nxt, inout bit<16> acc) {
    state start { p.extract(x); nxt = x.a; acc = acc + (bit<16>)x.b; transition accept; }
}
""", parser="""
    Sub() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { meta.m16 = 0x100; sub.apply(pkt, hdr.h, meta.m8, meta.m16);
               transition select(meta.m8) { 0xee: ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition accept; }"""), frames=MIXED))

# a parser error inside a sub-parser: p4c inlines it with copy-in/copy-out, so the caller's
# out/inout arguments keep what they held before the call (the headers the sub-parser already
# extracted into them are not copied back); checkmate passed them by reference
CASES.append(case("parse_subparser_error_no_copy_out", CAT, program(
    "        hdr.eth.src[7:0] = (bit<1>)hdr.h.isValid() ++ (bit<1>)hdr.h2.isValid() ++ 6w0;\n"
    "        hdr.eth.src[15:8] = meta.m8;\n"
    "        if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype = 0xe001; }\n", top="""
struct pair_t { h_t x; h_t y; }
parser Sub2(packet_in p, out h_t x, inout h_t y, inout bit<8> cnt) {
    state start { p.extract(x); cnt = cnt + 1; p.extract(y); cnt = cnt + 1; transition accept; }
}
""", parser="""
    Sub2() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { meta.m8 = 0x10; sub.apply(pkt, hdr.h, hdr.h2, meta.m8); transition accept; }"""),
    frames=[(1, H(1, 2, 3, 4)), (2, eth(0x1234) + bytes(range(12))), (3, eth(0x1234) + bytes(range(8))),
            (1, eth(0x1234) + bytes(range(5)))], json_path=True))

# parser errors past the simple short packet: a full stack's .next (StackOutOfBounds), a varbit
# length past its maximum, a varbit/advance/lookahead past the end (PacketTooShort), verify();
# ingress sees the error code, and the headers extracted before the error are emitted
ERR_REPORT = REPORT.replace("else if (sm.parser_error != error.NoError)",
                            "else if (sm.parser_error == error.ParserInvalidArgument) { hdr.eth.etype = 0xe005; }\n"
                            "        else if (sm.parser_error != error.NoError)")
ERR_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) {
        1: stk; 2: vb; 3: adv; 4: look; 5: vfy; default: accept; } }
    state stk { pkt.extract(hdr.st.next); pkt.extract(hdr.st.next); pkt.extract(hdr.st.next); transition accept; }
    state vb { pkt.extract(hdr.v, (bit<32>)hdr.h.b); pkt.extract(hdr.h2); transition accept; }
    state adv { pkt.advance((bit<32>)hdr.h.b); pkt.extract(hdr.h2); transition accept; }
    state look { bit<32> x = pkt.lookahead<bit<32>>(); meta.m32 = x; pkt.extract(hdr.h2); transition accept; }
    state vfy { verify(hdr.h.b == 0, error.NoMatch); pkt.extract(hdr.h2); transition accept; }"""
ERR_FRAMES = [(1, eth(0x1234) + hdr(1) + hdr(5, 6, 7, 8) + hdr(9, 10, 11, 12) + hdr(13, 14, 15, 16)),
              (1, eth(0x1234) + hdr(1) + hdr(5, 6, 7, 8) + b"\x01\x02"),
              (2, eth(0x1234) + hdr(2, 16) + b"\xa1\xa2" + hdr(5, 6, 7, 8)),
              (2, eth(0x1234) + hdr(2, 40) + hdr(5, 6, 7, 8) + b"\x01"),
              (2, eth(0x1234) + hdr(2, 24) + b"\xa1\xa2"),
              (3, eth(0x1234) + hdr(3, 16) + b"\xa1\xa2" + hdr(5, 6, 7, 8)),
              (3, eth(0x1234) + hdr(3, 200) + hdr(5, 6, 7, 8)),
              (4, eth(0x1234) + hdr(4) + b"\xa1\xa2"),
              (4, eth(0x1234) + hdr(4) + hdr(5, 6, 7, 8)),
              (1, eth(0x1234) + hdr(5, 0) + hdr(5, 6, 7, 8)),
              (1, eth(0x1234) + hdr(5, 1) + hdr(5, 6, 7, 8))]
CASES.append(case("parse_errors_stack_varbit_advance", CAT, program(
    ERR_REPORT + "        hdr.eth.src[31:0] = meta.m32;\n",
    headers="header v_t { varbit<32> v; }\n", fields="    h_t[2] st;\n    v_t v;\n", parser=ERR_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.st);\n"
             "        pkt.emit(hdr.v);\n        pkt.emit(hdr.h2);"), frames=ERR_FRAMES))
