"""AF_PACKET ports on a real veth pair: the transmit ring (``PACKET_TX_RING``) sends the same frames as
``send()`` -- in order, VLAN tags and full-MTU frames as written, across many wraps of the ring, with
one flush per batch or a ring filled past its size without a flush --; a frame beyond the MTU is
refused as ``send()`` refuses it (a VLAN tag's 4 bytes allowed); a flush on a link that is down
fails, withdraws what it could not send and leaves the ring usable; and a slot the kernel gave back
may be rewritten while a datagram it carried still waits, unread, in a receiver's socket (the
receiver gets what was sent, not what the slot holds later).  Root only (veths, a namespace)."""
from __future__ import annotations

import errno
import os
import struct
import subprocess
import sys
import time

import pytest

from switch.ports import AfPacketPort, parse_port_spec
from tests.switch_proc.vethpair import DST, SRC, recv_frames, sample_frames, sh, tune, veth_pair

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (veth pair, AF_PACKET, netns)")]


@pytest.fixture
def veth():
    with veth_pair("txr") as pair:
        yield pair


def test_ring_sends_what_send_sends_in_order_across_wraps(veth):
    a, b = veth
    tx = AfPacketPort(parse_port_spec(f"1@{a}"), tx_ring=True)
    plain = AfPacketPort(parse_port_spec(f"3@{a}"), tx_ring=False)
    rx = AfPacketPort(parse_port_spec(f"2@{b}"))
    try:
        ring = tx.tx_ring
        assert ring is not None and plain.tx_ring is None and plain.send_deferred is None
        rx.recv_batch(1024)
        frames = sample_frames()
        for f in frames:  # immediate sends, through the ring and through send()
            tx.send(f)
        assert recv_frames(rx, len(frames)) == frames
        for f in frames:
            plain.send(f)
        assert recv_frames(rx, len(frames)) == frames
        # deferred writes, one flush per batch of 50: nothing leaves before the flush
        seq = [DST + SRC + b"\x08\x00" + i.to_bytes(4, "big") + bytes(60) for i in range(3 * ring.nslots + 7)]
        received = []
        for k in range(0, len(seq), 50):
            batch = seq[k:k + 50]
            for f in batch:
                tx.send_deferred(f)
            if k == 0:
                time.sleep(0.02)
                assert recv_frames(rx, 1, timeout=0.05) == []
            assert tx.flush() is False and ring.pending == 0
            received += recv_frames(rx, len(batch))
        assert received == seq
        # more frames than slots without a flush: a write that finds its slot busy flushes first
        many = seq[:ring.nslots + 100]
        for f in many:
            tx.send_deferred(f)
        tx.flush()
        assert recv_frames(rx, len(many)) == many
    finally:
        for p in (tx, plain, rx):
            p.close()


def test_a_frame_beyond_the_mtu_is_refused_like_send_refuses_it_and_the_ring_goes_on(veth):
    a, b = veth
    tx = AfPacketPort(parse_port_spec(f"1@{a}"), tx_ring=True)
    plain = AfPacketPort(parse_port_spec(f"3@{a}"), tx_ring=False)
    rx = AfPacketPort(parse_port_spec(f"2@{b}"))
    try:
        rx.recv_batch(1024)
        long = DST + SRC + b"\x08\x00" + bytes(1501)  # MTU 1500: one byte too many
        tagged = DST + SRC + struct.pack("!HHH", 0x8100, 7, 0x0800) + bytes(1500)  # the tag's 4 bytes allowed
        for port in (tx, plain):
            with pytest.raises(OSError) as ei:
                port.send(long)
            assert ei.value.errno == errno.EMSGSIZE
            port.send(tagged)
            assert recv_frames(rx, 1) == [tagged]
        with pytest.raises(OSError) as ei:
            tx.send_deferred(long)
        assert ei.value.errno == errno.EMSGSIZE
        small = DST + SRC + b"\x08\x00" + bytes(100)
        tx.send(small)
        assert recv_frames(rx, 1) == [small]
    finally:
        for p in (tx, plain, rx):
            p.close()


def test_a_flush_on_a_link_that_is_down_withdraws_its_frames(veth):
    a, b = veth
    tx = AfPacketPort(parse_port_spec(f"1@{a}"), tx_ring=True)
    rx = AfPacketPort(parse_port_spec(f"2@{b}"))
    try:
        ring = tx.tx_ring
        rx.recv_batch(1024)
        stale = [DST + SRC + b"\x08\x00" + b"stale" + bytes([i]) * 60 for i in range(5)]
        sh("ip", "link", "set", a, "down")
        for f in stale:
            tx.send_deferred(f)
        with pytest.raises(OSError):
            tx.flush()
        assert ring.pending == 0 and ring.flush_errors == 5 and ring.next == ring.head
        sh("ip", "link", "set", a, "up")
        sh("ip", "link", "set", b, "up")
        time.sleep(0.1)
        rx.recv_batch(1024)
        fresh = [DST + SRC + b"\x08\x00" + b"fresh" + bytes([i]) * 60 for i in range(5)]
        for f in fresh:
            tx.send_deferred(f)
        tx.flush()
        assert recv_frames(rx, 5) == fresh  # the withdrawn frames never go out later
    finally:
        tx.close()
        rx.close()


_RECEIVER = r"""
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE: hold every datagram unread
s.bind(("10.251.0.2", 5555))
print("READY", flush=True)
sys.stdin.readline()
s.setblocking(False)
n = bad = 0
while True:
    try:
        d = s.recv(65535)
    except BlockingIOError:
        break
    n += 1
    seq = struct.unpack("!I", d[:4])[0]
    bad += d[4:] != bytes([seq & 0xFF]) * (len(d) - 4)
print(n, bad, flush=True)
"""


def test_a_reused_slot_never_changes_a_datagram_waiting_in_a_receivers_socket():
    """The kernel gives a slot back when the frame's buffer is freed, which a receiving IP stack may
    do (``skb_orphan``) before a UDP socket's reader took the datagram: the receiver must still get
    what was sent.  A UDP socket in a namespace reads only after the ring wrapped several times."""
    tag = os.getpid() % 100000
    ns, inner, outer = f"txrns{tag}", f"txr{tag}i", f"txr{tag}o"
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", inner, "type", "veth", "peer", "name", outer)
        sh("ip", "link", "set", inner, "netns", ns)
        for d, where in ((inner, ns), (outer, None)):
            tune(d, ns=where)
        sh("ip", "addr", "add", "10.251.0.2/24", "dev", inner, ns=ns)
        mac = bytes.fromhex(sh("cat", f"/sys/class/net/{inner}/address", ns=ns).stdout.strip().replace(":", ""))
        rcv = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", _RECEIVER], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        port = AfPacketPort(parse_port_spec(f"1@{outer}"), tx_ring=True)
        try:
            assert rcv.stdout.readline().strip() == "READY"
            ring = port.tx_ring
            total = 3 * ring.nslots + 11
            for seq in range(total):
                payload = struct.pack("!I", seq) + bytes([seq & 0xFF]) * 1000
                udp = struct.pack("!HHHH", 4000, 5555, 8 + len(payload), 0) + payload
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                                 bytes([10, 251, 0, 1]), bytes([10, 251, 0, 2]))
                c = sum(struct.unpack("!10H", ip))
                c = (c & 0xFFFF) + (c >> 16)
                c = (c & 0xFFFF) + (c >> 16)
                ip = ip[:10] + struct.pack("!H", ~c & 0xFFFF) + ip[12:]
                port.send_deferred(mac + SRC + b"\x08\x00" + ip + udp)
                if seq % 32 == 31:
                    port.flush()
            while port.flush():
                time.sleep(0.001)
            time.sleep(0.2)
            out, _ = rcv.communicate("go\n", timeout=30)
            n, bad = map(int, out.split())
            assert (n, bad) == (total, 0)
        finally:
            port.close()
            if rcv.poll() is None:
                rcv.kill()
    finally:
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "link", "del", outer, check=False)
