// Tutorial-style ECMP (our own program): the flow hash covers the TCP ports, and a UDP
// packet (no TCP header extracted) still feeds them to the hash.  BMv2 keeps a header's
// field values in its PHV when the next packet starts (all headers are only marked
// invalid), so those reads see the last packet's TCP ports; the spec leaves such a read
// unspecified, BMv2 decides.  The raw values are written into the frame too.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tcp_t { bit<16> srcPort; bit<16> dstPort; bit<32> seqNo; }
header udp_t { bit<16> srcPort; bit<16> dstPort; }

struct meta_t { bit<14> ecmp; }
struct hdrs_t { eth_t eth; ipv4_t ipv4; tcp_t tcp; udp_t udp; tcp_t[2] opts; }

parser P(packet_in pkt, out hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x0800: ipv4; 0x88b5: opts; default: accept; }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 6: tcp; 17: udp; default: accept; }
    }
    state tcp { pkt.extract(hdr.tcp); transition accept; }
    state udp { pkt.extract(hdr.udp); transition accept; }
    state opts { pkt.extract(hdr.opts.next); pkt.extract(hdr.opts.next); transition accept; }
}

control VC(inout hdrs_t hdr, inout meta_t meta) { apply { } }

control I(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (hdr.ipv4.isValid()) {
            hash(meta.ecmp, HashAlgorithm.crc16, (bit<1>)0,
                 { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, hdr.tcp.srcPort, hdr.tcp.dstPort },
                 (bit<16>)3);
            sm.egress_spec = (bit<9>)meta.ecmp + 1;
            // what the hash saw, in the frame
            hdr.ipv4.identification = hdr.tcp.srcPort;
            hdr.eth.src[31:0] = hdr.tcp.seqNo;
            if (hdr.tcp.isValid() && hdr.tcp.dstPort == 9) {
                hdr.tcp.setInvalid();   // dropped from the frame, values stay in the PHV
            }
        } else if (hdr.eth.etype == 0x88b6) {
            hdr.eth.src = (bit<48>)hdr.opts[1].seqNo;   // a stack element not extracted
        }
    }
}

control E(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hdrs_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); pkt.emit(hdr.tcp); pkt.emit(hdr.udp); pkt.emit(hdr.opts); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
