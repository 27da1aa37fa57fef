"""Programs in the style of the p4lang tutorials (source routing, ECMP load balancing)."""
import struct

from scapy.all import IP, TCP, Ether, Raw

from pipeline_helpers import pipeline
from tests.oracles import crc16_arc


def hops(*ports):
    out = b""
    for i, p in enumerate(ports):
        out += struct.pack("!H", ((1 if i == len(ports) - 1 else 0) << 15) | p)
    return out


def test_source_routing_pops_one_hop_per_switch():
    pl = pipeline("source_routing.p4")
    eth = bytes.fromhex("ffffffffffff" "000000000001")
    ip = bytes(IP(src="10.0.1.1", dst="10.0.2.2", ttl=9) / Raw(b"data"))
    f = eth + b"\x12\x34" + hops(2, 3, 1) + ip

    def ttl(n):            # ip with the TTL decremented n times (no checksum update here)
        b = bytearray(ip)
        b[8] -= n
        return bytes(b)
    out = pl.process(1, f)
    assert out == [(2, eth + b"\x12\x34" + hops(3, 1) + ttl(1))]
    out = pl.process(1, out[0][1])
    assert out == [(3, eth + b"\x12\x34" + hops(1) + ttl(2))]
    out = pl.process(1, out[0][1])
    assert out == [(1, eth + b"\x08\x00" + ttl(3))]
    assert pl.process(1, eth + b"\x08\x00" + ip) == []


def test_ecmp_hash_selects_next_hop():
    pl = pipeline("load_balance.p4")
    pl.insert("ecmp_group", {"hdr.ipv4.dstAddr": ("10.0.0.1", 32)}, "set_ecmp_select",
              {"ecmp_base": 0, "ecmp_count": 2})
    pl.insert("ecmp_nhop", {"meta.ecmp_select": 0}, "set_nhop",
              {"nhop_dmac": "00:00:00:00:01:02", "nhop_ipv4": "10.0.2.2", "port": 2})
    pl.insert("ecmp_nhop", {"meta.ecmp_select": 1}, "set_nhop",
              {"nhop_dmac": "00:00:00:00:01:03", "nhop_ipv4": "10.0.3.3", "port": 3})
    pl.insert("send_frame", {"standard_metadata.egress_port": 2}, "rewrite_mac", {"smac": 0x22})
    pl.insert("send_frame", {"standard_metadata.egress_port": 3}, "rewrite_mac", {"smac": 0x33})
    seen = set()
    for sport in range(1000, 1040):
        f = Ether(src="00:00:00:00:00:01", dst="08:00:00:00:01:00") / \
            IP(src="10.0.1.1", dst="10.0.0.1", ttl=64) / TCP(sport=sport, dport=80) / Raw(b"x")
        data = struct.pack("!4s4sBHH", bytes([10, 0, 1, 1]), bytes([10, 0, 0, 1]), 6, sport, 80)
        sel = crc16_arc(data) % 2
        port, dst = (2, "10.0.2.2") if sel == 0 else (3, "10.0.3.3")
        e = f.copy()
        e[Ether].dst = "00:00:00:00:01:02" if sel == 0 else "00:00:00:00:01:03"
        e[Ether].src = "00:00:00:00:00:22" if sel == 0 else "00:00:00:00:00:33"
        e[IP].dst, e[IP].ttl = dst, 63
        del e[IP].chksum
        e[TCP].chksum = Ether(bytes(f))[TCP].chksum    # not recomputed by the program
        assert pl.process(1, bytes(f)) == [(port, bytes(Ether(bytes(e))))]
        seen.add(port)
    assert seen == {2, 3}
