// Control-level variables are initialized for every packet (not persistent state);
// an `out` header parameter that is never written leaves the header invalid
// (P4-16 spec: out parameters start uninitialized, a header starts invalid).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header h_t { bit<8> a; bit<8> b; }

struct headers_t { ethernet_t eth; h_t h; h_t g; }
struct meta_t { }

void forget(out h_t x) { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.g);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    bit<8> c = 8w12;
    action bump() {
        c = c + 1;
        hdr.h.a = c;
    }
    action clear_out(out h_t x) { }
    apply {
        bump();
        bump();
        if (hdr.h.b == 1) {
            forget(hdr.g);
        } else if (hdr.h.b == 2) {
            clear_out(hdr.g);
        }
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
        pkt.emit(hdr.g);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
