// standard_metadata seen by a resubmitted (etherType 0x0001) or recirculated (0x0002)
// packet: BMv2 resets all metadata except the preserved field list (ingress_port reads 0).
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header info_t { bit<16> in_port; bit<32> itype; bit<32> plen; bit<16> kept; bit<8> lost; bit<16> espec; bit<16> mgrp; }
struct headers { eth_t eth; info_t info; }
struct meta_t { @field_list(1) bit<16> kept; bit<8> lost; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.kept = (bit<16>) sm.ingress_port + 16w0x100;
            meta.lost = 7;
            sm.mcast_grp = 0;
            if (hdr.eth.type == 0x0001) {
                resubmit_preserving_field_list(1);
            }
        } else {
            hdr.info.setValid();
            hdr.info.in_port = (bit<16>) sm.ingress_port;
            hdr.info.itype = sm.instance_type;
            hdr.info.plen = sm.packet_length;
            hdr.info.kept = meta.kept;
            hdr.info.lost = meta.lost;
            hdr.info.espec = (bit<16>) sm.egress_spec;
            hdr.info.mgrp = sm.mcast_grp;
        }
        sm.egress_spec = 2;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (!hdr.info.isValid() && hdr.eth.type == 0x0002) {
            recirculate_preserving_field_list(1);
        }
    }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.info); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
