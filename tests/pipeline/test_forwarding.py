"""basic.p4 (Ethernet/IPv4 LPM forwarding, TTL, checksum) end to end, exact bytes."""
import pytest
from scapy.all import IP, UDP, Ether, Raw

from pipeline_helpers import compiled, pipeline
from switch.runtime import EntryExists, EntryNotFound, InvalidEntry

PAYLOAD = b"payload-bytes-after-the-headers"


def frame(dst="10.0.1.5", ttl=64):
    return Ether(dst="00:00:00:00:00:01", src="00:00:00:00:00:02") / \
        IP(src="10.0.0.1", dst=dst, ttl=ttl) / UDP(sport=1234, dport=80) / Raw(PAYLOAD)


@pytest.fixture()
def pl():
    p = pipeline("basic.p4")
    p.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.0", 24)},
             "MyIngress.ipv4_forward", {"dstAddr": "08:00:00:00:01:11", "port": 1})
    p.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.7", 32)},
             "MyIngress.ipv4_forward", {"dstAddr": "08:00:00:00:01:77", "port": 7})
    return p


def expected(f, mac, ttl):
    e = f.copy()
    e[Ether].src, e[Ether].dst = f[Ether].dst, mac
    e[IP].ttl = ttl
    del e[IP].chksum  # scapy recomputes the IPv4 checksum; UDP checksum is untouched
    e[UDP].chksum = f[UDP].chksum if f[UDP].chksum is not None else Ether(bytes(f))[UDP].chksum
    return bytes(Ether(bytes(e)))


def test_lpm_forward_rewrites_mac_ttl_and_checksum(pl):
    f = frame()
    out = pl.process(3, bytes(f))
    assert out == [(1, expected(f, "08:00:00:00:01:11", 63))]


def test_longest_prefix_wins(pl):
    f = frame(dst="10.0.1.7")
    assert pl.process(3, bytes(f)) == [(7, expected(f, "08:00:00:00:01:77", 63))]


def test_miss_runs_default_drop(pl):
    assert pl.process(3, bytes(frame(dst="10.9.9.9"))) == []


def test_non_ip_leaves_on_port_0_unchanged(pl):
    # egress_spec is never written: BMv2 sends the packet to port 0
    f = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", type=0x0806) / Raw(b"\x00" * 28))
    assert pl.process(2, f) == [(0, f)]


def test_truncated_ipv4_enters_ingress_with_payload_preserved(pl):
    # 10 bytes after Ethernet: extract(ipv4) fails (PacketTooShort), the packet is not
    # dropped by the parser, ipv4 is invalid so the table is not applied -> port 0.
    f = bytes(Ether(dst="00:00:00:00:00:01", type=0x0800)) + b"\x45" + b"\x00" * 9
    assert pl.process(2, f) == [(0, f)]


def test_ttl_wraps(pl):
    f = frame(ttl=0)
    assert pl.process(3, bytes(f)) == [(1, expected(f, "08:00:00:00:01:11", 255))]


def test_entry_errors_name_the_culprit(pl):
    with pytest.raises(EntryExists):
        pl.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.0", 24)},
                  "MyIngress.drop", {})
    with pytest.raises(InvalidEntry, match=r"ipv4_lpm.*hdr.ipv4.dstAddr.*beyond the /16"):
        pl.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.0", 16)}, "MyIngress.drop")
    with pytest.raises(InvalidEntry, match=r"port.*bit<9>"):
        pl.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.2.0", 24)},
                  "MyIngress.ipv4_forward", {"dstAddr": 1, "port": 512})
    with pytest.raises(InvalidEntry, match="prefix length 33"):
        pl.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": (0, 33)}, "MyIngress.drop")
    with pytest.raises(EntryNotFound):
        pl.delete("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.3.0", 24)})


def test_modify_delete_and_default(pl):
    f = frame()
    pl.modify("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.0", 24)},
              "MyIngress.ipv4_forward", {"dstAddr": "08:00:00:00:02:22", "port": 2})
    assert pl.process(3, bytes(f)) == [(2, expected(f, "08:00:00:00:02:22", 63))]
    pl.delete("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.1.0", 24)})
    assert pl.process(3, bytes(f)) == []
    pl.set_default("MyIngress.ipv4_lpm", "MyIngress.ipv4_forward", {"dstAddr": 5, "port": 4})
    assert pl.process(3, bytes(f)) == [(4, expected(f, "00:00:00:00:00:05", 63))]


def test_id_api_round_trip(pl):
    info = compiled("basic.p4").p4info
    tid = info.tables[0].preamble.id
    entries = pl.table_entries(tid)
    assert [(e.matches[0].value, e.matches[0].prefix_len) for e in entries] == [
        (0x0A000100, 24), (0x0A000107, 32)]
    default = pl.table_get_default(tid)
    assert default.is_default and default.action_id == \
        next(a.preamble.id for a in info.actions if a.preamble.name == "MyIngress.drop")


def test_trace_names_tables_and_actions(pl):
    lines = []
    pl.trace = lines.append
    pl.process(3, bytes(frame()))
    assert "table MyIngress.ipv4_lpm: hit -> MyIngress.ipv4_forward" in lines
    assert "action MyIngress.ipv4_forward" in lines
