// What the port layer must carry, driven by random frames (fuzz_ports.py): the low nibble of
// the source MAC picks what happens to a frame, so one program covers tags pushed and popped,
// frames grown past the egress MTU or cut below the Ethernet header, replication and drops.
//   0, 12..15 unicast to port dst[1:0] + 1   1 push an 802.1Q tag     2 push an 802.1ad tag
//   3 push a 0x9100 tag                      4 pop the outer tag      5 add a 64-byte header
//   6 remove the Ethernet header             7 multicast group 1      8 drop
//   9 truncate to src[15:8] bytes            10 back out the ingress port   11 clone (session 5) + unicast
// Counters: bytes and packets received per ingress port, sent per egress port.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<16> tci; bit<16> type; }
header grow_t { bit<32> len; bit<16> in_port; bit<16> tags; bit<448> pad; }
struct headers { eth_t eth; vlan_t push; grow_t grow; vlan_t v0; vlan_t v1; }
struct meta_t { bit<4> op; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x8100: vlan0; 0x88a8: vlan0; 0x9100: vlan0; default: accept; }
    }
    state vlan0 { pkt.extract(hdr.v0); transition select(hdr.v0.type) { 0x8100: vlan1; default: accept; } }
    state vlan1 { pkt.extract(hdr.v1); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(512, CounterType.packets_and_bytes) rx;
    action unicast() { sm.egress_spec = (bit<9>) hdr.eth.dst[1:0] + 1; }
    action push(bit<16> tpid) {
        hdr.push.setValid();
        hdr.push.tci = hdr.eth.src[23:8];
        hdr.push.type = hdr.eth.type;
        hdr.eth.type = tpid;
        unicast();
    }
    apply {
        rx.count((bit<32>) sm.ingress_port);
        meta.op = hdr.eth.src[3:0];
        if (meta.op == 1) { push(0x8100); }
        else if (meta.op == 2) { push(0x88a8); }
        else if (meta.op == 3) { push(0x9100); }
        else if (meta.op == 4) {
            if (hdr.v0.isValid()) { hdr.eth.type = hdr.v0.type; hdr.v0.setInvalid(); }
            unicast();
        } else if (meta.op == 5) {
            hdr.grow.setValid();
            hdr.grow.len = sm.packet_length;
            hdr.grow.in_port = (bit<16>) sm.ingress_port;
            hdr.grow.tags = (hdr.v0.isValid() ? 16w1 : 16w0) + (hdr.v1.isValid() ? 16w1 : 16w0);
            hdr.grow.pad = 0;
            unicast();
        } else if (meta.op == 6) { unicast(); hdr.eth.setInvalid(); }
        else if (meta.op == 7) { sm.mcast_grp = 1; }
        else if (meta.op == 8) { mark_to_drop(sm); }
        else if (meta.op == 9) { truncate((bit<32>) hdr.eth.src[15:8]); unicast(); }
        else if (meta.op == 10) { sm.egress_spec = sm.ingress_port; }
        else if (meta.op == 11) { clone(CloneType.I2E, 5); unicast(); }
        else { unicast(); }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(512, CounterType.packets_and_bytes) tx;
    apply { tx.count((bit<32>) sm.egress_port); }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.push); pkt.emit(hdr.grow); pkt.emit(hdr.v0); pkt.emit(hdr.v1); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
