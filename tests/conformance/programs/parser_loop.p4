// A counter-driven parser loop (as in MRI/source-routing style programs): a count field
// gives the number of stack elements; the parser copies it to metadata, decrements it
// in each state and selects on it.  Ingress reports what was parsed.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header cnt_t { bit<8> count; bit<8> seen; }
header item_t { bit<16> v; }

struct headers_t { ethernet_t eth; cnt_t cnt; item_t[4] items; }
struct pmeta_t { bit<8> remaining; }
struct meta_t { pmeta_t p; bit<8> visits; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.cnt);
        meta.p.remaining = hdr.cnt.count;
        transition select(meta.p.remaining) {
            0: accept;
            default: parse_item;
        }
    }
    state parse_item {
        pkt.extract(hdr.items.next);
        meta.p.remaining = meta.p.remaining - 1;
        meta.visits = meta.visits + 1;
        transition select(meta.p.remaining) {
            0: accept;
            default: parse_item;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.cnt.seen = meta.visits;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.cnt.seen = hdr.cnt.seen | 0x80;
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
        pkt.emit(hdr.cnt);
        pkt.emit(hdr.items);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
