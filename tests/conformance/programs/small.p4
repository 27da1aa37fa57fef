// Small constructs: a keyless table (always runs its default action, .hit is false),
// bool <-> bit<1> casts, and emit of the whole headers struct in the deparser.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header s_t { bit<8> a; bit<8> b; bit<8> flags; }
header extra_t { bit<8> e; }

struct headers_t { ethernet_t eth; s_t s; extra_t extra; }
struct meta_t { }

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
    action set_port(bit<9> p) { sm.egress_spec = p; }
    table keyless {
        actions = { set_port; }
        default_action = set_port(5);
    }
    apply {
        bit<1> gt = (bit<1>) (hdr.s.a > hdr.s.b);
        bool odd = (bool) hdr.s.a[0:0];
        bit<8> f = (bit<8>) gt;
        if (odd) {
            f = f | 0x02;
        }
        if (keyless.apply().hit) {
            f = f | 0x04;
        }
        hdr.s.flags = f;
        if (hdr.s.b == 0xEE) {
            hdr.extra.setValid();
            hdr.extra.e = 0x99;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
