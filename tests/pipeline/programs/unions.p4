// header_union: parse one of two member headers, isValid() of the union, setValid()
// of one member invalidates the other, emit of the union emits the valid member.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union ab_t { a_t a; b_t b; }
header out_t { bit<8> flags; }
struct m_t { }
struct hs { eth_t eth; ab_t u; out_t o; }

parser P(packet_in pkt, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) { 0xAAAA: pa; 0xBBBB: pb; default: accept; }
    }
    state pa { pkt.extract(h.u.a); transition accept; }
    state pb { pkt.extract(h.u.b); transition accept; }
}
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.flags = (h.u.isValid() ? 8w1 : 8w0) | (h.u.a.isValid() ? 8w2 : 8w0) |
                    (h.u.b.isValid() ? 8w4 : 8w0);
        if (h.u.a.isValid() && h.u.a.x == 0xFF) {
            h.u.b.setValid();           // a becomes invalid
            h.u.b.y = 0x1234;
            h.eth.type = 0xBBBB;
        }
        sm.egress_spec = 1;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.eth); p.emit(h.o); p.emit(h.u); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
