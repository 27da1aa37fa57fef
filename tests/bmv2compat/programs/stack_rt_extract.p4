// Parser that extracts into a header stack element picked by a run-time index (p4c writes a
// "regular" extract whose value is a dereference_header_stack expression), reads the element
// just extracted through the same index, and runs the index past the stack on a long frame.
// simple_switch 1.15.5 cannot load this JSON (Json::LogicError on the expression); the
// embedded target runs it as checkmate-p4c's build does (tests/bmv2compat/test_loader.py).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header tag_t { bit<8> more; bit<8> v; }

struct headers_t { eth_t eth; tag_t[3] tags; }
struct meta_t { bit<8> i; bit<8> last_v; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        meta.i = 0;
        transition select(hdr.eth.etype) { 0x88b5: tags; 0x88b6: from_one; default: accept; }
    }
    state from_one { meta.i = 1; transition tags; }
    state tags {
        pkt.extract(hdr.tags[meta.i]);
        meta.last_v = hdr.tags[meta.i].v;
        meta.i = meta.i + 1;
        transition select(hdr.tags[meta.i - 1].more) { 1: tags; default: accept; }
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        hdr.eth.dst[7:0] = meta.i;
        hdr.eth.dst[15:8] = meta.last_v;
        if (sm.parser_error == error.StackOutOfBounds) { hdr.eth.dst[23:16] = 0xe3; }
        else if (sm.parser_error == error.PacketTooShort) { hdr.eth.dst[23:16] = 0xe1; }
        hdr.eth.dst[26:24] = (bit<1>)hdr.tags[0].isValid() ++ (bit<1>)hdr.tags[1].isValid() ++ (bit<1>)hdr.tags[2].isValid();
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tags); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
