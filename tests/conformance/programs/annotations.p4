// P4Info naming through annotations and non-trivial keys: @name on tables, actions and
// key elements (a leading '.' makes the name global), @id, a slice as a key.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<32> addr; bit<16> port; bit<8> a; }

struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

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
    @name("renamed_set") action set_a(bit<8> v) { hdr.t.a = v; }
    @name(".global_set") action set_b(bit<8> v) { hdr.t.a = v + 1; }
    @id(0x01000042) action set_c(bit<8> v) { hdr.t.a = v + 2; }

    @name("renamed_table") table t_slice {
        key = {
            hdr.t.addr[31:24] : exact @name("top8");
            hdr.t.port : exact;
        }
        actions = { set_a; set_b; set_c; NoAction; }
        default_action = NoAction();
    }
    table t_scoped {
        key = { hdr.t.port : exact; }
        actions = { @tableonly set_a; @defaultonly set_c; }
        default_action = set_c(0x10);
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.t.addr == 0) {
            t_scoped.apply();
        } else {
            t_slice.apply();
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
