// hash() with crc16, crc32, csum16 and identity over header fields; base + (H % max).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
// d: 9 bytes of data for the CRCs; ip: a 20-byte IPv4 header for csum16
header data_t { bit<72> d; bit<32> id4; }
header ip_t {
    bit<8> vihl; bit<8> tos; bit<16> len; bit<16> ident; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header res_t {
    bit<16> crc16; bit<32> crc32; bit<16> csum16; bit<32> ident;
    bit<16> crc16_mod; bit<8> crc32_small; bit<16> max_one;
}

struct headers_t { ethernet_t eth; data_t data; ip_t ip; res_t res; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.data);
        pkt.extract(hdr.ip);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.res.setValid();
        hash(hdr.res.crc16, HashAlgorithm.crc16, 16w0, { hdr.data.d }, 32w65536);
        hash(hdr.res.crc32, HashAlgorithm.crc32, 32w0, { hdr.data.d }, 64w4294967296);
        hash(hdr.res.csum16, HashAlgorithm.csum16, 16w0,
             { hdr.ip.vihl, hdr.ip.tos, hdr.ip.len, hdr.ip.ident, hdr.ip.frag,
               hdr.ip.ttl, hdr.ip.proto, hdr.ip.csum, hdr.ip.src, hdr.ip.dst },
             32w65536);
        hash(hdr.res.ident, HashAlgorithm.identity, 32w0, { hdr.data.id4 }, 64w4294967296);
        hash(hdr.res.crc16_mod, HashAlgorithm.crc16, 16w100, { hdr.data.d }, 32w1000);
        hash(hdr.res.crc32_small, HashAlgorithm.crc32, 8w3, { hdr.data.d }, 16w7);
        hash(hdr.res.max_one, HashAlgorithm.crc16, 16w55, { hdr.data.d }, 32w1);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.data);
        pkt.emit(hdr.ip);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
