// Queueing metadata as the ECN tutorial reads it: for a packet that finds its egress
// queue empty, enq_qdepth and deq_qdepth are 0 (simple_switch.cpp enqueue / egress_thread
// write the queue size; simple_switch.md "queueing_metadata").
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header q_t { bit<8> ecn; bit<24> enq; bit<24> deq; }

struct headers_t { ethernet_t eth; q_t q; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.q);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply { sm.egress_spec = 2; }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.q.enq = (bit<24>) sm.enq_qdepth;
        hdr.q.deq = (bit<24>) sm.deq_qdepth;
        if (hdr.q.ecn == 1 || hdr.q.ecn == 2) {
            if (sm.enq_qdepth >= 10) {
                hdr.q.ecn = 3;
            }
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.q);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
