// A top-level action with a directional parameter bound in the table's action list
// (`my_drop(sm)`), as in p4c's v1model-special-ops-bmv2.p4; its P4Info name is the
// unqualified "my_drop" and it has no control-plane parameters.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<8> k; bit<8> a; }

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

action my_drop(inout standard_metadata_t smeta) {
    mark_to_drop(smeta);
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
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t {
        key = { hdr.t.k : exact; }
        actions = { fwd; my_drop(sm); }
        default_action = my_drop(sm);
    }
    apply {
        t.apply();
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
