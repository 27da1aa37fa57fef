// ECMP with an action_selector (groups of next hops picked by a crc16 of the 5-tuple
// fields) and an action_profile (members only), as production v1model programs do.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct m_t { }
struct hs { eth_t eth; ipv4_t ip; }

parser P(packet_in pkt, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip { pkt.extract(h.ip); transition accept; }
}
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    action_selector(HashAlgorithm.crc16, 32w64, 32w16) sel;
    action set_nhop(bit<48> dmac, bit<9> port) { h.eth.dst = dmac; sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table ecmp {
        key = { h.ip.dst : lpm; h.ip.src : selector; h.ip.proto : selector; }
        actions = { set_nhop; drop; }
        implementation = sel;
        default_action = drop();
    }
    table by_tos {
        key = { h.ip.tos : exact; }
        actions = { set_nhop; NoAction; }
        implementation = action_profile(8);
    }
    apply {
        if (h.ip.isValid()) {
            if (!by_tos.apply().hit) { ecmp.apply(); }
        }
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.eth); p.emit(h.ip); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
