// Parser value sets whose type is a struct: a tuple of select keys against the struct's
// fields (one P4Runtime match field each), one field with @match(ternary), one with @match(range).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header x_t { bit<8> v; bit<16> w; }
struct hs { eth_t eth; x_t x; }
struct m_t { bit<1> marked; }
struct pair_t { bit<16> type; bit<8> v; }
struct tern_t { @match(ternary) bit<8> v; bit<16> w; }
struct rng_t { @match(range) bit<16> w; }

parser P(packet_in pkt, out hs h, inout m_t m, inout standard_metadata_t sm) {
    value_set<pair_t>(2) pair;
    value_set<tern_t>(2) tern;
    value_set<rng_t>(2) rng;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type, pkt.lookahead<bit<8>>()) { pair: get_x; default: accept; }
    }
    state get_x { pkt.extract(h.x); transition select(h.x.v, h.x.w) { tern: mark; default: in_range; } }
    state in_range { transition select(h.x.w) { rng: mark; default: accept; } }
    state mark { m.marked = 1; transition accept; }
}
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (h.x.isValid()) { h.x.v = h.x.v + 1; }
        if (m.marked == 1) { h.x.w = 0xffff; }
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.eth); p.emit(h.x); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
