// Multicast with egress_rid rewrites, digest of a struct, indexed counters,
// registers, mark_to_drop in egress, update_checksum -- the Checkmate pattern.
/* the typed counter<I> / register<T, I> forms: */
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

#define UDP_DATA 48879

header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header tag_t { bit<8> flags; bit<32> job; bit<32> iter; }

struct hb_digest_t { bit<32> job; bit<32> iter; bit<9> port; }
struct metadata { bit<32> last; hb_digest_t hb; }
struct headers { ethernet_t eth; ipv4_t ip; udp_t udp; tag_t tag; }

parser P(packet_in pkt, out headers h, inout metadata m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip {
        pkt.extract(h.ip);
        transition select(h.ip.proto) { 17: udp; default: accept; }
    }
    state udp {
        pkt.extract(h.udp);
        transition select(h.udp.dport) { UDP_DATA: tag; default: accept; }
    }
    state tag { pkt.extract(h.tag); transition accept; }
}

control VC(inout headers h, inout metadata m) { apply { } }

control Ing(inout headers h, inout metadata m, inout standard_metadata_t sm) {
    counter<bit<32>>(4, CounterType.packets_and_bytes) seen;
    register<bit<32>, bit<32>>(16) last_iter;

    action route(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table fwd {
        key = { h.ip.dst : exact; }
        actions = { route; drop; }
        default_action = drop();
    }
    action replicate(bit<16> grp) { sm.mcast_grp = grp; }
    table rep {
        key = { h.tag.job : exact; }
        actions = { replicate; NoAction; }
        default_action = NoAction();
    }
    apply {
        seen.count((bit<32>) sm.ingress_port);
        if (!h.ip.isValid()) { drop(); return; }
        fwd.apply();
        if (h.tag.isValid() && (h.tag.flags & 1) == 1) {
            rep.apply();
            bit<32> slot = h.tag.job & 15;
            last_iter.read(m.last, slot);
            if (h.tag.iter > m.last) {
                last_iter.write(slot, h.tag.iter);
                m.hb.job = h.tag.job;
                m.hb.iter = h.tag.iter;
                m.hb.port = sm.ingress_port;
                digest<hb_digest_t>(1, m.hb);
            }
        }
    }
}

control Eg(inout headers h, inout metadata m, inout standard_metadata_t sm) {
    counter<bit<32>>(8, CounterType.packets) copies;
    action to_shadow(bit<48> mac, bit<32> ip, bit<16> port) {
        h.eth.dst = mac; h.ip.dst = ip; h.udp.dport = port; h.udp.csum = 0;
    }
    action drop_copy() { mark_to_drop(sm); }
    table shadow {
        key = { sm.egress_rid : exact; }
        actions = { to_shadow; drop_copy; }
        default_action = drop_copy();
    }
    apply {
        if (sm.egress_rid != 0) {
            copies.count((bit<32>) sm.egress_rid);
            shadow.apply();
        }
        h.ip.ttl = h.ip.ttl - 1;
    }
}

control CC(inout headers h, inout metadata m) {
    apply {
        update_checksum(h.ip.isValid(),
            { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags, h.ip.frag,
              h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst },
            h.ip.csum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers h) {
    apply { pkt.emit(h.eth); pkt.emit(h.ip); pkt.emit(h.udp); pkt.emit(h.tag); }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
