// Operator precedence (P4-16: & ^ | bind tighter than comparisons, unlike C).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header p_t {
    bit<8> a; bit<8> b;
    bit<8> prec1; bit<8> prec2; bit<8> prec3; bit<8> prec4; bit<8> prec5; bit<8> flags;
}

struct headers_t { ethernet_t eth; p_t p; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.p);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bit<8> a = hdr.p.a;
        bit<8> b = hdr.p.b;
        hdr.p.prec1 = a + b << 1;
        hdr.p.prec2 = a << 1 + 1;
        hdr.p.prec3 = a | b ^ 0x3C & a;
        hdr.p.prec4 = a - b - 1;
        hdr.p.prec5 = a << 1 | b;
        bit<8> f = 0;
        if (a & 0x0F == b & 0x0F) { f = f | 0x01; }
        if (a | b < 0x80)         { f = f | 0x02; }
        if (a + b * 2 > 100)      { f = f | 0x04; }
        if (!(a == b) && a != 0 || b == 0) { f = f | 0x08; }
        if (a ^ b != 0)           { f = f | 0x10; }
        hdr.p.flags = f;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.p);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
