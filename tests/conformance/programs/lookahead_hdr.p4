// lookahead of a header type, then select on one of its fields (p4c expands it).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header probe_t { bit<4> version; bit<4> rest; bit<8> kind; }
header v4_t { bit<8> vb; bit<8> kind; bit<16> x; }
header v6_t { bit<8> vb; bit<8> kind; bit<32> y; }

struct headers_t { ethernet_t eth; v4_t v4; v6_t v6; }
struct meta_t { bit<8> kind; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        meta.kind = pkt.lookahead<probe_t>().kind;
        transition select(pkt.lookahead<probe_t>().version) {
            4: parse_v4;
            6: parse_v6;
            default: accept;
        }
    }
    state parse_v4 { pkt.extract(hdr.v4); transition accept; }
    state parse_v6 { pkt.extract(hdr.v6); transition accept; }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        if (hdr.v4.isValid()) {
            sm.egress_spec = 4;
        } else if (hdr.v6.isValid()) {
            sm.egress_spec = 6;
        } else {
            sm.egress_spec = 9;
        }
        hdr.eth.etherType = (bit<16>) meta.kind;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.v4);
        pkt.emit(hdr.v6);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
