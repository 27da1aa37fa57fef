"""The trainer side of the shadow protocol: :class:`ShadowClient`.

One client holds one TCP connection to one shadow's management address and issues
synchronous request/reply calls (a lock serialises callers from several threads).  Every call
is bounded by ``timeout`` seconds; a timed-out or broken connection is closed and reopened on the
next call, so a trainer never hangs on a dead shadow -- it gets ``TimeoutError`` /
``ConnectionError`` (:class:`ShadowUnreachable` when no connection could be opened: it names the
address and what to check) and decides (usually: keep training, the shadow will need a resync).

Typical trainer loop::

    c = ShadowClient("10.77.0.101", 48881, timeout=10)
    c.bootstrap(Bootstrap(job_id, shard, 0, params, shard_map, OptimizerSpec.from_optimizer(opt),
                          tensors={pid: p.detach() for pid, p in owned}, opt_state={}))
    for it in range(1, n + 1):
        ...backward (the switch copies the final gradient to the shadow)...
        coef = clip_grad_norm_(...)  # optional
        ack = c.manifest(Manifest(job_id, it, [g["lr"] for g in opt.param_groups], clip_coef))
        opt.step(); sched.step()
        if ack.needs_resync:  # same run continues: keep what the shadow already buffered
            c.bootstrap(Bootstrap(..., iteration=it, <state after step it>, resync=True))
"""
from __future__ import annotations

import os
import socket
import threading

from .protocol import (SYNC_FRAME, Bootstrap, Manifest, ManifestAck, ProtocolError, ShadowError, ShadowStatus,
                       ShardState, check_shard_state, pack_message, parse_frame, recv_message)

#: frames up to this size are joined and sent with one syscall (copying more would cost more)
_JOIN_MAX = 64 << 10


class ShadowUnreachable(ConnectionError):
    """No TCP connection to a shadow's management address; the message names the address, the
    reason and what to check (a ``ConnectionError``, so callers that retry keep working)."""

    def __init__(self, host: str, port: int, cause: OSError):
        self.host, self.port, self.cause = host, port, cause
        reason = cause.strerror or str(cause) or type(cause).__name__
        if isinstance(cause, TimeoutError):
            reason = "no answer, timed out"
        super().__init__(f"shadow at {host}:{port} is unreachable ({reason}); check that checkmate-shadow "
                         f"runs there (--mgmt {host}:{port}) and that this host can reach that address")


class ShadowClient:
    def __init__(self, host: str, mgmt_port: int, timeout: float = 30.0, ack_every: int = 1):
        self.host, self.port, self.timeout = host, int(mgmt_port), float(timeout)
        #: posted manifests the shadow may answer with one cumulative ack, asked for with ``hello`` at
        #: every connect (takes effect at the next one); 1: an ack per manifest (the old protocol)
        self.ack_every = int(ack_every)
        self.acked_every = 1  # what the shadow accepted on the current connection (1: an older shadow)
        self.ack_frames = 0  # ack frames read (a cumulative one counts once)
        self._syncs = 0  # sync requests sent whose answer was not read yet
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._posted = 0  # compact manifests sent whose acks were not read yet (post_manifest)
        self._acks: list = []  # acks read but not yet taken (take_acks)
        self._rx = bytearray()  # bytes of posted manifests' acks read but not parsed yet
        self._tx = bytearray()  # the unsent tail of a frame try_post could only partly write

    @classmethod
    def from_address(cls, addr: str, timeout: float = 30.0) -> "ShadowClient":
        host, _, port = addr.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"shadow address {addr!r}: expected HOST:PORT")
        return cls(host, int(port), timeout=timeout)

    # -- connection ------------------------------------------------------------------------
    def _connect(self) -> socket.socket:
        if self._sock is None:
            try:
                s = socket.create_connection((self.host, self.port), timeout=self.timeout)
            except OSError as e:
                raise ShadowUnreachable(self.host, self.port, e) from e
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(self.timeout)
            if self.ack_every > 1:
                try:
                    self.acked_every = self._hello(s)
                except BaseException:
                    s.close()
                    raise
            self._sock = s
        return self._sock

    def _hello(self, s: socket.socket) -> int:
        """Ask for cumulative acks on a new connection (``shadow.protocol``, *Cumulative acks*); the
        number of manifests one ack may cover, 1 when the shadow predates them (it answers an error)."""
        s.sendall(b"".join(pack_message("hello", {"ack_every": self.ack_every})))
        op, body = recv_message(s)
        if op == "ok" and isinstance(body, dict) and type(body.get("ack_every")) is int and body["ack_every"] >= 1:
            return body["ack_every"]
        if op == "error":
            return 1
        raise ProtocolError(f"unexpected reply {op!r} to hello")

    def _call(self, op: str, body=None):
        self.begin(op, pack_message(op, body))
        return self.finish(op)

    # -- pipelining: send now, read the reply later (one request in flight per client) -----------------
    def begin(self, op: str, frame: list) -> None:
        """Send one framed request (``protocol.pack_message``) and keep this client reserved until
        :meth:`finish` reads its reply.  A caller that sends one frame to each of several shadows
        and then collects the replies waits for the slowest shadow once, not for each in turn, and
        encodes a frame shared by several shadows once.  On an error nothing stays reserved."""
        self._lock.acquire()
        try:
            self._read_posted(block=True)  # replies come in order: the posted manifests' acks first
            sock = self._connect()
            if sum(map(len, frame)) <= _JOIN_MAX:
                sock.sendall(b"".join(frame))  # small frame (a manifest): one send, one segment
            else:
                for part in frame:
                    sock.sendall(part)
        except BaseException:
            self._drop()
            self._lock.release()
            raise

    def finish(self, op: str):
        """Read the reply to the request :meth:`begin` sent; releases the client."""
        try:
            try:
                rop, rbody = recv_message(self._sock)
            except BaseException:
                self._drop()
                raise
            if rop not in ("ok", "error"):
                self._drop()
                raise ShadowError("ProtocolError", f"unexpected reply op {rop!r} to {op!r}")
        finally:
            self._lock.release()
        if rop == "error":
            raise ShadowError(str(rbody.get("kind", "Error")), str(rbody.get("message", "")))
        return rbody

    # -- posted manifests: send now, read the acks whenever convenient ---------------------------------
    def post_manifest(self, frame: bytes, count: int = 1) -> None:
        """Send one compact manifest (``protocol.pack_manifest``) without waiting for its ack: the acks
        pile up in the socket and :meth:`take_acks` reads whatever arrived (one ``recv`` for several),
        so a sender pays neither a round trip nor a wake-up per manifest.  Any other call reads the
        outstanding acks first (replies come in order).  A broken connection raises here or at the
        next call; the posted manifests are then lost (the shadow will ask for a resync).  ``frame``
        may hold ``count`` compact manifests back to back (one ack comes for each)."""
        with self._lock:
            try:
                sock = self._connect()
                self._flush_tx()
                sock.sendall(frame)
                self._posted += count
            except BaseException:
                self._drop()
                raise

    def try_post(self, frame: bytes, count: int = 1) -> bool:
        """:meth:`post_manifest` for a caller that must never wait (the training thread): True when the
        frame went out (or its tail is kept to go out before anything else on this connection).
        False -- nothing sent -- when the client is busy with another call, not connected, or the
        socket's send buffer is full (a shadow that stopped reading): the caller hands the frame to a
        thread that may wait."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            sock = self._sock
            if sock is None or self._tx:
                return False
            try:
                n = os.write(sock.fileno(), frame)  # the descriptor is non-blocking (socket timeout)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                self._drop()  # the next call reconnects (and reports)
                return False
            if n < len(frame):
                self._tx += frame[n:]
            self._posted += count
            return True
        finally:
            self._lock.release()

    def take_acks(self, block: bool = False, wait: bool = True) -> list:
        """The acks of posted manifests that arrived (``block``: all of them, each within the timeout).
        ``wait=False``: return [] at once if another call holds the client."""
        if not self._lock.acquire(blocking=wait):
            return []
        try:
            try:
                self._read_posted(block)
            except BaseException:
                self._drop()
                raise
            out, self._acks = self._acks, []
            return out
        finally:
            self._lock.release()

    def _flush_tx(self) -> None:
        """Under the lock: send the tail of a frame :meth:`try_post` could only partly write."""
        if self._tx:
            self._sock.sendall(self._tx)
            self._tx.clear()

    @property
    def posted(self) -> int:
        """Posted manifests whose acks were not read yet."""
        return self._posted

    def _read_posted(self, block: bool) -> None:
        """Under the lock: read acks of posted manifests (all when ``block``, else those already here).
        Non-blocking reads go straight to the descriptor (``os.read``: the socket has a timeout, so its
        descriptor is non-blocking; ``socket.recv`` would wait up to the timeout), one read for every
        ack that arrived."""
        if block and self._posted and self._sock is not None:
            self._flush_tx()  # (never from a non-blocking read: the training thread must not wait)
            if self.acked_every > 1 and not self._syncs:
                self._sock.sendall(SYNC_FRAME)  # the shadow may hold the last acks: ask for them
                self._syncs += 1
        while (self._posted or self._syncs) and self._sock is not None:
            got = parse_frame(self._rx)
            if got is None:
                try:
                    data = self._sock.recv(1 << 16) if block else os.read(self._sock.fileno(), 1 << 16)
                except (BlockingIOError, InterruptedError):
                    return
                if not data:
                    raise ConnectionError("the shadow closed the connection")
                self._rx += data
                continue
            used, op, body = got
            del self._rx[:used]
            self.ack_frames += 1
            if op == "cack":  # a cumulative ack: the newest state, for `covers` manifests
                if body.covers > self._posted or (body.sync and not self._syncs):
                    raise ProtocolError(f"a cumulative ack for {body.covers} manifests (sync {body.sync}), "
                                        f"{self._posted} posted, {self._syncs} syncs sent: the reply stream "
                                        f"is out of step")
                self._posted -= body.covers
                self._syncs -= body.sync
                if body.covers:
                    self._acks.append(body.ack)
                continue
            self._posted -= 1
            if op != "ok" or not isinstance(body, ManifestAck):
                kind = body.get("kind", "Error") if isinstance(body, dict) else "ProtocolError"
                msg = body.get("message", "") if isinstance(body, dict) else f"unexpected reply {op!r}"
                self._acks.append(ShadowError(str(kind), str(msg)))
            else:
                self._acks.append(body)
        if self._rx and not self._posted and not self._syncs:
            raise ProtocolError(f"{len(self._rx)} bytes after the last ack (the reply stream is out of step)")

    def _drop(self):
        self._posted = self._syncs = 0
        self.acked_every = 1
        self._rx.clear()
        self._tx.clear()
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def close(self) -> None:
        with self._lock:
            self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- API ---------------------------------------------------------------------------------
    def bootstrap(self, b: Bootstrap) -> ShadowStatus:
        """(Re)initialise the shard; returns the status right after."""
        return self._call("bootstrap", b)

    def manifest(self, m: Manifest) -> ManifestAck:
        return self._call("manifest", m)

    def status(self) -> ShadowStatus:
        return self._call("status")

    def fetch(self, iteration: int | None = None) -> ShardState:
        """The latest published state, or the given iteration while it is still in memory."""
        return check_shard_state(self._call("fetch", {"iteration": iteration}))

    def persist(self) -> str:
        """Persist the latest published iteration now; returns the file path once durable."""
        return self._call("persist")
