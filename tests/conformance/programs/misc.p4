// Declarations and wide values: typedef, const, serializable enum, struct locals,
// header-to-header assignment, slices and ++ on 128 bits, bit<128>/bit<72> arithmetic.
#include <core.p4>
#include <v1model.p4>

typedef bit<128> u128_t;
const bit<8> OFFSET = 3;

enum bit<8> Op { ADD = 1, SHIFT = 2, COPY = 3 }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header w_t { Op op; u128_t x; bit<72> y; }

struct pair_t { bit<8> lo; bit<8> hi; }
struct headers_t { ethernet_t eth; w_t w; w_t cp; }
struct meta_t { pair_t p; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.w);
        transition select(hdr.w.op) {
            Op.COPY: parse_cp;
            default: accept;
        }
    }
    state parse_cp {
        pkt.extract(hdr.cp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.p.lo = 1;
        meta.p.hi = 2;
        pair_t q = meta.p;
        if (hdr.w.op == Op.ADD) {
            hdr.w.x = hdr.w.x + (u128_t) (q.hi + OFFSET);
            hdr.w.y = hdr.w.y - 1;
        } else if (hdr.w.op == Op.SHIFT) {
            hdr.w.x = hdr.w.x << 68;
            hdr.w.y = hdr.w.y >> 4;
        } else if (hdr.w.op == Op.COPY) {
            hdr.cp = hdr.w;
            hdr.cp.x = hdr.w.x[63:0] ++ hdr.w.x[127:64];
            hdr.cp.y = 72w0x0102030405060708;
            hdr.w.setInvalid();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.w);
        pkt.emit(hdr.cp);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
