// hash() over fields that are not byte-aligned: the field list is packed bit by bit
// and the last byte is padded with zero bits (BMv2 BufBuilder).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header in_t { bit<4> a; bit<4> b; bit<12> vid; bit<4> pad; }
header out_t { bit<16> h1; bit<16> h2; bit<32> h3; }

struct headers_t { ethernet_t eth; in_t i; out_t o; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.i);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        // 4 + 9 + 3 = 16 bits
        hash(hdr.o.h1, HashAlgorithm.crc16, 16w0,
             { hdr.i.a, sm.ingress_port, hdr.i.vid[2:0] }, 32w65536);
        // 12 bits -> 2 bytes, 4 zero pad bits at the end
        hash(hdr.o.h2, HashAlgorithm.crc16, 16w0, { hdr.i.vid }, 32w65536);
        // 4 + 12 + 4 = 20 bits -> 3 bytes
        hash(hdr.o.h3, HashAlgorithm.crc32, 32w0, { hdr.i.b, hdr.i.vid, hdr.i.a },
             64w4294967296);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
