"""Found by helper mutz26 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose P4Info or behaviour checkmate-p4c / checkmate-switch got wrong (their invalid
neighbours are in tests/p4c/test_mutants5.py)."""
from controller.entities import Entry

from .base import H, case, program

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
        parser="""\
    @name("..vs") value_set<bit<8>>(4) pvs;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            pvs: parse_h2;
            default: accept;
        }
    }
    state parse_h2 {
        pkt.extract(hdr.h2);
        transition accept;
    }""",
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
