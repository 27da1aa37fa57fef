"""The shadow node's data path: the UDP data socket, read by the ingest thread and by the connection
threads (a mixin of :class:`shadow.node.ShadowNode`, which owns the lock, the reassembler and the
replay; everything here runs under ``ShadowNode._lock`` unless it says otherwise).

Who reads the socket (issue #16: a thread wake-up costs the shadow as much as a dozen datagrams):

* The connection thread, right after a manifest's ack (:meth:`DataPath._drain_for_manifest`): the
  switch copies an iteration's FINAL chunks while the ring all-reduce runs, the trainer's rank 0 sends
  the manifest after the optimizer step, so when the manifest arrives the copies are usually all in
  the socket.  It takes them (batches of 64 per lock hold) and replays the step itself.
* The ingest thread (:meth:`DataPath._ingest_loop`), in one of two modes.  *Watching*: it blocks in
  ``select`` on the socket and the wake pipe, wakes on an iteration's first datagram, sleeps a learned
  lead (0.9 of the time the previous iteration's copies took) and naps ``ingest_nap`` while an iteration
  is partly in, so most iterations are taken in one or two drains.  *Deferring*: once manifests' drains
  completed three iterations in a row (and the socket buffer holds at least 24 iterations' payload, a
  datagram's kernel footprint being up to ~3x its payload), it waits on the wake pipe only, looking at the
  socket every ``ingest_defer`` seconds as a fallback.  It goes back to watching when a manifest finds
  its gradient incomplete (the connection thread wakes it through the pipe), when a look finds an
  iteration it could complete or a full batch, or when no manifest came since the last look (idle: an
  idle node sleeps without a timer).  So a steady run costs one wake-up per shard and iteration (the
  manifest's) instead of three, and nothing changes about what is published: the same drain code, the
  same lock, the same readiness rule.
"""
from __future__ import annotations

import fcntl
import ipaddress
import os
import select
import termios
import time

from . import ingest_native


class SourceFilter:
    """Is a datagram's source one of the allowed addresses/CIDRs?  Memoised per source address."""

    def __init__(self, allowed):
        try:
            self.nets = [ipaddress.ip_network(a, strict=False) for a in allowed]
        except ValueError as e:
            raise ValueError(f"allowed_sources: {e}") from None
        self._seen: dict[str, bool] = {}

    def __call__(self, addr: str) -> bool:
        ok = self._seen.get(addr)
        if ok is None:
            if len(self._seen) > 4096:
                self._seen.clear()
            ip = ipaddress.ip_address(addr)
            ok = self._seen[addr] = any(ip in n for n in self.nets)
        return ok


class DataPath:
    """Mixin of :class:`shadow.node.ShadowNode`: the data socket's readers (see the module docstring)."""

    def _make_recv(self):
        """The data socket's ``recv_into``; behind ``allowed_sources``, ``recvfrom_into`` that returns -1
        (counted as rejected) for a datagram from elsewhere."""
        sock, c = self.udp, self.counters
        if not self.cfg.allowed_sources:
            return sock.recv_into
        allowed = SourceFilter(self.cfg.allowed_sources)
        recvfrom_into = sock.recvfrom_into

        def filtered_recv_into(b):  # the source address is needed: recvfrom_into, same buffer
            n, src = recvfrom_into(b)
            if allowed(src[0]):
                return n
            c.packets += 1
            c.rejected += 1
            c.last_error = f"datagram from {src[0]}:{src[1]}, not an allowed source (switch-facing link)"
            return -1
        return filtered_recv_into

    def _native_drain(self, layout, job_id: int):
        """The compiled receive loop (:mod:`shadow.ingest_native`) for a new reassembler, or None: behind a
        source filter (which needs each datagram's address) or where the library cannot be had."""
        if self.cfg.allowed_sources:
            return None
        lib = ingest_native.load()
        if lib is None:
            return None
        return ingest_native.NativeDrain(lib, self.udp.fileno(), layout, job_id, self._rx)

    def _drain_locked(self, limit: int = 64):
        """Under the lock: take up to ``limit`` datagrams from the data socket (whichever thread calls;
        the one receive buffer is used only under the lock).  Returns ``(got, done, work, idle, err)``:
        datagrams taken, whether the last one completed its iteration, the head iteration taken for
        replay when a datagram completed it and its manifest is in (else None), whether the socket ran
        empty, a receive error ("").  Wakes the apply thread when the loss state changed or a new
        iteration is evidence the head is overdue while it waits without a deadline."""
        r, c, buf, mv, recv_into = self._reasm, self.counters, self._rx, self._rx_mv, self._recv_into
        if r is None:  # before the first bootstrap: count and refuse
            got = 0
            for _ in range(limit):
                try:
                    n = recv_into(buf)
                except BlockingIOError:
                    return got, True, None, True, ""
                except OSError as e:
                    return got, True, None, True, f"udp receive: {e}"
                if n < 0:  # refused by the source filter (already counted)
                    continue
                c.packets += 1
                got += 1
                c.rejected += 1
                c.last_error = "datagram before the first bootstrap (shard layout unknown)"
            return got, True, None, False, ""
        lost, newest = r.needs_resync, r.newest_seen
        r.now = time.monotonic()  # one clock read per batch: the slots' "touched" time
        got, done, wake, idle, err = r.drain(recv_into, buf, mv, limit)
        work = self._next_work() if wake else None  # the head just completed, its manifest in
        if work is None and (r.needs_resync != lost or (
                self._apply_idle and r.newest_seen != newest and r.newest_seen > r.head)):
            self._cv.notify()
        return got, done, work, idle, err

    def _can_defer(self) -> bool:
        """Under the lock: may the ingest thread leave the data socket to the manifests' drains?  Only
        when the socket buffer holds many iterations of copies (a datagram's kernel footprint is taken
        as 3x its payload), so nothing overflows while nobody reads for ``ingest_defer``."""
        r = self._reasm
        return (self.cfg.ingest_defer > 0 and self.cfg.ingest_nap > 0 and r is not None
                and self._rcvbuf >= 24 * max(r.layout.total_bytes, 1))

    def _drain_for_manifest(self) -> None:
        """The connection thread, right after a manifest's ack: take what waits in the data socket and
        replay the head iteration here if that (or the manifest) made it ready -- the copies usually
        all arrived during the backward pass, so the ingest thread need not wake up for them.  While
        such drains keep completing iterations, the ingest thread defers to them; when a manifest
        finds its gradient incomplete, the ingest thread is woken to take the rest as it arrives."""
        wake_ingest = False
        work = None
        for _ in range(16):  # at most 1024 datagrams, 64 per lock hold (the ingest thread's batch)
            with self._lock:
                if self._reasm is None or self._stop.is_set():
                    break
                _got, _done, work, idle, err = self._drain_locked()
                if err:
                    self.counters.last_error = err
            if work is not None or idle:
                break
        with self._lock:
            self._manifest_count += 1
            r = self._reasm
            if work is None:
                work = self._next_work()
            if work is not None:
                self._conn_fed += 1
                if not self._defer and self._conn_fed >= 3 and self._can_defer():
                    self._defer = True
            elif r is not None and self._manifests and not r.needs_resync:
                if self._apply_idle and not self._ready():
                    self._cv.notify()  # a manifest is evidence the head is overdue: arm the watchdog
                if r.head in self._manifests and not self._applying:
                    # the manifest is in, the gradient is not: its copies are still on their way
                    self._conn_fed = 0
                    if self._defer:
                        self._defer = False
                        wake_ingest = True
        if wake_ingest:
            try:
                os.write(self._wake_w, b"u")
            except OSError:
                pass
        if work is not None:
            self._apply(work)

    def _ingest_loop(self) -> None:
        """Drain the socket in batches of up to 64 datagrams per lock hold (non-blocking recv); when it
        is empty, block in ``select`` on the socket and the wake pipe -- no timeout, so an idle shadow
        costs no CPU; while an iteration is partly received, nap ``ingest_nap`` between drains.  A
        datagram that completes the head iteration whose manifest is in gets the step replayed right
        here.  While the manifests' drains complete the iterations (``_defer``), wait on the wake pipe
        only, for at most ``ingest_defer``: then drain (a fallback), and stop deferring when that drain
        made an iteration ready, found a full batch, or nothing happened since the last look (idle)."""
        lock, stop = self._lock, self._stop
        monotonic = time.monotonic
        waitset = [self.udp, self._wake_r]
        pipe_only = [self._wake_r]
        wake_r = self._wake_r
        sel = select.select
        nap = self.cfg.ingest_nap
        sleep = time.sleep
        cap = self.cfg.ingest_lead_max
        defer_s = self.cfg.ingest_defer
        lead = 0.0  # seconds to sleep after a wake-up before the first drain (learned, see the docstring)
        woke = None  # when select returned, while the iteration being received is not complete yet
        deferred_look = False  # this drain is a deferred thread's periodic look
        seen_manifests = -1
        while not stop.is_set():
            with lock:
                got, done, work, idle, err = self._drain_locked()
                if err:
                    if stop.is_set():
                        return
                    self.counters.last_error = err  # transient (e.g. ICMP error): keep serving
                if deferred_look and self._defer and (work is not None or (got and not idle)
                                                      or self._manifest_count == seen_manifests):
                    self._defer = False  # the manifests' drains missed something, or nothing comes
                    self._conn_fed = 0
                deferred_look = False
                defer = self._defer
                seen_manifests = self._manifest_count
            if work is not None:
                # replay it here (the datagrams meanwhile wait in the socket buffer): no hand-off
                self._apply(work)
                continue
            if not idle:
                continue
            if defer:
                woke = None
                try:
                    ready, _, _ = sel(pipe_only, [], [], defer_s)
                except (OSError, ValueError):
                    return
                if ready:
                    self._read_pipe(wake_r)
                else:
                    deferred_look = True
                continue
            if got and not done and nap > 0:
                sleep(nap)  # more of this iteration is on its way: take it in one batch
                continue
            if got and done and woke is not None:
                # an iteration completed: its datagrams took this long from the wake-up; next time
                # sleep a little less than that before draining (shrinks until a drain comes early)
                lead = min(cap, 0.9 * (monotonic() - woke))
            woke = None
            try:
                ready, _, _ = sel(waitset, [], [], None)
            except (OSError, ValueError):
                return  # the node is being stopped (descriptors closed)
            if wake_r in ready:
                self._read_pipe(wake_r)
                continue
            if nap > 0 and lead > 0 and not stop.is_set():
                woke = monotonic()
                sleep(lead)  # let the rest of the iteration arrive: one drain instead of a few
            elif nap > 0:
                woke = monotonic()

    def _read_pipe(self, fd: int) -> None:
        if not self._stop.is_set():
            try:
                os.read(fd, 64)
            except (BlockingIOError, OSError):
                pass

    def _udp_backlog(self) -> bool:
        """True while datagrams wait in the socket: the ingest thread is behind (a starved CPU),
        so a stalled iteration is not lost yet."""
        try:
            return fcntl.ioctl(self.udp.fileno(), termios.FIONREAD, b"\0\0\0\0") != b"\0\0\0\0"
        except OSError:
            return False
