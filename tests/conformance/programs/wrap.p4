// Wrap-around of intermediate results: every bit<W>/int<W> operation is modulo 2^W
// before the next operation uses it (no implicit widening in P4-16).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header w_t {
    bit<8> a; bit<8> b; int<8> sa; int<8> sb;
    bit<8> o1; bit<8> o2; bit<8> o3; bit<8> o4; bit<8> o5; bit<4> o6; bit<4> pad;
    bit<8> o7; bit<8> o8; bit<8> o9; bit<8> flags;
}

struct headers_t { ethernet_t eth; w_t w; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.w);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bit<8> a = hdr.w.a;
        bit<8> b = hdr.w.b;
        int<8> sa = hdr.w.sa;
        int<8> sb = hdr.w.sb;
        hdr.w.o1 = (a + b) >> 1;
        hdr.w.o2 = (a * b) >> 4;
        hdr.w.o3 = (a << 4) >> 4;
        hdr.w.o4 = (~a) >> 4;
        hdr.w.o5 = (a |+| b) + 1;
        hdr.w.o6 = (a + b)[7:4];
        hdr.w.pad = 0;
        hdr.w.o7 = (bit<8>) ((sa + sb) >> 1);
        hdr.w.o8 = (bit<8>) (-sa);
        hdr.w.o9 = (bit<8>) (((bit<16>) a * (bit<16>) b) >> 8);
        bit<8> f = 0;
        if (a + b < a)          { f = f | 0x01; }
        if (sa + sb < 0)        { f = f | 0x02; }
        if (a - b > a)          { f = f | 0x04; }
        if ((bit<16>) (a + b) == (bit<16>) a + (bit<16>) b) { f = f | 0x08; }
        if ((bit<16>) a + (bit<16>) b > 255) { f = f | 0x10; }
        hdr.w.flags = f;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.w);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
