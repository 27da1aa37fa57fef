// Structure-valued expressions (P4-16 spec "Structure-valued expressions") and
// list expressions assigned to a header (the header becomes valid).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header h_t { bit<8> a; bit<16> b; }

struct pair_t { bit<8> lo; bit<8> hi; }
struct headers_t { ethernet_t eth; h_t h; h_t n; }
struct meta_t { pair_t p; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        pair_t q = { lo = 8w1, hi = 8w2 };
        meta.p = q;
        hdr.n = { hdr.h.a + meta.p.hi, 16w0xBEEF };
        hdr.h.a = meta.p.lo;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.h);
        pkt.emit(hdr.n);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
