// Forwarding decisions of v1model/BMv2: egress_spec, mark_to_drop (ingress and
// egress), drop port 511, default port 0, multicast vs. drop priority,
// packet_length and egress_port as seen by the program.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ctl_t { bit<8> op; bit<16> port; bit<16> eport; bit<32> plen; bit<16> iport; }
header ext_t { bit<32> pad; }

struct headers_t { ethernet_t eth; ctl_t ctl; ext_t ext; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.ctl);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.ctl.plen = sm.packet_length;
        hdr.ctl.iport = (bit<16>) sm.ingress_port;
        if (hdr.ctl.op == 0 || hdr.ctl.op == 8) {
            sm.egress_spec = (bit<9>) hdr.ctl.port;
        } else if (hdr.ctl.op == 9) {
            sm.egress_spec = (bit<9>) hdr.ctl.port;
            hdr.ext.setValid();
            hdr.ext.pad = 0xABCDEF01;
        } else if (hdr.ctl.op == 1) {
            sm.egress_spec = 5;
            mark_to_drop(sm);
        } else if (hdr.ctl.op == 2) {
            mark_to_drop(sm);
            sm.egress_spec = (bit<9>) hdr.ctl.port;
        } else if (hdr.ctl.op == 4) {
            sm.mcast_grp = 1;
            mark_to_drop(sm);
        } else if (hdr.ctl.op == 5) {
            sm.egress_spec = (bit<9>) hdr.ctl.port;
        } else if (hdr.ctl.op == 7) {
            sm.egress_spec = 511;
            sm.mcast_grp = 1;
        }
        // op 3: egress_spec never written
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    counter(1, CounterType.packets_and_bytes) c_eg;
    apply {
        c_eg.count(0);
        if (hdr.ctl.op == 8) {
            exit;
        }
        hdr.ctl.eport = (bit<16>) sm.egress_port;
        if (hdr.ctl.op == 5) {
            mark_to_drop(sm);
        }
        if (hdr.ext.isValid()) {
            hdr.ext.pad = sm.packet_length;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.ext);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
