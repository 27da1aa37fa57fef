// A stack of header unions (BMv2 JSON: header_union_stacks).  The parser fills us.next.b
// (1 byte) or us.next.w (2 bytes) by a kind byte; the table, keyed on us[0]'s member, makes
// us[1].w valid (invalidating us[1].b), pops or pushes the stack; the result records the
// validity of every member and copies us[1] into the plain union u.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header kind_t { bit<8> k; }
header b_t { bit<8> v; }
header w_t { bit<16> v; }
header res_t { bit<8> valid; }
header_union u_t { b_t b; w_t w; }
struct headers { eth_t eth; kind_t k0; u_t[2] us; kind_t k1; u_t u; res_t res; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { 0x1250: first; default: accept; } }
    state first { pkt.extract(hdr.k0); transition select(hdr.k0.k) { 1: b0; 2: w0; default: accept; } }
    state b0 { pkt.extract(hdr.us.next.b); transition second; }
    state w0 { pkt.extract(hdr.us.next.w); transition second; }
    state second { pkt.extract(hdr.k1); transition select(hdr.k1.k) { 1: b1; 2: w1; default: accept; } }
    state b1 { pkt.extract(hdr.us.next.b); transition accept; }
    state w1 { pkt.extract(hdr.us.next.w); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action make_w(bit<16> v) { hdr.us[1].w.setValid(); hdr.us[1].w.v = v; }
    action pop1() { hdr.us.pop_front(1); }
    action push1() { hdr.us.push_front(1); hdr.us[0].b.setValid(); hdr.us[0].b.v = 0x77; }
    table t {
        key = { hdr.us[0].b.v : ternary; hdr.us[0].w.isValid() : exact; }
        actions = { make_w; pop1; push1; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        hdr.u = hdr.us[1];
        hdr.res.setValid();
        hdr.res.valid = (bit<1>)hdr.us[0].b.isValid() ++ (bit<1>)hdr.us[0].w.isValid() ++
                        (bit<1>)hdr.us[1].b.isValid() ++ (bit<1>)hdr.us[1].w.isValid() ++
                        (bit<1>)hdr.u.b.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ 2w0;
        sm.egress_spec = 2;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.k0); pkt.emit(hdr.us); pkt.emit(hdr.k1); pkt.emit(hdr.u); pkt.emit(hdr.res); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
