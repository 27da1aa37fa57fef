// A header union local to the ingress control: emptied with (U){#}, one member made valid,
// its own isValid() tested.  p4c 1.2.4.8 writes that isValid() as valid_union of a "header"
// operand naming the union, which simple_switch cannot load (so no BMv2 packet test has it);
// test_union_local.py holds checkmate-switch on p4c's JSON to checkmate-p4c's build.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header n_t { bit<8> a; bit<8> b; }
header e_t { }
header_union pick_t { e_t none; n_t one; }
struct headers_t { eth_t eth; n_t n; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.n); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        pick_t u;
        u = (pick_t){#};
        if (!u.isValid()) { hdr.n.b = 1; }
        if (hdr.n.a == 1) { n_t x = (n_t){#}; x.setValid(); x.a = 4; u.one = x; }
        if (u.isValid()) { hdr.n.b = hdr.n.b + 0x10; }
        if (u.one.isValid()) { hdr.n.a = u.one.a + 0x20; }
        sm.egress_spec = 2;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
