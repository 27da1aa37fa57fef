"""Minimal programs reduced from the random parser programs of ``fuzz_parsers`` (fuzzp): each
one a disagreement with BMv2 that was found there and fixed."""
from .base import PAYLOAD, case, eth, hdr, program

CAT = "random programs: parsers"

# a sub-parser's `transition reject` ends the whole parse: p4c inlines the sub-parser, so what
# it extracted and counted stays written, and BMv2 ends at the reject like accept with no error
# (the state after the sub-parser's apply does not run)
SUB_REJECT_TOP = """
parser SubR(packet_in p, out h_t x, inout bit<8> c) {
    state start { p.extract(x); c = c + 1; transition select(x.a) { 0x5: bad; default: accept; } }
    state bad { c = c + 0x10; transition reject; }
}
"""
SUB_REJECT_PARSER = """
    SubR() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { sub.apply(pkt, hdr.h, meta.m8); meta.m16 = meta.m16 + 6; pkt.extract(hdr.h2); transition accept; }"""
SUB_REJECT_REPORT = ("        hdr.eth.src[7:0] = meta.m8; hdr.eth.src[23:8] = meta.m16;\n"
                     "        hdr.eth.src[31:24] = (bit<1>)hdr.h.isValid() ++ (bit<1>)hdr.h2.isValid() ++ 6w0;\n"
                     "        if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe000; }\n")

CASES = [
    case("fuzzp_subparser_reject_ends_parse", CAT,
         program(SUB_REJECT_REPORT, top=SUB_REJECT_TOP, parser=SUB_REJECT_PARSER),
         frames=[(1, eth(0x1234) + hdr(5, 1, 2, 3) + hdr(7, 8, 9, 10) + PAYLOAD),
                 (2, eth(0x1234) + hdr(6, 1, 2, 3) + hdr(7, 8, 9, 10) + PAYLOAD),
                 (3, eth(0x1234) + hdr(5, 1, 2, 3)), (1, eth(0x1234) + hdr(6))],
         json_path=True),
]

# p4c's JSON of two header types whose varbit fields have the same name: the BMv2 JSON loader
# took it for two varbit fields in one header and refused the program
VB_HEADERS = """header va_t { bit<8> len; varbit<16> data; }
header vb_t { bit<8> len; varbit<32> data; }
"""
VB_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { pkt.extract(hdr.va, (bit<32>)pkt.lookahead<bit<8>>() * 8);
               pkt.extract(hdr.vb, (bit<32>)pkt.lookahead<bit<8>>() * 8); transition accept; }"""
CASES.append(case("fuzzp_varbit_same_field_name_two_types", CAT, program(
    "        if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe000; }\n",
    headers=VB_HEADERS, fields="    va_t va;\n    vb_t vb;\n", parser=VB_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.vb);\n        pkt.emit(hdr.va);"),
    frames=[(1, eth(0x1240) + b"\x01\xaa\x02\xbb\xcc" + PAYLOAD), (2, eth(0x1240) + b"\x00\x04\x01\x02\x03\x04"),
            (3, eth(0x1240) + b"\x03\xaa\xbb\xcc\x01\x01")], json_path=True))

# a case that matches every value (a full range, a mask of 0, all `_`) is written by p4c as a
# `default` transition, and BMv2 keeps the last default of a state and takes it only when no
# other case matches -- so the cases after it still win; checkmate took the first match
FALLBACK_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) {
        0 .. 255: s1; 5: s2; 8w3 &&& 8w0: s3; 7: s2; 0 .. 127: s4; 9: s2; default: s5; } }
    state s1 { meta.m8 = 1; transition accept; }
    state s2 { meta.m8 = 2; transition select(hdr.h.b, hdr.h.c) { (_, _): s3; (_, 0 .. 0xffff): s4; (1, 0 &&& 0): s1;
        (2, 2): accept; } }
    state s3 { meta.m8 = meta.m8 + 0x30; transition accept; }
    state s4 { meta.m8 = meta.m8 + 0x40; transition accept; }
    state s5 { meta.m8 = meta.m8 + 0x50; transition accept; }"""
CASES.append(case("fuzzp_select_match_all_case_is_fallback", CAT, program(
    "        hdr.eth.src[7:0] = meta.m8;\n", parser=FALLBACK_PARSER),
    frames=[(1, eth(0x1234) + hdr(a, b, c) + PAYLOAD)
            for a, b, c in [(5, 0, 0), (5, 1, 9), (5, 2, 2), (7, 2, 3), (9, 1, 1), (1, 0, 0), (0x90, 0, 0)]],
    json_path=True))

# a varbit header extracted a second time in one packet (a parser loop): BMv2 judges the new
# length together with the width the varbit already holds (its header size so far), so a second
# length that fits on its own can still end the parse in HeaderTooShort or PacketTooShort
VB_AGAIN_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { pkt.extract(hdr.s.next); pkt.extract(hdr.va, (bit<32>)pkt.lookahead<bit<8>>() << 3);
               transition select(hdr.s.last.a) { 1: pv; default: accept; } }"""
CASES.append(case("fuzzp_varbit_extracted_again_counts_old_width", CAT, program(
    "        if (sm.parser_error == error.HeaderTooShort) { hdr.eth.etype = 0xe004; }\n"
    "        else if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype = 0xe001; }\n"
    "        else if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe0ff; }\n"
    "        hdr.eth.src[7:0] = (bit<1>)hdr.s[0].isValid() ++ (bit<1>)hdr.s[1].isValid() ++ (bit<1>)hdr.s[2].isValid()"
    " ++ (bit<1>)hdr.va.isValid() ++ 4w0;\n",
    headers="header va_t { bit<8> len; varbit<16> data; }\nheader one_t { bit<8> a; }\n",
    fields="    one_t[3] s;\n    va_t va;\n", parser=VB_AGAIN_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);\n        pkt.emit(hdr.va);"),
    frames=[(1, eth(0x1240) + bytes.fromhex(f)) for f in
            ["0101aa0202bbcc07eeee", "0102aabb0201cc0808", "0101aa0200070000", "0101aa0201bb03", "0101aa0201bb",
             "0100020201cc0808", "0101aa0201bb0101cc09"]], json_path=True))

# a value set that only a state unreachable from start uses: p4c removes the state and the value
# set with it (P4Info lists no value set); checkmate-p4c listed it
UNREACH_PARSER = """
    value_set<bit<16>>(4) vs_dead;
    value_set<bit<8>>(2) vs_live;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { vs_live: accept; default: accept; } }
    state orphan { pkt.extract(hdr.h2); transition select(hdr.h2.c) { vs_dead: orphan2; default: accept; } }
    state orphan2 { transition accept; }"""
CASES.append(case("fuzzp_value_set_in_unreachable_state", CAT, program("", parser=UNREACH_PARSER),
                  frames=[(1, eth(0x1234) + hdr(1, 2, 3, 4) + PAYLOAD)]))
# ... but only within one packet: the next packet, which BMv2 parses into the same (reset) headers,
# starts from an empty varbit (one frame at a time, so the headers are reused)
VB_AGAIN = next(c for c in CASES if c.name == "fuzzp_varbit_extracted_again_counts_old_width")
CASES.append(case("fuzzp_varbit_width_not_kept_across_packets", CAT, VB_AGAIN.source,
                  frames=[(1, eth(0x1240) + bytes.fromhex(f)) for f in ["0002bbcc", "0002bbcc11", "0102ddee0000", "0002bbcc"]],
                  one_by_one=True, json_path=True))

# an `out` header argument of a sub-parser is made invalid where the call starts (p4c inlines the
# sub-parser and writes the header in place): a second call that fails before it extracts leaves
# the header invalid, one that fails after extracting it leaves it valid with the new values
SUB_OUT_TOP = """
parser SubO(packet_in p, out h_t x, inout bit<8> c) {
    state start { p.extract(x); c = c + 1; verify(x.a != 9, error.NoMatch); transition accept; }
}
"""
SUB_OUT_PARSER = """
    SubO() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: l; default: accept; } }
    state l { sub.apply(pkt, hdr.h, meta.m8); meta.m16 = meta.m16 + 1; transition select(hdr.h.b) { 1: l; default: accept; } }"""
CASES.append(case("fuzzp_subparser_out_header_invalid_at_call", CAT, program(
    "        hdr.eth.src[7:0] = meta.m8; hdr.eth.src[15:8] = (bit<8>)meta.m16;\n"
    "        hdr.eth.src[23:16] = (bit<1>)hdr.h.isValid() ++ 7w0;\n"
    "        if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe000; }\n", top=SUB_OUT_TOP, parser=SUB_OUT_PARSER),
    frames=[(1, eth(0x1234) + hdr(1, 1, 2, 3) + b"\x05\x06"), (2, eth(0x1234) + hdr(1, 1, 2, 3) + hdr(9, 0, 7, 7) + PAYLOAD),
            (3, eth(0x1234) + hdr(9, 0, 2, 3) + PAYLOAD), (1, eth(0x1234) + hdr(1, 1, 2, 3) + hdr(2, 1, 4, 4) + b"\x01")],
    json_path=True))

# ranges in a tuple select: p4c expands them into the cross product of their masks (here some
# about 11,000 ternary transitions in the JSON); checkmate-switch could not load that JSON (an
# if/elif chain nested too deeply for Python) and now matches it from a table
WIDE_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.b, hdr.h.c, hdr.h.d[15:0]) {
        (1 .. 254, 0x0101 .. 0xfefe, 0x0101 .. 0xfefe): two;
        (_, 0x0003 .. 0x0005, _): three;
        (0, 0xffff, 0x0000 &&& 0xff00): two; } }
    state two { meta.m8 = 2; pkt.extract(hdr.h2); transition accept; }
    state three { meta.m8 = 3; transition accept; }"""
CASES.append(case("fuzzp_select_range_tuple_expanded", CAT, program("        hdr.eth.src[7:0] = meta.m8;\n", parser=WIDE_PARSER),
                  frames=[(1, eth(0x1234) + hdr(1, b, c, d) + hdr(7, 7, 7, 7) + PAYLOAD) for b, c, d in
                          [(1, 0x0101, 0x0101), (254, 0xfefe, 0xfefe), (255, 0x1234, 0x1234), (5, 0x0100, 0x0101),
                           (5, 0x1234, 0x10000), (0, 0x0004, 0xffffffff), (0, 0xffff, 0x00ff), (0, 0xffff, 0x0100),
                           (0x80, 0x8000, 0x8000)]], json_path=True))
