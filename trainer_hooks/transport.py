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
"""
from __future__ import annotations

import collections
import logging
import queue
import random
import select
import socket
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
_WIRE_F32 = np.dtype(wire.PAYLOAD_NUMPY_DTYPE[wire.DTYPE_FP32])  # big-endian float32, as on the wire


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
    """Engine state of the job being reduced."""

    __slots__ = ("job", "arr", "expected", "received", "seen", "started")

    def __init__(self, job: Job, expected: int):
        self.job = job
        self.arr = job.buffer.numpy()
        self.expected = expected
        self.received = 0
        self.seen: set[tuple[int, int]] = set()
        self.started = time.monotonic()


class UdpRing:
    """Reliable UDP ring between the ranks of one job (see the module docstring)."""

    def __init__(self, sock: socket.socket, rank: int, world_size: int, prev_addr, next_addr, *,
                 job_id: int, window: int = 128, rto: float = 0.05, timeout: float = 120.0,
                 loss_prob: float = 0.0, seed: int = 0, final_copies: dict | None = None):
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
        self._rbuf = bytearray(65536)
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
        self._active = act = _Active(job, expected)
        self.stats.jobs += 1
        for i in segs[r]:
            self._enqueue(act, i, 0, 0)
        for item in self._pending.pop(job.key, ()):
            self._on_data(*item)
        if act.received == act.expected:
            self._active = None
            self._finish(job)

    def _enqueue(self, act: _Active, idx: int, step: int, flags: int) -> None:
        p = act.job.plan.packets[idx]
        payload = act.arr[p.buf_offset:p.buf_offset + p.count].astype(_WIRE_F32).tobytes()
        self._backlog.append((flags, step, act.job.iteration, act.job.bucket, p.param_id, p.offset, p.count, payload))

    def _copy_only(self, job: Job, idx: int) -> None:
        p = job.plan.packets[idx]
        payload = job.buffer.numpy()[p.buf_offset:p.buf_offset + p.count].astype(_WIRE_F32).tobytes()
        dg = _HDR.pack(_VER, _FINAL, _FP32, 0, self.job_id, job.iteration, self.rank, job.bucket,
                       p.param_id, p.offset, p.count, 0, 0) + payload
        self._send_copy(p.param_id, dg)

    def _on_data(self, step: int, pid: int, off: int, count: int, payload) -> None:
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
        if p.segment != want or (step, idx) in act.seen:
            raise RingError(f"ring protocol violation: packet {(pid, off)} of segment {p.segment} at step {step} "
                            f"(expected segment {want}, duplicate={(step, idx) in act.seen})")
        act.seen.add((step, idx))
        dst = act.arr[p.buf_offset:p.buf_offset + count]
        src = np.frombuffer(payload, dtype=_WIRE_F32, count=count)
        if rs:
            np.add(dst, src, out=dst)
            self._enqueue(act, idx, step + 1, _FINAL if step == n - 2 else 0)
        else:
            dst[:] = src
            if step < 2 * n - 3:
                self._enqueue(act, idx, step + 1, 0)
        act.received += 1

    def _finish(self, job: Job) -> None:
        job.future.set_result(job.buffer)
        done = job.key
        for k in [k for k in self._pending if k < done]:
            self.stats.stray += len(self._pending.pop(k))

    # -- sockets ---------------------------------------------------------------------------
    def _sendto(self, datagram, addr) -> bool:
        if self.loss_prob and self._rng.random() < self.loss_prob:
            self.stats.dropped_injected += 1
            return False
        try:
            self.sock.sendto(datagram, addr)
        except (BlockingIOError, InterruptedError):
            return False  # socket buffer full: treated as a loss, retransmission recovers it
        return True

    def _send_copy(self, pid: int, datagram) -> None:
        addr = self.final_copies.get(pid)
        if addr is None:
            raise RingError(f"host mode: no shadow owns param_id {pid}")
        try:
            self.sock.sendto(datagram, addr)
            self.stats.copies_sent += 1
        except (BlockingIOError, InterruptedError):  # pragma: no cover - retried with RETX
            pass

    def _transmit(self, seq: int, entry: list) -> None:
        dg = entry[0]
        if self._sendto(dg, self.next_addr) and self.final_copies is not None and dg[1] & _FINAL:
            self._send_copy(entry[3], dg)

    def _pump(self, now: float) -> None:
        while self._backlog and len(self._unacked) < self.window:
            flags, step, it, b, pid, off, count, payload = self._backlog.popleft()
            seq = self._snd_seq
            self._snd_seq = (seq + 1) & 0xFFFFFFFF
            dg = bytearray(_HDR.pack(_VER, flags, _FP32, step, self.job_id, it, self.rank, b,
                                     pid, off, count, 0, seq))
            dg += payload
            entry = [dg, now + self._cur_rto, 0, pid, now]
            self._unacked[seq] = entry
            self.stats.data_sent += 1
            if flags & _FINAL:
                self.stats.finals_sent += 1
            self._transmit(seq, entry)

    def _retransmit(self, now: float) -> None:
        for seq, entry in self._unacked.items():
            if entry[1] <= now:
                entry[0][1] |= _RETX
                entry[2] += 1
                entry[1] = now + min(self._cur_rto * (1 << min(entry[2], 10)), _MAX_RTO)
                self.stats.retransmits += 1
                self._transmit(seq, entry)

    def _send_ack(self) -> None:
        base = self._rcv_next
        sack = 0
        for i in range(_SACK_BITS):
            if (base + 1 + i) & 0xFFFFFFFF in self._rcv_ooo:
                sack |= 1 << i
        dg = _HDR.pack(_VER, _ACK, _FP32, 0, self.job_id, 0, self.rank, 0, 0, 0, 0, sack, base)
        self.stats.acks_sent += 1
        self._sendto(dg, self.prev_addr)
        self._ack_due = 0

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

    def _on_datagram(self, n: int) -> None:
        buf = self._rbuf
        try:
            if n < _HLEN:
                raise wire.TruncatedError("version", f"{n} bytes")
            t = wire.unpack_fields(buf, payload_len=n - _HLEN)
        except wire.WireError:
            self.stats.malformed += 1
            return
        _, flags, dtype, step, job_id, it, rank, bucket, pid, off, count, aux, seq = t
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
            while nxt in self._rcv_ooo:
                self._rcv_ooo.discard(nxt)
                nxt = (nxt + 1) & 0xFFFFFFFF
            self._rcv_next = nxt
        else:
            self._rcv_ooo.add(seq)
        act = self._active
        if act is not None and act.job.key == (it, bucket):
            self._on_data(step, pid, off, count, memoryview(buf)[_HLEN:_HLEN + 4 * count])
            if act.received == act.expected:
                self._active = None
                self._finish(act.job)
        else:
            self._pending[(it, bucket)].append((step, pid, off, count, bytes(buf[_HLEN:_HLEN + 4 * count])))

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
            if self._unacked:
                wait = min(wait, max(0.0, min(e[1] for e in self._unacked.values()) - now))
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
                        nbytes, _addr = sock.recvfrom_into(rbuf)
                    except (BlockingIOError, InterruptedError):
                        break
                    self._on_datagram(nbytes)
                    if self._ack_due >= 32:
                        self._send_ack()
                if self._ack_due:
                    self._send_ack()
            now = time.monotonic()
            if self._unacked and now >= next_retx_scan:
                self._retransmit(now)
                next_retx_scan = now + self.rto / 4
