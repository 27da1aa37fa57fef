// An 802.1Q-tagged frame must reach the parser with its tag (BMv2 reads it through libpcap).
// res.a: 1 when the VLAN header was parsed; res.b: low byte of the VLAN id; res.c: the
// etherType after the tag (IPv4 0x0800 parsed as untagged when the tag is lost).
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> type; }
header res_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers { eth_t eth; vlan_t vlan; res_t res; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { 0x8100: parse_vlan; 0x88a8: parse_vlan; default: accept; } }
    state parse_vlan { pkt.extract(hdr.vlan); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.res.setValid();
        hdr.res.a = hdr.vlan.isValid() ? 8w1 : 8w0;
        hdr.res.b = hdr.vlan.isValid() ? hdr.vlan.vid[7:0] : 8w0;  // an invalid header reads stale data on BMv2
        hdr.res.c = hdr.vlan.isValid() ? hdr.vlan.type : hdr.eth.type;
        sm.egress_spec = 2;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.vlan); pkt.emit(hdr.res); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
