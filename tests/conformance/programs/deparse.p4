// Deparser: emit order differs from parse order, invalid headers are skipped,
// setValid()/setInvalid()/isValid() from ingress decide what is emitted.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header a_t { bit<16> x; }
header b_t { bit<8> op; }
header c_t { bit<32> z; }

struct headers_t { ethernet_t eth; a_t a; b_t b; c_t c; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x88B8: parse_ab;
            default: accept;
        }
    }
    state parse_ab {
        pkt.extract(hdr.a);
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 6;
        if (hdr.b.isValid()) {
            if (hdr.b.op == 1) {
                hdr.a.setInvalid();
            } else if (hdr.b.op == 2) {
                hdr.c.setValid();
                hdr.c.z = 0xCAFEBABE;
            } else if (hdr.b.op == 3) {
                hdr.c.z = 0x11111111;      // c is invalid: nothing is emitted
            } else if (hdr.b.op == 5) {
                hdr.a.setValid();          // already valid: contents kept
            } else if (hdr.b.op == 6) {
                hdr.c.setValid();
                hdr.c.z = 1;
                hdr.c.setInvalid();
            } else if (hdr.b.op == 7) {
                hdr.c.setValid();          // fields never written
            } else if (hdr.b.op == 8) {
                hdr.a.setInvalid();
                hdr.a.setValid();          // re-validated: fields reset
            } else if (hdr.b.op == 9) {
                hdr.a.setInvalid();
                hdr.b.op = hdr.a.x[7:0];   // read of an invalid header
            }
            if (hdr.c.isValid()) {
                hdr.a.x = hdr.a.x + 1;
            }
        } else {
            hdr.eth.etherType = 0xFFFF;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.c);
        pkt.emit(hdr.b);
        pkt.emit(hdr.a);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
