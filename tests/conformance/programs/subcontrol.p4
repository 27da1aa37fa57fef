// A control instantiated and applied inside MyIngress, with return in its apply block
// (P4-16 spec "Control blocks": controls can be instantiated and invoked with apply).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<8> op; bit<8> e; bit<8> d; }

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

control Sub(inout t_t t) {
    action mark(bit<8> v) { t.d = t.d + v; }
    table t_sub {
        key = { t.op : exact; }
        actions = { mark; NoAction; }
        default_action = NoAction();
    }
    apply {
        t_sub.apply();
        if (t.op == 2) {
            t.e = 0xE1;
            return;
        }
        t.e = 0xE2;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    Sub() sub;
    apply {
        sm.egress_spec = 3;
        sub.apply(hdr.t);
        hdr.t.d = hdr.t.d + 1;
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
