// IPv4 options as a varbit field: extract(hdr, (ihl - 5) * 32), checksum over the
// options, TTL decrement, options copied between headers, max/minSizeInBytes.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
    varbit<320> options;
}
header info_t { bit<8> min; bit<8> max; }
struct m_t { }
struct hs { ethernet_t eth; ipv4_t ip; info_t info; }

parser P(packet_in pkt, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip {
        pkt.extract(h.ip, (bit<32>) (((bit<16>) pkt.lookahead<bit<8>>()[3:0] - 5) * 32));
        transition accept;
    }
}
control VC(inout hs h, inout m_t m) {
    apply { }
}
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (h.ip.isValid()) {
            h.ip.ttl = h.ip.ttl - 1;
            h.info.setValid();
            h.info.min = (bit<8>) h.ip.minSizeInBytes();
            h.info.max = (bit<8>) h.ip.maxSizeInBytes();
        }
        if (sm.parser_error == error.HeaderTooShort) { sm.egress_spec = 2; }
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) {
    apply {
        update_checksum(h.ip.isValid(),
            { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags, h.ip.frag,
              h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst, h.ip.options },
            h.ip.csum, HashAlgorithm.csum16);
    }
}
control D(packet_out p, in hs h) { apply { p.emit(h.eth); p.emit(h.ip); p.emit(h.info); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
