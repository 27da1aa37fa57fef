"""AF_PACKET ports on a real veth pair: the receive ring (``PACKET_RX_RING``) hands over the same
frames as ``recvmsg`` -- in order, VLAN tags the kernel stripped put back (802.1Q, 802.1ad, a tag
with TCI 0), frames of the full MTU -- across many wraps of the ring; a frame larger than a ring
slot is dropped and counted, never delivered cut short.  Root only (veths)."""
from __future__ import annotations

import os
import socket
import struct

import pytest

from switch.ports import AfPacketPort, parse_port_spec
from tests.switch_proc.vethpair import DST, SRC, recv_frames, sample_frames, sh, veth_pair

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (veth pair, AF_PACKET)")]


@pytest.fixture
def veth():
    with veth_pair("rxr") as pair:
        yield pair


@pytest.mark.parametrize("ring", [True, False], ids=["ring", "recvmsg"])
def test_frames_arrive_as_sent(veth, ring):
    a, b = veth
    port = AfPacketPort(parse_port_spec(f"1@{a}"), ring=ring)
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((b, 0))
    try:
        assert (port._ring is not None) == ring
        port.recv_batch(1024)  # anything the kernel sent on link-up
        frames = sample_frames(stacked_tags=True)
        for f in frames:
            tx.send(f)
        got = recv_frames(port, len(frames))
        assert got == frames
        # many wraps of the ring, in batches, order kept
        nslots = port._ring[2] if ring else 64
        seq = [DST + SRC + b"\x08\x00" + i.to_bytes(4, "big") + bytes(60) for i in range(3 * nslots + 7)]
        received = []
        for k in range(0, len(seq), 50):
            for f in seq[k:k + 50]:
                tx.send(f)
            received += recv_frames(port, min(50, len(seq) - k))
        assert received == seq
    finally:
        tx.close()
        port.close()


def test_a_frame_larger_than_a_slot_arrives_whole_in_order(veth):
    """The MTU raised after the port opened: frames bigger than a ring slot now reach it.  BMv2
    (libpcap) receives them; the port takes each whole from the socket's queue, where the kernel
    puts a copy of a frame that does not fit its slot (PACKET_COPY_THRESH), in ring order, its
    VLAN tag put back."""
    a, b = veth
    port = AfPacketPort(parse_port_spec(f"1@{a}"))
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((b, 0))
    try:
        slot = port._ring[1]
        sh("ip", "link", "set", a, "mtu", "9000")
        sh("ip", "link", "set", b, "mtu", "9000")
        port.recv_batch(1024)
        big = DST + SRC + b"\x08\x00" + bytes(range(256)) * ((slot + 100) // 256)
        tagged = DST + SRC + struct.pack("!HHH", 0x8100, 0x123, 0x0800) + bytes(slot + 200)
        small = DST + SRC + b"\x08\x00" + bytes(100)
        seq = [small, big, small, tagged, big, small]
        for f in seq:
            tx.send(f)
        assert recv_frames(port, len(seq)) == seq
        assert port.rx_truncated == 0
    finally:
        tx.close()
        port.close()


def test_a_closed_ring_port_reads_like_a_closed_socket(veth):
    port = AfPacketPort(parse_port_spec(f"1@{veth[0]}"))
    port.close()
    with pytest.raises(OSError):
        port.recv_batch(64)


@pytest.mark.parametrize("ring", [True, False], ids=["ring", "recvmsg"])
def test_frames_of_other_interfaces_never_enter_a_port(veth, monkeypatch, ring):
    """A frame on another interface (here the other end of the pair) while the port is being opened
    -- after its socket exists, before it is bound -- stays out: the socket hears nothing until
    it is bound to its interface (as libpcap opens it).  Opened for ETH_P_ALL it would catch every
    interface's traffic in that window, ring set-up included (loopback gRPC frames once came out
    of a switch port in tests/bmv2compat).  A frame another socket sends on the port's own
    interface afterwards does enter (as on BMv2)."""
    a, b = veth
    stray = DST + SRC + b"\x88\xb5" + b"stray" + bytes(50)
    mine = DST + SRC + b"\x88\xb5" + b"mine" + bytes(50)
    other = AfPacketPort(parse_port_spec(f"3@{b}"))
    real_bind = socket.socket.bind

    def bind(self, addr):
        if self.family == socket.AF_PACKET:
            other.send(stray)  # received on a: at the end of the window between socket() and bind()
            recv_frames(other, 1, timeout=0.05)  # (gives the kernel a moment to deliver it)
        return real_bind(self, addr)
    monkeypatch.setattr(socket.socket, "bind", bind)
    port = AfPacketPort(parse_port_spec(f"1@{a}"), ring=ring)
    monkeypatch.undo()
    try:
        other.send(mine)
        assert recv_frames(port, 2, timeout=0.5) == [mine]
    finally:
        port.close()
        other.close()


def test_an_interface_that_went_down_and_up_does_not_keep_the_port_readable(veth):
    """The interface down and up again leaves ENETDOWN pending on the socket, which keeps it
    readable (select/epoll) until it is read -- and with a ring nothing else reads it: the data
    plane spun on the port at full CPU and the next send failed.  The port reports it once (the
    data plane logs it), then it waits quietly and passes frames again."""
    import select

    a, b = veth
    port = AfPacketPort(parse_port_spec(f"1@{a}"))
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((b, 0))
    try:
        sh("ip", "link", "set", a, "down")
        sh("ip", "link", "set", a, "up")
        assert select.select([port], [], [], 1.0)[0]
        with pytest.raises(OSError):
            port.recv_batch(64)
        assert port.recv_batch(64) == []
        assert select.select([port], [], [], 0.2)[0] == []
        frame = DST + SRC + b"\x88\xb5" + bytes(60)
        tx.send(frame)
        assert recv_frames(port, 1) == [frame]
        port.send(frame)  # no error left for the next send either
    finally:
        tx.close()
        port.close()
