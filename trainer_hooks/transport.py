"""Ring all-reduce over UDP carrying Checkmate headers, with its own reliability.

One :class:`UdpRing` per trainer process owns one UDP socket and one thread.
Rank ``r`` sends gradient packets only to ``r+1`` and receives them only from
``r-1``; acknowledgements travel the other way on the same sockets.

**Collective.**  The comm hook submits one *job* per DDP bucket (FIFO; DDP
launches buckets in index order on every rank).  The bucket buffer is divided
by ``world_size`` (as DDP does) and cut by :mod:`trainer_hooks.layout` into
``N`` segments of packets.  Wire ``step`` ``t`` in ``0..N-2`` is reduce-scatter:
rank ``r`` sends segment ``r-t`` and adds what it receives of segment ``r-t-1``
(``local + received``).  After step ``N-2`` rank ``r`` holds segment ``r+1``
fully reduced and sends it at step ``N-1`` -- the first all-gather hop --
tagged ``FLAG_FINAL`` with job id and iteration.  Steps ``N..2N-3`` forward it
untagged; receivers *copy* it.  Each chunk is therefore tagged exactly once,
and since the sum of a chunk is computed once (by its owner) and then copied,
every rank ends with bit-identical gradients.  The engine is packet-driven: a
packet is forwarded as soon as it has been reduced, so the segments pipeline.

**Reliability** (per sender -> receiver flow, i.e. per ring edge).  Data
packets carry a 32-bit ``seq``.  The receiver answers with ``FLAG_ACK`` packets
whose ``seq`` is the cumulative ack (every seq below it has arrived) and whose
16-bit ``aux`` is a selective-ack bitmap of ``seq+1 .. seq+16``.  The sender
keeps at most ``window`` unacknowledged packets, retransmits a packet after the
retransmission timeout -- ``srtt + 4 * rttvar`` from acked, never-retransmitted
packets (Jacobson/Karels with Karn's rule), at least ``rto``, doubling per
retry, at most 2 s -- with ``FLAG_RETX`` added
(``FLAG_FINAL`` is kept), and fails the job with a clear error after
``timeout`` seconds without completion.  Duplicates are re-acked and dropped.
Packets of a bucket this rank has not started yet are buffered.

**Fault injection**: ``loss_prob`` drops each outgoing packet (data or ack)
with that probability before it reaches the socket, from a seeded RNG.

**Host mode**: with ``final_copies`` set (``param_id -> (ip, port)``), every
transmission of a FINAL packet that leaves the trainer is also sent, byte for
byte, to the shadow owning that parameter -- what the switch does in switch
mode, done in software.

Payload elements are IEEE float32 in network (big-endian) order, like every
header field; conversion to and from the host order is exact.

**Per-packet cost.**  Python work per datagram is what limits a software ring,
so the engine avoids it where it can: the bucket is converted to wire order
once per job (``_Active.w``); reduce-scatter adds into that array, all-gather
copies the received bytes into it, and packets are sent from memoryview slices
of it -- no per-packet conversion or allocation of payloads -- and it is
converted back once when the job ends.  Runs of equal-size datagrams to one
destination leave in one ``sendmsg`` with ``UDP_SEGMENT`` (GSO: the kernel, or
a NIC, cuts them into exactly the same datagrams, each with its own header);
the socket has ``UDP_GRO`` on, so in-order datagrams of one flow arrive several
per ``recvmsg``, and such a batch of in-order, full-size data packets of the
active job is checked and applied with a handful of numpy operations
(``_on_batch``); anything else -- acks, losses, reordering, another job --
takes the per-datagram path.  ``gso=False`` turns both off (and a kernel that
refuses GSO turns it off by itself).  On the Mininet testbed the hosts' veths
have segmentation offload off, so the kernel cuts the runs before they reach
the switch, which sees ordinary frames.
"""
from __future__ import annotations

import collections
import logging
import queue
import random
import select
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.futures

from checkmate import wire
from trainer_hooks.layout import BucketPlan

log = logging.getLogger(__name__)

_HDR = wire.HEADER
_HLEN = wire.HEADER_LEN
_VER = wire.WIRE_VERSION
_FP32 = wire.DTYPE_FP32
_ACK = wire.FLAG_ACK
_FINAL = wire.FLAG_FINAL
_RETX = wire.FLAG_RETX
_MAX_ITER = wire.FIELD_MAX["iteration"]
_MAX_BUCKET = wire.FIELD_MAX["bucket"]
_SACK_BITS = 16
_MAX_RTO = 2.0
_RETX_BURST = 32  # expired packets resent per retransmission scan
_MIN_BATCH = 12  # GRO batches of fewer datagrams take the per-datagram path
_WIRE_F32 = np.dtype(wire.PAYLOAD_NUMPY_DTYPE[wire.DTYPE_FP32])  # big-endian float32, as on the wire
# Linux UDP segmentation / receive offload (linux/udp.h); Python's socket module has no names for them
_SOL_UDP = getattr(socket, "SOL_UDP", 17)
_UDP_SEGMENT = getattr(socket, "UDP_SEGMENT", 103)
_UDP_GRO = getattr(socket, "UDP_GRO", 104)
_GSO_SIZE = struct.Struct("=H")  # cmsg of UDP_SEGMENT: u16 segment size
_GRO_SIZE = struct.Struct("=i")  # cmsg of UDP_GRO: int segment size
_GSO_MAX_SEGS = 64  # UDP_MAX_SEGMENTS is 64 on older kernels
_GSO_MAX_BYTES = 65507 - 512  # one UDP datagram's payload, with room to spare
_CMSG_SPACE = socket.CMSG_SPACE(4)
# the header as a numpy record (a GRO batch is a strided array of them)
_HDR_DT = np.dtype([("version", "u1"), ("flags", "u1"), ("dtype", "u1"), ("step", "u1"), ("job_id", ">u4"),
                    ("iteration", ">u4"), ("rank", ">u2"), ("bucket", ">u2"), ("param_id", ">u4"),
                    ("offset", ">u4"), ("count", ">u2"), ("aux", ">u2"), ("seq", ">u4")])
assert _HDR_DT.itemsize == _HLEN


class _PlanIndex:
    """A bucket plan as arrays, to look a batch of ``(param_id, offset)`` up at once."""

    __slots__ = ("plan", "keys", "order", "segment", "buf_offset", "count", "pid", "off", "cnt", "byte_ranges")

    def __init__(self, plan: BucketPlan):
        self.plan = plan
        pk = plan.packets
        keys = np.array([(p.param_id << 32) | p.offset for p in pk], dtype=np.uint64)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]
        self.segment = np.array([p.segment for p in pk], dtype=np.int64)
        self.buf_offset = np.array([p.buf_offset for p in pk], dtype=np.int64)
        self.count = np.array([p.count for p in pk], dtype=np.int64)
        # the same as Python lists, for the per-packet tuples of the send backlog
        self.pid = [p.param_id for p in pk]
        self.off = [p.offset for p in pk]
        self.cnt = [p.count for p in pk]
        self.byte_ranges = [(4 * p.buf_offset, 4 * (p.buf_offset + p.count)) for p in pk]


class RingError(RuntimeError):
    """The ring all-reduce could not complete (timeout, protocol violation, closed)."""


@dataclass(slots=True)
class TransportStats:
    """Counters of one :class:`UdpRing` (read them after a job completes)."""

    data_sent: int = 0
    retransmits: int = 0
    acks_sent: int = 0
    dropped_injected: int = 0
    duplicates: int = 0
    malformed: int = 0
    stray: int = 0
    finals_sent: int = 0
    copies_sent: int = 0
    jobs: int = 0
    batched: int = 0  # data packets taken by the vectorized path (a whole in-order GRO batch at once)


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


class _Active:
    """Engine state of the job being reduced.

    ``w`` is the bucket in wire order (big-endian float32), converted once when the job starts; the
    ring works on it: reduce-scatter adds into it, all-gather copies received bytes into it, packets
    are sent straight from it (memoryview slices, no per-packet conversion or copy), and the result is
    converted back into the bucket once when the job ends.  Each job has its own ``w``, so a
    retransmission of an old job's packet never carries a newer job's bytes."""

    __slots__ = ("job", "w", "wb", "views", "expected", "received", "npk", "seen", "started", "index")

    def __init__(self, job: Job, expected: int, steps: int, index: _PlanIndex):
        self.job = job
        self.index = index
        self.w = job.buffer.numpy().astype(_WIRE_F32)
        self.wb = wb = memoryview(self.w).cast("B")
        self.views = [wb[a:b] for a, b in index.byte_ranges]  # each packet's payload, sent from here
        self.expected = expected
        self.received = 0
        self.npk = len(job.plan.packets)
        self.seen = bytearray(steps * self.npk)  # (step, packet) already received
        self.started = time.monotonic()


class UdpRing:
    """Reliable UDP ring between the ranks of one job (see the module docstring)."""

    def __init__(self, sock: socket.socket, rank: int, world_size: int, prev_addr, next_addr, *,
                 job_id: int, window: int = 128, rto: float = 0.05, timeout: float = 120.0,
                 loss_prob: float = 0.0, seed: int = 0, final_copies: dict | None = None, gso: bool = True):
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} outside 0..{world_size - 1}")
        if world_size > 128:
            raise ValueError("the 8-bit wire step field limits the ring to 128 ranks")
        if not 0 <= job_id <= wire.FIELD_MAX["job_id"]:
            raise ValueError(f"job_id {job_id} outside 0..{wire.FIELD_MAX['job_id']}")
        if not 0.0 <= loss_prob < 1.0:
            raise ValueError(f"loss_prob must be in [0, 1), got {loss_prob}")
        if window < 1 or rto <= 0 or timeout <= 0:
            raise ValueError("window, rto and timeout must be positive")
        self.sock = sock
        self.sock.setblocking(False)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, opt, 4 << 20)
            except OSError:  # pragma: no cover
                pass
        # batch datagrams: UDP GSO to send a run of them in one call, UDP GRO to receive several per call
        self._gso = bool(gso) and sys.platform.startswith("linux")
        self.gro = False
        if self._gso:
            try:
                self.sock.setsockopt(_SOL_UDP, _UDP_GRO, 1)
                self.gro = True
            except OSError:
                pass
        self.rank, self.n = rank, world_size
        self.prev, self.next = (rank - 1) % world_size, (rank + 1) % world_size
        self.prev_addr, self.next_addr = prev_addr, next_addr
        self.job_id = job_id
        self.window, self.rto, self.timeout = window, rto, timeout
        self._srtt: float | None = None  # smoothed RTT (Jacobson/Karels), Karn's rule for samples
        self._rttvar = 0.0
        self._cur_rto = rto
        self.loss_prob = loss_prob
        self._rng = random.Random(seed * 1000003 + rank)
        self.final_copies = final_copies
        self.stats = TransportStats()
        # sender side (flow rank -> next)
        self._snd_seq = 0
        self._backlog: collections.deque = collections.deque()
        self._unacked: dict[int, list] = {}  # seq -> [datagram, deadline, retries, param_id]
        # receiver side (flow prev -> rank)
        self._rcv_next = 0
        self._rcv_ooo: set[int] = set()
        self._ack_due = 0
        # jobs
        self._jobs: queue.Queue = queue.Queue()
        self._active: _Active | None = None
        self._pending: dict[tuple[int, int], list] = collections.defaultdict(list)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._rbuf = bytearray(1 << 16)
        self._plan_index: dict[int, _PlanIndex] = {}
        self._tmpl = None  # (key, mask, expected) of _batch_template
        self._wake_r, self._wake_w = socket.socketpair()  # submit() wakes the loop out of select()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._thread = threading.Thread(target=self._run, name=f"checkmate-ring-r{rank}", daemon=True)
        self._thread.start()

    # -- public ----------------------------------------------------------------------------
    def submit(self, job: Job) -> torch.futures.Future:
        """Queue a bucket for all-reduce; the future resolves to ``job.buffer`` when done."""
        if not (0 <= job.iteration <= _MAX_ITER and 0 <= job.bucket <= _MAX_BUCKET):
            raise RingError(f"iteration {job.iteration} / bucket {job.bucket} do not fit the wire header")
        if job.buffer.dtype != torch.float32 or job.buffer.device.type != "cpu" or not job.buffer.is_contiguous():
            raise RingError("the UDP ring reduces contiguous float32 CPU buckets only "
                            f"(got {job.buffer.dtype} on {job.buffer.device})")
        if self._error is not None or self._stop.is_set():
            job.future.set_exception(RingError(f"transport is closed: {self._error}"))
            return job.future
        self._jobs.put(job)
        try:
            self._wake_w.send(b"j")
        except (BlockingIOError, OSError):
            pass  # already awake (buffer full) or closing
        return job.future

    def idle(self) -> bool:
        """No job in progress and every packet sent has been acknowledged."""
        return self._active is None and self._jobs.empty() and not self._backlog and not self._unacked

    def close(self, linger: float = 5.0) -> None:
        """Stop after our packets are acknowledged (so the peers can finish), at most ``linger`` s."""
        deadline = time.monotonic() + linger
        while self._thread.is_alive() and not self.idle() and time.monotonic() < deadline:
            time.sleep(0.005)
        # keep acking the previous rank's retransmissions a little longer
        time.sleep(min(max(0.0, deadline - time.monotonic()), 4 * self.rto))
        self._stop.set()
        self._thread.join(timeout=5.0)
        self.sock.close()
        self._wake_r.close()
        self._wake_w.close()

    # -- engine ----------------------------------------------------------------------------
    def _start(self, job: Job) -> None:
        n, r = self.n, self.rank
        job.buffer.div_(n)
        if n == 1:
            if self.final_copies is not None:
                for i in range(len(job.plan.packets)):
                    self._copy_only(job, i)
            self._finish(job)
            return
        segs = job.plan.segments
        expected = sum(len(segs[k]) for k in range(n) if k != r)
        expected += sum(len(segs[k]) for k in range(n) if k != (r + 1) % n)
        idx = self._plan_index.get(id(job.plan))
        if idx is None or idx.plan is not job.plan:
            if len(self._plan_index) > 64:
                self._plan_index.clear()
            idx = self._plan_index[id(job.plan)] = _PlanIndex(job.plan)
        self._active = act = _Active(job, expected, 2 * n - 2, idx)
        self.stats.jobs += 1
        for i in segs[r]:
            self._enqueue(act, i, 0, 0)
        for step, pid, off, count, payload in self._pending.pop(job.key, ()):
            self._on_data(step, pid, off, count, payload, 0)
        if act.received == act.expected:
            self._active = None
            self._finish(job, act)

    def _enqueue(self, act: _Active, idx: int, step: int, flags: int) -> None:
        ix = act.index
        self._backlog.append((flags, step, act.job.iteration, act.job.bucket, ix.pid[idx], ix.off[idx], ix.cnt[idx],
                              act.views[idx]))

    def _copy_only(self, job: Job, idx: int) -> None:
        p = job.plan.packets[idx]
        payload = job.buffer.numpy()[p.buf_offset:p.buf_offset + p.count].astype(_WIRE_F32).tobytes()
        hdr = _HDR.pack(_VER, _FINAL, _FP32, 0, self.job_id, job.iteration, self.rank, job.bucket,
                        p.param_id, p.offset, p.count, 0, 0)
        self._send_copies([(hdr, payload, p.param_id)])

    def _on_data(self, step: int, pid: int, off: int, count: int, buf, start: int) -> None:
        """A data packet of the active job; its payload is ``count`` wire floats at ``buf[start:]``."""
        act = self._active
        n, r = self.n, self.rank
        plan = act.job.plan
        idx = plan.by_address.get((pid, off))
        if idx is None or plan.packets[idx].count != count or step > 2 * n - 3:
            raise RingError(f"rank {self.prev} sent packet (param {pid}, offset {off}, count {count}, step {step}) "
                            f"that is not in this rank's plan of iteration {act.job.iteration} bucket "
                            f"{act.job.bucket}: ranks disagree on the bucket layout")
        p = plan.packets[idx]
        rs = step <= n - 2
        want = (r - step - 1) % n if rs else (r - (step - (n - 1))) % n
        key = step * act.npk + idx
        seen = act.seen
        if p.segment != want or seen[key]:
            raise RingError(f"ring protocol violation: packet {(pid, off)} of segment {p.segment} at step {step} "
                            f"(expected segment {want}, duplicate={bool(seen[key])})")
        seen[key] = 1
        a = p.buf_offset
        if rs:  # local + received, in wire order (the values are the same floats)
            dst = act.w[a:a + count]
            np.add(dst, np.frombuffer(buf, dtype=_WIRE_F32, count=count, offset=start), out=dst)
            self._enqueue(act, idx, step + 1, _FINAL if step == n - 2 else 0)
        else:  # all-gather: the owner's bytes, copied as they are
            act.wb[4 * a:4 * (a + count)] = buf[start:start + 4 * count]
            if step < 2 * n - 3:
                self._enqueue(act, idx, step + 1, 0)
        act.received += 1

    def _finish(self, job: Job, act: _Active | None = None) -> None:
        if act is not None:  # the reduced bucket, back to host order in one conversion
            job.buffer.numpy()[:] = act.w
        job.future.set_result(job.buffer)
        done = job.key
        for k in [k for k in self._pending if k < done]:
            self.stats.stray += len(self._pending.pop(k))

    # -- sockets ---------------------------------------------------------------------------
    def _drop(self) -> bool:
        """Fault injection: drop this outgoing datagram (seeded, one draw per datagram)?"""
        if self.loss_prob and self._rng.random() < self.loss_prob:
            self.stats.dropped_injected += 1
            return True
        return False

    def _send(self, addr, dgs: list) -> int:
        """Send datagrams ``[(header, payload), ...]`` to ``addr`` in order; returns how many left.

        With GSO, each run of equal-size datagrams (the last of a run may be shorter) is one
        ``sendmsg`` with ``UDP_SEGMENT``: the kernel -- or the NIC -- cuts it into exactly these
        datagrams, each still carrying its own Checkmate header.  A full socket buffer ends the
        call early (the rest is a loss, recovered by retransmission)."""
        sock = self.sock
        sent, i, n = 0, 0, len(dgs)
        try:
            while i < n:
                h, p = dgs[i]
                size = len(h) + len(p)
                j = i + 1
                if self._gso:
                    lim = min(n, i + _GSO_MAX_SEGS, i + _GSO_MAX_BYTES // size)
                    while j < lim:
                        h2, p2 = dgs[j]
                        sz = len(h2) + len(p2)
                        if sz > size:
                            break
                        j += 1
                        if sz < size:  # a shorter datagram can only end a GSO run
                            break
                if j - i == 1:
                    sock.sendmsg([h, p], (), 0, addr)
                else:
                    iov = [b for d in dgs[i:j] for b in d]
                    try:
                        sock.sendmsg(iov, [(_SOL_UDP, _UDP_SEGMENT, _GSO_SIZE.pack(size))], 0, addr)
                    except (BlockingIOError, InterruptedError):
                        raise
                    except OSError as e:  # no UDP GSO here: one datagram per call from now on
                        log.warning("UDP GSO unavailable (%s): sending one datagram per call", e)
                        self._gso = False
                        continue
                sent += j - i
                i = j
        except (BlockingIOError, InterruptedError):
            pass
        return sent

    def _send_copies(self, items: list) -> None:
        """Host mode: ``[(header, payload, param_id), ...]`` to the shadow of each param, runs batched."""
        copies = self.final_copies
        i, n = 0, len(items)
        while i < n:
            addr = copies.get(items[i][2])
            if addr is None:
                raise RingError(f"host mode: no shadow owns param_id {items[i][2]}")
            j = i + 1
            while j < n and copies.get(items[j][2]) == addr:
                j += 1
            self.stats.copies_sent += self._send(addr, [(h, p) for h, p, _ in items[i:j]])
            i = j

    def _transmit(self, entries: list) -> None:
        """Send (or resend) unacked entries to the next rank; FINAL ones also to the shadows in host mode."""
        live = [e for e in entries if not self._drop()] if self.loss_prob else entries
        if not live:
            return
        k = self._send(self.next_addr, [(e[0], e[5]) for e in live])
        if self.final_copies is not None:
            fin = [(e[0], e[5], e[3]) for e in live[:k] if e[0][1] & _FINAL]
            if fin:
                self._send_copies(fin)

    def _pump(self, now: float) -> None:
        out = []
        una, window = self._unacked, self.window
        backlog, rto = self._backlog, self._cur_rto
        job_id, rank = self.job_id, self.rank
        finals = 0
        while backlog and len(una) < window:
            flags, step, it, b, pid, off, count, payload = backlog.popleft()
            seq = self._snd_seq
            self._snd_seq = (seq + 1) & 0xFFFFFFFF
            hdr = bytearray(_HDR.pack(_VER, flags, _FP32, step, job_id, it, rank, b, pid, off, count, 0, seq))
            entry = [hdr, now + rto, 0, pid, now, payload]
            una[seq] = entry
            out.append(entry)
            if flags & _FINAL:
                finals += 1
        if out:
            self.stats.data_sent += len(out)
            self.stats.finals_sent += finals
            self._transmit(out)

    def _retransmit(self, now: float) -> None:
        """Resend expired packets, oldest first, at most ``_RETX_BURST`` per scan: when the timeout was
        spurious (a peer descheduled past it), the acks of the first ones usually cover the rest, and a
        whole window is not sent twice through a busy switch."""
        due = []
        for entry in self._unacked.values():
            if entry[1] <= now:
                entry[0][1] |= _RETX
                entry[2] += 1
                entry[1] = now + min(self._cur_rto * (1 << min(entry[2], 10)), _MAX_RTO)
                due.append(entry)
                if len(due) >= _RETX_BURST:
                    break
        if due:
            self.stats.retransmits += len(due)
            self._transmit(due)

    def _send_ack(self) -> None:
        base = self._rcv_next
        sack = 0
        ooo = self._rcv_ooo
        if ooo:
            for i in range(_SACK_BITS):
                if (base + 1 + i) & 0xFFFFFFFF in ooo:
                    sack |= 1 << i
        dg = _HDR.pack(_VER, _ACK, _FP32, 0, self.job_id, 0, self.rank, 0, 0, 0, 0, sack, base)
        self.stats.acks_sent += 1
        self._ack_due = 0
        if not self._drop():
            try:
                self.sock.sendto(dg, self.prev_addr)
            except (BlockingIOError, InterruptedError):
                pass  # a lost ack: the next one is cumulative

    def _on_ack(self, cum: int, sack: int) -> None:
        # cumulative: unacked is in seq order; drop every seq "below" cum (modulo 2**32)
        una = self._unacked
        sample = None
        while una:
            seq = next(iter(una))
            d = (cum - seq) & 0xFFFFFFFF
            if d == 0 or d >= 0x80000000:
                break
            sample = una.pop(seq)
        if sack:
            for i in range(_SACK_BITS):
                if sack >> i & 1:
                    sample = una.pop((cum + 1 + i) & 0xFFFFFFFF, None) or sample
        if sample is not None and sample[2] == 0:  # Karn: never time a retransmitted packet
            self._rtt_sample(time.monotonic() - sample[4])

    def _rtt_sample(self, r: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = r, r / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - r)
            self._srtt = 0.875 * self._srtt + 0.125 * r
        self._cur_rto = min(max(self.rto, self._srtt + 4 * self._rttvar), _MAX_RTO)

    def _on_datagram(self, buf, at: int, n: int) -> None:
        """One datagram of ``n`` bytes at ``buf[at:]`` (``buf`` a memoryview of the receive buffer)."""
        if n < _HLEN:
            self.stats.malformed += 1
            return
        ver, flags, dtype, step, job_id, it, rank, bucket, pid, off, count, aux, seq = _HDR.unpack_from(buf, at)
        if ver != _VER or dtype != _FP32 or 4 * count > n - _HLEN:
            try:  # the wire module names what is wrong; anything it accepts is stray here
                wire.unpack_fields(buf, at, payload_len=n - _HLEN)
            except wire.WireError:
                self.stats.malformed += 1
                return
        if job_id != self.job_id or dtype != _FP32:
            self.stats.stray += 1
            return
        if flags & _ACK:
            if rank != self.next:
                self.stats.stray += 1
                return
            self._on_ack(seq, aux)
            return
        if rank != self.prev:
            self.stats.stray += 1
            return
        self._ack_due += 1
        if ((seq - self._rcv_next) & 0xFFFFFFFF) >= 0x80000000 or seq in self._rcv_ooo:
            self.stats.duplicates += 1
            return
        if seq == self._rcv_next:
            nxt = (seq + 1) & 0xFFFFFFFF
            ooo = self._rcv_ooo
            if ooo:
                while nxt in ooo:
                    ooo.discard(nxt)
                    nxt = (nxt + 1) & 0xFFFFFFFF
            self._rcv_next = nxt
        else:
            self._rcv_ooo.add(seq)
        act = self._active
        if act is not None and act.job.iteration == it and act.job.bucket == bucket:
            self._on_data(step, pid, off, count, buf, at + _HLEN)
            if act.received == act.expected:
                self._active = None
                self._finish(act.job, act)
        else:
            self._pending[(it, bucket)].append((step, pid, off, count, bytes(buf[at + _HLEN:at + _HLEN + 4 * count])))

    def _on_batch(self, k: int, seg: int) -> bool:
        """The first ``k`` datagrams of a GRO batch (``seg`` bytes each) in one go, when they are the
        common case: in-order data of the active job, full packets with distinct indices.  Checks
        everything :meth:`_on_datagram` / :meth:`_on_data` check, on all of them, before changing any
        state; returns False (nothing done) if one does not qualify -- the caller then takes them one
        by one, which also produces the precise error."""
        act = self._active
        cnt = (seg - _HLEN) >> 2
        if cnt * 4 + _HLEN != seg:
            return False
        rbuf = self._rbuf
        job = act.job
        n, r = self.n, self.rank
        # version, dtype, no ACK flag, job id, iteration, sender rank, bucket, count: one masked compare
        mask, tmpl = self._batch_template(job, cnt)
        B = np.ndarray((k, _HLEN), np.uint8, rbuf, 0, (seg, 1))
        if not (B & mask == tmpl).all():
            return False
        H = B.view(_HDR_DT)[:, 0]
        base = self._rcv_next
        seqs = H["seq"].astype(np.int64)
        if seqs[0] != base or (k > 1 and not (np.diff(seqs) == 1).all()):  # in order, no wrap inside
            return False
        ix = act.index
        keys = (H["param_id"].astype(np.uint64) << np.uint64(32)) | H["offset"]
        pos = np.searchsorted(ix.keys, keys)
        if pos[-1] >= len(ix.keys) or (pos >= len(ix.keys)).any() or not (ix.keys[pos] == keys).all():
            return False
        idx = ix.order[pos]
        st = H["step"].astype(np.int64)
        rs = st <= n - 2
        want = (r - 1 - st + np.where(rs, 0, n)) % n
        if (st.max() > 2 * n - 3 or not (ix.segment[idx] == want).all() or not (ix.count[idx] == cnt).all()
                or len(set(idx.tolist())) != k):
            return False
        seen = np.frombuffer(act.seen, dtype=np.uint8)
        sk = st * act.npk + idx
        if seen[sk].any():
            return False
        # -- commit: the same effects, packet for packet, as _on_datagram + _on_data in arrival order
        seen[sk] = 1
        self._rcv_next = (base + k) & 0xFFFFFFFF
        self._ack_due += k
        P = np.ndarray((k, cnt), _WIRE_F32, rbuf, _HLEN, (seg, 4))
        w = act.w
        offs = ix.buf_offset[idx]
        for rows, add in ((np.flatnonzero(rs), True), (np.flatnonzero(~rs), False)):
            if not len(rows):
                continue
            o = offs[rows]
            d = np.diff(o)
            if len(rows) == 1 or (d[0] >= cnt and (d == d[0]).all()):  # evenly spaced: one strided view
                step = int(d[0]) if len(rows) > 1 else cnt
                V = np.lib.stride_tricks.as_strided(w[int(o[0]):], (len(rows), cnt), (4 * step, 4))
                if add:  # local + received
                    np.add(V, P[rows], out=V)
                else:
                    V[...] = P[rows]
            else:
                for i, a in zip(rows.tolist(), o.tolist()):
                    dst = w[a:a + cnt]
                    if add:
                        np.add(dst, P[i], out=dst)
                    else:
                        dst[...] = P[i]
        act.received += k
        fw = np.flatnonzero(rs | (st < 2 * n - 3))
        it, b, views, pids, offs_l, cnts = job.iteration, job.bucket, act.views, ix.pid, ix.off, ix.cnt
        last_rs = n - 2
        self._backlog.extend((_FINAL if s1 == last_rs else 0, s1 + 1, it, b, pids[i], offs_l[i], cnts[i], views[i])
                             for i, s1 in zip(idx[fw].tolist(), st[fw].tolist()))
        self.stats.batched += k
        if act.received == act.expected:
            self._active = None
            self._finish(job, act)
        return True

    def _batch_template(self, job: Job, cnt: int):
        """(mask, expected) over the 32 header bytes: the fields every data packet of this job from
        the previous rank has in common (version, dtype, ACK clear, job, iteration, rank, bucket, count)."""
        key = (job.iteration, job.bucket, cnt)
        t = self._tmpl
        if t is None or t[0] != key:
            hdr = np.frombuffer(_HDR.pack(_VER, 0, _FP32, 0, self.job_id, job.iteration, self.prev, job.bucket,
                                          0, 0, cnt, 0, 0), dtype=np.uint8)
            mask = np.zeros(_HLEN, dtype=np.uint8)
            mask[[0, 2]] = 0xFF
            mask[1] = _ACK
            mask[4:16] = 0xFF  # job_id, iteration, rank, bucket
            mask[24:26] = 0xFF  # count
            t = self._tmpl = (key, mask, hdr & mask)
        return t[1], t[2]

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as e:  # noqa: BLE001 - surfaced through the futures
            log.exception("checkmate ring transport failed")
            self._error = e
            self._fail_all(e)

    def _fail_all(self, e: BaseException) -> None:
        err = e if isinstance(e, RingError) else RingError(f"checkmate ring transport failed: {e!r}")
        if self._active is not None:
            self._active.job.future.set_exception(err)
            self._active = None
        while True:
            try:
                self._jobs.get_nowait().future.set_exception(err)
            except queue.Empty:
                break

    def _loop(self) -> None:
        sock, rbuf, wake = self.sock, self._rbuf, self._wake_r
        rview = memoryview(rbuf)
        next_retx_scan = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if self._active is None:
                try:
                    self._start(self._jobs.get_nowait())
                except queue.Empty:
                    pass
            act = self._active
            if act is not None and now - act.started > self.timeout:
                raise RingError(
                    f"rank {self.rank}: ring all-reduce of iteration {act.job.iteration} bucket "
                    f"{act.job.bucket} timed out after {self.timeout:.1f}s with {act.received}/{act.expected} "
                    f"packets from rank {self.prev} ({len(self._unacked)} of ours unacked by rank {self.next})")
            self._pump(now)
            wait = 0.02
            if self._unacked:  # retransmissions happen at scans: sleep until a scan that has work
                due = max(min(e[1] for e in self._unacked.values()), next_retx_scan)
                wait = min(wait, max(0.0, due - now))
            if self._active is None and not self._jobs.empty():
                wait = 0.0
            r, _, _ = select.select([sock, wake], [], [], wait)
            if wake in r:
                try:
                    wake.recv(4096)
                except (BlockingIOError, InterruptedError):
                    pass
            if sock in r:
                for _ in range(256):
                    try:
                        nbytes, anc, _fl, _addr = sock.recvmsg_into([rbuf], _CMSG_SPACE)
                    except (BlockingIOError, InterruptedError):
                        break
                    seg = nbytes
                    for lvl, typ, data in anc:  # UDP GRO: several datagrams of `seg` bytes, back to back
                        if lvl == _SOL_UDP and typ == _UDP_GRO:
                            seg = _GRO_SIZE.unpack_from(data)[0] or nbytes
                    at = 0
                    k = nbytes // seg
                    # numpy's per-call cost pays off from about a dozen datagrams (small at MTU 9000)
                    if k >= _MIN_BATCH and self._active is not None and not self._rcv_ooo:
                        if self._on_batch(k, seg):
                            at = k * seg
                    for at in range(at, nbytes, seg):
                        self._on_datagram(rview, at, min(seg, nbytes - at))
                    if self._ack_due >= 32:
                        self._send_ack()
                if self._ack_due:
                    self._send_ack()
            now = time.monotonic()
            if self._unacked and now >= next_retx_scan:
                self._retransmit(now)
                next_retx_scan = now + self.rto / 4
