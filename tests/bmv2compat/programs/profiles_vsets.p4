// Action profile, action selector (crc16 over eth.src) and a parser value set, for the
// BMv2 JSON loader (test_loader.py). the egress port is the chosen member; res.vs: 1 when the
// etherType was in the value set.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header out_t { bit<8> vs; bit<8> prof; }
struct headers { eth_t eth; out_t res; }
struct meta_t { bit<8> vs; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) pvs;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { pvs: in_set; default: accept; } }
    state in_set { meta.vs = 1; transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> p) { sm.egress_spec = p; }
    action mark(bit<8> v) { hdr.res.prof = v; }
    action_selector(HashAlgorithm.crc16, 32w16, 32w16) sel;
    action_profile(32w8) prof;
    table t { key = { hdr.eth.type: exact; hdr.eth.src: selector; } actions = { fwd; NoAction; } implementation = sel; }
    table t2 { key = { hdr.eth.dst: exact; } actions = { mark; NoAction; } implementation = prof; }
    apply {
        hdr.res.setValid();
        hdr.res.vs = meta.vs;
        hdr.res.prof = 0;
        sm.egress_spec = 9;
        t.apply();
        t2.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.res); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
