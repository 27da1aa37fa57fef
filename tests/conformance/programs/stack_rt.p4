// Header stack indexed by a run-time value (as in p4c's gauntlet_index_*-bmv2 tests),
// plus a local header variable assigned from a list and copied (gauntlet_hdr_init-bmv2).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header cmd_t { bit<8> idx; bit<8> val; }
header elem_t { bit<16> v; }

struct headers_t { ethernet_t eth; cmd_t cmd; elem_t[4] s; elem_t extra; }
struct meta_t { }

bit<2> clamp(in bit<8> i) {
    return (i > 3) ? 2w3 : (bit<2>) i;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.cmd);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    elem_t tmp;
    apply {
        bit<2> i = clamp(hdr.cmd.idx);
        hdr.s[i].v = hdr.s[i].v + (bit<16>) hdr.cmd.val;
        tmp = { hdr.s[i].v };
        hdr.extra = tmp;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.cmd);
        pkt.emit(hdr.s);
        pkt.emit(hdr.extra);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
