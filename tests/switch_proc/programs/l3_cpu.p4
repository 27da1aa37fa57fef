/* Test program for checkmate-switch: IPv4 LPM forwarding with a CPU port
 * (packet_in/packet_out controller headers), multicast, I2E clone, a digest on
 * unknown source MACs, an indexed counter per ingress port, a direct counter on
 * the LPM table, an indexed meter, a register and a table with const entries.  Replicas (multicast or clone) carry their egress_rid in the
 * Ethernet source address so that tests can check it. */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
    ipv4_t       ipv4;
}

struct learn_t {
    bit<48> srcAddr;
    bit<9>  port;
}

struct metadata_t {
    bit<2>  color;
    bit<32> scratch;
}

parser MyParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    counter(512, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets_and_bytes) lpm_counter;
    meter(16, MeterType.bytes) port_meter;
    register<bit<32>>(8) scratch_reg;

    action drop() {
        mark_to_drop(standard_metadata);
        lpm_counter.count();
    }
    action ipv4_forward(bit<48> dstAddr, bit<9> port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        lpm_counter.count();
    }
    action to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
        hdr.packet_in._pad = 0;
        lpm_counter.count();
    }
    action flood(bit<16> grp) {
        standard_metadata.mcast_grp = grp;
        lpm_counter.count();
    }
    action mirror_and_forward(bit<9> port, bit<32> session) {
        standard_metadata.egress_spec = port;
        clone(CloneType.I2E, session);
        lpm_counter.count();
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; to_cpu; flood; mirror_and_forward; drop; NoAction; }
        size = 1024;
        default_action = drop();
        counters = lpm_counter;
    }

    action learn() {
        digest<learn_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
    }
    table smac {
        key = { hdr.ethernet.srcAddr: exact; }
        actions = { learn; NoAction; }
        size = 256;
        default_action = learn();
    }

    action set_dscp(bit<8> dscp) {
        hdr.ipv4.diffserv = dscp;
    }
    table acl {
        key = {
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.protocol: range;
        }
        actions = { set_dscp; NoAction; }
        size = 64;
        default_action = NoAction();
    }

    table ethertypes {
        key = { hdr.ethernet.etherType: exact; }
        actions = { NoAction; }
        const entries = {
            0x0800 : NoAction();
            0x86dd : NoAction();
        }
        default_action = NoAction();
    }

    apply {
        ethertypes.apply();
        port_counter.count((bit<32>) standard_metadata.ingress_port);
        port_meter.execute_meter((bit<32>) standard_metadata.ingress_port, meta.color);
        scratch_reg.read(meta.scratch, 1);
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else if (hdr.ipv4.isValid()) {
            smac.apply();
            acl.apply();
            ipv4_lpm.apply();
        } else {
            mark_to_drop(standard_metadata);
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_rid != 0) {
            hdr.ethernet.srcAddr = (bit<48>) standard_metadata.egress_rid;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
