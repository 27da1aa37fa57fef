"""Whole programs in the style of the p4lang tutorials, with scapy frames end to end.

ecmp.p4: LPM -> (base, count) group -> crc16 over (srcAddr, dstAddr, protocol, srcPort,
dstPort) gives base + crc % count (BMv2 hash, see test_hash.py) -> next-hop table
rewrites MACs, port and TTL; update_checksum recomputes the IPv4 checksum.
"""
import socket
import struct

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether

from p4conf import Switch
from tests.oracles import crc16_arc

NHOPS = {i: (0x0A0000000000 + i, 0x0B0000000000 + i, 10 + i) for i in range(4)}


@pytest.fixture(scope="module")
def sw():
    s = Switch("ecmp.p4")
    s.add("MyIngress.ecmp_group", "MyIngress.set_ecmp", {"hdr.ipv4.dstAddr": (0x0A020000, 16)},
          {"base": 0, "count": 4})
    for i, (dmac, smac, port) in NHOPS.items():
        s.add("MyIngress.ecmp_nhop", "MyIngress.set_nhop", {"meta.ecmp_select": i},
              {"dmac": dmac, "smac": smac, "port": port})
    return s


def mac(v):
    return ":".join(f"{(v >> s) & 0xFF:02x}" for s in range(40, -8, -8))


@pytest.mark.parametrize("sport", [1000, 1001, 1002, 4242, 5555, 65535])
@pytest.mark.parametrize("l4", [UDP, TCP])
def test_ecmp_member_choice_and_rewrite(sw, sport, l4):
    src, dst = "10.1.0.7", "10.2.3.4"
    pkt = Ether(dst="00:00:00:00:01:00", src="00:00:00:00:00:07") / \
        IP(src=src, dst=dst, ttl=64, id=7) / l4(sport=sport, dport=80) / b"flow"
    proto = 17 if l4 is UDP else 6
    key = socket.inet_aton(src) + socket.inet_aton(dst) + bytes([proto]) + struct.pack("!HH", sport, 80)
    member = crc16_arc(key) % 4
    dmac, smac, port = NHOPS[member]
    exp = Ether(dst=mac(dmac), src=mac(smac)) / IP(src=src, dst=dst, ttl=63, id=7) / \
        l4(sport=sport, dport=80) / b"flow"
    raw = bytes(pkt)
    out = sw.send(1, raw)
    # L4 checksum is not updated by the program: keep the input's
    e = bytearray(bytes(exp))
    e[34:] = raw[34:]
    assert out == [(port, bytes(e))]


def test_ecmp_group_miss_then_nhop_hit_overrides_drop(sw):
    # ecmp_group misses -> drop() (egress_spec = 511); meta.ecmp_select stays 0, so
    # ecmp_nhop then hits member 0 and set_nhop assigns egress_spec again: forwarded
    pkt = Ether(dst="00:00:00:00:01:00", src="00:00:00:00:00:07") / \
        IP(src="1.1.1.1", dst="10.3.0.1", ttl=9) / UDP(sport=53, dport=53) / b"x"
    dmac, smac, port = NHOPS[0]
    exp = bytearray(bytes(Ether(dst=mac(dmac), src=mac(smac)) /
                          IP(src="1.1.1.1", dst="10.3.0.1", ttl=8) / UDP(sport=53, dport=53) / b"x"))
    exp[34:] = bytes(pkt)[34:]
    assert sw.send(1, bytes(pkt)) == [(port, bytes(exp))]


def test_ecmp_ttl_expired_dropped(sw):
    assert sw.send(1, bytes(Ether() / IP(src="1.1.1.1", dst="10.2.0.1", ttl=1) / UDP())) == []


def test_ipv6_128bit_lpm_and_parameters():
    import ipaddress

    from scapy.layers.inet6 import IPv6

    from p4conf import P4Info, compiled

    info = P4Info(compiled("ipv6.p4").p4info)
    t = info.tables["MyIngress.v6_lpm"]
    assert [(m.name, m.bitwidth) for m in t.match_fields] == [("hdr.ipv6.dstAddr", 128)]
    assert [(p.name, p.bitwidth) for p in info.actions["MyIngress.rewrite"].params] == [
        ("port", 9), ("newDst", 128)]
    sw = Switch("ipv6.p4")
    a = lambda s: int(ipaddress.IPv6Address(s))   # noqa: E731
    sw.add("MyIngress.v6_lpm", "MyIngress.route", {"hdr.ipv6.dstAddr": (a("2001:db8::"), 32)},
           {"port": 3, "dmac": 0x0200000000AA})
    sw.add("MyIngress.v6_lpm", "MyIngress.route", {"hdr.ipv6.dstAddr": (a("2001:db8:1::"), 48)},
           {"port": 4, "dmac": 0x0200000000BB})
    sw.add("MyIngress.v6_lpm", "MyIngress.rewrite", {"hdr.ipv6.dstAddr": (a("2001:db8:1::7"), 128)},
           {"port": 5, "newDst": a("fd00::1")})

    def pkt(dst, hlim=64, dmac="00:00:00:00:00:01"):
        return bytes(Ether(dst=dmac, src="00:00:00:00:00:02") /
                     IPv6(src="2001:db8:ffff::1", dst=dst, hlim=hlim) / UDP(sport=1, dport=2) / b"v6")

    out = sw.send(1, pkt("2001:db8:1::9"))
    exp = bytearray(pkt("2001:db8:1::9", 63, "02:00:00:00:00:bb"))
    assert out == [(4, bytes(exp))]
    assert sw.send(1, pkt("2001:db8:2::9")) == [(3, pkt("2001:db8:2::9", 63, "02:00:00:00:00:aa"))]
    got = sw.send(1, pkt("2001:db8:1::7"))
    want = bytearray(pkt("2001:db8:1::7"))
    want[14 + 24:14 + 40] = ipaddress.IPv6Address("fd00::1").packed   # UDP checksum untouched
    assert got == [(5, bytes(want))]
    assert sw.send(1, pkt("2001:db9::1")) == []
