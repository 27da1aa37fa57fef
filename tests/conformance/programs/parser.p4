// Parser conformance program: select with value/mask/range/default, lookahead,
// header stacks (next/last) in the parser, verify() -> parser_error, PacketTooShort,
// StackOutOfBounds, and unparsed payload preservation.
#include <core.p4>
#include <v1model.p4>

error { BadIhl }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset;
    bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header udp_t { bit<16> srcPort; bit<16> dstPort; bit<16> length; bit<16> checksum; }
header tag_t { bit<8> kind; bit<8> value; }
// Inserted by ingress right after Ethernet: what the parser found.
header report_t { bit<8> err; bit<8> path; bit<8> valid; bit<8> la; }

struct headers_t {
    ethernet_t eth;
    report_t   rep;
    vlan_t[2]  vlans;
    ipv4_t     ipv4;
    udp_t      udp;
    tag_t      tag;
}
struct meta_t { bit<8> path; bit<8> la; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            0x9000 &&& 0xF000: parse_masked;
            0x0600 .. 0x06FF: parse_range;
            0x88B5: parse_lookahead;
            0x8847: parse_version;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlans.next);
        transition select(hdr.vlans.last.etherType) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl == 5, error.BadIhl);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
    state parse_masked {
        meta.path = 2;
        transition accept;
    }
    state parse_range {
        meta.path = 3;
        transition accept;
    }
    state parse_lookahead {
        meta.path = 4;
        meta.la = pkt.lookahead<bit<8>>();
        transition select(pkt.lookahead<bit<8>>()) {
            0x01: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.kind, hdr.tag.value) {
            (0x01, 0x00 &&& 0x80): tag_low;
            (0x01, 0xF0 .. 0xFF): tag_top;
            (_, _): accept;
        }
    }
    state tag_low {
        meta.path = 5;
        transition accept;
    }
    state tag_top {
        meta.path = 6;
        transition accept;
    }
    state parse_version {
        meta.path = 7;
        transition select(pkt.lookahead<bit<4>>()) {
            4: parse_ipv4;
            default: accept;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.rep.setValid();
        if (sm.parser_error == error.NoError) {
            hdr.rep.err = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.rep.err = 1;
        } else if (sm.parser_error == error.NoMatch) {
            hdr.rep.err = 2;
        } else if (sm.parser_error == error.StackOutOfBounds) {
            hdr.rep.err = 3;
        } else if (sm.parser_error == error.BadIhl) {
            hdr.rep.err = 10;
        } else {
            hdr.rep.err = 0xFF;
        }
        hdr.rep.path = meta.path;
        hdr.rep.la = meta.la;
        bit<8> v = 0;
        if (hdr.eth.isValid())      { v = v | 0x01; }
        if (hdr.vlans[0].isValid()) { v = v | 0x02; }
        if (hdr.vlans[1].isValid()) { v = v | 0x04; }
        if (hdr.ipv4.isValid())     { v = v | 0x08; }
        if (hdr.udp.isValid())      { v = v | 0x10; }
        if (hdr.tag.isValid())      { v = v | 0x20; }
        hdr.rep.valid = v;
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.rep);
        pkt.emit(hdr.vlans);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.tag);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
