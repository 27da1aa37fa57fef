// Tutorial-style punting (our own program): a packet_in header built in egress from
// metadata that an action with serializable-enum parameters filled in.  The actions are
// reached from a table's const entries, from its default action and from a direct call
// with an enum member; the P4Info lists the enums and the `type` of the controller headers.
#include <core.p4>
#include <v1model.p4>

typedef bit<9> port_t;
const port_t CPU_PORT = 3;

enum bit<8> Reason_t { NONE = 0, UNKNOWN_TYPE = 7, TTL_SMALL = 9, FROM_CPU = 12 }
enum bit<8> Op_t { KEEP = 1, FORWARD = 2 }

type bit<16> cpu_port_t;

@controller_header("packet_in")
header cpu_in_t { cpu_port_t in_port; Reason_t reason; Op_t op; }

@controller_header("packet_out")
header cpu_out_t { Op_t op; bit<8> port; }

header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header small_t { bit<8> ttl; bit<8> kind; }

struct meta_t { bit<16> in_port; Reason_t reason; Op_t op; }
struct hdrs_t { cpu_in_t cpu_in; cpu_out_t cpu_out; eth_t eth; small_t small; }

parser P(packet_in pkt, out hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: from_cpu;
            default: eth;
        }
    }
    state from_cpu { pkt.extract(hdr.cpu_out); transition eth; }
    state eth {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x88b5: small; default: accept; }
    }
    state small { pkt.extract(hdr.small); transition accept; }
}

control VC(inout hdrs_t hdr, inout meta_t meta) { apply { } }

control I(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action remember(Reason_t reason, Op_t op) {
        meta.in_port = (bit<16>)sm.ingress_port;
        meta.reason = reason;
        meta.op = op;
    }
    action punt(Reason_t reason, Op_t op) {
        remember(reason, op);
        sm.egress_spec = CPU_PORT;
    }
    action forward(port_t port) { sm.egress_spec = port; }
    table by_type {
        key = { hdr.eth.etype: exact; }
        actions = { punt; forward; }
        const entries = {
            0x0800 : forward(2);
            0x88b6 : punt(Reason_t.UNKNOWN_TYPE, Op_t.KEEP);
        }
        default_action = punt(Reason_t.UNKNOWN_TYPE, Op_t.FORWARD);
    }
    apply {
        if (hdr.cpu_out.isValid()) {
            sm.egress_spec = (port_t)hdr.cpu_out.port;
            hdr.cpu_out.setInvalid();
        } else if (hdr.small.isValid() && hdr.small.ttl < 2) {
            punt(Reason_t.TTL_SMALL, Op_t.KEEP);
        } else if (hdr.small.isValid()) {
            forward(2);
        } else {
            by_type.apply();
        }
    }
}

control E(inout hdrs_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == CPU_PORT) {
            hdr.cpu_in.setValid();
            hdr.cpu_in.in_port = (cpu_port_t)meta.in_port;
            hdr.cpu_in.reason = meta.reason;
            hdr.cpu_in.op = meta.op;
        }
    }
}

control CC(inout hdrs_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in hdrs_t hdr) {
    apply { pkt.emit(hdr.cpu_in); pkt.emit(hdr.eth); pkt.emit(hdr.small); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
