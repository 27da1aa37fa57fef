"""Switch ports: Linux interfaces through AF_PACKET, or UDP tunnels on loopback.

``-i PORT@IFACE`` names a port.  Two kinds:

``-i 1@veth1``  (needs root; what Mininet gives a switch)
    A raw AF_PACKET socket bound to the interface.  As on BMv2 (libpcap in both
    directions, ``bmi_interface.c`` sets no ``pcap_setdirection``) a frame that another
    sender transmits on the interface -- the kernel's IPv6 router solicitations when the
    interface has IPv6, a tool's ``sendp`` -- enters the switch on that port; the
    socket's own frames never come back (the kernel skips the sending socket,
    ``skb_loop_sk``).  Sends go through the interface's queueing discipline, as
    libpcap's do, so ``tcpdump`` on the switch's side of the link sees them and a
    ``tc`` qdisc (Mininet's ``TCLink``) shapes them.  The kernel strips an
    802.1Q/802.1ad tag from a received frame before AF_PACKET sees it (VLAN rx offload,
    or ``skb_vlan_untag`` in the receive path) and reports it in ``PACKET_AUXDATA``;
    the port puts the tag back at byte 12, as libpcap does for BMv2, so the P4 parser
    sees the frame that was on the wire.  Turn the veth's
    offloads off (``ethtool -K IF tx off tso off gso off gro off``) or the kernel
    hands over super-frames and unchecksummed TCP.

``-i 1@udp:LHOST:LPORT:RHOST:RPORT``  (no root)
    A UDP socket bound to ``LHOST:LPORT``; every datagram received is one Ethernet
    frame entering port 1, and every frame leaving port 1 is sent as one datagram to
    ``RHOST:RPORT``.  The socket is connected to ``RHOST:RPORT``: datagrams from any
    other address are not frames of this link and never enter the switch.  ``LPORT`` may be 0 (the switch picks one and reports it on its
    ready line).  Tests and the no-Mininet path use it: a "host" is then just a UDP
    socket that speaks raw Ethernet frames.

Both kinds are non-blocking; :meth:`Port.recv_batch` drains up to ``n`` frames per
readiness event so the data plane pays one ``epoll`` wake-up per batch.  An AF_PACKET
port receives through a memory-mapped ``PACKET_RX_RING`` (no system call per frame; the
VLAN tag comes from the ring slot's header) and sends one ``send()`` per frame -- or, with
``tx_ring`` (``--tx-ring``), through a ``PACKET_TX_RING`` (:class:`TxRing`):
:attr:`Port.send_deferred` puts a frame in the ring and :meth:`Port.flush` hands all of them to the kernel with one system call -- what the data plane does once per port
and receive batch -- while :meth:`Port.send` writes and flushes at once.  Off by default: it
saves CPU with large batches and costs more with single frames (docs/SWITCH.md).
:meth:`Port.send` never blocks (a full socket buffer raises ``BlockingIOError``, which
the traffic manager counts as a drop); :meth:`Port.send_wait` waits for room, up to a
timeout -- what lossless ports use.
"""
from __future__ import annotations

import errno
import logging
import mmap
import os
import select
import socket
import struct
import threading
import time
from dataclasses import dataclass

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_QDISC_BYPASS = 20
PACKET_RX_RING = 5
PACKET_VERSION = 10
PACKET_TX_RING = 13
PACKET_LOSS = 14
PACKET_COPY_THRESH = 7
TPACKET_V2 = 1
TP_STATUS_KERNEL = 0
TP_STATUS_USER = 0x1
TP_STATUS_COPY = 0x2  # the frame did not fit the ring slot: cut there, whole on the socket's queue
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
TP_STATUS_SEND_REQUEST = 0x1  # TX ring: the frame is the kernel's to send
TP_STATUS_TX_BUSY = 0x7  # SEND_REQUEST | SENDING | WRONG_FORMAT: a slot not (yet) ours again
ETH_P_8021Q = 0x8100
# struct tpacket_auxdata: tp_status, tp_len, tp_snaplen (u32), tp_mac, tp_net, tp_vlan_tci,
# tp_vlan_tpid (u16), native byte order
_AUXDATA = struct.Struct("=IIIHHHH")
_STATUS_TCI = struct.Struct("=I12xH")  # tp_status and tp_vlan_tci alone: the per-frame test
_VLAN_VALID = TP_STATUS_VLAN_VALID
_ANC_SPACE = socket.CMSG_SPACE(_AUXDATA.size)
_TAG = struct.Struct("!HH")
# struct tpacket2_hdr: tp_status, tp_len, tp_snaplen (u32), tp_mac, tp_net (u16), tp_sec, tp_nsec (u32),
# tp_vlan_tci, tp_vlan_tpid (u16)
_TP2 = struct.Struct("=IIIHHIIHH")
_U32 = struct.Struct("=I")
MAX_FRAME = 65535
RING_BYTES = 4 << 20  # receive ring per AF_PACKET port (like the 4 MiB socket buffer it replaces)
TX_RING_BYTES = 2 << 20  # transmit ring per AF_PACKET port: 1024 slots at MTU 1500, 128 at 9000
# where a TX slot's frame starts: TPACKET_ALIGN(sizeof(struct tpacket2_hdr)), as the kernel reads it
# (tp_hdrlen - sizeof(sockaddr_ll)) when PACKET_TX_HAS_OFF is not set
_TX_DATA = 32
_STATUS_LEN = struct.Struct("=II")  # tp_status, tp_len: the head of a tpacket2_hdr
# the kernel lets a frame exceed the MTU by a tag only when its EtherType is 802.1Q
# (packet_extra_vlan_len_allowed): an 802.1ad or 0x9100 frame of MTU + 18 bytes is EMSGSIZE
_VLAN_TPIDS = (b"\x81\x00",)
# room in a ring slot beyond the interface MTU: tpacket2_hdr + sockaddr_ll + alignment (the kernel puts
# the MAC header at tp_mac, ~80 bytes in), the Ethernet header and two VLAN tags left in the frame
_SLOT_HEADROOM = 256

log = logging.getLogger("checkmate.switch.ports")


@dataclass(frozen=True)
class PortSpec:
    """A parsed ``-i`` argument."""

    number: int
    kind: str  # "iface" | "udp"
    iface: str = ""
    local: tuple[str, int] = ("", 0)
    remote: tuple[str, int] = ("", 0)

    @property
    def label(self) -> str:
        """Name used for pcap files: the interface name, as BMv2 does, or the port number."""
        return self.iface if self.kind == "iface" else str(self.number)


def parse_port_spec(text: str) -> PortSpec:
    """Parse ``N@IFACE`` or ``N@udp:LHOST:LPORT:RHOST:RPORT``; ValueError names the culprit."""
    num, sep, where = text.partition("@")
    if not sep or not where:
        raise ValueError(f"-i {text!r}: expected PORT@IFACE or PORT@udp:LHOST:LPORT:RHOST:RPORT")
    try:
        number = int(num)
    except ValueError:
        raise ValueError(f"-i {text!r}: port number {num!r} is not an integer") from None
    if not 0 <= number < 512:
        raise ValueError(f"-i {text!r}: port number {number} out of range 0..511 (v1model bit<9>)")
    if where.startswith("udp:"):
        parts = where[4:].split(":")
        if len(parts) != 4:
            raise ValueError(f"-i {text!r}: UDP port needs udp:LHOST:LPORT:RHOST:RPORT")
        try:
            lport, rport = int(parts[1]), int(parts[3])
        except ValueError:
            raise ValueError(f"-i {text!r}: UDP port numbers must be integers") from None
        return PortSpec(number, "udp", local=(parts[0], lport), remote=(parts[2], rport))
    if len(where) > 15 or "/" in where:
        raise ValueError(f"-i {text!r}: {where!r} is not a valid interface name")
    return PortSpec(number, "iface", iface=where)


class Port:
    """Common interface: ``fileno``, ``recv_batch``, ``send``, ``close``."""

    spec: PortSpec
    sock: socket.socket

    @property
    def number(self) -> int:
        return self.spec.number

    def fileno(self) -> int:
        return self.sock.fileno()

    def recv_batch(self, n: int = 64) -> list[bytes]:
        out = []
        recv = self.sock.recv
        try:
            for _ in range(n):
                out.append(recv(MAX_FRAME))
        except (BlockingIOError, InterruptedError):
            pass
        return out

    #: ports with a transmit ring: ``write(frame)`` puts a frame in the ring without a system call;
    #: the data plane calls :meth:`flush` after its batch (None: every send is immediate)
    send_deferred = None

    def send(self, frame: bytes) -> None:
        """Send one frame now; ``BlockingIOError`` if the socket buffer is full."""
        self.sock.send(frame)

    def flush(self) -> bool:
        """Hand the frames :attr:`send_deferred` wrote to the kernel; True while some are left over
        (the kernel took part of them: call again soon).  Nothing to do without a transmit ring."""
        return False

    def send_wait(self, frame: bytes, timeout: float) -> None:
        """Send one frame, waiting up to ``timeout`` s for socket buffer room."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.send(frame)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise
                select.select([], [self.sock], [], min(left, 0.05))

    def describe(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        self.sock.close()


class AfPacketPort(Port):
    """A Linux interface, raw frames through an AF_PACKET socket.

    Receiving goes through a ``PACKET_RX_RING`` (TPACKET_V2) where the kernel allows it: the
    kernel writes each frame into a slot of a ring mapped into this process, and
    :meth:`recv_batch` copies the frames out with no system call per frame (and no
    exception when the port runs dry) -- about a third of ``recvmsg``'s cost per frame.  A
    slot holds the interface's MTU at start plus headroom (a veth drops frames larger than
    its MTU before they get here); a frame that does not fit (the MTU raised later, or GRO
    left on) the kernel also queues whole on the socket (``PACKET_COPY_THRESH``), marking
    its slot ``TP_STATUS_COPY``, and :meth:`recv_batch` takes it from there in ring order
    -- BMv2 receives such frames too.  Only when the socket buffer has no room for the copy
    is the frame dropped, with a warning naming the interface.  Without the ring (old
    kernels) frames come one ``recvmsg`` at a time.  ``qdisc_bypass``: sends skip the
    interface's qdisc (``PACKET_QDISC_BYPASS``: a little less kernel work per frame, but
    taps on the interface no longer see them and ``tc`` shaping no longer applies; off by
    default, as BMv2 has it).
    """

    def __init__(self, spec: PortSpec, bufsize: int = 4 << 20, ring: bool = True, tx_ring: bool = False,
                 qdisc_bypass: bool = False):
        self.spec = spec
        if not os.path.exists(f"/sys/class/net/{spec.iface}"):
            raise ValueError(f"port {spec.number}: interface {spec.iface!r} does not exist")
        # protocol 0 until bind: a socket opened for ETH_P_ALL hears every interface (loopback
        # included) until it is bound, and the ring set-up in between is long enough to catch
        # other processes' frames -- libpcap opens its socket the same way
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, bufsize)
            except OSError:
                pass
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        if qdisc_bypass:
            try:
                s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
            except OSError:  # kernels before 3.14
                pass
        self._ring = None
        self.tx_ring: TxRing | None = None
        self.rx_truncated = 0
        if ring:
            self._ring, self.tx_ring = _open_rings(s, spec.iface, tx=tx_ring)
        s.bind((spec.iface, ETH_P_ALL))  # every protocol, from this interface only
        s.setblocking(False)
        self.sock = s
        if self.tx_ring is not None:
            # sends go through the transmit ring: the data plane writes a batch's frames there and
            # flushes each port once per batch (one system call per port and batch, not per frame)
            self.send = self.tx_ring.send
            self.send_deferred = self.tx_ring.write
            self.flush = self.tx_ring.flush
        else:
            # the socket's own send, not a Python method around it: one call less per frame
            self.send = s.send
        if self._ring is not None:
            self.recv_batch = self._recv_ring

    def _recv_ring(self, n: int = 64) -> list[bytes]:
        """Up to ``n`` frames from the receive ring, in order; each slot is handed back to the kernel."""
        ring = self._ring
        if ring is None:  # closed under us (the switch stopping): like a closed socket
            raise OSError(errno.EBADF, f"port {self.spec.number} ({self.spec.iface}) is closed")
        mm, slot, nslots, i = ring
        out = []
        append = out.append
        unpack = _TP2.unpack_from
        give_back = _U32.pack_into
        for _ in range(n):
            off = i * slot
            status, length, snap, mac, _net, _sec, _nsec, tci, tpid = unpack(mm, off)
            if not status & TP_STATUS_USER:
                break
            start = off + mac
            data = mm[start:start + snap]
            give_back(mm, off, TP_STATUS_KERNEL)
            i += 1
            if i == nslots:
                i = 0
            if snap < length:
                # too big for the slot: the kernel queued the whole frame on the socket as well
                # (PACKET_COPY_THRESH) and marked the slot; take it from there, in ring order
                whole = self._recv_copy() if status & TP_STATUS_COPY else None
                if whole is None:
                    self._truncated(length)
                else:
                    append(whole)
                continue
            if status & _VLAN_VALID or tci:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = ETH_P_8021Q
                data = data[:12] + _TAG.pack(tpid, tci) + data[12:]
            append(data)
        ring[3] = i
        if not out:
            # woken with nothing in the ring: an error on the socket (ENETDOWN after the interface
            # went down) keeps it readable until read, and nothing but this reads it with a ring --
            # the data plane would spin on it, and the next send() would fail with it
            err = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                raise OSError(err, f"port {self.spec.number} ({self.spec.iface}): {os.strerror(err)}")
        return out

    def _recv_copy(self) -> bytes | None:
        """The whole frame of a ring slot marked ``TP_STATUS_COPY``: the next one on the socket's
        own queue (only such copies go there while the ring is on), its VLAN tag put back."""
        try:
            data, anc, _flags, _addr = self.sock.recvmsg(MAX_FRAME, _ANC_SPACE)
        except OSError:  # nothing queued after all, or a pending error (read again by the next wake-up)
            return None
        return restore_vlan_tag(data, anc)

    def _truncated(self, length: int) -> None:
        self.rx_truncated += 1
        if self.rx_truncated <= 5:
            log.warning("port %d (%s): dropped a %d-byte frame larger than the receive ring's slot (%d bytes "
                        "of frame) and no room for it in the socket buffer: was the MTU raised after the switch "
                        "started, or is GRO on? (ethtool -K %s gro off)", self.spec.number, self.spec.iface, length,
                        self._ring[1] - _SLOT_HEADROOM, self.spec.iface)

    def close(self) -> None:
        ring, self._ring = self._ring, None
        tx, self.tx_ring = self.tx_ring, None
        if tx is not None:
            tx.close()
        if ring is not None:
            try:
                ring[0].close()
            except BufferError:
                pass
        self.sock.close()

    def recv_batch(self, n: int = 64) -> list[bytes]:
        out = []
        append = out.append
        recvmsg = self.sock.recvmsg
        status_tci = _STATUS_TCI.unpack_from
        try:
            for _ in range(n):
                data, anc, _flags, _addr = recvmsg(MAX_FRAME, _ANC_SPACE)
                if anc:
                    # the usual case is one PACKET_AUXDATA message without a tag: test its status
                    # and TCI in place; anything else takes the general path
                    level, kind, raw = anc[0]
                    if len(anc) != 1 or kind != PACKET_AUXDATA or level != SOL_PACKET or len(raw) < _AUXDATA.size:
                        data = restore_vlan_tag(data, anc)
                    else:
                        status, tci = status_tci(raw)
                        if status & _VLAN_VALID or tci:
                            data = restore_vlan_tag(data, anc)
                append(data)
        except (BlockingIOError, InterruptedError):
            pass
        return out

    def describe(self) -> str:
        return self.spec.iface


class UdpTunnelPort(Port):
    """A port whose wire is a UDP socket: one datagram per Ethernet frame."""

    def __init__(self, spec: PortSpec, bufsize: int = 4 << 20):
        self.spec = spec
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, bufsize)
            except OSError:
                pass
        try:
            s.bind(spec.local)
        except OSError as exc:
            s.close()
            raise ValueError(f"port {spec.number}: cannot bind UDP {spec.local[0]}:{spec.local[1]}: {exc}") from None
        try:
            # A tunnel is a point-to-point link: a connected UDP socket only takes datagrams from the peer,
            # so no other local process can inject frames into this port.
            s.connect(spec.remote)
        except OSError as exc:
            s.close()
            raise ValueError(f"port {spec.number}: cannot use UDP peer {spec.remote[0]}:{spec.remote[1]}: {exc}") from None
        s.setblocking(False)
        self.sock = s
        self.local = s.getsockname()[:2]
        self._remote = spec.remote

    def send(self, frame: bytes) -> None:
        try:
            self.sock.send(frame)
        except ConnectionRefusedError:
            pass  # ICMP port unreachable from an earlier datagram: the peer is not listening

    def recv_batch(self, n: int = 64) -> list[bytes]:
        out = []
        recv = self.sock.recv
        while len(out) < n:
            try:
                out.append(recv(MAX_FRAME))
            except (BlockingIOError, InterruptedError):
                break
            except ConnectionRefusedError:
                continue
        return out

    def describe(self) -> str:
        return f"udp:{self.local[0]}:{self.local[1]}->{self._remote[0]}:{self._remote[1]}"


def restore_vlan_tag(frame: bytes, ancdata) -> bytes:
    """``frame`` with the VLAN tag the kernel stripped (reported in ``PACKET_AUXDATA``)
    put back after the MAC addresses; unchanged when the frame had none.  Like libpcap:
    a tag is present when ``TP_STATUS_VLAN_VALID`` is set or the TCI is not 0; the TPID
    is 0x8100 unless the kernel reports another (``TP_STATUS_VLAN_TPID_VALID``)."""
    for level, kind, raw in ancdata:
        if level != SOL_PACKET or kind != PACKET_AUXDATA or len(raw) < _AUXDATA.size:
            continue
        status, _len, _snap, _mac, _net, tci, tpid = _AUXDATA.unpack_from(raw)
        if status & TP_STATUS_VLAN_VALID or tci:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = ETH_P_8021Q
            return frame[:12] + _TAG.pack(tpid, tci) + frame[12:]
    return frame


def _open_rings(s: socket.socket, iface: str, tx: bool = True):
    """``(rx, tx)``: a TPACKET_V2 receive ring on ``s`` (not yet bound) as ``[mmap, slot size, slots,
    next slot]`` and, with ``tx``, a :class:`TxRing` in the same mapping (the kernel maps the receive
    ring first, then the transmit ring).  ``(None, None)`` where the kernel refuses a receive ring
    (the port then uses ``recvmsg`` and ``send``); ``(rx, None)`` where only the transmit ring is refused."""
    try:
        with open(f"/sys/class/net/{iface}/mtu") as f:
            mtu = int(f.read())
    except (OSError, ValueError):
        mtu = 9000
    slot = 2048
    while slot < mtu + _SLOT_HEADROOM:
        slot *= 2
    block = max(slot, 1 << 16)  # a block holds whole slots; a multiple of the page size
    nblocks = max(1, RING_BYTES // block)
    nslots = nblocks * (block // slot)
    try:
        s.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
        if tx:
            # a frame the kernel cannot send (too short, too long) is skipped rather than left at the
            # transmit ring's head, blocking it (the kernel takes this only before any ring exists)
            s.setsockopt(SOL_PACKET, PACKET_LOSS, 1)
        s.setsockopt(SOL_PACKET, PACKET_RX_RING, struct.pack("IIII", block, nblocks, slot, nslots))
        # a frame larger than a slot (the MTU raised after start: BMv2, whose libpcap ring is not
        # sized by the MTU, still takes it) is also queued whole on the socket, the slot marked
        # TP_STATUS_COPY; without this the kernel cuts it to the slot
        try:
            s.setsockopt(SOL_PACKET, PACKET_COPY_THRESH, 1)
        except OSError:
            pass
    except OSError as exc:
        log.info("%s: no PACKET_RX_RING (%s): receiving with recvmsg", iface, exc)
        return None, None
    tx_blocks = max(1, TX_RING_BYTES // block) if tx else 0
    tx_slots = tx_blocks * (block // slot)
    if tx_blocks:
        try:
            s.setsockopt(SOL_PACKET, PACKET_TX_RING, struct.pack("IIII", block, tx_blocks, slot, tx_slots))
        except OSError as exc:
            log.info("%s: no PACKET_TX_RING (%s): sending with send()", iface, exc)
            tx_blocks = 0
    rx_bytes = block * nblocks
    try:
        mm = mmap.mmap(s.fileno(), rx_bytes + block * tx_blocks, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    except (OSError, ValueError) as exc:
        # a ring nobody reads would swallow every frame, one nobody flushes every send: take them down
        s.setsockopt(SOL_PACKET, PACKET_RX_RING, struct.pack("IIII", 0, 0, 0, 0))
        if tx_blocks:
            s.setsockopt(SOL_PACKET, PACKET_TX_RING, struct.pack("IIII", 0, 0, 0, 0))
        log.info("%s: cannot map the rings (%s): receiving with recvmsg", iface, exc)
        return None, None
    txr = TxRing(s, mm, rx_bytes, slot, tx_slots, mtu, iface) if tx_blocks else None
    return [mm, slot, nslots, 0], txr


class TxRing:
    """A ``PACKET_TX_RING`` (TPACKET_V2) of an AF_PACKET socket: frames are copied into slots of a
    ring shared with the kernel, marked ``TP_STATUS_SEND_REQUEST``, and one ``send()`` of nothing
    (non-blocking) makes the kernel transmit every marked slot in ring order -- one system call per
    batch instead of one per frame.  The kernel gives a slot back (status 0) once the frame's buffer
    is freed; a slot not back yet when the ring comes round to it means the ring is full:
    :meth:`write` flushes and, if that frees nothing, raises ``BlockingIOError`` as a full socket
    buffer does.  The kernel walks the ring from its own head, which stays where this side's next
    slot is: slots are written in order, and after a failed ``send()`` the frames it did not take are
    withdrawn (counted in ``flush_errors``) so that the two never drift apart.  A frame longer than
    the MTU at start allows (plus a VLAN tag's 4 bytes for an 802.1Q-tagged one) raises ``EMSGSIZE``,
    as ``send()`` does.

    Writers: the data-plane thread, the P4Runtime thread (PacketOut) and the TM's transmit threads
    may send on the same port, so a slot's write and a flush hold :attr:`lock`."""

    def __init__(self, sock: socket.socket, mm: mmap.mmap, base: int, slot: int, nslots: int, mtu: int,
                 iface: str = ""):
        self.sock, self.mm, self.base, self.slot, self.nslots = sock, mm, base, slot, nslots
        # what the kernel takes, as for send(): the MTU plus the Ethernet header, 4 bytes more for an
        # 802.1Q-tagged frame (it would skip a longer one silently, PACKET_LOSS, with a kernel log line)
        self.max_len = min(slot - _TX_DATA, mtu + 14)
        self.max_tagged = min(slot - _TX_DATA, mtu + 18)
        self.iface = iface
        self.next = 0      # the next slot to write
        self.head = 0      # the first slot written but not yet taken by the kernel (its head)
        self.pending = 0   # slots written since the kernel last took them
        self.pending_bytes = 0  # their frames' length: what send() returns when it took them all
        self.flush_errors = 0
        self.lock = threading.Lock()
        self._status = _U32.unpack_from
        self._mark = _STATUS_LEN.pack_into

    def write(self, frame: bytes) -> None:
        """Put ``frame`` in the ring (sent at the next :meth:`flush`)."""
        n = len(frame)
        if n > self.max_len and (n > self.max_tagged or frame[12:14] not in _VLAN_TPIDS):
            raise OSError(errno.EMSGSIZE, f"{self.iface}: a {n}-byte frame is longer than the MTU allows")
        with self.lock:
            i = self.next
            off = self.base + i * self.slot
            mm = self.mm
            if self._status(mm, off)[0] & TP_STATUS_TX_BUSY:
                self._flush()
                if self._status(mm, off)[0] & TP_STATUS_TX_BUSY:
                    raise BlockingIOError(errno.EAGAIN, f"{self.iface}: transmit ring full")
            mm[off + _TX_DATA:off + _TX_DATA + n] = frame
            self._mark(mm, off, TP_STATUS_SEND_REQUEST, n)  # status and length in one store; the kernel
            # reads the slot only inside this socket's send(), which this lock keeps out
            i += 1
            self.next = 0 if i == self.nslots else i
            self.pending += 1
            self.pending_bytes += n

    def send(self, frame: bytes) -> None:
        """One frame now: :meth:`write` and :meth:`flush` (the ring's counterpart of ``socket.send``)."""
        self.write(frame)
        with self.lock:
            self._flush()

    def flush(self) -> bool:
        if not self.pending:
            return False
        with self.lock:
            return self._flush()

    def _flush(self) -> bool:
        if not self.pending:
            return False
        err = None
        for _ in range(2):
            try:
                if self.sock.send(b"", socket.MSG_DONTWAIT) == self.pending_bytes:
                    # the usual case: the kernel took every frame written (send() returns their bytes)
                    self.head, self.pending, self.pending_bytes = self.next, 0, 0
                    return False
                err = None
                break
            except BlockingIOError:
                break  # the socket's send buffer is full: what the kernel did not take goes next time
            except OSError as exc:  # ENETDOWN/ENXIO while the link is down
                # once more: a link that went down and up leaves its ENETDOWN pending on the socket,
                # reported by the next call, which then sends nothing
                err = exc
        # follow the kernel's head over the slots it took (no longer SEND_REQUEST)
        mm, base, slot, nslots, status = self.mm, self.base, self.slot, self.nslots, self._status
        h, left = self.head, self.pending
        while left and status(mm, base + h * slot)[0] & 0x7 != TP_STATUS_SEND_REQUEST:
            h = h + 1 if h + 1 < nslots else 0
            left -= 1
        self.head = h
        # what is left: count its bytes again from the slots' tp_len
        self.pending_bytes = sum(_STATUS_LEN.unpack_from(mm, base + ((h + k) % nslots) * slot)[1]
                                 for k in range(left))
        if left and err is not None:
            # the kernel will not take them now: withdraw them, so that its head and ours stay together
            # (a frame left behind would go out whenever the link comes back, after newer ones)
            for _ in range(left):
                self._mark(mm, base + h * slot, 0, 0)
                h = h + 1 if h + 1 < nslots else 0
            self.next = self.head
            self.flush_errors += left
            self.pending = self.pending_bytes = 0
            raise err
        self.pending = left
        return left > 0

    def close(self) -> None:
        self.pending = self.pending_bytes = 0


def open_port(spec: PortSpec, tx_ring: bool = False) -> Port:
    """The port ``spec`` names; ``tx_ring``: an AF_PACKET port sends through a :class:`TxRing`
    (``checkmate-switch --tx-ring``)."""
    return UdpTunnelPort(spec) if spec.kind == "udp" else AfPacketPort(spec, tx_ring=tx_ring)
