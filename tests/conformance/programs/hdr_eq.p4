// Header equality (P4-16 spec "Operations on headers"): two headers are equal when both
// are invalid, or both are valid and all fields are equal.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header h_t { bit<16> a; bit<16> b; }
header r_t { bit<8> flags; }

struct headers_t { ethernet_t eth; h_t x; h_t y; h_t z; r_t r; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.x);
        pkt.extract(hdr.y);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        h_t lit = { 16w7, 16w9 };
        bit<8> f = 0;
        if (hdr.x == hdr.y)  { f = f | 1; }
        if (hdr.x == lit)    { f = f | 2; }
        if (hdr.z == hdr.z)  { f = f | 4; }   // both invalid: equal
        if (hdr.x != hdr.z)  { f = f | 8; }   // valid vs invalid: different
        hdr.r.setValid();
        hdr.r.flags = f;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.x);
        pkt.emit(hdr.y);
        pkt.emit(hdr.r);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
