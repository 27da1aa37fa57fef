// A table with neither default_action nor NoAction in its list: p4c adds NoAction as
// a @defaultonly default action (see p4c testdata v1model-special-ops-bmv2.p4 and its
// P4Info, table egress.get_multicast_copy_out_bd).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<8> k; bit<8> a; }

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

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
    action set_a(bit<8> v) { hdr.t.a = v; }
    table no_default {
        key = { hdr.t.k : exact; }
        actions = { set_a; }
    }
    apply {
        sm.egress_spec = 1;
        if (no_default.apply().miss) {
            hdr.t.a = hdr.t.a | 0x80;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
