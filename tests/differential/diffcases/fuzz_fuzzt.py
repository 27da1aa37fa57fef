"""Minimal programs reduced from the random table/action/extern programs of fuzz_tables.py
(helper fuzzt, issue #15); each names the seed it was found with."""
from controller.entities import Entry

from .base import H, VALUES, case, program

CAT = "random programs: tables"

ACT = "    action s(bit<8> v) { hdr.h.b = v; }\n"
FR = VALUES + [(1, H(0x11, 0x80)), (2, H(0x12, 0x7f)), (3, H(0x13))]


def _dc(t, kind="packets"):
    return f"    direct_counter(CounterType.{kind}) {t}_c;\n"


CASES = [
    # seed 8: a const entry read back over P4Runtime (here through its direct counter) has BMv2's
    # priority INT32_MAX - p4c's JSON priority: @priority(N) goes into the JSON unchanged, every
    # other entry is numbered in listing order -- `priority=` values too, so they do not order the
    # matches on BMv2 (overlapping entries below: the first listed wins)
    case("fz_const_entry_priorities_read_back", CAT, program(
        "        t1.apply(); t2.apply(); t3.apply();\n", ingress_decls=ACT + _dc("t1") + _dc("t2", "bytes") + _dc("t3") + """
    action c(bit<16> v) { hdr.h.c = v; }
    action d(bit<32> v) { hdr.h.d = v; }
    table t1 { key = { hdr.h.a: ternary; } actions = { s; } counters = t1_c;
        const entries = { 0x10 &&& 0xf0: s(1); 0x11 &&& 0xff: s(2); _: s(3); } }
    table t2 { key = { hdr.h.a: range; hdr.h.b: exact; } actions = { c; } counters = t2_c;
        const entries = { (0x10 .. 0x13, 0x80): c(1) @priority(36); (0x11 .. 0x11, 0x80): c(2) @priority(7);
                          (0 .. 0xff, 0x7f): c(3) @priority(1000); } }
    table t3 { key = { hdr.h.a: ternary; } actions = { d; } counters = t3_c;
        entries = { priority=10: 0x10 &&& 0xfe: d(1); priority=30: 0x11 &&& 0xff: d(2); 0x12 &&& 0xff: d(3); } }
"""), frames=FR, json_path=True),
]

CASES += [
    # seed 32: p4c's JSON names the custom CRCs (crc32_custom, crc16_custom) in its calculations;
    # unconfigured they are crc32 / crc16 on BMv2 -- in hash() and in a checksum
    case("fz_hash_custom_crc_json", CAT, program(
        "        hash(hdr.h.b, HashAlgorithm.crc32_custom, 8w0, { meta.m16, 8w0x5a, hdr.h.c }, 32w0xffffffff);\n"
        "        hash(hdr.h.d, HashAlgorithm.crc16_custom, 32w3, { hdr.h.a, hdr.eth.src }, 32w0x10000);\n",
        egress="        hash(hdr.eth.dst[15:0], HashAlgorithm.crc32_custom, 16w0, { hdr.h.d }, 32w65536);\n",
        compute="apply { update_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.d }, hdr.h.c, HashAlgorithm.crc16_custom); }"),
         json_path=True),
]

CASES += [
    # seed 51: execute_meter with an index past the meter's size -- BMv2 updates no meter and
    # leaves the destination as it was (here the parsed fields); in range an unconfigured meter
    # gives GREEN (0).  (p4c drops a store to the destination just before the call: `out`; a
    # slice destination goes through a fresh temporary, so it gets 0.)
    case("fz_meter_index_out_of_range", CAT, program(
        "        m.execute_meter((bit<32>)hdr.h.a[2:0], hdr.h.d);\n"
        "        m.execute_meter((bit<32>)hdr.h.b, hdr.h.c);\n"
        "        m.execute_meter((bit<32>)hdr.h.a[3:1], hdr.eth.dst[15:0]);\n",  # (seed 139) a slice: p4c's temp, 0
        ingress_decls="    meter(4, MeterType.packets) m;\n"),
         frames=VALUES + [(1, H(0x13, 5, 3, 9)), (2, H(0x16, 2, 7, 0x77))], json_path=True),
]

DG = "struct dg_t { bit<8> a; bit<16> c; }\nstruct dg2_t { bit<8> b; }\nstruct dg3_t { bit<32> d; }\n"
CASES += [
    # seed 116: a digest sent only by an action of a table no control applies, or by an action
    # nothing uses, is not in p4c's P4Info (nor its struct in type_info); one sent by an action a
    # directly called action calls is
    case("fz_digest_only_in_dead_action", CAT, program(
        "        t7.apply(); outer();\n", top=DG, ingress_decls="""
    action a8() { digest<dg_t>(1, { hdr.h.a, hdr.h.c }); }
    action unused() { digest<dg_t>(2, { hdr.h.b, hdr.h.c }); }
    action a9() { digest<dg2_t>(1, { hdr.h.b }); }
    action inner() { digest<dg3_t>(1, { hdr.h.d }); }
    action outer() { inner(); }
    table t6 { key = { hdr.h.a: exact; } actions = { a8; NoAction; } }
    table t7 { key = { hdr.h.a: exact; } actions = { a9; NoAction; } default_action = a9(); }
"""), json_path=True),
]

CASES += [
    # seed 78: an entry that leaves out a range field which is not whole bytes (bit<9> here) is
    # read back by BMv2 with that field's whole range (its don't-care test compares high with
    # all-ones bytes); whole-byte range fields (bit<8>) are left out.  Read through the direct
    # counter; the keyless frames hit through the don't-care fields.
    case("fz_range_dont_care_not_whole_bytes_read_back", CAT, program(
        "        t.apply();\n", ingress_decls=ACT + _dc("t") + """
    table t { key = { sm.ingress_port: range; hdr.h.a: range; hdr.h.b: optional; } actions = { s; NoAction; } counters = t_c; }
"""), frames=FR, entries=[Entry("I.t", {"hdr.h.b": 2}, "I.s", {"v": 1}, 5),
                          Entry("I.t", {"sm.ingress_port": (1, 2)}, "I.s", {"v": 2}, 3),
                          Entry("I.t", {"hdr.h.a": (0x10, 0x12)}, "I.s", {"v": 3}, 4)], json_path=True),
]

CASES += [
    # seed 40: `_` (or `default`) for a range key in `const entries` -- p4c 1.2.4.8 writes the range
    # 0 .. (1 << (w % 32)) - 1 into its JSON, so for a key of 32 bits or more the entry matches
    # only that on BMv2 (bit<32>: 0; bit<40>: 0..0xff) and reads back so; narrower keys, and `_`
    # on a ternary key, stay a don't care
    case("fz_const_range_wildcard_wide_key", CAT, program(
        "        t.apply(); t2.apply();\n", ingress_decls=ACT + _dc("t") + """
    action c(bit<16> v) { hdr.h.c = v; }
    table t { key = { hdr.h.d: range; hdr.h.b: exact; } actions = { s; NoAction; } counters = t_c;
        const entries = { (0x10 .. 0x11, 3): s(1); (_, 2): s(2); (default, 0): s(3); } }
    table t2 { key = { hdr.h.c: range; hdr.eth.src[39:0]: range @name("src40"); hdr.h.a: ternary; }
        actions = { c; NoAction; }
        const entries = { (_, 5 .. 9, 0x10 &&& 0xf0): c(1); (_, _, 0x11 &&& 0xff): c(2); (_, _, _): c(3); } }
"""), frames=VALUES + [(1, H(0, 2)), (1, H(0, 0)), (1, H(0x33, 0, 0, 7)), (2, H(0x11, 3, 4)),
                       (3, H(0x1f, 7)), (1, H(0x11, 2, 9, 0x10))],
         json_path=True),
]

CASES += [
    # seed 51: a direct meter read in one action of its table -- BMv2 writes the colour (GREEN, 0,
    # for an unconfigured meter) into the read's target on every hit, whichever action runs
    # (p4c's result_target), and not on a miss; in a sub-control too
    case("fz_direct_meter_target_written_on_every_hit", CAT, program(
        "        t.apply(); s1.apply(hdr, sm);\n", top="""
control S(inout headers_t hh, inout standard_metadata_t ss) {
    direct_meter<bit<16>>(MeterType.packets) sdm;
    action r() { sdm.read(hh.h.c); }
    action w(bit<32> v) { hh.h.d = v; }
    table st { key = { hh.h.b: exact; } actions = { r; w; NoAction; } meters = sdm; default_action = w(7); }
    apply { st.apply(); }
}
""", ingress_decls="""
    S() s1;
    direct_meter<bit<8>>(MeterType.packets) dm;
    action rd() { dm.read(hdr.h.b); }
    action other(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a: exact; } actions = { rd; other; NoAction; } meters = dm; default_action = NoAction(); }
"""), frames=VALUES + [(1, H(0x11, 0x22, 0x33, 0x44))],
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.other", {"v": 0x55}), Entry("I.t", {"hdr.h.a": 0xff}, "NoAction"),
                  Entry("I.t", {"hdr.h.a": 0x11}, "I.rd"), Entry("I.s1.st", {"hh.h.b": 0x22}, "I.s1.w", {"v": 9}),
                  Entry("I.s1.st", {"hh.h.b": 0x80}, "NoAction")], json_path=True),
]

CASES += [
    # seed 30: BMv2 builds a table key from the fields of an invalid header as zeros, whatever the
    # field holds (written while invalid here, or left from an earlier packet): exact, ternary,
    # range and lpm keys on whole fields; an expression key (p4c computes it into a temporary
    # first) keeps the value
    case("fz_key_of_invalid_header_is_zero", CAT, program(
        "        hdr.h2.a = 0x33; hdr.h2.b = 0; hdr.h2.c = 0x4444; hdr.h2.d = 0x55555555;\n"
        "        t.apply(); t2.apply();\n", ingress_decls=ACT + """
    action c(bit<16> v) { hdr.h.c = v; }
    table t { key = { hdr.h2.a: exact; hdr.h2.b ^ 8w0x44: ternary @name("c8"); } actions = { s; NoAction; } }
    table t2 { key = { hdr.h2.d: range; hdr.h2.c: lpm; } actions = { c; NoAction; } }
"""), frames=VALUES + [(1, H(0xee, 1) + bytes(8))],
         entries=[Entry("I.t", {"hdr.h2.a": 0, "c8": (0, 0xff)}, "I.s", {"v": 1}, 1),
                  Entry("I.t", {"hdr.h2.a": 0x33, "c8": (0x44, 0xff)}, "I.s", {"v": 2}, 2),
                  Entry("I.t", {"hdr.h2.a": 0, "c8": (0x44, 0xff)}, "I.s", {"v": 5}, 3),
                  Entry("I.t2", {"hdr.h2.d": (0, 0), "hdr.h2.c": (0, 16)}, "I.c", {"v": 3}, 1),
                  Entry("I.t2", {"hdr.h2.d": (0x55555555, 0x55555555)}, "I.c", {"v": 4}, 2)], json_path=True),
]

CASES += [
    # seeds 151, 195, 217: BMv2 counts an lpm prefix from the top of the field's byte container, so
    # on a field that is not whole bytes only max(0, prefix - padding) field bits are compared:
    # `hdr.h.a[3:1]` (3 bits in a byte) /1 and /2 match everything, /6 compares 1 bit; a
    # program's entries are masked so (and read back so), P4Runtime values with bits below the
    # compared ones are refused (not written here: the harness would stop at the refusal); in a
    # table that also has a ternary key BMv2 reads such an entry back masked to those bits
    case("fz_lpm_prefix_on_field_not_whole_bytes", CAT, program(
        "        t.apply(); t2.apply(); t3.apply();\n", ingress_decls=ACT + _dc("t") + _dc("t3") + """
    action c(bit<16> v) { hdr.h.c = v; }
    table t { key = { hdr.h.a[3:1]: lpm @name("a31"); } actions = { s; NoAction; } counters = t_c;
        const entries = { 3w0x4 &&& 3w0x4: s(1); 3w0x2 &&& 3w0x6: s(2); } }
    table t2 { key = { sm.ingress_port: lpm; } actions = { c; NoAction; } }
    action d(bit<32> v) { hdr.h.d = v; }
    table t3 { key = { hdr.h.a[3:1]: lpm @name("a31"); hdr.h.b: ternary; } actions = { d; NoAction; } counters = t3_c;
        const entries = { (3w0x4 &&& 3w0x4, 5 &&& 0xff): d(1); (3w0x6 &&& 3w0x6, _): d(2); } }
"""), frames=VALUES + [(1, H(0x0e, 5)), (2, H(0x08, 6)), (3, H(0x04, 7))],
         entries=[Entry("I.t2", {"sm.ingress_port": (0, 7)}, "I.c", {"v": 7}),
                  Entry("I.t2", {"sm.ingress_port": (0x100, 8)}, "I.c", {"v": 8})], json_path=True),
]
