// Header stacks, lookahead, select with masks/ranges/tuples, verify, parser errors.
#include <core.p4>
#include <v1model.p4>

error { BadVersion }

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header mpls_t { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
header v_t { bit<4> version; bit<4> kind; bit<8> len; }
header out_t { bit<8> err; bit<8> depth; bit<8> peek; bit<8> klass; }

struct meta_t { bit<8> peek; bit<8> klass; }
struct headers { eth_t eth; mpls_t[3] mpls; v_t v; out_t o; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) {
            0x8847: mpls;
            0x9000 &&& 0xF000: v;      // 0x9xxx
            0x0600 .. 0x06FF: skip2;
            default: accept;
        }
    }
    state mpls {
        pkt.extract(h.mpls.next);
        transition select(h.mpls.last.bos) { 1: after_mpls; default: mpls; }
    }
    state after_mpls {
        m.peek = pkt.lookahead<bit<8>>();
        transition v;
    }
    state v {
        pkt.extract(h.v);
        verify(h.v.version == 4, error.BadVersion);
        transition select(h.v.version, h.v.kind) {
            (4, 0 .. 3): low;
            (4, _): accept;
        }
    }
    state low { m.klass = 1; transition accept; }
    state skip2 { pkt.advance(16); m.peek = pkt.lookahead<bit<8>>(); transition accept; }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.err = (bit<8>) (sm.parser_error == error.NoError ? 8w0 :
                   (sm.parser_error == error.PacketTooShort ? 8w1 :
                   (sm.parser_error == error.StackOutOfBounds ? 8w3 :
                   (sm.parser_error == error.BadVersion ? 8w7 : 8w9))));
        h.o.depth = (bit<8>) (h.mpls[0].isValid() ? 8w1 : 8w0) + (h.mpls[1].isValid() ? 8w1 : 8w0)
                    + (h.mpls[2].isValid() ? 8w1 : 8w0);
        h.o.peek = m.peek;
        h.o.klass = m.klass;
        if (h.mpls[0].isValid() && h.mpls[0].label == 100) {
            h.mpls.pop_front(1);
        } else if (h.mpls[0].isValid() && h.mpls[0].label == 200) {
            h.mpls.push_front(1);
            h.mpls[0].setValid();
            h.mpls[0].label = 999; h.mpls[0].ttl = 64;
        }
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply { pkt.emit(h.eth); pkt.emit(h.o); pkt.emit(h.mpls); pkt.emit(h.v); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
