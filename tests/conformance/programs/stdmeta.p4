// Writes to standard_metadata fields that the traffic manager owns: BMv2 overwrites
// egress_port, instance_type (unicast: NORMAL) and packet_length before egress, and
// ignores egress_spec written in egress unless it is the drop port.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header m_t { bit<16> eport; bit<32> inst; bit<32> plen; }

struct headers_t { ethernet_t eth; m_t m; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.m);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        sm.egress_port = 9;
        sm.instance_type = 77;
        sm.packet_length = 5;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.m.eport = (bit<16>) sm.egress_port;
        hdr.m.inst = sm.instance_type;
        hdr.m.plen = sm.packet_length;
        sm.egress_spec = 7;
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.m);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
