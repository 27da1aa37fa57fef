// Packet replication engine: multicast (egress_rid per replica), clone I2E and E2E
// (with and without preserved field list), resubmit and recirculate with preserved
// field lists, instance_type as seen in ingress and egress.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t {
    bit<8> op; bit<8> mark; bit<8> keep; bit<8> lose; bit<8> it_i; bit<8> it_e;
    bit<16> rid; bit<16> eport; bit<8> e1;
}

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t {
    @field_list(1) bit<8> keep;
    bit<8> lose;
    @field_list(2) bit<8> rkeep;
    @field_list(3) bit<8> ckeep;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.t.it_i = (bit<8>) sm.instance_type;
        if (sm.instance_type == 0) {
            if (hdr.t.op == 1) {
                sm.mcast_grp = 5;
                meta.lose = 0x99;
            } else if (hdr.t.op == 2) {
                clone(CloneType.I2E, 7);
                hdr.t.mark = 0x11;
                sm.egress_spec = 1;
            } else if (hdr.t.op == 3) {
                meta.keep = 0x33;
                meta.lose = 0x44;
                resubmit_preserving_field_list(1);
                sm.egress_spec = 1;
            } else if (hdr.t.op == 4) {
                sm.egress_spec = 1;
            } else if (hdr.t.op == 5) {
                sm.egress_spec = 1;
            } else if (hdr.t.op == 6) {
                meta.ckeep = 0x5A;
                clone_preserving_field_list(CloneType.I2E, 7, 3);
                sm.egress_spec = 1;
            } else if (hdr.t.op == 7) {
                sm.mcast_grp = 6;
            } else if (hdr.t.op == 8) {
                meta.keep = 0x33;
                resubmit_preserving_field_list(1);
                meta.keep = 0x77;
            } else if (hdr.t.op == 9) {
                meta.ckeep = 0x01;
                clone_preserving_field_list(CloneType.I2E, 7, 3);
                meta.ckeep = 0x5B;
                sm.egress_spec = 1;
            } else if (hdr.t.op == 11 || hdr.t.op == 12) {
                sm.egress_spec = 1;
            } else if (hdr.t.op == 13) {
                clone(CloneType.I2E, 7);
                mark_to_drop(sm);
            } else if (hdr.t.op == 10) {
                clone(CloneType.I2E, 7);
                clone(CloneType.I2E, 12);
                sm.egress_spec = 1;
            }
        } else if (sm.instance_type == 6) {
            hdr.t.keep = meta.keep;
            hdr.t.lose = meta.lose;
            sm.egress_spec = 2;
        } else if (sm.instance_type == 4) {
            hdr.t.keep = meta.rkeep;
            sm.egress_spec = 3;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.t.it_e = (bit<8>) sm.instance_type;
        hdr.t.rid = sm.egress_rid;
        hdr.t.eport = (bit<16>) sm.egress_port;
        if (sm.instance_type == 1) {
            hdr.t.lose = meta.ckeep;
        }
        if (sm.instance_type == 5) {
            hdr.t.lose = meta.lose;
        }
        if (sm.instance_type == 0) {
            if (hdr.t.op == 4 && hdr.t.e1 == 0) {
                meta.rkeep = 0x66;
                hdr.t.e1 = 0xE4;
                recirculate_preserving_field_list(2);
            } else if (hdr.t.op == 5) {
                hdr.t.e1 = 0xE5;
                clone(CloneType.E2E, 8);
            } else if (hdr.t.op == 11) {
                recirculate_preserving_field_list(2);
                mark_to_drop(sm);
            } else if (hdr.t.op == 12) {
                hdr.t.e1 = 0xEC;
                clone(CloneType.E2E, 8);
                mark_to_drop(sm);
            }
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
