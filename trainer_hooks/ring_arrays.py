"""Array state of the UDP ring (:mod:`trainer_hooks.transport`): what the engine looks up and
writes per batch of packets instead of per packet.

* :class:`Job`, :class:`RingError` -- a bucket's all-reduce as submitted, and the ring's error.
* :class:`TransportStats` -- the ring's counters.
* :class:`PlanIndex` -- a bucket plan as lookup tables, built once per plan object.
* :class:`ActiveJob` -- one job's bucket in wire order, its header table and receive map.
* :func:`batch_template` -- the header bytes a GRO batch of one job's data must share.
* :func:`take_spare` -- a finished job's bucket copy, for a new job of the same plan, when safe.
* :func:`apply_runs` -- a received batch added or copied into the bucket, one strided numpy
  operation per run of evenly spaced packets (:func:`even_runs`, :func:`strided`).
* The byte positions of the header fields the engine reads and writes in place (``SEQ_BYTES``,
  ``KEY_BYTES``, ...), derived from :mod:`checkmate.wire` once for ``transport`` and ``ring_sender``.
* :func:`send_datagrams` -- datagrams out in as few ``sendmsg`` calls as UDP GSO allows.
"""
from __future__ import annotations

import logging
import socket
import struct
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.futures

from checkmate import wire
from checkmate.wire import FIELD_OFFSET, HEADER_LEN
from trainer_hooks.layout import BucketPlan

log = logging.getLogger(__name__)

# where the engine reads and writes header fields in place (checkmate.wire owns the layout; these
# are the ring's views of it, shared by transport.py and ring_sender.py)
FLAGS_AT, STEP_AT = FIELD_OFFSET["flags"], FIELD_OFFSET["step"]  # u8 each
SEQ_BYTES = slice(FIELD_OFFSET["seq"], FIELD_OFFSET["seq"] + 4)  # big-endian u32
COUNT_BYTES = slice(FIELD_OFFSET["count"], FIELD_OFFSET["count"] + 2)  # big-endian u16
KEY_BYTES = slice(FIELD_OFFSET["param_id"], FIELD_OFFSET["offset"] + 4)  # param_id, offset: one big-endian u64
assert KEY_BYTES.stop - KEY_BYTES.start == 8
AUX_LO = FIELD_OFFSET["aux"] + 1  # low byte of the big-endian u16 aux (a data datagram's ACK_REQUEST)
M32 = 0xFFFFFFFF  # seqs are modulo 2**32
SACK_BITS = 16  # an ack's aux: a bitmap of the 16 seqs after its cumulative one
# the header bytes every data datagram of one job from one rank shares: version, dtype, job_id,
# iteration, rank, bucket, count (a batch of one size)
JOB_BYTES = np.r_[FIELD_OFFSET["version"], FIELD_OFFSET["dtype"], FIELD_OFFSET["job_id"]:FIELD_OFFSET["param_id"],
                  FIELD_OFFSET["count"]:FIELD_OFFSET["aux"]]
WIRE_F32 = np.dtype(wire.PAYLOAD_NUMPY_DTYPE[wire.DTYPE_FP32])  # big-endian float32, as on the wire
# the header as a numpy record (a GRO batch is a strided array of them)
HDR_DT = np.dtype(wire.HEADER_RECORD)
assert HDR_DT.itemsize == HEADER_LEN
# Linux UDP segmentation / receive offload (linux/udp.h); Python's socket module has no names for them
SOL_UDP = getattr(socket, "SOL_UDP", 17)
UDP_SEGMENT = getattr(socket, "UDP_SEGMENT", 103)
UDP_GRO = getattr(socket, "UDP_GRO", 104)
_GSO_SIZE = struct.Struct("=H")  # cmsg of UDP_SEGMENT: u16 segment size
GSO_MAX_SEGS = 64  # UDP_MAX_SEGMENTS is 64 on older kernels
GSO_MAX_BYTES = 65507 - 512  # one UDP datagram's payload, with room to spare


class RingError(RuntimeError):
    """The ring all-reduce could not complete (timeout, protocol violation, closed)."""


@dataclass(slots=True)
class Job:
    """One bucket's all-reduce, submitted by the comm hook."""

    iteration: int
    bucket: int
    buffer: torch.Tensor  # flat, contiguous float32, reduced in place
    plan: BucketPlan
    future: torch.futures.Future = field(default_factory=torch.futures.Future)

    @property
    def key(self) -> tuple[int, int]:
        return (self.iteration, self.bucket)


@dataclass(slots=True)
class TransportStats:
    """Counters of one :class:`UdpRing` (read them after a job completes)."""

    data_sent: int = 0
    retransmits: int = 0  # all resent datagrams: after a timeout, or at once (fast_retransmits)
    fast_retransmits: int = 0  # resent at once because a selective ack showed the hole
    cwnd_cuts: int = 0  # losses that halved the congestion window
    ack_requests: int = 0  # datagrams sent with ACK_REQUEST (they filled the window, more was queued)
    acks_sent: int = 0
    dropped_injected: int = 0
    duplicates: int = 0
    malformed: int = 0
    stray: int = 0
    finals_sent: int = 0
    copies_sent: int = 0
    jobs: int = 0
    batched: int = 0  # data packets taken by the vectorized path (a whole in-order GRO batch at once)
    stashed: int = 0  # of those, packets that arrived before their job started (kept as whole batches)
    reused: int = 0  # jobs that took over a finished job's bucket copy and payload views


def batch_template(job_id: int, prev: int, iteration: int, bucket: int) -> tuple[np.ndarray, np.ndarray]:
    """(mask, expected) over the 32 header bytes: the fields every data packet of one job from the
    previous rank has in common (version, dtype, ACK clear, job, iteration, rank, bucket), so
    that ``(headers & mask == expected).all()`` checks a whole batch at once (the count field is
    checked against each datagram's size)."""
    hdr = np.frombuffer(wire.HEADER.pack(wire.WIRE_VERSION, 0, wire.DTYPE_FP32, 0, job_id, iteration, prev, bucket,
                                         0, 0, 0, 0, 0), dtype=np.uint8)
    mask = np.zeros(1, dtype=HDR_DT)
    for name in ("version", "dtype", "job_id", "iteration", "rank", "bucket"):
        mask[name] = wire.FIELD_MAX[name]
    mask["flags"] = wire.FLAG_ACK
    mask = mask.view(np.uint8)
    return mask, hdr & mask


class PlanIndex:
    """A bucket plan as arrays, built once per plan (the hook hands the same plan object every
    iteration): what the vectorized paths look up instead of walking packets in Python.

    ``seen0`` is the initial receive map of a job, one byte per ``(step, packet)``: 0 where this
    rank expects that packet at that step from the previous rank, 2 where it never does -- so "is
    this packet acceptable" and "is it a duplicate" are one lookup.  ``hdr`` holds each packet's
    header with the fields that do not change within a job (version, dtype, job, rank, address,
    count); a job fills in iteration and bucket once, a send fills in step, flags and seq."""

    __slots__ = ("plan", "by_key", "boff", "size_l", "pid", "off", "cnt", "byte_ranges", "seen0",
                 "expected", "own", "own_runs", "hdr", "spare")

    def __init__(self, plan: BucketPlan, n: int, r: int, job_id: int):
        self.plan = plan
        pk = plan.packets
        npk = len(pk)
        # count -> {param_id << 32 | offset: packet index} (the header's 8 bytes at 16..24, big-endian)
        self.by_key: dict[int, dict[int, int]] = {}
        for i, p in enumerate(pk):
            self.by_key.setdefault(p.count, {})[(p.param_id << 32) | p.offset] = i
        segment = np.array([p.segment for p in pk], dtype=np.int64)
        self.boff = [p.buf_offset for p in pk]
        self.size_l = [HEADER_LEN + 4 * p.count for p in pk]
        self.pid = [p.param_id for p in pk]
        self.off = [p.offset for p in pk]
        self.cnt = [p.count for p in pk]
        self.byte_ranges = [(4 * p.buf_offset, 4 * (p.buf_offset + p.count)) for p in pk]
        # step t <= n-2 (reduce-scatter) brings segment r-1-t; step t >= n-1 (all-gather) segment r-(t-n+1)
        seen0 = np.full((max(2 * n - 2, 1), npk), 2, dtype=np.uint8)
        for t in range(2 * n - 2):
            want = (r - 1 - t) % n if t <= n - 2 else (r - (t - (n - 1))) % n
            seen0[t, segment == want] = 0
        self.seen0 = seen0.tobytes()
        self.expected = int((seen0 == 0).sum())
        self.own = list(plan.segments[r])  # sent at step 0
        # own packets of one count, evenly spaced: (first offset, spacing, packets, count) per run
        ol, cl = [self.boff[i] for i in self.own], [self.cnt[i] for i in self.own]
        self.own_runs = [(ol[i], d, j - i, cl[i]) for i, j, d in even_runs(ol, cl, cl)]
        hdr = np.zeros(npk, dtype=HDR_DT)
        hdr["version"], hdr["dtype"], hdr["job_id"], hdr["rank"] = wire.WIRE_VERSION, wire.DTYPE_FP32, job_id, r
        hdr["param_id"] = [p.param_id for p in pk]
        hdr["offset"] = [p.offset for p in pk]
        hdr["count"] = self.cnt
        self.hdr = hdr
        # finished jobs of this plan whose bucket copy (``w``, ``views``) a later job may take over
        # once nothing in flight or queued refers to them (:func:`take_spare`)
        self.spare: list = []


def even_runs(offsets: list, kinds: list, width: int | list) -> list[tuple[int, int, int]]:
    """Consecutive items of one kind at evenly spaced element ``offsets`` (at least ``width`` apart:
    one int, or one per item): ``[(i, j, spacing), ...]`` for items ``i..j-1`` -- each run is one
    strided view of the bucket."""
    runs, i, k = [], 0, len(offsets)
    one = isinstance(width, int)
    while i < k:
        a, kind = offsets[i], kinds[i]
        j, d = i + 1, width if one else width[i]
        if j < k and kinds[j] == kind and offsets[j] - a >= d:
            d = offsets[j] - a
            j += 1
            while j < k and kinds[j] == kind and offsets[j] - offsets[j - 1] == d:
                j += 1
        runs.append((i, j, d))
        i = j
    return runs


def strided(buf, dtype, a: int, d: int, rows: int, cnt: int) -> np.ndarray:
    """``rows x cnt`` 4-byte elements of ``buf`` from element ``a``, rows ``d`` elements apart."""
    return np.ndarray((rows, cnt), dtype, buf, 4 * a, (4 * d, 4))


class ActiveJob:
    """Engine state of the job being reduced.

    ``x`` is the bucket itself (host order), divided by the world size in place when the job
    starts; ``w`` is the ring's copy in wire order (big-endian float32): this rank's own segment is
    converted into it at the start, reduce-scatter writes ``x + received`` into it (the local
    operand comes from ``x``, which the ring never changes before the end, so a reduce-scatter
    converts only the received payload and the sum), all-gather copies received bytes into it,
    packets are sent straight from it (memoryview slices, no per-packet conversion or copy), and
    the result is converted back into the bucket once when the job ends -- every element of ``w``
    has been written by then (reduce-scatter writes every segment but this rank's own one, and
    all-gather every one but the one this rank reduced).  A job has its ``w`` to itself, so a retransmission of an old job's packet never carries
    a newer job's bytes: ``reuse`` hands over the ``w`` (and the ~3000 payload views, 0.6 ms to build
    for a 4 MB bucket) of a finished job of the same plan only when no slot in flight and no queued
    send refers to that job any more."""

    __slots__ = ("job", "x", "w", "wb", "views", "hdr", "expected", "received", "npk", "seen", "started",
                 "index")

    def __init__(self, job, index: PlanIndex, n: int, reuse: "ActiveJob | None" = None):
        self.job = job
        self.index = index
        if reuse is None:
            self.w = np.empty(job.plan.total, dtype=WIRE_F32)
            self.wb = wb = memoryview(self.w).cast("B")
            self.views = [wb[a:b] for a, b in index.byte_ranges]  # each packet's payload, sent from here
        else:  # a finished job's copy nothing refers to any more: its payload views stay valid
            self.w, self.wb, self.views = reuse.w, reuse.wb, reuse.views
        self.x = x = job.buffer.numpy()
        np.divide(x, n, out=x)  # IEEE division, the same bits as torch's div_
        w = self.w
        for a, d, rows, cnt in index.own_runs:  # sent at step 0: in wire order now
            strided(w, WIRE_F32, a, d, rows, cnt)[...] = strided(x, np.float32, a, d, rows, cnt)
        self.hdr = None  # each packet's header bytes but step, flags, seq: built when a batch is sent
        self.expected = index.expected
        self.received = 0
        self.npk = len(job.plan.packets)
        self.seen = bytearray(index.seen0)  # (step, packet): 0 expected, 1 received, 2 never expected
        self.started = time.monotonic()

    def header_table(self) -> np.ndarray:
        """``npk x 32`` bytes: each packet's header with this job's fields, step, flags, seq zero."""
        if self.hdr is None:
            hdr = self.index.hdr.copy()
            hdr["iteration"] = self.job.iteration
            hdr["bucket"] = self.job.bucket
            self.hdr = hdr.view(np.uint8).reshape(-1, HEADER_LEN)
        return self.hdr


def take_spare(index: PlanIndex, slot_acts: list, backlog, stats: TransportStats) -> "ActiveJob | None":
    """A finished job of ``index``'s plan whose bucket copy no datagram in flight (``slot_acts``: the
    sender's slots; a retransmission would read it) and no queued send (``backlog``) refers to any
    more, taken out of the plan's spares; or None."""
    for k, old in enumerate(index.spare):
        if old not in slot_acts and all(g[0] is not old for g in backlog):
            stats.reused += 1
            return index.spare.pop(k)
    return None


def apply_runs(w: np.ndarray, x: np.ndarray, P: np.ndarray, ol: list, rl: list, cnt: int) -> None:
    """Apply the rows of ``P`` (``k x cnt`` wire floats, one received packet each) to ``w`` at element
    offsets ``ol``: ``x + received`` where ``rl`` is true (reduce-scatter; ``x`` the divided bucket in
    host order, see :class:`ActiveJob`), the received bytes where it is false (all-gather).
    Consecutive rows of one kind at evenly spaced offsets are one strided numpy operation."""
    for i, j, d in even_runs(ol, rl, cnt):
        a = ol[i]
        V = strided(w, WIRE_F32, a, d, j - i, cnt)
        if rl[i]:  # local + received, in host order: one conversion in, one out
            t = P[i:j].astype(np.float32)
            np.add(strided(x, np.float32, a, d, j - i, cnt), t, out=t)
            V[...] = t
        else:
            V[...] = P[i:j]


def send_datagrams(sock, addr, hs: list, ps: list, sizes: list, gso: bool) -> tuple[int, bool]:
    """Send datagrams ``hs[i] + ps[i]`` (header, payload; ``sizes[i]`` bytes) to ``addr`` in
    order; returns how many left, and whether GSO is (still) on.

    With GSO, each run of equal-size datagrams (the last of a run may be shorter) is one
    ``sendmsg`` with ``UDP_SEGMENT``: the kernel -- or the NIC -- cuts it into exactly these
    datagrams, each still carrying its own Checkmate header.  A full socket buffer ends the
    call early (the rest is a loss, recovered by retransmission)."""
    n = len(hs)
    if n == 1 or not gso:  # one datagram per call
        i = 0
        try:
            for i in range(n):
                sock.sendmsg([hs[i], ps[i]], (), 0, addr)
            return n, gso
        except (BlockingIOError, InterruptedError):
            return i, gso
    i = 0
    # ends of the runs of equal sizes (usually one run: all full packets, or all but a shorter last)
    s0 = sizes[0]
    same = sizes.count(s0)
    if same == n:
        ends = [n]
    elif same == n - 1 and sizes[-1] != s0:
        ends = [n - 1, n]
    else:
        ends = [j + 1 for j, (a, b) in enumerate(zip(sizes, sizes[1:])) if a != b]
        ends.append(n)
    e = 0
    try:
        while i < n:
            size = sizes[i]
            j = i + 1
            if gso:
                while ends[e] <= i:
                    e += 1
                lim = min(GSO_MAX_SEGS, GSO_MAX_BYTES // size)
                j = min(ends[e], i + lim)
                if j < n and j - i < lim and sizes[j] < size and j == ends[e]:
                    j += 1  # a shorter datagram can end a GSO run
            if j - i == 1:
                sock.sendmsg([hs[i], ps[i]], (), 0, addr)
            else:
                iov = [None] * (2 * (j - i))
                iov[0::2] = hs[i:j] if i or j < n else hs
                iov[1::2] = ps[i:j] if i or j < n else ps
                try:
                    sock.sendmsg(iov, [(SOL_UDP, UDP_SEGMENT, _GSO_SIZE.pack(size))], 0, addr)
                except (BlockingIOError, InterruptedError):
                    raise
                except OSError as ex:  # no UDP GSO here: one datagram per call from now on
                    log.warning("UDP GSO unavailable (%s): sending one datagram per call", ex)
                    gso = False
                    continue
            i = j
    except (BlockingIOError, InterruptedError):
        pass
    return i, gso
