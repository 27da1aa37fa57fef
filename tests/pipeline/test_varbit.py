"""varbit fields (options.p4): two-argument extract, emit, checksum over options."""
from scapy.all import IP, IPOption_NOP, IPOption_RR, Raw

from pipeline_helpers import pipeline

ETH = bytes.fromhex("020000000002" "020000000001" "0800")


def test_ipv4_options_roundtrip_with_checksum():
    pl = pipeline("options.p4")
    pkt = IP(src="10.0.0.1", dst="10.0.0.2", ttl=7,
             options=[IPOption_RR(routers=["1.1.1.1", "2.2.2.2"]), IPOption_NOP()]) / Raw(b"pay")
    raw = bytes(pkt)
    ihl = raw[0] & 15
    assert ihl > 5
    exp = IP(raw)
    exp.ttl = 6
    del exp.chksum
    exp_ip = bytes(IP(bytes(exp)))
    out = pl.process(0, ETH + raw)
    hl = ihl * 4
    assert out == [(1, ETH + exp_ip[:hl] + bytes([20, 60]) + exp_ip[hl:])]


def test_no_options_and_too_long_options():
    pl = pipeline("options.p4")
    raw = bytes(IP(src="10.0.0.1", dst="10.0.0.2", ttl=7) / Raw(b"pay"))
    out = pl.process(0, ETH + raw)
    exp = IP(raw)
    exp.ttl = 6
    del exp.chksum
    e = bytes(IP(bytes(exp)))
    assert out == [(1, ETH + e[:20] + bytes([20, 60]) + e[20:])]
    # ihl 15 -> 320 bits of options: fits exactly; a header claiming 330 bits cannot exist,
    # so make the options longer than the packet instead: PacketTooShort, not extracted
    short = bytes([0x4F]) + raw[1:24]
    out = pl.process(0, ETH + short)
    assert out == [(1, ETH + short)]


def test_varbit_size_above_maximum_on_a_short_packet_is_packet_too_short():
    # Measured on simple_switch_grpc 1.15.5 (p4c 1.2.4.8): BMv2 checks the bytes left in the
    # packet before the varbit's maximum size, so this is PacketTooShort (port 1), not
    # HeaderTooShort (port 2).  tests/differential varbit_* compare more such frames.
    pl = pipeline("options.p4")
    raw = bytes(IP(src="10.0.0.1", dst="10.0.0.2") / Raw(b"pay"))
    bad = bytes([0x44]) + raw[1:]          # ihl 4: (4 - 5) * 32 wraps to 65504 bits > 320
    assert pl.process(0, ETH + bad) == [(1, ETH + bad)]
