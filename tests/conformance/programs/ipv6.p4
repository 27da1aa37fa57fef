// IPv6 routing: 128-bit LPM key, 128-bit action parameter, hop limit decrement.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header ipv6_t {
    bit<4> version; bit<8> trafficClass; bit<20> flowLabel;
    bit<16> payloadLen; bit<8> nextHdr; bit<8> hopLimit;
    bit<128> srcAddr; bit<128> dstAddr;
}

struct headers_t { ethernet_t ethernet; ipv6_t ipv6; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x86DD: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action route(bit<9> port, bit<48> dmac) {
        sm.egress_spec = port;
        hdr.ethernet.dstAddr = dmac;
        hdr.ipv6.hopLimit = hdr.ipv6.hopLimit - 1;
    }
    action rewrite(bit<9> port, bit<128> newDst) {
        sm.egress_spec = port;
        hdr.ipv6.dstAddr = newDst;
    }
    action drop() { mark_to_drop(sm); }
    table v6_lpm {
        key = { hdr.ipv6.dstAddr : lpm; }
        actions = { route; rewrite; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.ipv6.isValid()) {
            v6_lpm.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
