/* -*- P4_16 -*- */
/*
 * checkmate.p4 -- the Checkmate data plane (v1model; BMv2 simple_switch_grpc or
 * the embedded checkmate-switch).  Design and control-plane contract: docs/DATAPLANE.md.
 *
 *  - IPv4 forwarding for all traffic (/32 host routes, MAC rewrite, TTL decrement,
 *    fresh IPv4 checksum) and proxy ARP for the hosts the controller knows.
 *  - A Checkmate chunk (UDP dst 48879) tagged FINAL that enters on a trainer-facing
 *    port is forwarded AND copied exactly once to the shadow owning (job_id, param_id):
 *    shard_map gives the shadow's replica id (rid), replication picks the multicast
 *    group {(normal port, rid 0), (port towards the shadow, rid)}; egress rewrites the
 *    rid != 0 copy to the shadow's MAC / IP / UDP port and zeroes the UDP checksum.
 *  - Heartbeat: register of the last iteration per (job, rank) slot; a FINAL chunk
 *    whose iteration differs from it (newer, or older after a restart) raises a
 *    heartbeat_digest_t digest.  No control-plane register access is needed.
 *  - Counters: copies per rid (= per (job, shard)), malformed headers, drops by reason.
 *
 * The checkmate_t header mirrors checkmate.wire.FIELDS field by field
 * (tests/dataplane/test_p4_source.py keeps them in step).
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4     = 0x0800;
const bit<16> ETHERTYPE_ARP      = 0x0806;
const bit<8>  IPPROTO_UDP        = 17;
const bit<16> CHECKMATE_UDP_PORT = 48879;   /* checkmate.wire.CHECKMATE_UDP_PORT */
const bit<8>  WIRE_VERSION       = 1;       /* checkmate.wire.WIRE_VERSION */
const bit<8>  FLAG_FINAL         = 0x01;
const bit<8>  FLAG_ACK           = 0x02;
const bit<8>  FLAG_CTRL          = 0x08;
const bit<16> ARP_HTYPE_ETHERNET = 1;
const bit<16> ARP_OPER_REQUEST   = 1;
const bit<16> ARP_OPER_REPLY     = 2;

/* Sizes of the indexed externs (see docs/DATAPLANE.md for the index plans). */
const bit<32> HEARTBEAT_SLOTS    = 1024;
const bit<32> REPLICA_SLOTS      = 1024;
const bit<32> MALFORMED_VERSION   = 0;
const bit<32> MALFORMED_TRUNCATED = 1;
const bit<32> DROP_NO_ROUTE      = 0;
const bit<32> DROP_TTL           = 1;
const bit<32> DROP_IPV4_OPTIONS  = 2;
const bit<32> DROP_NOT_IP_OR_ARP = 3;
const bit<32> DROP_ARP_UNKNOWN   = 4;
const bit<32> EGRESS_DROP_NO_SHADOW = 0;  /* egress_drops: a copy whose rid has no shadow_rewrite */

typedef bit<9>  port_t;
typedef bit<48> mac_t;
typedef bit<32> ip4_t;

/*************************************************************************
 * Headers
 *************************************************************************/
header ethernet_t {
    mac_t   dstAddr;
    mac_t   srcAddr;
    bit<16> etherType;
}

/* ARP for Ethernet / IPv4 (RFC 826), the only kind the parser accepts. */
header arp_t {
    bit<16> htype;
    bit<16> ptype;
    bit<8>  hlen;
    bit<8>  plen;
    bit<16> oper;
    mac_t   sha;
    ip4_t   spa;
    mac_t   tha;
    ip4_t   tpa;
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
    ip4_t   srcAddr;
    ip4_t   dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}

/* checkmate.wire: 32 bytes, network byte order, wire order. */
header checkmate_t {
    bit<8>  version;
    bit<8>  flags;
    bit<8>  dtype;
    bit<8>  step;
    bit<32> job_id;
    bit<32> iteration;
    bit<16> rank;
    bit<16> bucket;
    bit<32> param_id;
    bit<32> offset;
    bit<16> count;
    bit<16> aux;
    bit<32> seq;
}

struct headers_t {
    ethernet_t  ethernet;
    arp_t       arp;
    ipv4_t      ipv4;
    udp_t       udp;
    checkmate_t checkmate;
}

/* Digest to the controller: a (job, rank) moved to another iteration. */
struct heartbeat_digest_t {
    bit<32> job_id;
    bit<16> rank;
    bit<32> iteration;
}

struct metadata_t {
    bit<1>             routed;       /* ipv4_route ran forward() */
    bit<16>            shard_rid;    /* shard_map result: replica id of the shadow copy, 0 = none */
    port_t             out_port;     /* normal egress port: replication key */
    bit<32>            hb_slot;      /* heartbeat_slot result: index into heartbeat_last */
    heartbeat_digest_t hb;           /* digest data */
}

/*************************************************************************
 * Parser
 *************************************************************************/
parser CheckmateParser(packet_in packet,
                       out headers_t hdr,
                       inout metadata_t meta,
                       inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_ARP: parse_arp;
            default: accept;
        }
    }

    state parse_arp {
        packet.extract(hdr.arp);
        transition accept;
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        /* Only option-less headers carry a UDP header right behind them. */
        transition select(hdr.ipv4.ihl, hdr.ipv4.fragOffset, hdr.ipv4.protocol) {
            (4w5, 13w0, IPPROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dstPort) {
            CHECKMATE_UDP_PORT: parse_checkmate;
            default: accept;
        }
    }

    state parse_checkmate {
        /* A datagram shorter than 32 bytes fails here (PacketTooShort): v1model
         * continues into ingress with hdr.checkmate invalid, counted as truncated. */
        packet.extract(hdr.checkmate);
        transition accept;
    }
}

control CheckmateVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

/*************************************************************************
 * Ingress
 *************************************************************************/
control CheckmateIngress(inout headers_t hdr,
                         inout metadata_t meta,
                         inout standard_metadata_t standard_metadata) {

    counter(8, CounterType.packets_and_bytes) drops;
    counter(2, CounterType.packets_and_bytes) malformed;
    register<bit<32>>(HEARTBEAT_SLOTS) heartbeat_last;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action drop_no_route() {
        meta.routed = 0;
        mark_to_drop(standard_metadata);
    }

    /* IPv4 next hop: egress port, the switch port's own MAC as source, next hop MAC. */
    action forward(port_t port, mac_t smac, mac_t dmac) {
        meta.routed = 1;
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = smac;
        hdr.ethernet.dstAddr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_route {
        key = { hdr.ipv4.dstAddr : lpm; }
        actions = { forward; drop_no_route; }
        default_action = drop_no_route();
        size = 1024;
    }

    /* Proxy ARP: answer a request for a known host with that host's MAC. */
    action arp_reply(mac_t mac) {
        hdr.ethernet.dstAddr = hdr.arp.sha;
        hdr.ethernet.srcAddr = mac;
        hdr.arp.oper = ARP_OPER_REPLY;
        hdr.arp.tha = hdr.arp.sha;
        hdr.arp.sha = mac;
        ip4_t asked = hdr.arp.tpa;
        hdr.arp.tpa = hdr.arp.spa;
        hdr.arp.spa = asked;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    table arp_proxy {
        key = { hdr.arp.tpa : exact; }
        actions = { arp_reply; drop; }
        default_action = drop();
        size = 1024;
    }

    /* Ports that face trainers: only FINAL chunks entering here are copied, so on
     * a multi-switch path only the first switch copies. */
    action mark_trainer() { }

    table trainer_port {
        key = { standard_metadata.ingress_port : exact; }
        actions = { mark_trainer; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    /* (job, chunk address) -> replica id of the shadow that owns the shard. */
    action set_shard(bit<16> rid) {
        meta.shard_rid = rid;
    }

    table shard_map {
        key = {
            hdr.checkmate.job_id   : exact;
            hdr.checkmate.param_id : range;
        }
        actions = { set_shard; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* (normal egress port, rid) -> multicast group {(port, 0), (towards shadow, rid)}. */
    action replicate(bit<16> group) {
        standard_metadata.mcast_grp = group;
    }

    table replication {
        key = {
            meta.out_port  : exact;
            meta.shard_rid : exact;
        }
        actions = { replicate; NoAction; }
        default_action = NoAction();
        size = 8192;
    }

    /* (job, rank) -> index into heartbeat_last. */
    action set_heartbeat_slot(bit<32> slot) {
        meta.hb_slot = slot;
    }

    table heartbeat_slot {
        key = {
            hdr.checkmate.job_id : exact;
            hdr.checkmate.rank   : exact;
        }
        actions = { set_heartbeat_slot; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    apply {
        meta.routed = 0;
        meta.shard_rid = 0;
        if (hdr.arp.isValid()) {
            if (hdr.arp.htype == ARP_HTYPE_ETHERNET && hdr.arp.ptype == ETHERTYPE_IPV4
                    && hdr.arp.hlen == 6 && hdr.arp.plen == 4 && hdr.arp.oper == ARP_OPER_REQUEST) {
                if (!arp_proxy.apply().hit) {
                    drops.count(DROP_ARP_UNKNOWN);
                }
            } else {
                drops.count(DROP_ARP_UNKNOWN);
                mark_to_drop(standard_metadata);
            }
        } else if (!hdr.ipv4.isValid()) {
            drops.count(DROP_NOT_IP_OR_ARP);
            mark_to_drop(standard_metadata);
        } else if (hdr.ipv4.ihl != 5) {
            drops.count(DROP_IPV4_OPTIONS);
            mark_to_drop(standard_metadata);
        } else if (hdr.ipv4.ttl <= 1) {
            drops.count(DROP_TTL);
            mark_to_drop(standard_metadata);
        } else {
            ipv4_route.apply();
            if (meta.routed == 0) {
                drops.count(DROP_NO_ROUTE);
            } else if (hdr.udp.isValid() && hdr.udp.dstPort == CHECKMATE_UDP_PORT) {
                /* Malformed policy: counted, forwarded like any datagram, never copied. */
                if (!hdr.checkmate.isValid()) {
                    malformed.count(MALFORMED_TRUNCATED);
                } else if (hdr.checkmate.version != WIRE_VERSION) {
                    malformed.count(MALFORMED_VERSION);
                } else if ((hdr.checkmate.flags & FLAG_FINAL) != 0
                        && (hdr.checkmate.flags & (FLAG_ACK | FLAG_CTRL)) == 0) {
                    if (trainer_port.apply().hit) {
                        if (heartbeat_slot.apply().hit) {
                            /* 0 = never seen, so iteration i is stored as i + 1.  Any
                             * change raises a digest: a job restarted from an older
                             * checkpoint is reported at its first FINAL chunk, with no
                             * register reset by the controller (BMv2's P4Runtime server
                             * has no register reads or writes). */
                            bit<32> last;
                            heartbeat_last.read(last, meta.hb_slot);
                            bit<32> seen = hdr.checkmate.iteration + 1;
                            if (seen != last) {
                                heartbeat_last.write(meta.hb_slot, seen);
                                meta.hb.job_id = hdr.checkmate.job_id;
                                meta.hb.rank = hdr.checkmate.rank;
                                meta.hb.iteration = hdr.checkmate.iteration;
                                digest<heartbeat_digest_t>(1, meta.hb);
                            }
                        }
                        shard_map.apply();
                        if (meta.shard_rid != 0) {
                            meta.out_port = standard_metadata.egress_spec;
                            replication.apply();
                        }
                    }
                }
            }
        }
    }
}

/*************************************************************************
 * Egress
 *************************************************************************/
control CheckmateEgress(inout headers_t hdr,
                        inout metadata_t meta,
                        inout standard_metadata_t standard_metadata) {

    counter(REPLICA_SLOTS, CounterType.packets_and_bytes) shard_replicas;
    counter(1, CounterType.packets_and_bytes) egress_drops;

    /* The copy: addressed to its shadow; UDP checksum 0 = "none" (RFC 768). */
    action to_shadow(mac_t mac, ip4_t ip, bit<16> udp_port) {
        hdr.ethernet.dstAddr = mac;
        hdr.ipv4.dstAddr = ip;
        hdr.udp.dstPort = udp_port;
        hdr.udp.checksum = 0;
        shard_replicas.count((bit<32>) standard_metadata.egress_rid);
    }

    action drop_copy() {
        egress_drops.count(EGRESS_DROP_NO_SHADOW);
        mark_to_drop(standard_metadata);
    }

    table shadow_rewrite {
        key = { standard_metadata.egress_rid : exact; }
        actions = { to_shadow; drop_copy; }
        default_action = drop_copy();
        size = 1024;
    }

    apply {
        if (standard_metadata.egress_rid != 0) {
            shadow_rewrite.apply();
        }
    }
}

/*************************************************************************
 * Checksum and deparser
 *************************************************************************/
control CheckmateComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.diffserv,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control CheckmateDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.arp);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.checkmate);
    }
}

V1Switch(
    CheckmateParser(),
    CheckmateVerifyChecksum(),
    CheckmateIngress(),
    CheckmateEgress(),
    CheckmateComputeChecksum(),
    CheckmateDeparser()
) main;
