// Expressions: bit<N> wrap-around, int<N> signed arithmetic, saturating |+| |-|,
// shifts (constant and run-time amount, signed >>), slices, ++, casts, comparisons,
// bool logic, ?:, slice assignment, compile-time constant folding, read of a field
// of an invalid header.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header in_t { bit<8> a; bit<8> b; int<8> sa; int<8> sb; bit<16> w; bit<8> sh; }
header opt_t { bit<8> x; }
header res_t {
    bit<8>  add8;  bit<8>  sub8;  bit<8>  mul8;  bit<8>  sat_add; bit<8> sat_sub;
    int<8>  s_add; int<8>  s_sat_add; int<8> s_sat_sub;
    bit<8>  shl3;  bit<8>  shr3;  int<8>  sshr2; bit<8>  shl_var; bit<8> shr_var;
    bit<8>  slice; bit<16> concat; bit<8> trunc; bit<16> zext; bit<16> sext;
    bit<8>  neg;   bit<8>  inv;   bit<8>  band;  bit<8>  bor;   bit<8>  bxor;
    bit<8>  cmp;   bit<8>  mux;   bit<16> wmix;   bit<8>  ishr;  bit<8>  lit;
    bit<8>  inv_read;
}

struct headers_t { ethernet_t eth; in_t inp; opt_t opt; res_t res; }
struct meta_t { }

const bit<8> K250 = 250;

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.inp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bit<8> a = hdr.inp.a;
        bit<8> b = hdr.inp.b;
        int<8> sa = hdr.inp.sa;
        int<8> sb = hdr.inp.sb;
        hdr.res.setValid();
        hdr.res.add8 = a + b;
        hdr.res.sub8 = a - b;
        hdr.res.mul8 = a * b;
        hdr.res.sat_add = a |+| b;
        hdr.res.sat_sub = a |-| b;
        hdr.res.s_add = sa + sb;
        hdr.res.s_sat_add = sa |+| sb;
        hdr.res.s_sat_sub = sa |-| sb;
        hdr.res.shl3 = a << 3;
        hdr.res.shr3 = a >> 3;
        hdr.res.sshr2 = sa >> 2;
        hdr.res.shl_var = a << hdr.inp.sh;
        hdr.res.shr_var = a >> hdr.inp.sh;
        hdr.res.slice = hdr.inp.w[11:4];
        hdr.res.concat = a ++ b;
        hdr.res.trunc = (bit<8>) hdr.inp.w;
        hdr.res.zext = (bit<16>) a;
        hdr.res.sext = (bit<16>) ((int<16>) sa);
        hdr.res.neg = -a;
        hdr.res.inv = ~a;
        hdr.res.band = a & b;
        hdr.res.bor = a | b;
        hdr.res.bxor = a ^ b;
        bit<8> c = 0;
        if (a < b)   { c = c | 0x01; }
        if (a >= b)  { c = c | 0x02; }
        if (sa < sb) { c = c | 0x04; }
        if (a == b)  { c = c | 0x08; }
        if (a != b)  { c = c | 0x10; }
        if (sa > sb) { c = c | 0x20; }
        if ((a > 10 && b < 20) || !(a == b)) { c = c | 0x40; }
        if (a <= b)  { c = c | 0x80; }
        hdr.res.cmp = c;
        hdr.res.mux = (a > b) ? a : b;
        bit<16> wtmp = hdr.inp.w;
        wtmp[3:0] = 0xF;
        wtmp[15:12] = 4w0;
        hdr.res.wmix = wtmp;
        hdr.res.ishr = (bit<8>) (((int<8>) a) >> 1);
        hdr.res.lit = K250 + 8w10;
        hdr.res.inv_read = hdr.opt.x;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.inp);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
