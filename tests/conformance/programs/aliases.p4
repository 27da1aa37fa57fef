// The same local names in two controls: P4Info aliases must stay unique.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    register<bit<16>>(4) seen;
    action drop() { mark_to_drop(sm); }
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t {
        key = { hdr.eth.etherType : exact; }
        actions = { drop; fwd; }
        default_action = fwd(1);
    }
    apply {
        seen.write(0, hdr.eth.etherType);
        t.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    register<bit<16>>(4) seen;
    action drop() { mark_to_drop(sm); }
    table t {
        key = { hdr.eth.dst : exact; }
        actions = { drop; NoAction; }
        default_action = NoAction();
    }
    apply {
        seen.write(1, hdr.eth.etherType);
        t.apply();
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
