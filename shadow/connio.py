"""Reading and answering a management connection with as few system calls as the request needs.

A Python socket with a timeout (the shadow's connections have one, so a peer that sends half a frame
cannot hold a thread forever) polls before every ``recv``/``send``.  Per iteration a connection thread
reads one compact manifest -- a frame header and a body, two ``recv_into`` calls of
:func:`shadow.protocol.recv_message` -- and sends one ack: with the polls, six system calls after the
``select`` that woke it, each paid cache-cold on a machine whose cores run the trainers.

:class:`ConnReader` reads what the kernel holds with *one* ``readv`` on the descriptor right after the
``select`` said the connection is readable (no poll: the descriptor of a socket with a timeout is
non-blocking), and serves :func:`~shadow.protocol.recv_message`'s ``recv_into`` calls from that buffer;
only a frame that is not complete in it is read on from the socket, under its timeout, as before.
Frames that arrived together (a manifest batch, a status request behind a manifest) are served without
another ``select``; a whole compact manifest is decoded straight from the buffer (:meth:`ConnReader.take_compact`).  :func:`send_small` writes a short reply with one ``write`` and falls back to
``sendall`` for whatever the socket did not take.  :class:`ConnAcks` decides when a connection's
compact manifests are acked (each at once, or cumulatively after the client's ``hello``).
"""
from __future__ import annotations

import os
import socket

from .protocol import FRAME, MAN_MAGIC, MAX_ACK_EVERY, ManifestAck, ProtocolError, pack_ack, pack_cum_ack, unpack_compact


class ConnReader:
    """A read buffer in front of one connection, duck-typed as the ``recv_into`` of a socket."""

    __slots__ = ("sock", "fd", "buf", "mv", "start", "end")

    def __init__(self, sock: socket.socket, size: int = 65536):
        self.sock, self.fd = sock, sock.fileno()
        self.buf = bytearray(size)
        self.mv = memoryview(self.buf)
        self.start = self.end = 0

    def pending(self) -> int:
        """Bytes read from the socket and not consumed yet."""
        return self.end - self.start

    def fill(self) -> bool:
        """One read of what the kernel holds (call when ``select`` said readable); False at end of file."""
        if self.start == self.end:
            self.start = self.end = 0
        elif self.end == len(self.buf):  # full: move the unread bytes to the front
            n = self.end - self.start
            self.mv[:n] = self.mv[self.start:self.end]
            self.start, self.end = 0, n
        try:
            k = os.readv(self.fd, [self.mv[self.end:]])
        except (BlockingIOError, InterruptedError):  # a spurious wake-up: nothing to read after all
            return True
        if k == 0:
            return False
        self.end += k
        return True

    def take_compact(self):
        """The compact manifest frame at the head of the buffer, whole, decoded as
        :func:`~shadow.protocol.recv_message` would (``("cmanifest", Manifest)``; a malformed body
        raises ProtocolError); None when the buffer starts with anything else or holds only part of it."""
        s = self.start
        if self.end - s < FRAME.size:
            return None
        magic, blen, it = FRAME.unpack_from(self.buf, s)
        if magic != MAN_MAGIC or blen > self.end - s - FRAME.size:
            return None
        self.start = s + FRAME.size + blen
        return unpack_compact(MAN_MAGIC, it, self.mv[s + FRAME.size:self.start])

    def recv_into(self, mv, nbytes: int = 0) -> int:
        n = nbytes or len(mv)
        avail = self.end - self.start
        if avail:
            k = n if n < avail else avail
            mv[:k] = self.mv[self.start:self.start + k]
            self.start += k
            return k
        return self.sock.recv_into(mv, n)  # the rest of a frame: blocking, under the socket's timeout


def send_small(sock: socket.socket, data: bytes) -> None:
    """Send ``data`` with one ``write`` when the socket takes it all (a short reply), else ``sendall``."""
    try:
        k = os.write(sock.fileno(), data)
    except (BlockingIOError, InterruptedError):
        k = 0
    if k < len(data):
        sock.sendall(data[k:])


class ConnAcks:
    """The acks of one management connection's compact manifests (see ``shadow.protocol``,
    *Cumulative acks*).  Until the client's ``hello`` asks for more, every manifest gets its own ack at
    once (the old protocol).  After ``hello`` with ``ack_every`` N: one cumulative ack for up to N
    manifests, sent when the N-th arrives -- or at once when the ack says something the trainer acts
    on and the last one sent did not say (a resync need, a grown loss or misrouted count), before any
    other reply on the connection, and on a sync request.  Saves the shadow a ``write`` (and the
    trainer the TCP work of reading it) for N-1 of N manifests."""

    __slots__ = ("conn", "every", "held", "newest", "told", "last_iteration")

    def __init__(self, conn: socket.socket):
        self.conn = conn
        self.every = 1
        self.held = 0  # manifests acked by nothing yet
        self.newest: ManifestAck | None = None  # the ack of the newest of them
        self.told = None  # what the last ack sent said that the trainer acts on
        self.last_iteration = 0  # of the last compact manifest on this connection

    def hello(self, body) -> dict:
        n = (body or {}).get("ack_every") if isinstance(body, dict) else None
        if type(n) is not int or n < 1:
            raise ProtocolError(f"hello: field 'ack_every': {n!r} is not a positive integer")
        self.every = min(n, MAX_ACK_EVERY)
        return {"ack_every": self.every}

    @staticmethod
    def _says(a: ManifestAck) -> tuple:
        return a.needs_resync, a.losses, a.misrouted

    def manifest(self, a: ManifestAck) -> None:
        self.last_iteration = a.iteration
        if self.every <= 1:
            send_small(self.conn, pack_ack(a))
            return
        self.held += 1
        self.newest = a
        if self.held >= self.every or a.needs_resync or self._says(a) != self.told:
            self.flush()

    def flush(self) -> None:
        if self.held:
            send_small(self.conn, pack_cum_ack(self.newest, self.held))
            self.told = self._says(self.newest)
            self.held, self.newest = 0, None

    def sync(self, now: ManifestAck) -> None:
        send_small(self.conn, pack_cum_ack(now, self.held, sync=True))
        self.told = self._says(now)
        self.held, self.newest = 0, None
