// simple_switch_grpc's --drop-port and --priority-queues at work: each frame carries back what the
// program saw (egress_spec after mark_to_drop, egress_port, egress_spec at the start of egress);
// op bits choose ingress/egress drops and writes (tests/differential/test_target_options.py,
// tests/pipeline/test_target_options.py).
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>
header e_t { bit<48> d; bit<48> s; bit<16> t; }
header p_t { bit<16> spec; bit<8> op; bit<8> prio; bit<16> after; bit<16> eport; bit<16> espec_eg; }
struct H { e_t e; p_t p; }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(h.e); pk.extract(h.p); transition accept; }
}
control VC(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    action drop_it() { mark_to_drop(sm); }
    apply {
        sm.egress_spec = (bit<9>) h.p.spec;
        if (h.p.op & 1 != 0) { drop_it(); }
        h.p.after = (bit<16>) sm.egress_spec;
        if (h.p.op & 2 != 0) { sm.egress_spec = 3; }
        sm.priority = (bit<3>) h.p.prio;
    }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) {
    apply {
        h.p.eport = (bit<16>) sm.egress_port;
        h.p.espec_eg = (bit<16>) sm.egress_spec;
        if (h.p.op & 4 != 0) { mark_to_drop(sm); }
        if (h.p.op & 8 != 0) { sm.egress_spec = 5; }
        if (h.p.op & 16 != 0) { sm.egress_spec = 511; }
        if (h.p.op & 32 != 0) { sm.egress_spec = 7; }
    }
}
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { pk.emit(h.e); pk.emit(h.p); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
