// Table keys that are not plain fields: isValid() and a bit slice.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<32> addr; bit<8> a; }
header vlan_t { bit<16> tci; bit<16> etherType; }

struct headers_t { ethernet_t eth; vlan_t vlan; t_t t; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x8100: parse_vlan;
            default: parse_t;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition parse_t;
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
    table k {
        key = {
            hdr.vlan.isValid() : exact;
            hdr.t.addr[31:24]  : ternary;
        }
        actions = { set_a; NoAction; }
        default_action = NoAction();
    }
    apply {
        k.apply();
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
