"""Random frames over veths (fuzz_ports.py), fixed seeds: checkmate-switch's port layer must
put out what BMv2 puts out, per port and in order, with the same counters.

Root + p4c + simple_switch_grpc, else skipped; create interfaces only under
``flock /tmp/checkmate-net.lock``.
"""
from __future__ import annotations

import pytest

from refrig import missing_tools

_why = missing_tools("p4c", "simple_switch_grpc")
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

SEEDS = (0,)
BURSTS = 10


def test_random_frames_over_veths_match_bmv2():
    import fuzz_ports

    report = fuzz_ports.run_all(fuzz_ports.repo_cases(), SEEDS, BURSTS, idle=0.2)
    bad = {k: r["diffs"] for k, r in report.items() if r["diffs"]}
    assert not bad, "\n".join(f"{k}: {t}: {d[:3]}" for k, v in bad.items() for t, d in v.items())
    # the frames exercised the port layer: something came out, and something could not be sent
    assert sum(r["out"] for r in report.values()) > 50
    assert sum(r["frames"] for r in report.values()) > 120


# ---------------------------------------------------------------- reduced findings (FRAMES-VETH)
def _each_target(tmp_path, body):
    """``body(rig, sw_iface)`` on simple_switch (p4c), checkmate-switch on the .p4 and on p4c's JSON,
    all running programs/ports.p4 on a fresh two-port rig; {target: result}."""
    import os
    from pathlib import Path

    from refrig import Bmv2, Checkmate, Rig, p4c_compile

    src = Path(__file__).resolve().parent / "programs" / "ports.p4"
    js, p4info = p4c_compile(src, tmp_path / "p4c")
    res = {}
    with Rig(ports=(1, 2), tag=f"fq{os.getpid() % 10000}") as rig:
        for target, start in (("bmv2", lambda: Bmv2(rig, js)), ("checkmate-p4", lambda: Checkmate(rig, src)),
                              ("checkmate-json", lambda: Checkmate(rig, js, extra=["--p4info", p4info]))):
            sw = start()
            try:
                rig.drain()
                res[target] = body(rig)
            finally:
                sw.stop()
    return res


def _sniff(sock, until, want=1, timeout=3.0):
    """Frames read from ``sock`` (non-blocking) until ``until()`` holds ``want`` frames or time is up."""
    import select
    import time
    got, deadline = [], time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        select.select([sock], [], [], 0.05)
        try:
            while True:
                data, addr = sock.recvfrom(65535)
                got.append((addr[2], data))
        except BlockingIOError:
            pass
    return got


def _collect(rig, n, quiet=0.3, timeout=3.0):
    import select
    import time
    out = {p: [] for p in rig.hosts}
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        if last is not None and sum(map(len, out.values())) >= n and time.monotonic() - last > quiet:
            break
        r, _, _ = select.select([h.fileno() for h in rig.hosts.values()], [], [], 0.05)
        for p, h in rig.hosts.items():
            if h.fileno() in r:
                got = h.recv_batch(64)
                if got:
                    out[p] += got
                    last = time.monotonic()
    return out


# op 0 (unicast to dst[1:0] + 1): dst ...01 -> port 2; op 10 (src ...0a): back out the ingress port
TO_PORT2 = bytes.fromhex("000000000001" "0000000000f0") + b"\x88\xb5" + bytes(50)
REFLECT = bytes.fromhex("000000000001" "00000000000a") + b"\x88\xb5" + bytes(50)


def test_frames_other_senders_transmit_on_the_switch_interface_enter_the_switch(tmp_path):
    """BMv2 captures its interfaces in both directions (libpcap, no pcap_setdirection): a frame
    another socket sends out of the switch's own interface -- the kernel's IPv6 router
    solicitation on an interface with IPv6, a tool's sendp -- is processed as received on that
    port.  Its own transmissions never come back: a frame reflected out of its ingress port
    leaves once."""

    def body(rig):
        s = rig.tap(1)
        try:
            s.send(TO_PORT2)
        finally:
            s.close()
        first = _collect(rig, 2)
        rig.hosts[1].send(REFLECT)
        return first, _collect(rig, 1)
    res = _each_target(tmp_path, body)
    ref = res["bmv2"]
    # on the wire to host 1 (it was sent there) and, through the switch, to host 2
    assert ref[0] == {1: [TO_PORT2], 2: [TO_PORT2]}
    assert ref[1] == {1: [REFLECT], 2: []}
    for target, got in res.items():
        assert got == ref, f"{target} differs from BMv2: {got} != {ref}"


def test_switch_transmissions_are_seen_by_taps_on_its_interface(tmp_path):
    """A sniffer on the switch's side of a link (tcpdump/scapy on s1-eth2) sees what the switch
    sends there, as an outgoing frame: BMv2 sends through the qdisc (pcap_sendpacket);
    PACKET_QDISC_BYPASS would hide the frame from every tap (and from tc shaping)."""
    import socket

    def body(rig):
        s = rig.tap(2)
        try:
            rig.hosts[1].send(TO_PORT2)
            return _sniff(s, None)
        finally:
            s.close()
    res = _each_target(tmp_path, body)
    assert res["bmv2"] == [(socket.PACKET_OUTGOING, TO_PORT2)]
    for target, got in res.items():
        assert got == res["bmv2"], f"{target} differs from BMv2: {got}"


def test_pcap_out_holds_frames_the_kernel_refuses(tmp_path):
    """``--pcap``: BMv2 writes a frame to ``<iface>_out.pcap`` before it sends it, so a frame the
    program grew past the egress MTU (ports.p4 op 5 adds 64 bytes) is in the capture although the
    kernel refused it; the frames that did leave are there as well, in order."""
    import os
    from pathlib import Path

    from scapy.utils import rdpcap

    from refrig import Bmv2, Checkmate, Rig, p4c_compile

    src = Path(__file__).resolve().parent / "programs" / "ports.p4"
    js, _p4info = p4c_compile(src, tmp_path / "p4c")
    grow = bytes.fromhex("000000000001" "0000000000f5") + b"\x88\xb5"  # op 5 -> port 2, 64 bytes more
    frames = [grow + bytes(100), grow + bytes(1500), grow + bytes(10)]  # the 1578-byte one cannot leave
    res = {}
    with Rig(ports=(1, 2), tag=f"fp{os.getpid() % 10000}") as rig:
        for target in ("bmv2", "checkmate"):
            d = tmp_path / target
            d.mkdir()
            sw = Bmv2(rig, js, extra=["--pcap", d]) if target == "bmv2" else Checkmate(rig, src, extra=["--pcap", d])
            try:
                rig.drain()
                wire = []
                for f in frames:
                    wire += rig.exchange([(1, f)], 1, timeout=1.0, quiet=0.1)[2]
            finally:
                sw.stop()
            res[target] = (wire, [bytes(p) for p in rdpcap(str(d / f"{rig.ifaces[2][0]}_out.pcap"))])
    wire, captured = res["bmv2"]
    assert [len(f) for f in wire] == [178, 88] and [len(f) for f in captured] == [178, 1578, 88]
    assert res["checkmate"] == res["bmv2"]


def test_frames_past_the_mtu_at_start_still_arrive_after_it_is_raised(tmp_path):
    """Both ends' MTU raised to 9000 after the switch started: BMv2 (libpcap, whose ring is not
    sized by the MTU) forwards the bigger frames; an AF_PACKET ring sized at start used to drop
    every frame past its slot (1792 bytes at MTU 1500)."""
    import os
    import subprocess
    from pathlib import Path

    from refrig import Bmv2, Checkmate, Rig, p4c_compile
    from switch.ports import AfPacketPort, PortSpec

    src = Path(__file__).resolve().parent / "programs" / "ports.p4"
    js, _p4info = p4c_compile(src, tmp_path / "p4c")
    sizes = (1514, 1800, 2000, 4000, 9014)
    frame = lambda n: bytes.fromhex("000000000001" "0000000000f0") + b"\x88\xb5" + bytes(n - 14)  # noqa: E731
    res = {}
    with Rig(ports=(1, 2), tag=f"fm{os.getpid() % 10000}") as rig:
        for target in ("bmv2", "checkmate"):
            for mtu in (1500, 9000):  # 1500 at start, 9000 once the switch runs
                for sw_if, h_if in rig.ifaces.values():
                    for dev in (sw_if, h_if):
                        subprocess.run(["ip", "link", "set", dev, "mtu", str(mtu)], check=True)
                if mtu == 1500:
                    sw = Bmv2(rig, js) if target == "bmv2" else Checkmate(rig, src)
            try:
                for n, (_sw_if, h_if) in rig.ifaces.items():  # the host ends' rings sized for 9000
                    rig.hosts[n].close()
                    rig.hosts[n] = AfPacketPort(PortSpec(n, "iface", iface=h_if))
                res[target] = [[len(f) for f in rig.exchange([(1, frame(n))], 1, timeout=1.0, quiet=0.1)[2]]
                               for n in sizes]
            finally:
                sw.stop()
    assert res["bmv2"] == [[n] for n in sizes]
    assert res["checkmate"] == res["bmv2"]
