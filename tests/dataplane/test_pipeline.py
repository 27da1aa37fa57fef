"""checkmate.p4 executed in-process (embedded compiler + switch.runtime.Pipeline), scapy frames.

The switch is programmed with exactly what the controller installs (controller.plan).
"""
from __future__ import annotations

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether

from checkmate import wire


def ip_checksum_ok(frame: bytes) -> bool:
    ip = Ether(frame)[IP]
    want = ip.chksum
    del ip.chksum
    return IP(bytes(ip))[IP].chksum == want


def udp_payload(frame: bytes) -> bytes:
    return frame[14 + 20 + 8:]


def out_ports(outs):
    return sorted(p for p, _ in outs)


def test_untagged_chunk_forwarded_only(mkframe, star):
    topo, sw = star
    f = mkframe(topo, "h1", "h2", flags=0)
    outs = sw.pipe.process(1, f)
    assert out_ports(outs) == [2]
    port, g = outs[0]
    e, ip = Ether(g), Ether(g)[IP]
    assert e.dst == "08:00:00:00:00:02" and e.src == topo.switches["s1"].port_mac(2)
    assert ip.ttl == 63 and ip.src == "10.77.0.1" and ip.dst == "10.77.0.2" and ip_checksum_ok(g)
    assert udp_payload(g) == udp_payload(f) and Ether(g)[UDP].chksum == Ether(f)[UDP].chksum
    assert sw.digests == []


@pytest.mark.parametrize("shard,param_id", [(0, 0), (0, 3), (1, 4), (1, 2**32 - 1)])
def test_final_chunk_copied_once_to_its_shard(mkframe, star, shard, param_id):
    topo, sw = star
    f = mkframe(topo, "h1", "h3", param_id=param_id, count=50)
    outs = sw.pipe.process(1, f)
    shadow = topo.shadow_for_shard(shard)
    shadow_port = topo.next_hop("s1", shadow.name)
    assert out_ports(outs) == sorted([3, shadow_port])
    orig = [g for p, g in outs if p == 3][0]
    copy = [g for p, g in outs if p == shadow_port][0]
    assert Ether(orig)[IP].dst == "10.77.0.3" and udp_payload(orig) == udp_payload(f)
    ce, cip, cudp = Ether(copy), Ether(copy)[IP], Ether(copy)[UDP]
    assert ce.dst == shadow.mac and cip.dst == shadow.ip and cudp.dport == shadow.udp_port
    assert cip.src == "10.77.0.1" and cip.ttl == 63 and cudp.sport == 40000
    assert cudp.chksum == 0 and ip_checksum_ok(copy)
    assert udp_payload(copy) == udp_payload(f), "header and payload must be intact byte for byte"
    assert len(copy) == len(f)
    rid = shard + 1
    c = sw.counter("shard_replicas", rid)
    assert (c.packets, c.bytes) == (1, len(f))
    other = sw.counter("shard_replicas", 2 - shard)
    assert other.packets == 0


@pytest.mark.parametrize("flags", [wire.FLAG_ACK, wire.FLAG_FINAL | wire.FLAG_ACK,
                                   wire.FLAG_FINAL | wire.FLAG_CTRL, wire.FLAG_RETX])
def test_non_final_or_control_not_copied(mkframe, star, flags):
    topo, sw = star
    outs = sw.pipe.process(1, mkframe(topo, "h1", "h2", flags=flags, count=0 if flags & 2 else 4))
    assert out_ports(outs) == [2]


def test_retransmitted_final_is_copied(mkframe, star):
    topo, sw = star
    outs = sw.pipe.process(1, mkframe(topo, "h1", "h2", flags=wire.FLAG_FINAL | wire.FLAG_RETX))
    assert out_ports(outs) == [2, 4]


def test_final_from_non_trainer_port_not_copied(mkframe, star):
    topo, sw = star
    # a shadow (port 4) sending a FINAL-tagged datagram is forwarded but not copied
    outs = sw.pipe.process(4, mkframe(topo, "sh1", "h2", rank=0))
    assert out_ports(outs) == [2] and sw.digests == []


def test_unmapped_job_not_copied(mkframe, star):
    topo, sw = star
    outs = sw.pipe.process(1, mkframe(topo, "h1", "h2", job_id=99))
    assert out_ports(outs) == [2] and sw.digests == []


def test_heartbeat_digest_on_every_iteration_change(mkframe, star):
    topo, sw = star
    for it in (5, 5, 6, 6, 7):
        sw.pipe.process(1, mkframe(topo, "h1", "h2", iteration=it))
    sw.pipe.process(2, mkframe(topo, "h2", "h1", iteration=5))
    sw.pipe.process(2, mkframe(topo, "h2", "h1", iteration=5, flags=0))  # untagged: no heartbeat
    sw.pipe.process(2, mkframe(topo, "h2", "h1", iteration=9, flags=0))
    assert sw.digests == [("heartbeat_digest_t", (1, 0, 5)), ("heartbeat_digest_t", (1, 0, 6)),
                          ("heartbeat_digest_t", (1, 0, 7)), ("heartbeat_digest_t", (1, 1, 5))]


def test_heartbeat_restarted_job_is_seen_at_its_first_chunk(mkframe, star):
    """A job restarted from an older checkpoint goes back in iterations: the switch reports it at
    once, with nothing reset from the control plane (BMv2 cannot write registers over P4Runtime)."""
    topo, sw = star
    for it in (6, 7, 7):
        sw.pipe.process(1, mkframe(topo, "h1", "h2", iteration=it))
    for it in (4, 4, 5, 0):  # new incarnation resumes at 4; then a fresh job at 0
        sw.pipe.process(1, mkframe(topo, "h1", "h2", iteration=it))
    assert [d[1][2] for d in sw.digests] == [6, 7, 4, 5, 0]


def test_heartbeat_iteration_zero_counts(mkframe, star):
    topo, sw = star
    sw.pipe.process(3, mkframe(topo, "h3", "h1", iteration=0))
    assert sw.digests == [("heartbeat_digest_t", (1, 2, 0))]


def test_malformed_version_counted_forwarded_not_copied(mkframe, star):
    topo, sw = star
    f = mkframe(topo, "h1", "h2", version=2)
    outs = sw.pipe.process(1, f)
    assert out_ports(outs) == [2] and udp_payload(outs[0][1]) == udp_payload(f)
    assert sw.counter("malformed", 0).packets == 1 and sw.counter("malformed", 1).packets == 0
    assert sw.digests == []


def test_truncated_header_counted_forwarded_not_copied(mkframe, star):
    topo, sw = star
    f = mkframe(topo, "h1", "h2", raw_payload=bytes([1, 1]) + bytes(10))
    outs = sw.pipe.process(1, f)
    assert out_ports(outs) == [2] and udp_payload(outs[0][1]) == udp_payload(f)
    assert sw.counter("malformed", 1).packets == 1 and sw.counter("malformed", 0).packets == 0


def test_other_udp_and_tcp_traffic_forwarded(mkframe, star):
    topo, sw = star
    from scapy.layers.inet import TCP
    h1, sh2 = topo.host("h1"), topo.host("sh2")
    for l4 in (UDP(sport=1, dport=wire.SHADOW_UDP_PORT + 1) / (b"x" * 40), TCP(sport=5, dport=wire.SHADOW_UDP_PORT + 1)):
        f = bytes(Ether(src=h1.mac, dst=sh2.mac) / IP(src=h1.ip, dst=sh2.ip) / l4)
        outs = sw.pipe.process(1, f)
        assert out_ports(outs) == [5] and bytes(outs[0][1])[34:] == f[34:] and ip_checksum_ok(outs[0][1])


def test_proxy_arp(mkframe, star):
    topo, sw = star
    h1, h2 = topo.host("h1"), topo.host("h2")
    req = bytes(Ether(src=h1.mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h1.mac, psrc=h1.ip, pdst=h2.ip))
    outs = sw.pipe.process(1, req)
    assert out_ports(outs) == [1]
    rep = Ether(outs[0][1])
    assert rep.dst == h1.mac and rep.src == h2.mac
    a = rep[ARP]
    assert a.op == 2 and a.hwsrc == h2.mac and a.psrc == h2.ip and a.hwdst == h1.mac and a.pdst == h1.ip
    unknown = bytes(Ether(src=h1.mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h1.mac, psrc=h1.ip, pdst="10.77.0.99"))
    assert sw.pipe.process(1, unknown) == []


def test_drops_counted(mkframe, star):
    topo, sw = star
    assert sw.pipe.process(1, mkframe(topo, "h1", "h2", ttl=1)) == []
    assert sw.counter("drops", 1).packets == 1
    h1 = topo.host("h1")
    f = bytes(Ether(src=h1.mac) / IP(src=h1.ip, dst="10.9.9.9") / UDP(dport=53) / b"q")
    assert sw.pipe.process(1, f) == []
    assert sw.counter("drops", 0).packets == 1


def test_leafspine_exactly_one_copy_end_to_end(mkframe, leafspine):
    """h1 (leaf s1) -> h2 (leaf s2), shard 1 whose shadow sh2 hangs off s2."""
    topo, sws = leafspine

    def deliver(frames_at):  # run frames through the fabric until they reach hosts
        at_hosts = []
        for _ in range(8):
            nxt = []
            for sw, port, frame in frames_at:
                for p, g in sws[sw].pipe.process(port, frame):
                    far = topo.port_map(sw)[p]
                    if far.port is None:
                        at_hosts.append((far.node, g))
                    else:
                        nxt.append((far.node, far.port, g))
            if not nxt:
                return at_hosts
            frames_at = nxt
        raise AssertionError("frames still in flight after 8 hops")

    assert topo.attachment("h1").node == "s1" and topo.attachment("h2").node == "s2"
    assert topo.attachment("sh2").node == "s2" and topo.shard_of(10) == 1
    f = mkframe(topo, "h1", "h2", param_id=10, iteration=3)
    got = deliver([("s1", topo.attachment("h1").port, f)])
    assert sorted(h for h, _ in got) == ["h2", "sh2"]
    copy = dict(got)["sh2"]
    assert Ether(copy)[UDP].dport == wire.SHADOW_UDP_PORT and Ether(copy)[IP].ttl == 61
    assert udp_payload(copy) == udp_payload(f) and ip_checksum_ok(copy)
    assert [len(s.digests) for s in (sws["s1"], sws["s2"], sws["s3"])] == [1, 0, 0]
    # a FINAL chunk from h4 (leaf s2) to h1 for shard 0 (sh1 on s1): copied once, at s2
    assert topo.attachment("h4").node == "s2" and topo.shard_of(1) == 0 and topo.attachment("sh1").node == "s1"
    got = deliver([("s2", topo.attachment("h4").port, mkframe(topo, "h4", "h1", param_id=1))])
    assert sorted(h for h, _ in got) == ["h1", "sh1"]
    assert sws["s1"].counter("shard_replicas", 1).packets == 0
    assert sws["s2"].counter("shard_replicas", 1).packets == 1


def test_copy_without_shadow_rewrite_is_dropped_and_counted(mkframe, star):
    """A replication group pointing at an rid with no shadow_rewrite entry: the original
    still leaves, the orphan copy is dropped in egress and counted."""
    topo, sw = star
    ix = sw.index
    sw.pipe.modify(ix.get("tables", "shard_map").preamble.name,
                   {"hdr.checkmate.job_id": topo.job_id, "hdr.checkmate.param_id": (0, 3)},
                   ix.get("actions", "set_shard").preamble.name, {"rid": 9}, priority=1)
    sw.pipe.mcast_group_set(900, [(2, 0), (4, 9)])
    sw.pipe.insert(ix.get("tables", "replication").preamble.name, {"meta.out_port": 2, "meta.shard_rid": 9},
                   ix.get("actions", "replicate").preamble.name, {"group": 900})
    outs = sw.pipe.process(1, mkframe(topo, "h1", "h2", param_id=0))
    assert out_ports(outs) == [2]
    assert sw.counter("egress_drops", 0).packets == 1
