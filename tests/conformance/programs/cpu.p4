// Controller packet-in / packet-out headers (@controller_header) and a CPU port.
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; bit<7> _pad; }

@controller_header("packet_out")
header packet_out_t { bit<9> egress_port; bit<7> _pad; bit<8> flags; }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }

struct headers_t { packet_out_t pout; packet_in_t pin; ethernet_t eth; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.pout);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        if (hdr.pout.isValid()) {
            sm.egress_spec = hdr.pout.egress_port;
            hdr.pout.setInvalid();
        } else {
            sm.egress_spec = CPU_PORT;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == CPU_PORT) {
            hdr.pin.setValid();
            hdr.pin.ingress_port = sm.ingress_port;
            hdr.pin._pad = 0;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.pin);
        pkt.emit(hdr.eth);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
