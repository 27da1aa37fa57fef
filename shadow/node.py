"""The shadow node: ``ShadowNode(ShadowConfig)`` with ``start()`` / ``stop()``.

Four threads share one lock (with one condition per kind of waiter, so a notification wakes only the
thread it concerns):

``ingest``   UDP socket -> :class:`~shadow.ingest.Reassembler` (``recv_into`` one reusable buffer,
             validate the header, copy the payload into its slot); :mod:`shadow.datapath`.  Watching,
             it blocks in ``select`` on the socket and a wake pipe with no timeout, sleeps a learned
             lead after a wake-up and naps ``ingest_nap`` (2 ms) while an iteration is partly in, so
             an iteration costs one or two drains (``Reassembler.drain``).  While the connection
             thread's drains at each manifest complete the iterations, it *defers* to them and only
             looks every ``ingest_defer`` seconds.  When its datagram completes the head iteration
             and the manifest is already in, it replays the step itself.
``apply``    waits until the head iteration is complete *and* its manifest is in, takes its slot out
             of the ring, runs :class:`~shadow.replay.AdamWReplica` (outside the lock, so ingest of
             the next iterations continues), then publishes an immutable snapshot as *latest*
             (the former latest becomes *previous*).  It also runs the loss watchdog, whose timer is
             armed only while an iteration is overdue (evidence: its manifest, or a later iteration).
             Mostly it only watches: the thread that completes the head iteration replays it (no
             hand-off) -- the connection thread that received the manifest, right after sending the
             ack, or the ingest thread whose datagram completed a gradient whose manifest was in.
``persist``  writes the newest requested snapshot with :class:`~shadow.store.ShardStore` (atomic,
             checksummed) -- every ``persist_every`` iterations and on request.
``mgmt``     TCP management API (``shadow.protocol`` frames, JSON or the compact manifest): bootstrap,
             manifest, status, fetch, persist; one thread per connection, which reads what arrived
             with one ``readv`` per wake-up (:mod:`shadow.connio`) and, after a manifest's ack, takes
             the copies waiting in the data socket and replays the step if that completed it.

No thread polls while nothing arrives: an idle shadow uses no CPU (a deferring ingest thread's
periodic look stops at the first one that saw no manifest).

Publication rule: iteration *i* becomes *latest* only after every element of the shard for *i*
arrived, the manifest for *i* arrived, and the step was applied on top of *i-1*.  On a loss the
node keeps its last published state, sets ``needs_resync`` (reported in every ManifestAck) and
applies nothing until a :class:`~shadow.protocol.Bootstrap` supplies a fresh state.  A bootstrap
with ``resync=True`` keeps the later iterations already buffered (same run); any other bootstrap
discards every buffer and manifest (a restarted job must not inherit a previous run's gradients).
"""
from __future__ import annotations

import logging
import os
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from checkmate import wire

from .connio import ConnAcks, ConnReader
from .datapath import DataPath, SourceFilter  # noqa: F401 (SourceFilter: part of this module's API)
from .ingest import Counters, Reassembler
from .layout import ShardLayout
from .protocol import (Bootstrap, Manifest, ManifestAck, ProtocolError, ShadowStatus, ShardState, recv_message,
                       send_message)
from .replay import AdamWReplica
from .store import ShardStore

log = logging.getLogger("checkmate.shadow")


def parse_addr(text: str, default_port: int | None = None) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port) if default_port is not None else ""
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"address {text!r}: expected HOST:PORT")
    return host, int(port)


def _named(fn, name: str):
    """``fn`` run in a thread that also carries ``name`` as its OS name (``/proc/PID/task/TID/comm``, 15
    characters), so per-thread CPU can be told apart from outside the process (benchmarks)."""
    def run(*args):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
        except (OSError, AttributeError):
            pass  # not Linux: the Python name is enough
        return fn(*args)
    return run


@dataclass
class ShadowConfig:
    job_id: int
    shard: int
    data: tuple[str, int] = ("127.0.0.1", wire.SHADOW_UDP_PORT)
    mgmt: tuple[str, int] = ("127.0.0.1", wire.SHADOW_UDP_PORT + 1)
    ckpt_dir: str | Path = "checkpoints"
    persist_every: int = 0  #: 0: only on request
    loss_timeout: float = 2.0  #: seconds without progress on an overdue iteration before it is lost
    ring: int = 4  #: iteration buffers (one may be in the optimizer while the others fill)
    payload_order: str = wire.PAYLOAD_BYTEORDER  #: byte order of gradient elements on the wire
    keep: int = 3  #: persisted files kept per shard
    #: published states kept in memory (newest last; fetchable by iteration).  Deep enough that a
    #: healthy shard still holds the iteration a lossy shard is stuck at until that one is resynced
    #: (loss is declared at the latest when iteration head+ring arrives; the resync follows 1-2
    #: iterations later), so restore finds a common iteration in memory.  In-process default: latest
    #: and previous only; ``checkmate-shadow --history`` defaults to 8 (what the testbed runs).
    history: int = 2
    rcvbuf: int = 32 << 20
    request_timeout: float = 60.0
    #: Only the switch-facing link may send copies: source addresses or CIDRs accepted on the data
    #: port (empty: any).  Datagrams from elsewhere are counted as rejected, never ingested.
    allowed_sources: tuple[str, ...] = ()
    #: Bind the data socket to this interface (SO_BINDTODEVICE), e.g. the shadow's switch-facing port.
    data_iface: str | None = None
    #: Seconds the ingest thread sleeps after draining the socket while an iteration is partly
    #: received, so that the rest of its datagrams (which a switch emits one by one while the ring
    #: runs) are taken in one batch instead of one wake-up each; 0: wake up per datagram.
    ingest_nap: float = 0.002
    #: The ingest thread learns how long an iteration's datagrams take to arrive (from the wake-up by
    #: the first one until the iteration is complete) and, after the next wake-up, sleeps 0.9 of that
    #: before draining -- so a switch that spreads the copies over the ring's duration costs about one
    #: drain per iteration.  This bounds that sleep (seconds); ``ingest_nap`` 0 turns both off.
    ingest_lead_max: float = 0.005
    #: The connection thread drains the data socket when a manifest arrives (the copies come during the
    #: backward pass, the manifest after the step: usually all there).  Once that completed the
    #: iteration three times in a row, the ingest thread *defers*: it stops waking up for each
    #: iteration's first datagram and only looks every ``ingest_defer`` seconds (fallback), so an
    #: iteration costs one wake-up (the manifest's) instead of three.  0: never defer.  Deferring needs a
    #: socket buffer that holds many iterations of copies (checked at bootstrap).
    ingest_defer: float = 0.05


class ShadowNode(DataPath):
    def __init__(self, config: ShadowConfig, store: ShardStore | None = None):
        if config.ring < 3:
            raise ValueError(f"ring: need at least 3 iteration buffers, got {config.ring}")
        if config.ingest_nap < 0 or config.ingest_nap > 0.1:
            raise ValueError(f"ingest_nap: {config.ingest_nap} s is outside 0..0.1")
        if config.ingest_lead_max < 0 or config.ingest_lead_max > 0.1:
            raise ValueError(f"ingest_lead_max: {config.ingest_lead_max} s is outside 0..0.1")
        if config.ingest_defer < 0 or config.ingest_defer > 1.0:
            raise ValueError(f"ingest_defer: {config.ingest_defer} s is outside 0..1")
        if config.history < 2:
            raise ValueError(f"history: need at least 2 published states in memory, got {config.history}")
        self.cfg = config
        self.store = store or ShardStore(config.ckpt_dir, config.job_id, config.shard, keep=config.keep)
        self._lock = threading.RLock()  # re-entrant: wait_for predicates may call status()
        # Three conditions on the one lock, so a notification wakes only the thread it concerns:
        self._cv = threading.Condition(self._lock)  # the apply thread: work may be ready, or a deadline moved
        self._pcv = threading.Condition(self._lock)  # the persist thread: a state to write
        self._done = threading.Condition(self._lock)  # callers waiting for an outcome (applied, persisted)
        self._apply_idle = False  # the apply thread waits without a deadline (no evidence of an overdue iteration)
        self._wake_r, self._wake_w = -1, -1  # pipe that wakes the ingest thread's select (stop(), un-defer)
        self._rx = bytearray(65536)  # the receive buffer of whichever thread drains (under the lock)
        self._rx_mv = memoryview(self._rx)
        self._recv_into = None  # set by start(): recv_into, or recvfrom_into behind the source filter
        self._rcvbuf = 0  # the data socket's effective receive buffer (bytes)
        #: the ingest thread defers to the connection threads' drains (see ShadowConfig.ingest_defer)
        self._defer = False
        self._conn_fed = 0  # iterations in a row that a manifest's drain completed
        self._manifest_count = 0  # manifests taken (the deferred ingest thread tells activity from idleness)
        self._stop = threading.Event()
        self.counters = Counters()
        self._reasm: Reassembler | None = None
        self._layout: ShardLayout | None = None
        self._replica: AdamWReplica | None = None
        self._manifests: dict[int, tuple[Manifest, float]] = {}
        self._applying = False
        self._head_since = time.monotonic()
        self.latest: ShardState | None = None
        self.previous: ShardState | None = None
        self.history: list[ShardState] = []  #: published states, oldest first; [-1] is latest
        self.persisted_iteration: int | None = None
        self.persisted_path: str | None = None
        #: states to write, oldest first: two deep, so a crossing is written even when the next one is
        #: published before the persist thread got to it; a disk more than two behind skips the older ones
        self._persist_want: deque[ShardState] = deque(maxlen=2)
        self._persist_error: str = ""
        #: the iterations with a file on disk as of this node's last look (None: look again).  Only
        #: this node writes its shard's folder, so it looks after each of its saves, not on every
        #: status request (a listdir and a sort under the lock, polled by the testbed 5x a second)
        self._on_disk: list[int] | None = None
        self._threads: list[threading.Thread] = []
        self._conns: set[socket.socket] = set()
        self.udp: socket.socket | None = None
        self.tcp: socket.socket | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> "ShadowNode":
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.cfg.rcvbuf)
        except OSError:
            pass
        if self.cfg.data_iface:
            try:
                self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, self.cfg.data_iface.encode() + b"\0")
            except OSError as e:
                raise OSError(e.errno, f"data_iface {self.cfg.data_iface!r}: cannot bind the data socket to it: "
                                       f"{e.strerror}") from None
        self._bind(self.udp, self.cfg.data, "data")
        self.udp.setblocking(False)
        try:
            self._rcvbuf = self.udp.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        except OSError:
            self._rcvbuf = 0
        self._recv_into = self._make_recv()
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._bind(self.tcp, self.cfg.mgmt, "mgmt")
        self.tcp.listen(16)  # blocking accept: stop() shuts the socket down, which wakes it
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        for name, fn in (("ingest", self._ingest_loop), ("apply", self._apply_loop),
                         ("persist", self._persist_loop), ("mgmt", self._accept_loop)):
            t = threading.Thread(target=_named(fn, f"shadow{self.cfg.shard}-{name}"),
                                 name=f"shadow{self.cfg.shard}-{name}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _bind(self, sock: socket.socket, addr: tuple[str, int], what: str) -> None:
        try:
            sock.bind(addr)
        except OSError as e:
            for s in (self.udp, self.tcp):
                if s is not None:
                    s.close()
            raise OSError(e.errno, f"cannot bind the {what} address {addr[0]}:{addr[1]}: {e.strerror or e}") from None

    @property
    def data_address(self) -> tuple[str, int]:
        return self.udp.getsockname()

    @property
    def mgmt_address(self) -> tuple[str, int]:
        return self.tcp.getsockname()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._lock:
            for cv in (self._cv, self._pcv, self._done):
                cv.notify_all()
        if self._wake_w >= 0:
            try:
                os.write(self._wake_w, b"x")
            except OSError:
                pass
        if self.tcp is not None:
            try:
                self.tcp.shutdown(socket.SHUT_RDWR)  # wakes the blocking accept()
            except OSError:
                pass
        for c in list(self._conns):
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        for s in (self.udp, self.tcp):
            if s is not None:
                s.close()
        if not any(t.is_alive() for t in self._threads):  # else a late thread may still select on it
            for fd in (self._wake_r, self._wake_w):
                if fd >= 0:
                    os.close(fd)
            self._wake_r = self._wake_w = -1

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- apply + watchdog ----------------------------------------------------------------------
    def _ready(self) -> bool:
        """Under the lock: can the head iteration be applied now (cheap; no side effects)?"""
        r = self._reasm
        if r is None or r.needs_resync or self._replica is None or self._applying:
            return False
        entry = self._manifests.get(r.head)
        if entry is None:
            return False
        slot = r.slots.get(r.head)
        return entry[0].skip or (slot is not None and slot.filled == slot.total)

    def _next_work(self):
        """Under the lock: take the head iteration for applying (marks ``_applying``), or None."""
        if not self._ready():
            return None
        r = self._reasm
        it = r.head
        self._applying = True
        return it, self._manifests[it][0], r.take(it), self._replica, r

    def _apply(self, work) -> None:
        """Apply one taken iteration outside the lock (ingest and manifests go on meanwhile), then
        publish it under the lock.  Runs in the thread that made the iteration ready -- the connection
        thread that delivered its manifest (the common order: the copies arrive during the backward
        pass, the manifest after the step) or the ingest thread that completed its gradient -- or in
        the apply thread (the next iteration was ready when this one finished): no hand-off in the
        common case."""
        it, m, slot, replica, reasm = work
        snap, err = None, None
        try:
            replica.step(m, slot.buf if slot is not None else None)
            snap = replica.snapshot()
        except Exception as e:  # a broken step must never be published
            err = e
            log.exception("shadow %d: applying iteration %d failed", self.cfg.shard, it)
        with self._lock:
            reasm.release(slot)
            if err is None:
                self._schedule_persist(snap, resync=False)
                self._publish(snap)
                for k in [k for k in self._manifests if k <= it]:
                    del self._manifests[k]
            else:
                self._replica = None
                reasm.declare_loss(f"applying iteration {it} failed: {err}")
            self._head_since = time.monotonic()
            self._applying = False
            # the next iteration is complete too (the apply thread takes it), or it has evidence of
            # being overdue that arrived during this replay, when the watchdog saw `_applying` and
            # went back to an untimed wait: re-arm it, or a loss waits for the next datagram
            if self._ready() or (self._apply_idle and self._has_evidence(reasm.head)):
                self._cv.notify()
            self._done.notify_all()

    def _watchdog(self) -> float | None:
        """Declare the head lost when it is overdue; returns when to look again (monotonic time), or
        None when nothing is overdue -- the apply thread then waits without a timer until an event
        (a manifest, a new iteration's first datagram, a completed iteration) gives evidence."""
        r = self._reasm
        if r is None or r.needs_resync or self._applying:
            return None
        it = r.head
        entry = self._manifests.get(it)
        slot = r.slots.get(it)
        if slot is not None and slot.complete:
            return None  # only the manifest is missing: it travels over TCP and is late, not lost
        if not self._has_evidence(it):
            return None  # nothing of iteration `it` is overdue: the trainer may simply be idle
        last = max(self._head_since, slot.touched if slot else 0.0, entry[1] if entry else 0.0)
        due = last + self.cfg.loss_timeout
        now = time.monotonic()
        if now < due:
            return due
        if self._udp_backlog():
            return now + 0.05  # the ingest thread is behind (a starved CPU): look again shortly
        have = slot.filled if slot else 0
        r.declare_loss(f"iteration {it}: {have}/{r.layout.total_elems} elements, manifest "
                       f"{'in' if entry else 'missing'}, no progress for {self.cfg.loss_timeout}s")
        self._done.notify_all()
        return None

    def _has_evidence(self, it: int) -> bool:
        """Under the lock: has anything arrived that says head iteration ``it`` should be here -- its
        manifest, a later one, or a datagram of a later iteration?"""
        r = self._reasm
        return (r is not None and not r.needs_resync
                and (r.newest_seen > it or any(k >= it for k in self._manifests)))

    def _apply_loop(self) -> None:
        while not self._stop.is_set():
            with self._cv:
                if self._stop.is_set():  # checked under the lock: stop() notifies under it, after setting
                    return
                work = self._next_work()
                if work is None:
                    due = self._watchdog()
                    self._apply_idle = due is None
                    self._cv.wait(None if due is None else max(0.0, due - time.monotonic()))
                    self._apply_idle = False
                    continue
            self._apply(work)

    def _apply_inline(self) -> None:
        """Apply the head iteration in the calling thread if it is ready."""
        with self._lock:
            work = self._next_work()
        if work is not None:
            self._apply(work)

    def _publish(self, snap: ShardState) -> None:
        # Anything at or after snap's iteration is superseded: an equal iteration is the same state
        # again (a resync), a later one belongs to a run that restarted from an earlier point.
        h = [s for s in self.history if s.iteration < snap.iteration]
        h.append(snap)
        self.history = h[-self.cfg.history:]
        self.latest = snap
        self.previous = self.history[-2] if len(self.history) > 1 else None

    # -- persistence ---------------------------------------------------------------------------
    def _schedule_persist(self, snap: ShardState, resync: bool) -> None:
        """``persist_every`` K: persist a newly published state when its iteration crosses a multiple
        of K since the previous one -- whether it was replayed (``i-1 -> i``) or arrived by a resync
        (``3 -> 8`` crosses 5).  The previous one is the latest published state, else the newest file
        on disk (a restarted shadow), else 0 for a resync (a shadow restarted empty mid-run) and
        nothing for a first bootstrap.  A bootstrap that goes back (a restored job) persists nothing."""
        k = self.cfg.persist_every
        if not k:
            return
        prev = self.latest.iteration if self.latest is not None else max(self._persisted_list(), default=None)
        if prev is None and resync:
            prev = 0
        if prev is not None and snap.iteration // k > prev // k:
            self._persist_want.append(snap)
            self._pcv.notify()

    def _persist_loop(self) -> None:
        while not self._stop.is_set():
            with self._pcv:
                if self._stop.is_set():  # under the lock, as in _apply_loop: no lost wake-up at stop()
                    return
                if not self._persist_want:
                    self._pcv.wait()  # notified when a state is scheduled, and at stop()
                    continue
                snap = self._persist_want.popleft()
            try:
                path, err = str(self.store.save(snap)), ""
            except Exception as e:
                path, err = None, f"persisting iteration {snap.iteration} failed: {e}"
                log.error("shadow %d: %s", self.cfg.shard, err)
            with self._lock:
                if path is not None and (self.persisted_iteration is None or snap.iteration >= self.persisted_iteration):
                    self.persisted_iteration, self.persisted_path = snap.iteration, path
                self._persist_error = err
                self._on_disk = None  # a save adds a file and prunes others, a failed one may remove one
                self._done.notify_all()

    def persist_now(self, timeout: float | None = None) -> str:
        timeout = self.cfg.request_timeout if timeout is None else timeout
        with self._lock:
            snap = self.latest
            if snap is None:
                raise RuntimeError("nothing published yet (no bootstrap)")
            if self.persisted_iteration == snap.iteration:
                return self.persisted_path
            self._persist_error = ""
            self._persist_want.append(snap)
            self._pcv.notify()
            ok = self._done.wait_for(lambda: self._persist_error or self._stop.is_set() or (
                self.persisted_iteration is not None and self.persisted_iteration >= snap.iteration), timeout)
            if self._persist_error:
                raise RuntimeError(self._persist_error)
            if not ok or self.persisted_iteration is None:
                raise TimeoutError(f"persisting iteration {snap.iteration} did not finish in {timeout}s")
            return self.persisted_path

    # -- control operations (also callable in-process) -----------------------------------------------
    def bootstrap(self, b: Bootstrap) -> ShadowStatus:
        if b.job_id != self.cfg.job_id:
            raise ProtocolError(f"Bootstrap: field 'job_id': {b.job_id} is not this shadow's job {self.cfg.job_id}")
        if b.shard != self.cfg.shard:
            raise ProtocolError(f"Bootstrap: field 'shard': {b.shard} is not this shadow's shard {self.cfg.shard}")
        if b.shard_map.job_id != b.job_id:
            raise ProtocolError(f"ShardMap: field 'job_id': {b.shard_map.job_id} != {b.job_id}")
        if b.iteration < 0:
            raise ProtocolError(f"Bootstrap: field 'iteration': {b.iteration} < 0")
        layout = ShardLayout.build(b.params, b.shard_map.owner, b.shard)
        replica = AdamWReplica(b, layout, self.cfg.payload_order)
        snap = replica.snapshot()
        with self._lock:
            if not self._done.wait_for(lambda: not self._applying, self.cfg.request_timeout):
                raise TimeoutError("bootstrap: the optimizer step in progress did not finish")
            head = b.iteration + 1
            r = self._reasm
            keep = b.resync and r is not None and layout.same_as(self._layout) and head >= r.head
            if keep:
                r.restart(head)  # same run: keep the later iterations already buffered
                for k in [k for k in self._manifests if k < head]:
                    del self._manifests[k]
            else:  # a (re)start: nothing buffered may leak into this run
                self._reasm = Reassembler(layout, b.job_id, head, self.cfg.ring, self.counters)
                self._reasm.native = self._native_drain(layout, b.job_id)
                self._manifests.clear()
                self.counters.misrouted = 0  # judged per run: a new map may be right where the old was not
                self.counters.misrouted_ids.clear()
                self.counters.probed.clear()
            self._layout, self._replica = layout, replica
            self._schedule_persist(snap, resync=b.resync)
            self._publish(snap)
            self._head_since = time.monotonic()
            self._cv.notify()
            self._done.notify_all()
            return self._status()

    def manifest(self, m: Manifest) -> ManifestAck:
        """Record the manifest of ``m.iteration``, apply the head iteration if that made it ready,
        and return the ack.  (Over TCP the ack is sent before the step runs: see :meth:`_serve`.)"""
        ack = self._take_manifest(m)
        self._apply_inline()
        return ack

    def _take_manifest(self, m: Manifest, arm: bool = True) -> ManifestAck:
        if m.job_id != self.cfg.job_id:
            raise ProtocolError(f"Manifest: field 'job_id': {m.job_id} is not this shadow's job {self.cfg.job_id}")
        if not isinstance(m.lrs, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in m.lrs):
            raise ProtocolError(f"Manifest {m.iteration}: field 'lrs' must be a list of floats, got {m.lrs!r}")
        if m.clip_coef is not None and not isinstance(m.clip_coef, (int, float)):
            raise ProtocolError(f"Manifest {m.iteration}: field 'clip_coef' must be a float or None")
        with self._lock:
            r, rep = self._reasm, self._replica
            if rep is not None and len(m.lrs) != len(rep.spec.param_groups):
                raise ProtocolError(f"Manifest {m.iteration}: field 'lrs' has {len(m.lrs)} entries, "
                                    f"the optimizer has {len(rep.spec.param_groups)} param groups")
            reason = ""
            if r is None:
                reason = "not bootstrapped"
            elif m.iteration >= r.head:
                self._manifests[m.iteration] = (m, time.monotonic())
                while len(self._manifests) > 64:
                    del self._manifests[min(self._manifests)]
                if arm and self._apply_idle and not self._ready():  # evidence the head is overdue: arm the watchdog
                    self._cv.notify()
                # (ready: the caller applies it right after the ack, see _apply_inline)
            return self._ack(m.iteration, reason)

    def _ack(self, iteration: int, reason: str = "") -> ManifestAck:
        """Under the lock: the ack of manifest ``iteration`` as things stand now."""
        r, c = self._reasm, self.counters
        resync = r is None or r.needs_resync or self._replica is None
        if resync and not reason:
            reason = "not bootstrapped" if r is None else c.last_error
        return ManifestAck(self.cfg.job_id, self.cfg.shard, iteration, resync,
                           self.latest.iteration if self.latest else None, reason, losses=c.losses,
                           misrouted=c.misrouted, misrouted_params=sorted(c.misrouted_ids))

    def status(self) -> ShadowStatus:
        with self._lock:
            return self._status()

    def _status(self) -> ShadowStatus:
        c, r = self.counters, self._reasm
        latest = self.latest.iteration if self.latest else None
        newest = r.newest_seen if r else None
        return ShadowStatus(
            job_id=self.cfg.job_id, shard=self.cfg.shard, latest_iteration=latest,
            previous_iteration=self.previous.iteration if self.previous else None,
            persisted_iteration=self.persisted_iteration,
            held_iterations=[s.iteration for s in self.history],
            persisted_iterations=self._persisted_list(), pending=r.pending() if r else 0,
            bytes_received=c.bytes_received, packets=c.packets, duplicates=c.duplicates, losses=c.losses,
            rejected=c.rejected, needs_resync=r is None or r.needs_resync or self._replica is None,
            last_error=c.last_error or self._persist_error,
            lag=max(0, newest - latest) if newest is not None and latest is not None else 0,
            misrouted=c.misrouted, misrouted_params=sorted(c.misrouted_ids),
            probed_params=sorted(c.probed))

    def _persisted_list(self) -> list[int]:
        """The persisted iterations, oldest first: remembered from the last look at the folder, which
        happens again after each save (:meth:`fetch` of an iteration looks at the folder itself)."""
        if self._on_disk is None:
            try:
                self._on_disk = self.store.iterations()
            except OSError:
                return []
        return list(self._on_disk)

    def fetch(self, iteration: int | None = None) -> ShardState:
        """The latest published state, or the one of ``iteration``: from memory (the history), else
        from this shard's persisted file of that iteration (checksum verified)."""
        with self._lock:
            have = list(reversed(self.history))
        if iteration is None:
            if not have:
                raise LookupError("nothing published yet (no bootstrap)")
            return have[0]
        for s in have:
            if s.iteration == iteration:
                return s
        if iteration in self.store.iterations():
            st = self.store.load(iteration)
            if st.job_id == self.cfg.job_id and st.shard == self.cfg.shard and st.iteration == iteration:
                return st
        raise LookupError(f"iteration {iteration} is not in memory (have {[s.iteration for s in have]}) "
                          f"and not persisted (have {self.store.iterations()})")

    def wait_for(self, pred, timeout: float) -> bool:
        """Wait (bounded) until ``pred(node)`` holds under the lock; for tests and tools."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not pred(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._done.wait(min(left, 0.02))  # also polls: counters change without a notify
            return True

    # -- management server ---------------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.tcp.accept()
            except OSError:  # stop() shut the listening socket down
                return
            conn.settimeout(self.cfg.request_timeout)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conns.add(conn)
            threading.Thread(target=_named(self._serve, f"shadow{self.cfg.shard}-conn"), args=(conn,), daemon=True,
                             name=f"shadow{self.cfg.shard}-conn").start()

    def _serve(self, conn: socket.socket) -> None:
        handlers = {
            "bootstrap": lambda b: self.bootstrap(self._expect(b, Bootstrap)),
            # (the watchdog is armed after the data socket's drain, by _drain_for_manifest)
            "manifest": lambda b: self._take_manifest(self._expect(b, Manifest), arm=False),
            "cmanifest": lambda b: self._take_manifest(b, arm=False),  # compact form: decoded already
            "status": lambda b: self.status(),
            "fetch": lambda b: self.fetch((b or {}).get("iteration")),
            "persist": lambda b: self.persist_now(),
        }
        reader = ConnReader(conn)
        acks = ConnAcks(conn)
        try:
            while not self._stop.is_set():
                if not reader.pending():
                    # wait for the next request without a timer (stop() shuts the connection down,
                    # which wakes this), then take what arrived with one read (shadow.connio); the
                    # rest of a frame not complete in it is read under the socket's timeout
                    ready, _, _ = select.select([conn], [], [], None)
                    if not ready:
                        continue
                    if not reader.fill():
                        return  # the peer closed the connection
                    if not reader.pending():
                        continue
                try:
                    got = reader.take_compact()  # the per-iteration manifest, whole in the buffer
                    op, body = got if got is not None else recv_message(reader)
                except ProtocolError as e:  # framing lost: answer once, then hang up
                    send_message(conn, "error", {"kind": "ProtocolError", "message": str(e)})
                    return
                if op == "sync":  # the held ack now, as things stand (a flush on the trainer's side)
                    with self._lock:
                        now = self._ack(acks.last_iteration)
                    acks.sync(now)
                    continue
                fn = acks.hello if op == "hello" else handlers.get(op)
                try:
                    if fn is None:
                        raise ProtocolError(f"field 'op': unknown request {op!r}")
                    reply = ("ok", fn(body))
                except Exception as e:
                    reply = ("error", {"kind": type(e).__name__, "message": str(e)})
                if op == "cmanifest" and reply[0] == "ok":
                    acks.manifest(reply[1])
                else:
                    acks.flush()  # replies come in order: the held ack first
                    send_message(conn, *reply)
                if op in ("manifest", "cmanifest"):
                    # the ack is out: now take the copies waiting in the data socket and replay the
                    # step here if the gradient is complete (no hand-off to another thread; the next
                    # request waits in the socket meanwhile)
                    self._drain_for_manifest()
        except (ConnectionError, OSError):
            pass
        finally:
            self._conns.discard(conn)
            conn.close()

    @staticmethod
    def _expect(body, cls):
        if not isinstance(body, cls):
            raise ProtocolError(f"request body is a {type(body).__name__}, expected {cls.__name__}")
        return body

