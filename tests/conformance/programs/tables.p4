// Tables: exact, lpm (+ default_action with data), ternary, range, optional,
// const entries + const default_action, .hit / .miss, switch on action_run.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t {
    bit<32> addr;
    bit<16> port;
    bit<8>  k8;
    bit<8>  opt;
    bit<8>  a;
    bit<8>  b;
    bit<8>  c;
    bit<8>  d;
    bit<8>  e;
    bit<8>  f;
    bit<8>  flags;
    bit<8>  sw;
}

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x88B5: parse_t;
            default: accept;
        }
    }
    state parse_t {
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_a(bit<8> v) { hdr.t.a = v; }
    action set_b(bit<8> v) { hdr.t.b = v; }
    action set_c(bit<8> v) { hdr.t.c = v; }
    action set_d(bit<8> v) { hdr.t.d = v; }
    action set_e(bit<8> v) { hdr.t.e = v; }
    action set_f(bit<8> v) { hdr.t.f = v; }
    action act_x() { hdr.t.a = hdr.t.a; }
    action act_y(bit<8> unused) { }
    action to_port(bit<9> port) { sm.egress_spec = port; }

    table t_exact {
        key = { hdr.t.k8 : exact; }
        actions = { set_a; NoAction; }
        default_action = NoAction();
    }
    table t_lpm {
        key = { hdr.t.addr : lpm; }
        actions = { set_b; }
        default_action = set_b(0xEE);
    }
    table t_tern {
        key = { hdr.t.k8 : ternary; }
        actions = { set_c; NoAction; }
        default_action = NoAction();
    }
    table t_range {
        key = { hdr.t.port : range; }
        actions = { set_d; NoAction; }
        default_action = NoAction();
    }
    table t_opt {
        key = { hdr.t.k8 : exact; hdr.t.opt : optional; }
        actions = { set_e; NoAction; }
        default_action = NoAction();
    }
    table t_const {
        key = { hdr.t.k8 : exact; }
        actions = { set_f; }
        const entries = {
            0x01 : set_f(0x11);
            0x02 : set_f(0x22);
        }
        const default_action = set_f(0x99);
    }
    table t_sw {
        key = { hdr.t.opt : exact; }
        actions = { act_x; act_y; NoAction; }
        default_action = NoAction();
    }
    table t_port {
        key = { hdr.t.port : exact; }
        actions = { to_port; }
        default_action = to_port(1);
        size = 64;
    }

    apply {
        if (hdr.t.isValid()) {
            if (t_exact.apply().hit) {
                hdr.t.flags = hdr.t.flags | 0x01;
            }
            if (t_lpm.apply().miss) {
                hdr.t.flags = hdr.t.flags | 0x02;
            }
            t_tern.apply();
            t_range.apply();
            t_opt.apply();
            t_const.apply();
            switch (t_sw.apply().action_run) {
                act_x: { hdr.t.sw = 0xA1; }
                act_y: { hdr.t.sw = 0xB2; }
                default: { hdr.t.sw = 0xC3; }
            }
            t_port.apply();
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
