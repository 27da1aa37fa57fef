"""checkmate-switch against real BMv2 (simple_switch), frame for frame, over veth pairs.

Where the P4-16 spec and BMv2 differ, BMv2 wins (docs/CONFORMANCE.md):

* an 802.1Q / 802.1ad tagged frame keeps its tag on an AF_PACKET port (the kernel strips
  it and reports it in PACKET_AUXDATA; libpcap, hence BMv2, puts it back);
* a ``select`` with no matching case and no ``default`` -- and an explicit ``reject`` --
  ends the parse in accept without ``error.NoMatch`` (p4c's BMv2 JSON has no reject
  transition);
* a resubmitted or recirculated packet starts with reset ``standard_metadata``
  (``ingress_port`` 0, ...) except what the preserved field list carries.

Each program runs on simple_switch (compiled by real p4c) and on checkmate-switch (the
embedded compiler from the .p4, and p4c's JSON through switch/bmv2json); outputs per
port must be identical, and are also checked against the expected meaning so that two
equally wrong switches cannot pass. Root + p4c + simple_switch, else skipped.
"""
from __future__ import annotations

import struct

import pytest

from refrig import Bmv2, Checkmate, Rig, missing_tools, p4c_compile

from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs"

_why = missing_tools("p4c", "simple_switch")
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

TARGETS = ("bmv2", "checkmate-p4", "checkmate-json")
DST, SRC = bytes.fromhex("000000000002"), bytes.fromhex("000000000001")


def eth(t: int) -> bytes:
    return DST + SRC + struct.pack("!H", t)


@pytest.fixture(scope="module")
def rig():
    with Rig(ports=(1, 2), tag=f"cv{__import__('os').getpid() % 10000}") as r:
        yield r


def run_all(rig, tmp_path, name, frames, expect):
    """{target: {port: [frames out]}} for BMv2, checkmate-switch on the .p4, and on p4c's
    JSON.  Frames go in one at a time, each after the ``expect`` outputs of the previous
    one came out: BMv2 interleaves the passes of different packets (a recirculated copy
    may leave after the next packet), so only the order per input frame is defined."""
    src = PROGRAMS / name
    js, p4info = p4c_compile(src, tmp_path / "p4c")
    res = {}
    for target in TARGETS:
        if target == "bmv2":
            sw = Bmv2(rig, js)
        elif target == "checkmate-p4":
            sw = Checkmate(rig, src)
        else:
            sw = Checkmate(rig, js, extra=["--p4info", p4info])
        try:
            res[target] = out = {n: [] for n in rig.hosts}
            for frame in frames:
                for port, got in rig.exchange([frame], expect).items():
                    out[port] += got
        finally:
            sw.stop()
    return res


def assert_same(res):
    ref = res["bmv2"]
    for target, out in res.items():
        assert out == ref, f"{target} differs from BMv2:\n{target}: {out!r}\nbmv2: {ref!r}"
    return ref


def test_vlan_tag_survives_af_packet_ports(rig, tmp_path):
    payload = bytes(range(20))
    tagged = eth(0x8100) + struct.pack("!HH", (5 << 13) | 0x123, 0x0800) + payload
    qinq = eth(0x88A8) + struct.pack("!HH", 0x042, 0x0800) + payload
    untagged = eth(0x0800) + payload
    frames = [(1, tagged), (1, qinq), (1, untagged)]
    out = assert_same(run_all(rig, tmp_path, "vlan.p4", frames, expect=1))
    got = out[2]
    assert len(got) == 3 and out[1] == []
    # tagged: eth + vlan (pcp 5, vid 0x123) + res(a=1, b=0x23, c=0x0800) + payload
    assert got[0] == tagged[:18] + bytes([1, 0x23]) + b"\x08\x00" + payload
    assert got[1] == qinq[:18] + bytes([1, 0x42]) + b"\x08\x00" + payload
    assert got[2] == untagged[:14] + bytes([0, 0]) + b"\x08\x00" + payload


def test_select_without_match_or_default_accepts(rig, tmp_path):
    body = b"\xaa\xbb" + bytes(10)
    frames = [(1, eth(0x1234) + body), (1, eth(0x5555) + body), (1, eth(0x9999) + body)]
    out = assert_same(run_all(rig, tmp_path, "select_nomatch.p4", frames, expect=1))[2]
    assert len(out) == 3
    # matched: eth + tag(aa bb) + res(0 NoError, ingress_port 1) + rest
    assert out[0] == eth(0x1234) + b"\xaa\xbb" + b"\x00\x01" + bytes(10)
    # no case, no default / explicit reject: accept, NoError, tag not extracted
    for o, t in zip(out[1:], (0x5555, 0x9999)):
        assert o == eth(t) + b"\x00\x01" + body


def test_resubmit_and_recirculate_reset_standard_metadata(rig, tmp_path):
    pad = bytes(46)
    frames = [(1, eth(0x0001) + pad), (1, eth(0x0002) + pad), (1, eth(0x0003) + pad)]
    out = assert_same(run_all(rig, tmp_path, "stdmeta_passes.p4", frames, expect=1))[2]
    assert len(out) == 3
    info = [struct.unpack("!HIIHBHH", o[14:31]) for o in out[:2]]
    n = len(eth(1) + pad)
    # resubmit: ingress_port 0, RESUBMIT 6, the ingress length, kept preserved, lost reset
    assert info[0] == (0, 6, n, 0x101, 0, 0, 0)
    # recirculate: ingress_port 0, RECIRC 4, the deparsed length, kept preserved
    assert info[1] == (0, 4, n, 0x101, 0, 0, 0)
    assert out[2] == eth(0x0003) + pad
