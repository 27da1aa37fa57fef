// A select with no matching case and no default, and an explicit reject: BMv2 accepts
// with parser_error unchanged (p4c emits no reject transition). res.a: 0 NoError, 1 NoMatch.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<8> b; }
struct headers { eth_t eth; tag_t tag; tag_t res; }
struct meta_t { @field_list(1) bit<8> pass; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { 0x1234: parse_tag; 0x9999: reject; } }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.res.setValid();
        hdr.res.a = (bit<8>) (sm.parser_error == error.NoMatch ? 8w1 : (sm.parser_error == error.NoError ? 8w0 : 8w2));
        hdr.res.b = (bit<8>) sm.ingress_port;
        sm.egress_spec = 2;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); pkt.emit(hdr.res); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
