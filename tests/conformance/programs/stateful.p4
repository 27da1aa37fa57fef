// Indirect counters (packets, bytes, both), a direct counter, a register used as an
// accumulator, and a digest.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ctl_t { bit<8> idx; bit<32> val; bit<32> res; }

struct headers_t { ethernet_t eth; ctl_t ctl; }
struct meta_t { }
struct learn_t { bit<48> mac; bit<9> port; bit<8> tag; }
struct other_t { bit<16> etype; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.ctl);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) c_both;
    counter(8, CounterType.packets) c_pkts;
    counter(8, CounterType.bytes) c_bytes;
    direct_counter(CounterType.packets_and_bytes) dc;
    register<bit<32>>(8) acc;

    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t_dc {
        key = { hdr.ctl.idx : exact; }
        actions = { fwd; NoAction; }
        counters = dc;
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        c_both.count((bit<32>) hdr.ctl.idx);
        c_pkts.count((bit<32>) hdr.ctl.idx);
        c_bytes.count((bit<32>) hdr.ctl.idx);
        t_dc.apply();
        bit<32> x;
        acc.read(x, (bit<32>) hdr.ctl.idx);
        x = x + hdr.ctl.val;
        acc.write((bit<32>) hdr.ctl.idx, x);
        hdr.ctl.res = x;
        if (hdr.eth.etherType == 0x9999) {
            digest<learn_t>(1, { hdr.eth.src, sm.ingress_port, 0x5A });
        } else if (hdr.eth.etherType == 0x9997) {
            digest<learn_t>(1, { hdr.eth.src, sm.ingress_port, 0x01 });
            digest<other_t>(1, { hdr.eth.etherType });
        } else if (hdr.eth.etherType == 0x9998) {
            digest<learn_t>(1, { hdr.eth.src, sm.ingress_port, 0xA5 });
            mark_to_drop(sm);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ctl);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
