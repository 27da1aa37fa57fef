"""A veth pair for the AF_PACKET port tests (receive and transmit rings): made, tuned and removed
here once -- offloads off (the kernel hands frames over as sent), IPv6 off (no router
solicitations in the captures), MTU 1500.  Root only; the callers skip without it."""
from __future__ import annotations

import contextlib
import os
import struct
import subprocess
import time

IPV6 = b"\x86\xdd"
SRC = bytes.fromhex("020000000002")
DST = bytes.fromhex("020000000001")


def sh(*cmd, check=True, ns=None):
    """Run a command (inside network namespace ``ns`` when given); output captured."""
    if ns:
        cmd = ("ip", "netns", "exec", ns) + cmd
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def tune(dev: str, ns: str | None = None) -> None:
    """Offloads and IPv6 off, link up."""
    sh("ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns, check=False)
    sh("sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1", ns=ns, check=False)
    sh("ip", "link", "set", dev, "up", ns=ns)


@contextlib.contextmanager
def veth_pair(prefix: str):
    """``(a, b)``: a fresh veth pair named after ``prefix`` and this process, deleted on exit."""
    a, b = f"{prefix}{os.getpid() % 100000}a", f"{prefix}{os.getpid() % 100000}b"
    sh("ip", "link", "add", a, "mtu", "1500", "type", "veth", "peer", "name", b, "mtu", "1500")
    try:
        for d in (a, b):
            tune(d)
        yield a, b
    finally:
        sh("ip", "link", "del", a, check=False)


def recv_frames(port, n: int, timeout: float = 5.0) -> list[bytes]:
    """Up to ``n`` frames from ``port`` (an AfPacketPort) within ``timeout`` s, IPv6 frames left out."""
    got, deadline = [], time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        got += [g for g in port.recv_batch(64) if g[12:14] != IPV6]
        if len(got) < n:
            time.sleep(0.001)
    return got


def sample_frames(stacked_tags: bool = False) -> list[bytes]:
    """The frames both rings must pass unchanged: an 802.1Q-tagged frame (PCP 5, VID 0x123), one of
    the full MTU, and 40 numbered ones (order); ``stacked_tags`` adds an 802.1ad + 802.1Q frame and a
    tag with TCI 0 after the first (the receive ring re-inserts what the kernel stripped)."""
    payload = bytes(range(256)) * 6
    tagged = DST + SRC + struct.pack("!HHH", 0x8100, (5 << 13) | 0x123, 0x0800) + payload[:100]
    extra = []
    if stacked_tags:
        extra = [DST + SRC + struct.pack("!HHHHH", 0x88A8, 0x042, 0x8100, 0x007, 0x0800) + payload[:100],
                 DST + SRC + struct.pack("!HHH", 0x8100, 0, 0x0800) + payload[:60]]
    full = DST + SRC + b"\x08\x00" + payload[:1500]
    return [tagged, *extra, full] + [DST + SRC + b"\x08\x00" + i.to_bytes(4, "big") + payload[:200]
                                    for i in range(40)]
