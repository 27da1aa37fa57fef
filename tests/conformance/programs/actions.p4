// Actions with directional parameters, actions calling actions, action data from
// the control plane, local variables, a P4 function with return, return in an
// action and in the ingress apply block, exit in the apply block and in an action.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t {
    bit<8> op; bit<8> a; bit<8> b; bit<8> c;
    bit<8> d;  bit<8> e; bit<8> g; bit<8> h;
}

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action add_to(inout bit<8> x, in bit<8> y) { x = x + y; }
    action sum_of(out bit<8> r, in bit<8> p, in bit<8> q) { r = p + q; }
    action twice(bit<8> k) {
        add_to(hdr.t.h, k);
        add_to(hdr.t.h, k);
    }
    action set_e() {
        if (hdr.t.op == 2) {
            hdr.t.e = 0xE1;
            return;
        }
        hdr.t.e = 0xE2;
    }
    action do_exit() {
        hdr.t.d = 0xD1;
        exit;
    }
    table t_act {
        key = { hdr.t.op : exact; }
        actions = { twice; do_exit; NoAction; }
        default_action = NoAction();
    }

    apply {
        if (hdr.t.op == 5) {
            exit;
        }
        sm.egress_spec = 3;
        add_to(hdr.t.a, 5);
        sum_of(hdr.t.b, hdr.t.a, 1);
        bit<8> tmp = hdr.t.c;
        tmp = tmp << 1;
        hdr.t.c = max8(tmp, 0x10);
        set_e();
        t_act.apply();
        if (hdr.t.op == 1) {
            hdr.t.d = 0xD2;
            exit;
        }
        if (hdr.t.op == 6) {
            hdr.t.d = 0xD6;
            return;
        }
        hdr.t.d = hdr.t.d + 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.t.g = 0x77;
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
