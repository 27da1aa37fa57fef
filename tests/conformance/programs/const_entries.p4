// const entries with range / ternary / lpm keys: which entry wins when several match.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header k_t { bit<8> k; bit<8> r; bit<8> t; bit<8> l; bit<8> m; }

struct headers_t { ethernet_t eth; k_t k; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.k);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_r(bit<8> v) { hdr.k.r = v; }
    action set_t(bit<8> v) { hdr.k.t = v; }
    action set_l(bit<8> v) { hdr.k.l = v; }
    action set_m(bit<8> v) { hdr.k.m = v; }

    table by_range {
        key = { hdr.k.k : range; }
        actions = { set_r; }
        const entries = {
            2 .. 9    : set_r(1);
            7 .. 14   : set_r(2);
            20 .. 20  : set_r(3);
            22        : set_r(4);
            _         : set_r(5);
        }
    }
    table by_ternary {
        key = { hdr.k.k : ternary; }
        actions = { set_t; }
        const entries = {
            0x08 &&& 0xF8 : set_t(1);
            0x20 &&& 0x61 : set_t(2);
            0x30 &&& 0xFF : set_t(3);
            0xEE          : set_t(4);
            _             : set_t(5);
        }
    }
    table by_lpm {
        key = { hdr.k.k : lpm; }
        actions = { set_l; }
        const entries = {
            0x08 &&& 0xF8 : set_l(1);
            0x20 &&& 0xE0 : set_l(2);
            0x0A &&& 0xFF : set_l(3);
            0xEE          : set_l(4);
            _             : set_l(5);
        }
    }
    table two_keys {
        key = { hdr.k.k : ternary; hdr.k.m : exact; }
        actions = { set_m; }
        const entries = {
            (0x01 &&& 0x01, 0) : set_m(0x11);
            (_, 0)             : set_m(0x22);
        }
    }
    apply {
        by_range.apply();
        by_ternary.apply();
        by_lpm.apply();
        two_keys.apply();
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.k);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
