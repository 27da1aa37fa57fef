// Every construct of the supported subset in one v1model program (issue #3 acceptance).
// Frame: ethernet / ctl_t (op selects the path) / optional tag stack / ipv4 / payload.
/* the typed counter<I> / register<T, I> forms: */
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_t;
const bit<16> ETH_CTL = 0x88B5;
enum bit<8> Op { FWD = 1, MCAST = 2, CLONE = 3, RESUB = 4, RECIRC = 5, MATH = 6, DROP = 7 }
enum Color { RED, GREEN }
error { BadMagic }

header ethernet_t { mac_t dst; mac_t src; bit<16> type; }
header ctl_t { bit<8> magic; Op op; bit<8> a; bit<8> b; bit<16> r16; bit<32> r32; bit<8> flags; bit<8> ntags; }
header tag_t { bit<7> v; bit<1> last; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct learn_t { mac_t src; bit<9> port; }
struct meta_t { @field_list(1) bit<8> passes; bit<8> color; bit<8> tmp; learn_t learn; }
struct headers { ethernet_t eth; ctl_t ctl; tag_t[4] tags; ipv4_t ip; }

parser MyParser(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            ETH_CTL: ctl;
            0x0800: ip;
            0x9000 &&& 0xF000: reject;
            default: accept;
        }
    }
    state ctl {
        pkt.extract(hdr.ctl);
        verify(hdr.ctl.magic == 0x5A, error.BadMagic);
        transition select(hdr.ctl.ntags, pkt.lookahead<bit<8>>()) {
            (0, _): ip;
            (1 .. 4, _): tags;
        }
    }
    state tags {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.last) { 1: ip; default: tags; }
    }
    state ip { pkt.extract(hdr.ip); transition accept; }
}

control MyVerifyChecksum(inout headers hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ip.isValid(),
            { hdr.ip.version, hdr.ip.ihl, hdr.ip.tos, hdr.ip.len, hdr.ip.id, hdr.ip.flags,
              hdr.ip.frag, hdr.ip.ttl, hdr.ip.proto, hdr.ip.src, hdr.ip.dst },
            hdr.ip.csum, HashAlgorithm.csum16);
    }
}

bit<8> clamp8(in bit<16> v) { return v > 255 ? 8w255 : v[7:0]; }

control MyIngress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter<bit<32>>(8, CounterType.packets_and_bytes) by_op;
    direct_counter(CounterType.packets) route_hits;
    register<bit<32>, bit<32>>(4) seen;
    meter<bit<32>>(4, MeterType.packets) m;
    direct_meter<bit<8>>(MeterType.bytes) dm;
    bit<8> local = 0;

    action drop() { mark_to_drop(sm); }
    action set_port(bit<9> port) { sm.egress_spec = port; route_hits.count(); }
    action add_to(inout bit<8> x, bit<8> k) { x = x + k; }
    action stop() { hdr.ctl.flags = hdr.ctl.flags | 0x80; exit; }
    action nothing() { return; }
    action metered(bit<8> v) { dm.read(meta.color); hdr.ctl.b = v; }

    table route {
        key = { hdr.ip.dst : lpm; }
        actions = { set_port; drop; }
        default_action = drop();
        counters = route_hits;
        size = 64;
    }
    table classify {
        key = { hdr.ctl.a : ternary; hdr.ctl.b : range; hdr.ctl.op : optional; sm.ingress_port : exact; }
        actions = { stop; nothing; NoAction; }
        const entries = {
            (0xF0 &&& 0xF0, 0 .. 255, _, 0) : stop();
            (_, 100 .. 200, _, 0) : nothing();
        }
    }
    table meter_t {
        key = { hdr.ctl.a : exact; }
        actions = { metered; }
        meters = dm;
        default_action = metered(0);
    }

    apply {
        if (hdr.ctl.isValid()) { by_op.count((bit<32>) hdr.ctl.op); }
        if (sm.parser_error != error.NoError) {
            hdr.eth.type = (bit<16>) 0xEEEE;
            sm.egress_spec = 3;
            exit;
        }
        if (!hdr.ctl.isValid()) {
            if (hdr.ip.isValid() && route.apply().hit) { hdr.ip.ttl = hdr.ip.ttl |-| 1; }
            return;
        }
        switch (classify.apply().action_run) {
            nothing: { hdr.ctl.flags = hdr.ctl.flags | 0x01; }
            default: { hdr.ctl.flags = hdr.ctl.flags | 0x02; }
        }
        local = local + 1;
        sm.egress_spec = 1;
        if (hdr.ctl.op == Op.MCAST) {
            sm.mcast_grp = 1;
        } else if (hdr.ctl.op == Op.CLONE) {
            meta.passes = 9;
            clone_preserving_field_list(CloneType.I2E, 7, 1);
        } else if (hdr.ctl.op == Op.RESUB) {
            if (sm.instance_type == 0) { meta.passes = 1; resubmit_preserving_field_list(1); }
            else { hdr.ctl.a = meta.passes + (bit<8>) sm.instance_type; }
        } else if (hdr.ctl.op == Op.RECIRC) {
            hdr.ctl.a = hdr.ctl.a + 1;
        } else if (hdr.ctl.op == Op.MATH) {
            bit<16> wide = hdr.ctl.a ++ hdr.ctl.b;
            hdr.ctl.r16 = (wide << 4) | (wide >> 12);
            hdr.ctl.a = hdr.ctl.a |+| hdr.ctl.b;
            add_to(hdr.ctl.b, 3);
            hdr.ctl.flags = clamp8(wide) ^ (bit<8>) (int<8>) -1;
            hash(hdr.ctl.r32, HashAlgorithm.crc32, 32w0, { hdr.ctl.a, hdr.ctl.b }, 33w4294967296);
            random(meta.tmp, 8w1, 8w1);
            hdr.ctl.ntags = meta.tmp + local;
            bit<32> seen_v;
            seen.read(seen_v, 0);
            seen.write(0, seen_v + 1);
            m.execute_meter(32w0, meta.color);
            if (hdr.tags[0].isValid()) { hdr.tags.pop_front(1); }
            else { hdr.tags.push_front(1); hdr.tags[0].setValid(); hdr.tags[0].v = 5; hdr.tags[0].last = 1; }
            meter_t.apply();
        } else if (hdr.ctl.op == Op.DROP) {
            meta.learn.src = hdr.eth.src;
            meta.learn.port = sm.ingress_port;
            digest<learn_t>(1, meta.learn);
            drop();
        }
    }
}

control MyEgress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 5) { hdr.ctl.b = (bit<8>) sm.egress_rid; }
        if (sm.instance_type == 1) { hdr.ctl.b = meta.passes; hdr.ctl.flags = 0x11; }
        if (hdr.ctl.isValid() && hdr.ctl.op == Op.RECIRC && hdr.ctl.a < 3) {
            recirculate_preserving_field_list(1);
        }
        if (hdr.ctl.isValid() && hdr.ctl.op == Op.CLONE && sm.instance_type == 0) {
            clone(CloneType.E2E, 8);
        }
        if (sm.instance_type == 2) { hdr.ctl.flags = 0x22; }
        if (hdr.ip.isValid() && hdr.ip.ttl == 0) { hdr.ip.setInvalid(); }
    }
}

control MyComputeChecksum(inout headers hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ip.isValid(),
            { hdr.ip.version, hdr.ip.ihl, hdr.ip.tos, hdr.ip.len, hdr.ip.id, hdr.ip.flags,
              hdr.ip.frag, hdr.ip.ttl, hdr.ip.proto, hdr.ip.src, hdr.ip.dst },
            hdr.ip.csum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.ctl); pkt.emit(hdr.tags); pkt.emit(hdr.ip); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
