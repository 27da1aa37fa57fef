"""Reassembly of one shard's gradient, iteration by iteration, from replicated FINAL chunks.

Data structures (all preallocated at bootstrap, reused for the life of the layout):

* :class:`Slot` -- one iteration's flat gradient buffer (``bytearray`` laid out by
  :class:`~shadow.layout.ShardLayout`) plus an element-coverage map (``bytearray``, one byte per element)
  and a count of covered elements.  A packet's payload is copied with one memoryview slice
  assignment straight from the receive buffer into its place; nothing per packet is allocated
  besides the header tuple of ``checkmate.wire.unpack_fields``.  :meth:`Reassembler.drain` takes a whole
  batch from the socket with that fast path inline (what the node's ingest thread runs);
  :meth:`Reassembler.ingest` takes one datagram.
* :class:`Reassembler` -- a ring of ``ring`` slots for iterations ``head, head+1, ...``.  The
  oldest iteration (``head``) is handed to the optimizer when it is complete and its manifest is
  in; meanwhile later iterations keep filling the other slots.

Deduplication: a packet whose elements are all covered already is a duplicate (the switch may
copy a retransmitted FINAL chunk again; RETX does not matter); packets for iterations already
applied are stale and counted as duplicates too.  Partially overlapping packets copy the whole
range (a legitimate retransmission carries the same bits) and count only new elements.

Loss: when the window is full (a packet for an iteration we cannot buffer) and the head is
incomplete, the head is declared lost.  A *complete* head that only waits for its manifest or for
the optimizer (a trainer running ahead of a slow shadow -- on loopback in host mode, one fast rank
is several iterations ahead of the shadow's first AdamW steps) is not lost: the ring grows by one
buffer instead, up to ``max_ring`` (default 4 x ``ring``); beyond that the head is dropped and the
message says the shadow fell behind.  Otherwise the node's watchdog declares it lost after ``loss_timeout`` without progress once
there is evidence it should have completed.  After a loss the reassembler keeps buffering the
newest iterations (evicting the oldest) so that a resync at iteration ``j`` can continue with
``j+1`` without waiting.  The class is not thread-safe; the node holds its lock around calls.
"""
from __future__ import annotations

import time

from checkmate import wire

from .ingest_native import address
from .layout import ShardLayout

_FINAL, _ACK, _CTRL = wire.FLAG_FINAL, wire.FLAG_ACK, wire.FLAG_CTRL
_FINAL_RETX = wire.FLAG_FINAL | wire.FLAG_RETX
_VERSION = wire.WIRE_VERSION
_HDR = wire.HEADER_LEN
_unpack = wire.HEADER.unpack_from


class Slot:
    __slots__ = ("iteration", "buf", "mv", "cov", "covm", "filled", "touched", "total", "addr", "cov_addr", "_pins")

    def __init__(self, layout: ShardLayout):
        self.buf = bytearray(max(layout.total_bytes, 1))
        self.mv = memoryview(self.buf)
        self.cov = bytearray(layout.total_elems)  # 1 byte per element: 1 = arrived
        self.covm = memoryview(self.cov)
        # the addresses the compiled receive loop writes to (shadow.ingest_native; pinned: never resized)
        (self.addr, p1), (self.cov_addr, p2) = address(self.buf), address(self.cov)
        self._pins = (p1, p2)
        self.total = layout.total_elems
        self.iteration = -1
        self.filled = 0
        self.touched = 0.0

    def reset(self, iteration: int) -> None:
        self.iteration = iteration
        self.covm[:] = bytes(self.total)
        self.filled = 0
        self.touched = time.monotonic()

    @property
    def complete(self) -> bool:
        return self.filled == self.total


class Counters:
    __slots__ = ("packets", "bytes_received", "duplicates", "rejected", "losses", "last_error", "misrouted",
                 "misrouted_ids", "probed")

    def __init__(self):
        self.packets = self.bytes_received = self.duplicates = self.rejected = self.losses = 0
        self.misrouted = 0  # copies of a param another shard owns (also counted in `rejected`)
        self.misrouted_ids: set[int] = set()  # a few of them (capped), for the error message
        self.probed: set[int] = set()  # owned params whose shard-map probe (iteration 0) arrived
        self.last_error = ""


class Reassembler:
    def __init__(self, layout: ShardLayout, job_id: int, head: int, ring: int, counters: Counters,
                 max_ring: int | None = None):
        if ring < 2:
            raise ValueError(f"ring: need at least 2 iteration buffers, got {ring}")
        self.layout, self.job_id, self.head, self.ring = layout, job_id, head, ring
        self.c = counters
        self.free = [Slot(layout) for _ in range(ring)]
        #: buffers may grow up to this many while the head is complete and only waits to be applied
        self.max_ring = max(ring, max_ring or 4 * ring)
        self.allocated = ring
        self.grown = 0  # buffers added beyond `ring` (the shadow was behind, nothing was lost)
        self.slots: dict[int, Slot] = {}
        self.needs_resync = False
        self.newest_seen = head - 1
        #: the compiled receive loop (shadow.ingest_native.NativeDrain) the node sets where it can be used
        self.native = None
        # hot-path lookups, bound once
        self._eb, self._bb, self._n = layout.elem_base, layout.byte_base, layout.numel
        self._wd, self._es = layout.wire_dtype, layout.elem_size
        self._np = len(layout.params)
        self._ones = memoryview(b"\x01" * 65536)
        #: the time stamped on slots a datagram touches; the node's ingest thread sets it once per batch
        self.now = time.monotonic()

    # -- hot path ----------------------------------------------------------------------------
    def ingest(self, buf, mv: memoryview, n: int) -> bool:
        """Take one datagram of ``n`` bytes in ``buf``; True when an iteration became complete.

        Fast path: one ``struct.unpack_from`` and the checks of ``checkmate.wire.unpack_fields`` plus
        ours, inline, for a well-formed FINAL chunk of an owned param of a current iteration; anything
        else goes through :meth:`_ingest_checked`, which names what is wrong."""
        if n >= _HDR:
            ver, flags, dt, _s, job, it, _r, _b, pid, off, count, _a, _q = _unpack(buf)
            if (ver == _VERSION and (flags == _FINAL or flags == _FINAL_RETX) and job == self.job_id
                    and pid < self._np and self._eb[pid] >= 0 and dt == self._wd[pid]
                    and off + count <= self._n[pid] and count * self._es[pid] <= n - _HDR and it >= self.head
                    and it > 0):
                slot = self.slots.get(it) or self._new_slot(it)
                return slot is not None and self._place(slot, pid, off, count, mv)
        return self._ingest_checked(buf, mv, n)

    def drain(self, recv_into, buf, mv: memoryview, limit: int = 64) -> tuple[int, bool, bool, bool, str]:
        """Receive and take up to ``limit`` datagrams with ``recv_into(buf)`` (a non-blocking socket's;
        -1: refused by a source filter, already counted): :meth:`ingest` with the fast path inline and
        its lookups bound once per batch, not per datagram.  Returns ``(got, done, completed, idle,
        error)``: datagrams taken, whether the last one completed its iteration (True when none
        came), whether any did, whether the socket ran empty, and a receive error ("" if none).
        With :attr:`native` set, the compiled loop takes the common datagrams (the same results)."""
        if self.native is not None:
            return self.native.drain(self, buf, mv, limit)
        c = self.c
        unpack, eb, bb, nn, wdt, esz = _unpack, self._eb, self._bb, self._n, self._wd, self._es
        n_params, job_id, slots, ones, now = self._np, self.job_id, self.slots, self._ones, self.now
        got, done, completed = 0, True, False
        for _ in range(limit):
            try:
                n = recv_into(buf)
            except BlockingIOError:
                return got, done, completed, True, ""
            except OSError as e:  # transient (e.g. an ICMP error): the caller keeps serving
                return got, done, completed, True, f"udp receive: {e}"
            if n < 0:
                continue
            c.packets += 1
            got += 1
            if n >= _HDR:
                ver, flags, dt, _s, job, it, _r, _b, pid, off, count, _a, _q = unpack(buf)
                if (ver == _VERSION and (flags == _FINAL or flags == _FINAL_RETX) and job == job_id
                        and pid < n_params and eb[pid] >= 0 and dt == wdt[pid]
                        and off + count <= nn[pid] and count * esz[pid] <= n - _HDR and it >= self.head
                        and it > 0):
                    slot = slots.get(it) or self._new_slot(it)
                    if slot is None:
                        done = False
                        continue
                    e0 = eb[pid] + off  # _place, inline
                    e1 = e0 + count
                    cov = slot.cov
                    if cov.find(1, e0, e1) == -1:
                        have = 0
                    else:
                        have = cov.count(1, e0, e1)
                        if have == count:
                            c.duplicates += 1
                            done = False
                            continue
                    slot.covm[e0:e1] = ones[:count]
                    es = esz[pid]
                    b0 = bb[pid] + off * es
                    nb = count * es
                    slot.mv[b0:b0 + nb] = mv[_HDR:_HDR + nb]
                    slot.filled += count - have
                    slot.touched = now
                    c.bytes_received += nb
                    done = slot.filled == slot.total
                    if done:
                        completed = True
                    continue
            done = self._ingest_checked(buf, mv, n)
            if done:
                completed = True
        return got, done, completed, False, ""

    def _ingest_checked(self, buf, mv: memoryview, n: int) -> bool:
        c = self.c
        if n < _HDR:
            return self._reject(f"checkmate header field 'version': datagram of {n} bytes is shorter than the header")
        try:
            t = wire.unpack_fields(buf, 0, payload_len=n - _HDR)
        except wire.WireError as e:
            c.rejected += 1
            c.last_error = str(e)
            return False
        flags, dt, job, it, pid, off, count = t[1], t[2], t[4], t[5], t[8], t[9], t[10]
        if job != self.job_id:
            return self._reject(f"field 'job_id': {job} is not job {self.job_id}")
        if not flags & _FINAL or flags & (_ACK | _CTRL):
            return self._reject(f"field 'flags': 0x{flags:02x} is not a FINAL gradient chunk")
        if pid >= self._np or self._eb[pid] < 0:
            if pid < self._np:  # a real parameter of the model, owned by another shard: a map mismatch
                c.misrouted += 1
                if len(c.misrouted_ids) < 16:
                    c.misrouted_ids.add(pid)
            return self._reject(f"field 'param_id': {pid} is not owned by shard {self.layout.shard}")
        if dt != self._wd[pid]:
            return self._reject(f"field 'dtype': {dt} does not match param {pid}")
        if off + count > self._n[pid]:
            return self._reject(f"field 'offset': {off}+{count} exceeds param {pid} ({self._n[pid]} elements)")
        if it == 0:  # a shard-map probe (trainer_hooks.shard_map): no gradient has iteration 0
            c.probed.add(pid)
            return False
        if it < self.head:
            c.duplicates += 1
            return False
        slot = self.slots.get(it) or self._new_slot(it)
        return slot is not None and self._place(slot, pid, off, count, mv)

    def _place(self, slot: Slot, pid: int, off: int, count: int, mv: memoryview) -> bool:
        """Copy a valid chunk into its slot (deduplicated by the coverage map)."""
        e0 = self._eb[pid] + off
        e1 = e0 + count
        cov = slot.cov
        if cov.find(1, e0, e1) == -1:  # common case: all new (C-speed scans, no numpy call overhead)
            have = 0
        else:
            have = cov.count(1, e0, e1)
            if have == count:
                self.c.duplicates += 1
                return False
        slot.covm[e0:e1] = self._ones[:count]
        es = self._es[pid]
        b0 = self._bb[pid] + off * es
        nb = count * es
        slot.mv[b0:b0 + nb] = mv[_HDR:_HDR + nb]
        slot.filled += count - have
        slot.touched = self.now
        self.c.bytes_received += nb
        return slot.filled == slot.total

    def _reject(self, why: str) -> bool:
        self.c.rejected += 1
        self.c.last_error = why
        return False

    def _new_slot(self, it: int) -> Slot | None:
        if it > self.newest_seen:
            self.newest_seen = it
        if not self.free:
            oldest = min(self.slots)
            if it < oldest:  # older than everything we hold while resyncing: nothing to gain
                self.c.duplicates += 1
                return None
            head = self.slots.get(self.head)
            if not self.needs_resync and head is not None and head.complete and self.allocated < self.max_ring:
                # Nothing is lost: the head arrived whole and only waits for its manifest or for the
                # optimizer (a trainer running ahead of a slow shadow).  Grow instead of dropping it.
                self.allocated += 1
                self.grown += 1
                self.free.append(Slot(self.layout))
            else:
                if not self.needs_resync:
                    state = ("complete but not applied yet: the shadow fell " + str(self.max_ring) +
                             " iterations behind" if head is not None and head.complete else
                             f"incomplete ({head.filled if head else 0}/{self.layout.total_elems} elements)")
                    self.declare_loss(f"iteration {self.head} {state} when iteration {it} arrived "
                                      f"(window of {self.allocated} buffers full)")
                self.free.append(self.slots.pop(oldest))
        slot = self.free.pop()
        slot.reset(it)
        self.slots[it] = slot
        return slot

    # -- control (called under the node lock) ------------------------------------------------------
    def declare_loss(self, why: str) -> None:
        if not self.needs_resync:
            self.c.losses += 1
            self.needs_resync = True
        self.c.last_error = f"loss: {why}"

    def take(self, it: int) -> Slot | None:
        """Remove and return the slot of ``it`` (the head being applied); ``head`` moves on."""
        slot = self.slots.pop(it, None)
        self.head = it + 1
        return slot

    def release(self, slot: Slot | None) -> None:
        if slot is not None:
            slot.iteration = -1
            self.free.append(slot)

    def restart(self, head: int) -> None:
        """After a resync at ``head - 1``: drop older buffers, keep newer ones, clear the loss."""
        self.head = head
        for it in [i for i in self.slots if i < head]:
            self.release(self.slots.pop(it))
        self.needs_resync = False

    def pending(self) -> int:
        return len(self.slots)
