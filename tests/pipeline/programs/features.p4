// clone I2E/E2E, resubmit, recirculate (with preserved field lists), hash, random,
// indexed meters, P4 functions, sub-controls.  The first byte of op_t selects the test.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> a; bit<8> b; bit<16> h16; bit<32> h32; bit<8> info; bit<8> itype; bit<16> rid; }

struct meta_t {
    @field_list(1) bit<8> passes;
    @field_list(1, 2) bit<8> tagged;
    bit<8> lost;           // not preserved
}
struct headers { eth_t eth; op_t op; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.op); transition accept; }
}
control VC(inout headers h, inout meta_t m) { apply { } }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) { return x; }
    return y;
}

control Bump(inout bit<8> v, in bit<8> by) {
    action twice() { v = v + by + by; }
    table t { key = { by : exact; } actions = { twice; NoAction; } default_action = NoAction(); }
    apply { v = v + by; t.apply(); }
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    meter(4, MeterType.packets) mt;
    Bump() bump;
    apply {
        sm.egress_spec = 2;
        h.op.itype = (bit<8>) sm.instance_type;
        if (h.op.op == 1) {            // I2E clone, field list 2 keeps 'tagged' only
            m.tagged = 0xAA; m.passes = 3; m.lost = 1;
            clone_preserving_field_list(CloneType.I2E, 5, 2);
            h.op.a = 0x11;             // the clone is re-parsed from the original frame
        } else if (h.op.op == 2) {     // resubmit once with field list 1
            if (sm.instance_type == 0) {
                m.passes = 1; m.tagged = 7; m.lost = 9;
                resubmit_preserving_field_list(1);
            } else {
                h.op.a = m.passes; h.op.b = m.tagged; h.op.info = m.lost;
            }
        } else if (h.op.op == 3) {     // recirculate in egress until 3 passes
            h.op.a = h.op.a + 1;
        } else if (h.op.op == 4) {     // hashes
            hash(h.op.h16, HashAlgorithm.crc16, 16w0, { h.op.a, h.op.b }, 17w65536);
            hash(h.op.h32, HashAlgorithm.crc32, 32w0, { h.op.a, h.op.b }, 33w4294967296);
            hash(h.op.info, HashAlgorithm.identity, 8w10, { h.op.b }, 8w7);
        } else if (h.op.op == 5) {     // random within bounds
            random(h.op.a, 8w10, 8w20);
        } else if (h.op.op == 6) {     // indexed meter
            mt.execute_meter((bit<32>) h.op.a, h.op.info);
        } else if (h.op.op == 7) {     // function + sub-control with inout
            h.op.info = max8(h.op.a, h.op.b);
            bump.apply(h.op.a, h.op.b);
        } else if (h.op.op == 8) {     // E2E clone in egress
            h.op.a = 0x22;
        }
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.op.rid = sm.egress_rid;
        if (sm.instance_type == 1) {           // the I2E clone
            h.op.itype = 1;
            h.op.b = m.tagged;
            h.op.info = m.passes | m.lost;     // not in list 2: zero
        }
        if (h.op.op == 3 && h.op.a < 3) {
            recirculate_preserving_field_list(1);
        }
        if (h.op.op == 8 && sm.instance_type == 0) {
            m.passes = 0x44;
            clone_preserving_field_list(CloneType.E2E, 6, 1);
            h.op.b = 0x33;
        }
        if (sm.instance_type == 2) {
            h.op.itype = 2;
            h.op.info = m.passes;
        }
    }
}
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.eth); pkt.emit(h.op); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
