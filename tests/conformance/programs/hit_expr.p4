// t.apply().hit / .miss used inside expressions, not only as an if condition
// (cf. p4c's gauntlet_nested_table_calls-bmv2 and hit-expr-bmv2 tests).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header r_t { bit<8> k; bit<8> x; bit<8> y; }

struct headers_t { ethernet_t eth; r_t r; }
struct meta_t { }

bit<8> pass(in bit<8> v) { return v; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.r);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action noop() { }
    table t1 {
        key = { hdr.r.k : exact; }
        actions = { noop; }
    }
    table t2 {
        key = { hdr.r.k : exact; }
        actions = { noop; }
    }
    apply {
        hdr.r.x = pass(t1.apply().hit ? 8w1 : 8w2);
        bool missed = t2.apply().miss;
        hdr.r.y = missed ? 8w3 : 8w4;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.r);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
