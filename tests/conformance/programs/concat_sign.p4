// Concatenation with mixed signedness: the result takes the signedness of the left
// operand (P4-16 spec "Concatenation"; p4c testdata concat-mixed-sign-bmv2 runs on BMv2).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header c_t { int<8> s; bit<8> u; bit<16> r1; bit<16> r2; bit<16> r3; bit<16> r4; }

struct headers_t { ethernet_t eth; c_t c; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.c);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        int<16> a = hdr.c.s ++ hdr.c.u;
        bit<16> b = hdr.c.u ++ hdr.c.s;
        hdr.c.r1 = (bit<16>) a;
        hdr.c.r2 = b;
        hdr.c.r3 = (bit<16>) (a >> 8);     // arithmetic shift: a is signed
        hdr.c.r4 = b >> 8;                 // logical shift
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.c);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
