// Ternary/range/optional/multi-key tables, const entries, switch(action_run),
// hit/miss, direct counters and meters, @name/@id, exit.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header k_t { bit<8> a; bit<16> b; bit<8> c; bit<8> res; bit<8> trail; }
struct meta_t { bit<8> color; }
struct headers { eth_t eth; k_t k; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.k); transition accept; }
}
control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) tc;
    direct_meter<bit<8>>(MeterType.packets) tm;
    action set(bit<8> v) { h.k.res = v; }
    action set_metered(bit<8> v) { h.k.res = v; tm.read(m.color); }
    action add(bit<8> v) { h.k.res = h.k.res + v; }
    @name("renamed") action other() { h.k.res = 0xEE; }
    action stop() { h.k.trail = 0x55; exit; }

    @id(0x0200abcd) table tern {
        key = { h.k.a : ternary; h.k.b : range; h.k.c : optional @name("cee"); }
        actions = { set; other; @defaultonly NoAction; }
        default_action = NoAction();
        counters = tc;
    }
    table metered {
        key = { h.k.a : exact; }
        actions = { set_metered; }
        meters = tm;
        default_action = set_metered(0xDD);
    }
    table fixed {
        key = { h.k.a : ternary; h.k.c : exact; }
        actions = { add; stop; NoAction; }
        const entries = {
            (0x10 &&& 0xF0, 1) : add(1);
            (0x11, 1) : add(100);         // listed later: lower priority than the masked one
            (_, 2) : stop();
        }
        const default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (h.k.a == 0xFF) {
            m.color = 9;
            metered.apply();
            h.k.trail = m.color;
            return;
        }
        switch (tern.apply().action_run) {
            set: { h.k.trail = 1; }
            other: { h.k.trail = 2; }
            default: { h.k.trail = 3; }
        }
        // (a second fixed.apply() in the else branch would be a path from the table back to
        // itself, which p4c for BMv2 rejects -- and so does checkmate-p4c)
        if (fixed.apply().hit) {
            h.k.trail = h.k.trail | 0x10;
        }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.eth); pkt.emit(h.k); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
