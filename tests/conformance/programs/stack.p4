// Header stack operations in a control: push_front, pop_front, constant indexing,
// setValid/setInvalid on elements; the deparser emits the valid elements in order.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header cmd_t { bit<8> op; bit<8> arg; }
header elem_t { bit<7> v; bit<1> bos; }

struct headers_t { ethernet_t eth; cmd_t cmd; elem_t[4] s; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x88B6: parse_cmd;
            default: accept;
        }
    }
    state parse_cmd {
        pkt.extract(hdr.cmd);
        transition parse_elem;
    }
    state parse_elem {
        pkt.extract(hdr.s.next);
        transition select(hdr.s.last.bos) {
            1: accept;
            default: parse_elem;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        if (hdr.cmd.op == 1) {
            hdr.s.push_front(1);
            hdr.s[0].setValid();
            hdr.s[0].v = hdr.cmd.arg[6:0];
            hdr.s[0].bos = 0;
        } else if (hdr.cmd.op == 2) {
            hdr.s.pop_front(1);
        } else if (hdr.cmd.op == 3) {
            hdr.s[2].v = hdr.s[0].v + hdr.s[1].v;
        } else if (hdr.cmd.op == 4) {
            hdr.s[1].setInvalid();
        } else if (hdr.cmd.op == 5) {
            hdr.s.push_front(2);
        } else if (hdr.cmd.op == 6) {
            hdr.s.pop_front(2);
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.cmd);
        pkt.emit(hdr.s);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
