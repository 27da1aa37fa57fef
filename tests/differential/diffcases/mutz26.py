"""Found by helper mutz26 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose P4Info or behaviour checkmate-p4c / checkmate-switch got wrong (their invalid
neighbours are in tests/p4c/test_mutants5.py)."""
from controller.entities import Entry

from .base import PARSE_H2, PAYLOAD, H, case, eth, parse_h_state, program, start_state

CAT = "front end (p4c-compatible)"

_F = [(1, H(1, 1, 0x10)), (1, H(2, 3, 0x20)), (1, H(3, 7, 0x30)), (1, H(5, 1, 0x40))]

CASES = [
    # mutz25's open item: `@name("..x")` on an extern instance, a value set or a table property's
    # instance is ".x" in p4c's P4Info and BMv2 JSON (p4c takes ONE leading dot off, as for tables
    # and actions; checkmate-p4c took them all, so names and ids differed); `@name(".p")` on a
    # property instance is "p" (was kept as ".p"); a top-level instance's "..t" is ".t"
    case("mutz26_extern_names_lose_one_dot", CAT, program("""
        c1.count((bit<32>)hdr.h.b);
        c2.count(1);
        c3.count(2);
        r1.write(0, hdr.h.a);
        rtop.write(1, hdr.h.b);
        bit<32> mm;
        m1.execute_meter(0, mm);
        t3.apply();
        t9.apply();
        t10.apply();
        hdr.h.d = mm;
""", top='@name("..top") register<bit<8>>(4) rtop;\n',
        parser="\n".join(('    @name("..vs") value_set<bit<8>>(4) pvs;', start_state(), parse_h_state("pvs"), PARSE_H2)),
        ingress_decls="""\
    @name("..cnt") counter(8, CounterType.packets) c1;
    @name(".x.y") counter(8, CounterType.packets) c2;
    @name("...z") counter(8, CounterType.bytes) c3;
    @name("..reg") register<bit<8>>(4) r1;
    @name("..mtr") meter(4, MeterType.packets) m1;
    @name("..dc") direct_counter(CounterType.packets) dc1;
    action s2(bit<8> v) { hdr.h.b = v; dc1.count(); }
    action s3(bit<8> v) { hdr.h.c = (bit<16>)v; }
    @name("..tt") table t3 { key = { hdr.h.a: exact; } actions = { s2; } counters = dc1; }
    table t9 { key = { hdr.h.a: exact; } actions = { s3; NoAction; } @name(".dd") counters = direct_counter(CounterType.packets); }
    table t10 { key = { hdr.h.b: exact; } actions = { s3; NoAction; } @name("..pq") implementation = action_profile(4); }
"""), frames=_F, entries=[Entry(".tt", {"hdr.h.a": 2}, "I.s2", {"v": 5}),
                          Entry("I.t9", {"hdr.h.a": 3}, "I.s3", {"v": 6})], json_path=True),
]

# mutz25's open item: a table key of an invalid header that is a shift masked by a constant
# (`(f >> 8) & 0xf`) is computed by p4c into a temporary, which keeps the previous packet's value
# on BMv2 (checkmate-switch took it for a masked field: zeros); the identities p4c's midend folds
# away (`K & f`, `(f & K1) & K2`, `f + 0`, `f | 0`, `~~f`, `f[15:0] & K`, `f & (K1 | K2)`,
# `f & -1`, `f >> 0`) leave a field or a field and a mask, built as zeros (checkmate-switch kept
# the previous value). Each table writes one byte of the Ethernet addresses: 0x11 on the stale
# value, 0x22 on zero, 0xee on a miss.
_MK = ["(hdr.h.c >> 8) & 0xf", "((bit<8>)hdr.h.c) & 8w0xf", "hdr.h.c[11:4] & 8w0xff", "16w0xff & hdr.h.c",
       "(hdr.h.c & 16w0xff0) & 16w0xff", "hdr.h.c + 0", "hdr.h.c | 16w0", "~~hdr.h.c", "hdr.h.c[15:0] & 16w0xff",
       "hdr.h.c & (16w0xf0 | 16w0x0f)", "hdr.h.c & -16w1", "hdr.h.c >> 0"]
_MK_STALE = [2, 1, 0x23, 0x31, 0x30, 0x1231, 0x1231, 0x1231, 0x31, 0x31, 0x1231, 0x1231]
_MK_BYTES = [f"hdr.eth.dst[{47 - 8 * i}:{40 - 8 * i}]" for i in range(6)] + \
            [f"hdr.eth.src[{47 - 8 * i}:{40 - 8 * i}]" for i in range(6)]
CASES.append(case("mutz26_masked_key_temporaries_of_invalid_header", CAT, program(
    "".join(f"        t{i}.apply();\n" for i in range(len(_MK))),
    ingress_decls="".join(
        f"    action m{i}(bit<8> v) {{ {_MK_BYTES[i]} = v; }}\n"
        f"    table t{i} {{ key = {{ {k}: exact @name(\"k{i}\"); }} actions = {{ m{i}; NoAction; }} default_action = m{i}(0xee); }}\n"
        for i, k in enumerate(_MK))),
    frames=[(1, H(0x17, 2, 0x1231, 4)), (1, eth(0x0800) + PAYLOAD), (1, H(0x18, 2, 0x0000, 4)),
            (1, eth(0x0800) + PAYLOAD)], one_by_one=True, json_path=True,
    entries=[e for i, v in enumerate(_MK_STALE) for e in (Entry(f"I.t{i}", {f"k{i}": v}, f"I.m{i}", {"v": 0x11}),
                                                          Entry(f"I.t{i}", {f"k{i}": 0}, f"I.m{i}", {"v": 0x22}))]))

# with it: a signed or bool header field as a key is the field itself in p4c's JSON (zeros when
# the header is invalid; checkmate-switch read the cast to its bits as a computed key), a cast to
# another width is a temporary
_SB_PARSER = start_state("parse_s") + """
    state parse_s {
        pkt.extract(hdr.s);
        transition accept;
    }"""
CASES.append(case("mutz26_signed_and_bool_keys_of_invalid_header", CAT, program("""
        t0.apply(); t1.apply(); t2.apply(); t3.apply(); t4.apply();
""", headers="header s_t { int<8> i; bool f; bit<7> pad; int<16> j; }\n", fields="    s_t s;\n",
        parser=_SB_PARSER, deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);",
        ingress_decls="""\
    action m0(bit<8> v) { hdr.eth.dst[47:40] = v; }
    action m1(bit<8> v) { hdr.eth.dst[39:32] = v; }
    action m2(bit<8> v) { hdr.eth.dst[31:24] = v; }
    action m3(bit<8> v) { hdr.eth.dst[23:16] = v; }
    action m4(bit<8> v) { hdr.eth.dst[15:8] = v; }
    table t0 { key = { hdr.s.i: exact; } actions = { m0; NoAction; } default_action = m0(0xee); }
    table t1 { key = { hdr.s.f: exact; } actions = { m1; NoAction; } default_action = m1(0xee); }
    table t2 { key = { hdr.s.j & 16s0xff: exact @name("jm"); } actions = { m2; NoAction; } default_action = m2(0xee); }
    table t3 { key = { (int<8>)hdr.s.j: exact @name("jc"); } actions = { m3; NoAction; } default_action = m3(0xee); }
    table t4 { key = { hdr.s.i: ternary; hdr.s.f: exact; } actions = { m4; NoAction; } default_action = m4(0xee); }
"""), frames=[(1, eth(0x1234) + bytes([0x85, 0x80, 0x12, 0x34]) + PAYLOAD), (1, eth(0x0800) + PAYLOAD),
              (1, eth(0x1234) + bytes([0, 0, 0, 0]) + PAYLOAD), (1, eth(0x0800) + PAYLOAD)],
    one_by_one=True, json_path=True,
    entries=[Entry("I.t0", {"hdr.s.i": 0x85}, "I.m0", {"v": 0x11}), Entry("I.t0", {"hdr.s.i": 0}, "I.m0", {"v": 0x22}),
             Entry("I.t1", {"hdr.s.f": 1}, "I.m1", {"v": 0x11}), Entry("I.t1", {"hdr.s.f": 0}, "I.m1", {"v": 0x22}),
             Entry("I.t2", {"jm": 0x34}, "I.m2", {"v": 0x11}), Entry("I.t2", {"jm": 0}, "I.m2", {"v": 0x22}),
             Entry("I.t3", {"jc": 0x34}, "I.m3", {"v": 0x11}), Entry("I.t3", {"jc": 0}, "I.m3", {"v": 0x22}),
             Entry("I.t4", {"hdr.s.i": (0x85, 0xff), "hdr.s.f": 1}, "I.m4", {"v": 0x11}, 1),
             Entry("I.t4", {"hdr.s.i": (0, 0xff), "hdr.s.f": 0}, "I.m4", {"v": 0x22}, 1)]))
