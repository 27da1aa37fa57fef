// Indexed packet meter and a direct meter; the color is written into the packet.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ctl_t { bit<8> idx; bit<8> color; bit<8> dcolor; }

struct headers_t { ethernet_t eth; ctl_t ctl; }
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
    meter(4, MeterType.packets) m;
    meter(2, MeterType.bytes) mb;
    direct_meter<bit<8>>(MeterType.packets) dm;

    action mark() { dm.read(hdr.ctl.dcolor); }
    table t_dm {
        key = { hdr.ctl.idx : exact; }
        actions = { mark; NoAction; }
        meters = dm;
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        if (hdr.ctl.idx >= 0x80) {
            mb.execute_meter((bit<32>) (hdr.ctl.idx - 0x80), hdr.ctl.color);
        } else {
            m.execute_meter((bit<32>) hdr.ctl.idx, hdr.ctl.color);
        }
        t_dm.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ctl);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
