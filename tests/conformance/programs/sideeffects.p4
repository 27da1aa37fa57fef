// Evaluation order and short-circuiting with side-effecting function calls
// (P4-16 spec: && || ?: evaluate their right/branch operands only when needed;
// arguments are evaluated left to right).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header s_t { bit<8> a; bit<8> n; bit<8> r1; bit<8> r2; bit<8> r3; }

struct headers_t { ethernet_t eth; s_t s; }
struct meta_t { }

bool tick(inout bit<8> n, in bool v) {
    n = n + 1;
    return v;
}

bit<8> next(inout bit<8> n) {
    n = n + 1;
    return n;
}

bit<8> pair(in bit<8> x, in bit<8> y) {
    return x * 16 + y;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.s);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bit<8> n = 0;
        bit<8> r = 0;
        if (hdr.s.a == 0 && tick(n, true)) { r = r | 1; }     // tick only if a == 0
        if (hdr.s.a == 0 || tick(n, false)) { r = r | 2; }    // tick only if a != 0
        hdr.s.r1 = r;
        hdr.s.r2 = (hdr.s.a == 0) ? next(n) : 8w0xF0;          // next only if a == 0
        hdr.s.r3 = pair(next(n), next(n));                     // left to right
        hdr.s.n = n;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.s);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
