"""everything.p4: one program using every construct of the supported subset (the
acceptance program of issue #3), driven through its main paths with exact bytes."""
import struct
import zlib

import pytest
from scapy.all import IP, Raw

from pipeline_helpers import compiled, pipeline
from switch.runtime import CounterData

SRC = bytes.fromhex("0a0000000001")
ETH = bytes.fromhex("0a0000000002") + SRC
IPV4 = bytes(IP(src="10.0.0.1", dst="10.9.0.7", ttl=9) / Raw(b"payload"))


def ctl(op, a=0, b=0, r16=0, r32=0, flags=0, ntags=0, magic=0x5A):
    return struct.pack("!BBBBHIBB", magic, op, a, b, r16, r32, flags, ntags)


def frame(op, tags=b"", **kw):
    ntags = len(tags)
    return ETH + b"\x88\xb5" + ctl(op, ntags=ntags, **kw) + tags + IPV4


@pytest.fixture()
def pl():
    p = pipeline("everything.p4", seed=3)
    p.mcast_group_set(1, [(1, 0), (2, 5)])
    p.clone_session_set(7, [(4, 0)])
    p.clone_session_set(8, [(6, 0)])
    p.insert("route", {"hdr.ip.dst": ("10.9.0.0", 16)}, "set_port", {"port": 2})
    return p


def test_compiles_with_every_object_in_p4info():
    info = compiled("everything.p4").p4info
    assert {t.preamble.name for t in info.tables} == {"MyIngress.route", "MyIngress.classify",
                                                      "MyIngress.meter_t"}
    assert [c.preamble.name for c in info.counters] == ["MyIngress.by_op"]
    assert [c.preamble.name for c in info.direct_counters] == ["MyIngress.route_hits"]
    assert [m.preamble.name for m in info.meters] == ["MyIngress.m"]
    assert [m.preamble.name for m in info.direct_meters] == ["MyIngress.dm"]
    assert [r.preamble.name for r in info.registers] == ["MyIngress.seen"]
    assert [d.preamble.name for d in info.digests] == ["learn_t"]


def test_classify_miss_and_const_entry_exit(pl):
    assert pl.process(0, frame(1, a=0x01)) == [(1, frame(1, a=0x01, flags=0x02))]
    # (0xF0 &&& 0xF0, ...) -> stop(): flags |= 0x80 and exit before egress_spec is set
    assert pl.process(0, frame(1, a=0xF3)) == [(0, frame(1, a=0xF3, flags=0x80))]
    # b in 100..200 -> nothing() -> the switch's `nothing` case
    assert pl.process(0, frame(1, b=150)) == [(1, frame(1, b=150, flags=0x01))]
    # tags parsed through the stack and emitted unchanged
    tags = bytes([1 << 1, (2 << 1) | 1])
    assert pl.process(0, frame(1, tags=tags)) == [(1, frame(1, tags=tags, flags=0x02))]


def test_multicast_replicas_see_their_rid(pl):
    assert pl.process(0, frame(2)) == [(1, frame(2, b=0, flags=2)), (2, frame(2, b=5, flags=2))]


def test_i2e_and_e2e_clones(pl):
    out = pl.process(0, frame(3))
    assert out == [(4, frame(3, b=9, flags=0x11)), (1, frame(3, flags=0x02)),
                   (6, frame(3, flags=0x22))]


def test_resubmit_and_recirculate(pl):
    assert pl.process(0, frame(4)) == [(1, frame(4, a=1 + 6, flags=0x02))]
    assert pl.process(0, frame(5, a=0)) == [(1, frame(5, a=3, flags=0x02))]


def test_expressions_functions_externs_and_stack_push(pl):
    out = pl.process(0, frame(6, a=0x12, b=0x34))
    crc = zlib.crc32(bytes([0x46, 0x37]))
    exp = ETH + b"\x88\xb5" + ctl(6, a=0x46, b=0, r16=0x2341, r32=crc, flags=0, ntags=2) + \
        bytes([(5 << 1) | 1]) + IPV4
    assert out == [(1, exp)]
    assert pl.register("MyIngress.seen", 0) == 1
    assert pl.counter("MyIngress.by_op", 6) == CounterData(1, len(frame(6)))


def test_digest_and_drop(pl):
    got = []
    pl.on_digest = lambda did, vals: got.append(vals)
    assert pl.process(9, frame(7)) == []
    assert got == [(int.from_bytes(SRC, "big"), 9)]


def test_parser_error_reject_and_plain_ipv4(pl):
    # verify(magic == 0x5A) fails: BadMagic, the packet still runs ingress
    bad = frame(1, magic=0x00)
    assert pl.process(0, bad) == [(3, ETH + b"\xee\xee" + bad[14:])]
    # 0x9xxx -> transition reject: parser_error stays NoError, nothing valid but ethernet
    f = ETH + b"\x91\x00" + b"rest"
    assert pl.process(0, f) == [(0, f)]
    # plain IPv4: lpm hit, ttl |-| 1 and a fresh checksum
    out = pl.process(0, ETH + b"\x08\x00" + IPV4)
    exp = IP(IPV4)
    exp.ttl = 8
    del exp.chksum
    assert out == [(2, ETH + b"\x08\x00" + bytes(IP(bytes(exp))))]
    tid = pl.names.table_id("route")
    assert pl.table_entries(tid)[0].counter.packets == 1


def test_ttl_zero_removes_ipv4_in_egress(pl):
    ip0 = bytes(IP(src="10.0.0.1", dst="10.9.0.7", ttl=0) / Raw(b"payload"))
    assert pl.process(0, ETH + b"\x08\x00" + ip0) == [(2, ETH + b"\x08\x00" + b"payload")]
