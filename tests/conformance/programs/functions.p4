// P4 functions (P4-16 spec "Function declarations"): in/inout/out parameters,
// void functions, a function calling a function, return in nested ifs.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header f_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }

struct headers_t { ethernet_t eth; f_t f; }
struct meta_t { }

void bump(inout bit<8> x, in bit<8> by) {
    x = x + by;
}

void split(in bit<8> v, out bit<8> hi, out bit<8> lo) {
    hi = v >> 4;
    lo = v & 0x0F;
}

bit<8> classify(in bit<8> v) {
    if (v < 10) {
        return 1;
    } else {
        if (v < 100) {
            return 2;
        }
    }
    return 3;
}

bit<8> twice_class(in bit<8> v) {
    return classify(v) << 1;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.f);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bump(hdr.f.a, 3);
        split(hdr.f.b, hdr.f.c, hdr.f.d);
        hdr.f.b = twice_class(hdr.f.a);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.f);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
