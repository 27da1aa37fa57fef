"""Array state of the UDP ring (:mod:`trainer_hooks.transport`): what the engine looks up and
writes per batch of packets instead of per packet.

* :class:`Job`, :class:`RingError` -- a bucket's all-reduce as submitted, and the ring's error.
* :class:`TransportStats` -- the ring's counters.
* :class:`PlanIndex` -- a bucket plan as lookup tables, built once per plan object.
* :class:`ActiveJob` -- one job's bucket in wire order, its header table and receive map.
* :func:`batch_headers`, :func:`batch_expected` -- all headers of a GRO batch in one struct call,
  and the fields a batch of one job's data must share.
* :func:`headers_match` -- a GRO batch's headers against the ones expected, in a few numpy calls.
* :func:`take_spare` -- a finished job's bucket copy, for a new job of the same plan, when safe.
* :func:`apply_runs` -- a received batch added or copied into the bucket, one strided numpy
  operation per run of evenly spaced packets.
* :func:`send_datagrams` -- datagrams out in as few ``sendmsg`` calls as UDP GSO allows.
* :func:`size_socket_buffer`, :func:`datagram_truesize` -- the socket buffers as granted, and how
  many datagrams a receive buffer holds (what bounds the bytes in flight).
"""
from __future__ import annotations

import functools
import logging
import operator
import socket
import struct
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.futures

from checkmate import wire
from trainer_hooks import ring_native
from trainer_hooks.layout import BucketPlan

log = logging.getLogger(__name__)

HLEN = wire.HEADER_LEN
WIRE_F32 = np.dtype(wire.PAYLOAD_NUMPY_DTYPE[wire.DTYPE_FP32])  # big-endian float32, as on the wire
# the header as a numpy record (a GRO batch is a strided array of them)
HDR_DT = np.dtype(wire.HEADER_RECORD)
assert HDR_DT.itemsize == HLEN
# Linux UDP segmentation / receive offload (linux/udp.h); Python's socket module has no names for them
SOL_UDP = getattr(socket, "SOL_UDP", 17)
UDP_SEGMENT = getattr(socket, "UDP_SEGMENT", 103)
UDP_GRO = getattr(socket, "UDP_GRO", 104)
_GSO_SIZE = struct.Struct("=H")  # cmsg of UDP_SEGMENT: u16 segment size
GSO_MAX_SEGS = 64  # UDP_MAX_SEGMENTS is 64 on older kernels
GSO_MAX_BYTES = 65507 - 512  # one UDP datagram's payload, with room to spare
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux: past net.core.rmem_max (CAP_NET_ADMIN)
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)


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
    cwnd_undos: int = 0  # of those, timeout cuts undone: every resend had arrived (a stalled peer)
    ack_requests: int = 0  # datagrams sent with ACK_REQUEST (they filled the window, more was queued)
    buffer_limited: int = 0  # pump passes stopped by the receiver's buffer (flight cap), not by cwnd
    acks_sent: int = 0
    dropped_injected: int = 0
    duplicates: int = 0
    malformed: int = 0
    stray: int = 0
    finals_sent: int = 0
    copies_sent: int = 0
    jobs: int = 0
    batched: int = 0  # data packets taken by the vectorized path (a whole in-order GRO batch at once)
    runs: int = 0  # of those, packets taken by the O(1) path (one step, evenly spaced: one header compare)
    stashed: int = 0  # of those, packets that arrived before their job started (kept as GRO batches; with the
    # compiled loop also single datagrams, appended to one kept batch)
    reused: int = 0  # jobs that took over a finished job's bucket copy and payload views
    native: int = 0  # of the batched packets, those the compiled receive loop took (trainer_hooks.ring_native)
    native_sent: int = 0  # of data_sent, datagrams the pump sent by the compiled send (ring_native.ring_send),
    # with those a full socket buffer cut there (lost, as in the Python send: retransmission recovers them)


# header fields every datagram of one GRO batch of one job's data from one rank shares (indices into the
# header tuple): version, dtype, job_id, iteration, rank, bucket, count
_SAME_FIELDS = tuple(i for i, (name, _) in enumerate(wire.FIELDS)
                     if name in ("version", "dtype", "job_id", "iteration", "rank", "bucket", "count"))
NFIELDS = len(wire.FIELDS)


@functools.lru_cache(maxsize=256)
def batch_headers(k: int, seg: int) -> tuple[struct.Struct, operator.itemgetter]:
    """For ``k`` datagrams of ``seg`` bytes back to back: a struct that unpacks all their headers in
    one call (``NFIELDS`` values per datagram, the payloads skipped), and a getter of the fields
    they must share (:data:`_SAME_FIELDS` of each) out of its tuple."""
    if seg < HLEN or k < 1:
        raise ValueError(f"a batch of {k} datagrams of {seg} bytes has no headers to read")
    one = wire.HEADER.format.lstrip("!")
    st = struct.Struct("!" + (one + f"{seg - HLEN}x") * (k - 1) + one)
    return st, operator.itemgetter(*(j * NFIELDS + i for j in range(k) for i in _SAME_FIELDS))


def batch_expected(job_id: int, prev: int, iteration: int, bucket: int, cnt: int, k: int) -> tuple:
    """What the getter of :func:`batch_headers` returns for ``k`` data datagrams of ``cnt`` elements
    of one job from rank ``prev``."""
    one = (wire.WIRE_VERSION, wire.DTYPE_FP32, job_id, iteration, prev, bucket, cnt)
    assert len(one) == len(_SAME_FIELDS)
    return one * k


class PlanIndex:
    """A bucket plan as arrays, built once per plan (the hook hands the same plan object every
    iteration): what the vectorized paths look up instead of walking packets in Python.

    ``seen0`` is the initial receive map of a job, one byte per ``(step, packet)``: 0 where this
    rank expects that packet at that step from the previous rank, 2 where it never does -- so "is
    this packet acceptable" and "is it a duplicate" are one lookup.  ``hdr`` holds each packet's
    header with the fields that do not change within a job (version, dtype, job, rank, address,
    count); a job fills in iteration and bucket once, a send fills in step, flags and seq."""

    __slots__ = ("plan", "by_key", "boff", "size_l", "pid", "off", "cnt", "byte_ranges", "seen0",
                 "expected", "own", "hdr", "spare", "flight_cap", "native_keys")

    def __init__(self, plan: BucketPlan, n: int, r: int, job_id: int):
        self.plan = plan
        pk = plan.packets
        npk = len(pk)
        # count -> {(param_id, offset): packet index}
        self.by_key: dict[int, dict[tuple[int, int], int]] = {}
        for i, p in enumerate(pk):
            self.by_key.setdefault(p.count, {})[(p.param_id, p.offset)] = i
        segment = np.array([p.segment for p in pk], dtype=np.int64)
        self.boff = [p.buf_offset for p in pk]
        self.size_l = [HLEN + 4 * p.count for p in pk]
        # most of this plan's datagrams the receiver's buffer holds (set by the transport)
        self.flight_cap = 1 << 30
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
        hdr = np.zeros(npk, dtype=HDR_DT)
        hdr["version"], hdr["dtype"], hdr["job_id"], hdr["rank"] = wire.WIRE_VERSION, wire.DTYPE_FP32, job_id, r
        hdr["param_id"] = [p.param_id for p in pk]
        hdr["offset"] = [p.offset for p in pk]
        hdr["count"] = self.cnt
        self.hdr = hdr
        # finished jobs of this plan whose bucket copy (``w``, ``views``) a later job may take over
        # once nothing in flight or queued refers to them (:meth:`UdpRing._recycled`)
        self.spare: list = []
        self.native_keys = None  # ring_native.PlanKeys, built when the compiled loops first need it (native())

    def native(self) -> ring_native.PlanKeys:
        """The plan's arrays for the compiled receive and send (:mod:`trainer_hooks.ring_native`)."""
        if self.native_keys is None:
            self.native_keys = ring_native.PlanKeys(self.pid, self.off, self.boff, self.cnt)
        return self.native_keys


class ActiveJob:
    """Engine state of the job being reduced.

    ``w`` is the bucket in wire order (big-endian float32), divided by the world size and converted
    in one pass when the job starts; the ring works on it: reduce-scatter adds into it, all-gather
    copies received bytes into it, packets are sent straight from it (memoryview slices, no
    per-packet conversion or copy), and the result is converted back into the bucket once when the
    job ends.  A job has its ``w`` to itself, so a retransmission of an old job's packet never carries
    a newer job's bytes: ``reuse`` hands over the ``w`` (and the ~3000 payload views, 0.6 ms to build
    for a 4 MB bucket) of a finished job of the same plan only when no slot in flight and no queued
    send refers to that job any more."""

    __slots__ = ("job", "w", "wb", "views", "hdr", "rhdr", "expected", "received", "npk", "seen", "started",
                 "index", "native")

    def __init__(self, job, index: PlanIndex, n: int, reuse: "ActiveJob | None" = None, lib=None):
        self.job = job
        self.index = index
        if reuse is None:
            self.w = np.empty(job.plan.total, dtype=WIRE_F32)
            self.wb = wb = memoryview(self.w).cast("B")
            self.views = [wb[a:b] for a, b in index.byte_ranges]  # each packet's payload, sent from here
        else:  # a finished job's copy nothing refers to any more: its payload views stay valid
            self.w, self.wb, self.views = reuse.w, reuse.wb, reuse.views
        if lib is not None:  # one pass (ring_native.c); numpy's divide into a big-endian array takes two
            ring_native.to_wire_div(lib, job.buffer.numpy(), self.w, n)
        else:
            np.divide(job.buffer.numpy(), n, out=self.w)  # IEEE division, the same bits as torch's div_
        self.hdr = None  # each packet's header bytes but step, flags, seq: built when a batch is sent
        self.rhdr = None  # the same as the previous rank sends them: built when a batch arrives
        self.expected = index.expected
        self.received = 0
        self.npk = len(job.plan.packets)
        self.seen = bytearray(index.seen0)  # (step, packet): 0 expected, 1 received, 2 never expected
        self.started = time.monotonic()
        self.native = None  # (job[], what it points into) for ring_native.ring_rx, built on first use

    def header_table(self) -> np.ndarray:
        """``npk x 32`` bytes: each packet's header with this job's fields, step, flags, seq zero."""
        if self.hdr is None:
            self.hdr = self._table(None)
        return self.hdr

    def recv_table(self, prev: int) -> np.ndarray:
        """:meth:`header_table` as rank ``prev`` sends it (what :func:`headers_match` compares with)."""
        if self.rhdr is None:
            self.rhdr = self._table(prev)
        return self.rhdr

    def _table(self, rank: int | None) -> np.ndarray:
        # a copy as bytes (copying the record array field by field costs ~50x more), then the columns
        hdr = self.index.hdr.view(np.uint8).reshape(-1, HLEN).copy()
        rec = hdr.view(HDR_DT)[:, 0]
        rec["iteration"] = self.job.iteration
        rec["bucket"] = self.job.bucket
        if rank is not None:
            rec["rank"] = rank
        return hdr


# the header bytes headers_match compares: all of them but the flags (there only the ACK bit, which a data
# packet must not carry; FINAL and RETX may be set) -- and, for a batch whose seqs were accounted for
# already (stashed before its job started), but the seq
_FO = wire.FIELD_OFFSET
RECV_MASK = np.full(HLEN, 0xFF, dtype=np.uint8)
RECV_MASK[_FO["flags"]] = wire.FLAG_ACK
RECV_MASK_NOSEQ = RECV_MASK.copy()
RECV_MASK_NOSEQ[_FO["seq"]:_FO["seq"] + 4] = 0
MAX_BATCH = (1 << 16) // (HLEN + 4)  # datagrams of a 64 kB GRO batch, at most


class HeaderScratch:
    """Per-ring buffers of :func:`headers_match` (a batch's expected and masked headers)."""

    __slots__ = ("e", "w", "eseq", "ar")

    def __init__(self):
        self.e = np.zeros((MAX_BATCH, HLEN), dtype=np.uint8)
        self.w = np.zeros((MAX_BATCH, HLEN), dtype=np.uint8)
        self.eseq = self.e[:, _FO["seq"]:_FO["seq"] + 4].view(">u4")[:, 0]
        self.ar = np.arange(MAX_BATCH, dtype=np.uint32)


def headers_match(rbuf, k: int, seg: int, rows: np.ndarray, step: int, base: int | None,
                  scratch: HeaderScratch) -> bool:
    """Are the headers of the ``k`` datagrams of ``seg`` bytes at the start of ``rbuf`` exactly ``rows``
    (``k`` rows of :meth:`ActiveJob.recv_table`: version, dtype, job, iteration, sender, bucket,
    param_id, offset, count) with ``step``, ``aux`` zero, no ACK flag, and seqs ``base, base + 1, ...``
    (``base`` None: any seqs)?  A handful of numpy calls for the whole batch, whatever ``k``."""
    H = np.ndarray((k, HLEN), np.uint8, rbuf, 0, (seg, 1))
    E, W = scratch.e[:k], scratch.w[:k]
    np.copyto(E, rows)
    E[:, _FO["step"]] = step
    if base is None:
        mask = RECV_MASK_NOSEQ
    else:
        mask = RECV_MASK
        np.add(scratch.ar[:k], np.uint32(base), out=scratch.eseq[:k])
    np.bitwise_and(H, mask, out=W)
    return W.tobytes() == E.tobytes()


def take_spare(index: PlanIndex, slot_acts: list, backlog, stats: TransportStats) -> "ActiveJob | None":
    """A finished job of ``index``'s plan whose bucket copy no datagram in flight (``slot_acts``: the
    sender's slots; a retransmission would read it) and no queued send (``backlog``) refers to any
    more, taken out of the plan's spares; or None."""
    for k, old in enumerate(index.spare):
        if old not in slot_acts and all(g[0] is not old for g in backlog):
            stats.reused += 1
            return index.spare.pop(k)
    return None


def apply_runs(w: np.ndarray, P: np.ndarray, ol: list, rl: list, cnt: int) -> None:
    """Apply the rows of ``P`` (``k x cnt`` wire floats, one received packet each) to ``w`` at element
    offsets ``ol``: added where ``rl`` is true (reduce-scatter: local + received), copied where it is
    false (all-gather).  Consecutive rows of one kind at evenly spaced offsets are one strided numpy
    operation -- the whole batch, usually, found by one list compare."""
    k = len(ol)
    a0 = ol[0]
    if k > 1 and rl.count(rl[0]) == k:  # one kind: evenly spaced, one run?
        d = ol[1] - a0
        if d >= cnt and ol[-1] == a0 + (k - 1) * d and ol == list(range(a0, a0 + k * d, d)):
            _apply(w, P, a0, d, cnt, rl[0])
            return
    i = 0
    while i < k:  # runs of rows of one kind at evenly spaced offsets: one strided numpy op each
        a, add = ol[i], rl[i]
        j, d = i + 1, cnt
        if j < k and rl[j] == add and ol[j] - a >= cnt:
            d = ol[j] - a
            j += 1
            while j < k and rl[j] == add and ol[j] - ol[j - 1] == d:
                j += 1
        _apply(w, P[i:j], a, d, cnt, add)
        i = j


def _apply(w: np.ndarray, P: np.ndarray, a: int, d: int, cnt: int, add: bool) -> None:
    """Rows ``P`` added to (``add``) or copied into ``w`` at element offsets ``a, a + d, ...``."""
    V = np.ndarray((len(P), cnt), WIRE_F32, w, 4 * a, (4 * d, 4))
    if add:  # local + received, in host order (numpy adds big-endian arrays slowly): the same float32 sums.
        # fresh astype temporaries, not a per-ring scratch: the scratch's extra calls cost 1.6-3.4 us more
        # per batch (interleaved, cold 4 MB bucket: 7 x 2235 elements 26.1 vs 24.5 us, 44 x 360 28.2 vs 24.8)
        t = V.astype(np.float32)
        t += P.astype(np.float32)
        V[...] = t
    else:
        np.copyto(V, P)


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


def size_socket_buffer(sock, opt: int, force_opt: int | None, want: int) -> int:
    """Ask for a ``want``-byte socket buffer (``opt``: ``SO_RCVBUF`` / ``SO_SNDBUF``) and return what
    the kernel granted.  Linux caps the request at ``net.core.rmem_max`` / ``wmem_max`` (212992 by
    default) and reports twice the (capped) request; when that leaves less than ``want``, the
    ``*FORCE`` variant, which ignores the cap, is tried -- it needs ``CAP_NET_ADMIN`` (root, as the
    trainers in the Mininet testbed are) and is skipped quietly when not permitted."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, opt, want)
    except OSError:  # pragma: no cover - not a settable option here
        pass
    got = sock.getsockopt(socket.SOL_SOCKET, opt)
    if got < want and force_opt is not None and sys.platform.startswith("linux"):
        try:
            sock.setsockopt(socket.SOL_SOCKET, force_opt, want)
            got = sock.getsockopt(socket.SOL_SOCKET, opt)
        except OSError:  # EPERM without CAP_NET_ADMIN: keep what the cap allowed
            pass
    return got


def datagram_truesize(nbytes: int) -> int:
    """Receive-buffer bytes the kernel charges for one queued datagram of ``nbytes`` (UDP payload):
    the buffer the data is allocated in (a power of two holding it, the IP/UDP headers and the
    ``skb_shared_info``) plus the ``sk_buff``.  Measured on loopback (Linux 6.x, no GRO merging):
    1472 bytes cost 2304, 8972 bytes 16644; this errs a little above both.  A receive buffer of
    ``B`` bytes holds about ``B // datagram_truesize(n)`` datagrams; the kernel drops the rest."""
    return (1 << (nbytes + 28 + 320 - 1).bit_length()) + 320
