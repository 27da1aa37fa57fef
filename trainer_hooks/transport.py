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
(:mod:`trainer_hooks.ring_sender`) sends a seq only while it is less than the
congestion window ``cwnd`` past the oldest unacknowledged one -- ``cwnd`` opens
from 64 towards ``window`` (slow start, then four packets per round trip) and
halves on a loss or a timeout, as TCP's does, so a path that queues long bursts past the
timeout (the emulated switch) gets bursts it delivers in time.  It resends the packet at a hole
the selective ack shows at once (fast retransmit), and any packet after the
retransmission timeout -- ``srtt + 4 * rttvar`` from acked, never-retransmitted
packets (Jacobson/Karels with Karn's rule), at least ``rto``, doubling per
retry, at most 2 s -- with ``FLAG_RETX`` added
(``FLAG_FINAL`` is kept), and fails the job with a clear error after
``timeout`` seconds without completion.  Duplicates are re-acked and dropped.
Packets of a bucket this rank has not started yet are buffered.  Acks are
*coalesced*: one at least every ``min(128, window // 4)`` data datagrams (during a
long receive pass too), at once after a hole, a filled hole, a duplicate, a
datagram that fills the sender's congestion window (``aux = ACK_REQUEST``) or
the last packet of a job, and otherwise at most ``min(2 ms, rto / 4)`` after
the first datagram it covers -- so their number follows the data, not how many
wake-ups a slow or bursty path (a busy software switch) causes.  An ack's
``offset`` carries the receiver's count of duplicates so far, which lets the
sender undo a window cut whose resends all turn out to have arrived.

**Socket buffers** are asked for at 4 MB each, past ``net.core.rmem_max``
(``SO_RCVBUFFORCE``) where the process may; ``rcvbuf`` is what was granted, and
the sender never has more datagrams in flight than that buffer holds
(:mod:`trainer_hooks.ring_sender`, *Receiver's buffer*): on loopback a full
receive buffer is the only way a datagram is lost.

**Fault injection**: ``loss_prob`` drops each outgoing packet (data or ack)
with that probability before it reaches the socket, from a seeded RNG.

**Host mode**: with ``final_copies`` set (``param_id -> (ip, port)``), every
transmission of a FINAL packet that leaves the trainer is also sent, byte for
byte, to the shadow owning that parameter -- what the switch does in switch
mode, done in software.

Payload elements are IEEE float32 in network (big-endian) order, like every
header field; conversion to and from the host order is exact.

**Per-packet cost.**  Python work per datagram is what limits a software ring,
so the engine works per batch of packets (array state: :mod:`trainer_hooks.ring_arrays`):

* *Payloads*: the bucket is divided and converted to wire order in one numpy
  pass per job (``ActiveJob.w``); reduce-scatter adds into it, all-gather copies
  into it, packets are sent from memoryview slices of it, and it is converted
  back once when the job ends.  A later job of the same plan takes the array
  and its slices over once nothing in flight or queued refers to the old job.
* *Sending*: the pump takes as many queued packets as the window allows and
  writes their headers into a ring of header slots (slot = seq mod cap) --
  fixed fields from a per-job table, step/flags/seq per batch -- and records
  send time, deadline and retries per slot in arrays; acks, retransmission
  scans and the timer are vector operations over the slots in flight.  Runs of
  equal-size datagrams leave in one ``sendmsg`` with ``UDP_SEGMENT`` (GSO) --
  where the C library builds, up to 16 such runs per ``sendmmsg``, the iovecs
  pointing straight at the header slots and the bucket (``ring_send``).
* *Receiving*: with ``UDP_GRO`` in-order datagrams arrive several per
  ``recvmsg``; the usual batch (8 datagrams or more) -- one step's packets at evenly spaced plan
  indices, none asking for an ack -- is checked in O(1) Python (``_on_run``: the
  first two headers give the step and the indices, then one masked compare of
  all headers against the previous rank's header table,
  :func:`~trainer_hooks.ring_arrays.headers_match`, and one slice of the receive
  map).  Any other batch of in-order, equal-size data packets of the active job
  is checked (all its headers read by one ``struct`` call of a format cached per
  batch shape, :func:`~trainer_hooks.ring_arrays.batch_headers`; the shared
  fields compared as one tuple, the rest as tuple slices; per-plan address dict,
  the job's receive map) and applied with one strided numpy add or copy per run
  of evenly spaced packets (``_on_batch``); a batch of a job not started yet is
  kept whole for it (``_stash_batch``).  A batch of one step -- the usual case --
  gets its per-packet lists by repetition, here and when the pump sends it on.
  Acks, losses, reordering and odd sizes take the per-datagram path, which
  makes the same checks one by one.
* *Compiled*: where a C compiler is, the common case of all this -- drain the
  socket, check each in-order datagram of the active job, add or copy it,
  mark it, list it for forwarding -- runs in C (:mod:`trainer_hooks.ring_native`,
  ``_native_rx``), which stops at the first datagram of any other kind and
  leaves the rest of that buffer to the Python paths above (``_take``); a
  batch kept before its job started goes through it too (``_native_replay``).
  Every protocol decision stays here.

``gso=False`` turns GSO and GRO off (and a kernel that refuses GSO turns it off
by itself).  On the Mininet testbed the hosts' veths have segmentation offload
off, so the kernel cuts the runs before they reach the switch, which sees
ordinary frames.
"""
from __future__ import annotations

import collections
import logging
import os
import queue
import random
import select
import socket
import struct
import sys
import threading
import time

import numpy as np
import torch
import torch.futures

from checkmate import wire
from trainer_hooks.ring_arrays import (GSO_MAX_BYTES, GSO_MAX_SEGS, SO_RCVBUFFORCE, SO_SNDBUFFORCE, SOL_UDP, UDP_GRO,
                                       WIRE_F32, ActiveJob, HeaderScratch, Job, NFIELDS, PlanIndex, RingError,
                                       TransportStats, apply_runs, batch_expected, batch_headers, datagram_truesize,
                                       headers_match, size_socket_buffer, take_spare)
from trainer_hooks import ring_native
from trainer_hooks.ring_native import (R_AGAIN, R_DONE, R_ERROR, S_ERRNO, S_MAX_RECVS, S_RCV_NEXT, S_RECEIVED,
                                       NativeRx, NativeTx)
from trainer_hooks.ring_sender import RingSender

__all__ = ["Job", "RingError", "TransportStats", "UdpRing"]

log = logging.getLogger(__name__)

_HDR = wire.HEADER
_HLEN = wire.HEADER_LEN
_VER = wire.WIRE_VERSION
_FP32 = wire.DTYPE_FP32
_ACK = wire.FLAG_ACK
_FINAL = wire.FLAG_FINAL
_MAX_ITER = wire.FIELD_MAX["iteration"]
_MAX_BUCKET = wire.FIELD_MAX["bucket"]
_SACK_BITS = 16
_MIN_BATCH = 5  # GRO batches of fewer datagrams take the per-datagram path (cheaper below about 5)
_ACK_EVERY = 128  # an ack at least every this many datagrams (at most window / 4) ...
_ACK_DELAY = 0.002  # ... or this long (at most rto / 4) after the first one it covers
_MAX_WINDOW = 1 << 15  # seqs in flight, well inside the 2**31 of modular seq comparison
_SOCK_BUF = 4 << 20  # socket buffers asked for (Linux grants twice that when net.core.rmem_max allows)
_BUF_SHARE = 0.875  # of the peer's receive buffer, what our data in flight may fill (acks need the rest)
_M32 = 0xFFFFFFFF
_STASHED = object()  # marks datagrams of one size kept for a job not started yet (a GRO batch, or singles appended)
_NF = NFIELDS  # values per header in a batch's tuple (batch_headers); the fields read from it by index:
assert [wire.FIELDS[i][0] for i in (1, 3, 8, 9, 11, 12)] == ["flags", "step", "param_id", "offset", "aux", "seq"]
_NO_ACK = frozenset(f for f in range(256) if not f & _ACK)  # flag bytes a data packet may carry
_GRO_SIZE = struct.Struct("=i")  # cmsg of UDP_GRO: int segment size
_CMSG_SPACE = socket.CMSG_SPACE(4)
_PO = struct.Struct("!II")  # (param_id, offset) of a header, at _PO_AT
_PO_AT = wire.FIELD_OFFSET["param_id"]
_STEP_AT = wire.FIELD_OFFSET["step"]
assert wire.FIELD_OFFSET["offset"] == _PO_AT + 4
# smallest GRO batch _on_run tries: below it the per-packet batch path is as cheap, and a batch _on_run
# turns down pays both.  Measured (loaded 2-core host, 3 ranks in one process, thread CPU per _on_batch
# call, 4 MB all-reduce): headers_match alone 12.0 / 12.1 / 12.8 / 14.0 us at k = 4 / 7 / 16 / 44
# (flat); whole batch at k = 7 (MTU 9000) with _on_run 48-67 us, without 55-56 us, main 56-59 us -- no
# gain, and the MTU 9000 A/B against main was slower with it; at MTU 1500 (k up to 44) it cut ring CPU
_RUN_MIN = 8


class UdpRing(RingSender):
    """Reliable UDP ring between the ranks of one job (see the module docstring)."""

    def __init__(self, sock: socket.socket, rank: int, world_size: int, prev_addr, next_addr, *,
                 job_id: int, window: int = 512, rto: float = 0.05, timeout: float = 120.0,
                 loss_prob: float = 0.0, seed: int = 0, final_copies: dict | None = None, gso: bool = True,
                 native: bool = True):
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
        if window > _MAX_WINDOW:
            raise ValueError(f"window must be at most {_MAX_WINDOW} packets, got {window}")
        self.sock = sock
        self.sock.setblocking(False)
        # the receive buffer holds what the previous rank has in flight to us (and the sender's cap on
        # that is derived from it): ask for _SOCK_BUF, past net.core.rmem_max where permitted
        self.rcvbuf = size_socket_buffer(self.sock, socket.SO_RCVBUF, SO_RCVBUFFORCE, _SOCK_BUF)
        self.sndbuf = size_socket_buffer(self.sock, socket.SO_SNDBUF, SO_SNDBUFFORCE, _SOCK_BUF)
        # batch datagrams: UDP GSO to send a run of them in one call, UDP GRO to receive several per call
        self._gso = bool(gso) and sys.platform.startswith("linux")
        self.gro = False
        if self._gso:
            try:
                self.sock.setsockopt(SOL_UDP, UDP_GRO, 1)
                self.gro = True
            except OSError:
                pass
        self.rank, self.n = rank, world_size
        self.prev, self.next = (rank - 1) % world_size, (rank + 1) % world_size
        self.prev_addr, self.next_addr = prev_addr, next_addr
        self.job_id = job_id
        self.timeout = timeout
        self.loss_prob = loss_prob
        self._rng = random.Random(seed * 1000003 + rank)
        self.final_copies = final_copies
        self.stats = TransportStats()
        self._init_sender(window, rto, world_size)  # flow rank -> next (trainer_hooks.ring_sender)
        # receiver side (flow prev -> rank)
        self._rcv_next = 0
        self._rcv_ooo: set[int] = set()
        self._ack_due = 0  # data datagrams received since the last ack
        self._ack_at = 0.0  # when the delayed ack is due (0: not armed)
        self._ack_now = False  # ack at the end of this receive pass (duplicate, reordering, job done)
        self._ack_every = max(1, min(_ACK_EVERY, window // 4))
        self._ack_delay = min(_ACK_DELAY, rto / 4)
        # jobs
        self._jobs: queue.Queue = queue.Queue()
        self._active: ActiveJob | None = None
        self._pending: dict[tuple[int, int], list] = collections.defaultdict(list)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._rbuf = bytearray(1 << 16)
        # the compiled receive loop and bucket conversions (trainer_hooks.ring_native), where they build
        self._lib = ring_native.load() if native else None
        self._nrx = NativeRx(self._lib, self._rbuf, self._ack_every) if self._lib is not None else None
        # ... and the compiled send of the pump: plain data to the next rank over GSO (loss injection, host
        # mode's copies to the shadows and resends keep the Python path; see RingSender._pump)
        sa = ring_native.sockaddr_in(next_addr) if sock.family == socket.AF_INET else None
        self._tx = (NativeTx(self._lib, sock.fileno(), sa, self._hbuf, self._mask, GSO_MAX_SEGS, GSO_MAX_BYTES)
                    if self._lib is not None and self._gso and sa is not None and not loss_prob
                    and final_copies is None else None)
        self._scratch = HeaderScratch()
        self._plan_index: dict[int, PlanIndex] = {}
        self._bexp = (None, None)  # (key, value) of _batch_expected
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
        return self._active is None and self._jobs.empty() and not self._backlog and self._nxt == self._una

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
        n = self.n
        if n == 1:
            job.buffer.div_(n)
            if self.final_copies is not None:
                for i in range(len(job.plan.packets)):
                    self._copy_only(job, i)
            self._finish(job)
            return
        idx = self._plan_index.get(id(job.plan))
        if idx is None or idx.plan is not job.plan:
            if len(self._plan_index) > 64:
                self._plan_index.clear()
            idx = self._plan_index[id(job.plan)] = PlanIndex(job.plan, n, self.rank, self.job_id)
            # bytes in flight <= what the next rank's receive buffer holds of this plan's largest datagram
            # (its buffer is sized as ours: same code, same host settings)
            idx.flight_cap = max(1, int(self.rcvbuf * _BUF_SHARE) // datagram_truesize(max(idx.size_l)))
        self._active = act = ActiveJob(job, idx, n, take_spare(idx, self._s_act, self._backlog, self.stats),
                                       self._lib)
        self.stats.jobs += 1
        self._backlog.append([act, list(idx.own), [0] * len(idx.own), 0])
        self._replay(act, self._pending.pop(job.key, ()))
        if self._active is act and act.received == act.expected:
            self._done(act)

    def _copy_only(self, job: Job, idx: int) -> None:
        p = job.plan.packets[idx]
        payload = job.buffer.numpy()[p.buf_offset:p.buf_offset + p.count].astype(WIRE_F32).tobytes()
        hdr = _HDR.pack(_VER, _FINAL, _FP32, 0, self.job_id, job.iteration, self.rank, job.bucket,
                        p.param_id, p.offset, p.count, 0, 0)
        self._send_copies([(hdr, payload, p.param_id)])

    def _on_data(self, step: int, pid: int, off: int, count: int, buf, start: int) -> None:
        """A data packet of the active job; its payload is ``count`` wire floats at ``buf[start:]``."""
        act = self._active
        n = self.n
        plan = act.job.plan
        idx = plan.by_address.get((pid, off))
        if idx is None or plan.packets[idx].count != count or step > 2 * n - 3:
            raise RingError(f"rank {self.prev} sent packet (param {pid}, offset {off}, count {count}, step {step}) "
                            f"that is not in this rank's plan of iteration {act.job.iteration} bucket "
                            f"{act.job.bucket}: ranks disagree on the bucket layout")
        key = step * act.npk + idx
        seen = act.seen
        if seen[key]:
            r = self.rank
            want = (r - step - 1) % n if step <= n - 2 else (r - (step - (n - 1))) % n
            raise RingError(f"ring protocol violation: packet {(pid, off)} of segment {plan.packets[idx].segment} "
                            f"at step {step} (expected segment {want}, duplicate={seen[key] == 1})")
        seen[key] = 1
        a = plan.packets[idx].buf_offset
        if step <= n - 2:  # reduce-scatter: local + received, in wire order (the values are the same floats)
            dst = act.w[a:a + count]
            np.add(dst, np.frombuffer(buf, dtype=WIRE_F32, count=count, offset=start), out=dst)
            self._push(act, idx, step + 1)
        else:  # all-gather: the owner's bytes, copied as they are
            act.wb[4 * a:4 * (a + count)] = buf[start:start + 4 * count]
            if step < 2 * n - 3:
                self._push(act, idx, step + 1)
        act.received += 1

    def _done(self, act: ActiveJob) -> None:
        """Every expected packet of the active job arrived: ack now (the sender's tail), finish."""
        self._active = None
        self._ack_now = True
        self._finish(act.job, act)

    def _finish(self, job: Job, act: ActiveJob | None = None) -> None:
        if act is not None:  # the reduced bucket, back to host order in one conversion
            job.buffer.numpy()[:] = act.w
            if len(act.index.spare) < 2:
                act.index.spare.append(act)
        job.future.set_result(job.buffer)
        done = job.key
        for k in [k for k in self._pending if k < done]:
            self.stats.stray += sum(e[2] if e[0] is _STASHED else 1 for e in self._pending.pop(k))

    def _send_ack(self) -> None:
        base = self._rcv_next
        sack = 0
        ooo = self._rcv_ooo
        if ooo:
            for i in range(_SACK_BITS):
                if (base + 1 + i) & _M32 in ooo:
                    sack |= 1 << i
        # offset: the duplicates received so far -- resends of what had arrived tell the sender its timeout was
        # spurious (it undoes the window cut, trainer_hooks.ring_sender)
        dg = _HDR.pack(_VER, _ACK, _FP32, 0, self.job_id, 0, self.rank, 0, 0, self.stats.duplicates & _M32, 0, sack,
                       base)
        self.stats.acks_sent += 1
        self._ack_due = 0
        self._ack_at = 0.0
        self._ack_now = False
        if not self._drop():
            try:
                self.sock.sendto(dg, self.prev_addr)
            except (BlockingIOError, InterruptedError):
                pass  # a lost ack: the next one is cumulative

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
            self._on_ack(seq, aux, off)
            return
        if rank != self.prev:
            self.stats.stray += 1
            return
        self._ack_due += 1
        if aux:  # the sender's window is full (ACK_REQUEST): do not make it wait for a delayed ack
            self._ack_now = True
        if ((seq - self._rcv_next) & _M32) >= 0x80000000 or seq in self._rcv_ooo:
            self.stats.duplicates += 1
            self._ack_now = True  # the sender is retransmitting: tell it at once
            return
        if seq == self._rcv_next:
            nxt = (seq + 1) & _M32
            ooo = self._rcv_ooo
            if ooo:
                while nxt in ooo:
                    ooo.discard(nxt)
                    nxt = (nxt + 1) & _M32
                self._ack_now = True  # a hole filled
            self._rcv_next = nxt
        else:
            self._rcv_ooo.add(seq)
            self._ack_now = True  # a hole: the selective ack spares the sender what did arrive
        act = self._active
        if act is not None and act.job.iteration == it and act.job.bucket == bucket:
            self._on_data(step, pid, off, count, buf, at + _HLEN)
            if act.received == act.expected:
                self._done(act)
        else:
            self._keep((it, bucket), buf, at, n, step, pid, off, count)

    def _keep(self, key: tuple, buf, at: int, n: int, step: int, pid: int, off: int, count: int) -> None:
        """A data datagram (``n`` bytes at ``buf[at:]``) of job ``key``, not started yet, kept for it.  With
        the compiled loop, consecutive datagrams of one size are appended to one kept batch, which
        ``ring_replay`` takes in one call when the job starts (a rank that is late, with no GRO
        batches to keep -- the testbed's veths -- would otherwise replay them one by one in Python)."""
        pend = self._pending[key]
        if self._nrx is None or n != _HLEN + 4 * count:
            pend.append((step, pid, off, count, bytes(buf[at + _HLEN:at + _HLEN + 4 * count])))
            return
        e = pend[-1] if pend else None
        if e is not None and e[0] is _STASHED and e[3] == n and type(e[1]) is bytearray:
            kept = e[1]
            kept += buf[at:at + n]
            pend[-1] = (_STASHED, kept, e[2] + 1, n)
        else:
            pend.append((_STASHED, bytearray(buf[at:at + n]), 1, n))
        self.stats.stashed += 1

    def _take(self, rbuf, rview, nbytes: int, seg: int, at: int) -> None:
        """The datagrams of a receive buffer (``nbytes``, ``seg`` bytes each) from ``at`` on: a whole GRO
        batch at once where it is the common case, else one by one."""
        if nbytes == 0:  # an empty datagram: no header
            self.stats.malformed += 1
            return
        k = nbytes // seg
        # numpy's per-call cost pays off from a few datagrams
        if at == 0 and k >= _MIN_BATCH and not self._rcv_ooo:
            if self._active is not None and self._on_batch(rbuf, k, seg):
                at = k * seg
            elif self._stash_batch(k, seg):
                at = k * seg
        for at in range(at, nbytes, seg):
            self._on_datagram(rview, at, min(seg, nbytes - at))

    def _native_job(self, act: ActiveJob) -> int:
        """``act``'s ``job[]`` for the compiled loop (:mod:`trainer_hooks.ring_native`), built on first use."""
        if act.native is None:
            act.native = self._nrx.job_array(act.index.native(), act.recv_table(self.prev), act.seen, act.w, self.n,
                                             act.expected)
        return act.native[0]

    def _native_taken(self, act: ActiveJob, received: int, nout: int, taken: int) -> None:
        """What a compiled call took, applied to the engine: the count, the stats, the forward list."""
        act.received = received
        if taken:
            self.stats.batched += taken
            self.stats.native += taken
        if nout:
            nrx = self._nrx
            self._queue(act, nrx.out_idx[:nout].tolist(), nrx.out_step[:nout].tolist())

    def _native_rx(self, act: ActiveJob, budget: int) -> tuple:
        """Drain the socket with the compiled loop (:mod:`trainer_hooks.ring_native`) for ``act``, at
        most ``budget`` receive calls: what it took is applied to the engine's state here; returns
        (return value, bytes of the last buffer, its segment size, where in it Python goes on, calls)."""
        nrx = self._nrx
        job_addr = self._native_job(act)
        st = nrx.st
        st[S_RCV_NEXT:S_RCV_NEXT + 7] = (self._rcv_next, self._ack_due, 0, act.received, 0, 0, 0)
        st[S_MAX_RECVS] = budget
        rc = nrx.rx(self.sock.fileno(), job_addr)
        nbytes, seg, at, rcv_next, ack_due, ack_now, received, nout, taken, used = st[:S_RCV_NEXT + 7].tolist()
        if rc == R_ERROR:
            raise OSError(int(st[S_ERRNO]), f"recvmsg on the ring socket: {os.strerror(int(st[S_ERRNO]))}")
        self._rcv_next, self._ack_due = rcv_next, ack_due
        if ack_now:
            self._ack_now = True
        self._native_taken(act, received, nout, taken)
        if rc == R_DONE:
            self._done(act)
        return rc, nbytes, seg, at, used

    def _native_replay(self, act: ActiveJob, buf: bytes, k: int, seg: int) -> int:
        """A batch kept before ``act``'s job started (:meth:`_stash_batch`) through the compiled loop;
        how many of its datagrams, from the first, it took (the caller takes the rest one by one)."""
        nrx = self._nrx
        job_addr = self._native_job(act)
        st = nrx.st
        st[S_RECEIVED:S_RECEIVED + 3] = (act.received, 0, 0)
        j = nrx.replay(buf, k, seg, job_addr)
        self._native_taken(act, *st[S_RECEIVED:S_RECEIVED + 3].tolist())
        return j

    def _on_batch(self, rbuf, k: int, seg: int, fresh: bool = True) -> bool:
        """The first ``k`` datagrams of a GRO batch (``seg`` bytes each, at the start of ``rbuf``) in one
        go, when they are the common case: in-order data of the active job, full packets with distinct
        indices.  Checks everything :meth:`_on_datagram` / :meth:`_on_data` check, on all of them,
        before changing any state; returns False (nothing done) if one does not qualify -- the caller
        then takes them one by one, which also produces the precise error.  ``fresh=False``: a batch
        stashed before its job started (:meth:`_stash_batch`), its seqs already accounted for."""
        act = self._active
        cnt = (seg - _HLEN) >> 2
        if cnt * 4 + _HLEN != seg:
            return False
        if k >= _RUN_MIN and self._on_run(act, rbuf, k, seg, cnt, fresh):
            return True
        job = act.job
        n = self.n
        # every header of the batch in one struct call (13 fields each, payloads skipped): checks and
        # lookups are then tuple slices and C-driven maps -- a dozen numpy calls cost more at these sizes
        st, same = batch_headers(k, seg)
        f = st.unpack_from(rbuf)
        # version, dtype, job id, iteration, sender rank, bucket, count as expected; no ACK flag
        if same(f) != self._batch_expected(job, cnt, k) or not _NO_ACK.issuperset(f[1::_NF]):
            return False
        base = self._rcv_next
        if fresh and (base + k > _M32 or f[12::_NF] != tuple(range(base, base + k))):
            return False  # not in order (or a wrap inside)
        ix = act.index
        by_key = ix.by_key.get(cnt)
        il = list(map(by_key.get, zip(f[8::_NF], f[9::_NF]))) if by_key else [None]
        if None in il:  # (param_id, offset) of a packet of `cnt` elements of this plan?
            return False
        stl = f[3::_NF]
        t0 = stl[0]
        one_step = stl.count(t0) == k  # the usual batch: one step (cheaper lists below)
        if (t0 if one_step else max(stl)) > 2 * n - 3:
            return False
        npk, seen = act.npk, act.seen
        if one_step:
            b0 = t0 * npk
            skl = [b0 + i for i in il]
        else:
            skl = [t * npk + i for t, i in zip(stl, il)]
        if any(map(seen.__getitem__, skl)) or len(set(skl)) != k:  # expected at that step, not received yet
            return False
        # -- commit: the same effects, packet for packet, as _on_datagram + _on_data in arrival order
        for x in skl:
            seen[x] = 1
        if fresh:
            self._rcv_next = (base + k) & _M32
            self._ack_due += k
            if f[11::_NF].count(0) != k:  # an ACK_REQUEST among them: ack this pass
                self._ack_now = True
        P = np.ndarray((k, cnt), WIRE_F32, rbuf, _HLEN, (seg, 4))
        ol = list(map(ix.boff.__getitem__, il))
        last_rs = n - 2
        # reduce-scatter (add) or all-gather (copy)
        rl = [t0 <= last_rs] * k if one_step else [t <= last_rs for t in stl]
        apply_runs(act.w, P, ol, rl, cnt)
        act.received += k
        last = 2 * n - 3  # all but the last all-gather hop go on
        if one_step:
            li, ls = (il, [t0 + 1] * k) if t0 != last else ((), ())
        elif last not in stl:
            li, ls = il, [t + 1 for t in stl]
        else:
            li = [i for i, t in zip(il, stl) if t != last]
            ls = [t + 1 for t in stl if t != last]
        if li:
            self._queue(act, li, ls)
        self.stats.batched += k
        if act.received == act.expected:
            self._done(act)
        return True

    def _on_run(self, act: ActiveJob, rbuf, k: int, seg: int, cnt: int, fresh: bool) -> bool:
        """:meth:`_on_batch`'s usual case in O(1) Python: the packets of one step at evenly spaced plan
        indices ``i0, i0 + d, ...`` (a segment's packets, in the order the previous rank sends them),
        none an ACK_REQUEST.  The first two headers give step, ``i0`` and ``d``; one compare of all
        ``k`` headers against the ones expected (:func:`~trainer_hooks.ring_arrays.headers_match`:
        version, dtype, job, iteration, sender, bucket, address, count, seqs, no ACK flag, ``aux``
        zero) and one of the receive map's slice make the same checks as the general path; False
        (nothing done) if any fails -- the general path then takes the batch."""
        by_key = act.index.by_key.get(cnt)
        if by_key is None or k < 2:
            return False
        i0 = by_key.get(_PO.unpack_from(rbuf, _PO_AT))
        i1 = by_key.get(_PO.unpack_from(rbuf, seg + _PO_AT))
        if i0 is None or i1 is None or i1 <= i0:
            return False
        d = i1 - i0
        end = i0 + d * k
        npk, n, t0 = act.npk, self.n, rbuf[_STEP_AT]
        base = self._rcv_next
        if end - d >= npk or t0 > 2 * n - 3 or (fresh and base + k > _M32):
            return False
        if not headers_match(rbuf, k, seg, act.recv_table(self.prev)[i0:end:d], t0, base if fresh else None,
                             self._scratch):
            return False
        seen = act.seen
        a = t0 * npk + i0
        if seen[a:a + d * k:d] != bytes(k):  # each expected at that step, not received yet
            return False
        # -- commit: what the general path does for these packets
        seen[a:a + d * k:d] = b"\1" * k
        if fresh:
            self._rcv_next = (base + k) & _M32
            self._ack_due += k
        apply_runs(act.w, np.ndarray((k, cnt), WIRE_F32, rbuf, _HLEN, (seg, 4)), act.index.boff[i0:end:d],
                   [t0 <= n - 2] * k, cnt)
        act.received += k
        if t0 != 2 * n - 3:  # all but the last all-gather hop go on
            self._queue(act, list(range(i0, end, d)), [t0 + 1] * k)
        self.stats.batched += k
        self.stats.runs += k
        if act.received == act.expected:
            self._done(act)
        return True

    def _queue(self, act: ActiveJob, li: list, ls: list) -> None:
        """Packets ``li`` of ``act`` to be sent at steps ``ls``, after what is queued."""
        bl = self._backlog
        g = bl[-1] if bl else None
        if g is None or g[0] is not act:
            bl.append([act, li, ls, 0])
        else:
            g[1] += li
            g[2] += ls

    def _stash_batch(self, k: int, seg: int) -> bool:
        """A GRO batch of in-order data of one job this rank has not started yet (the previous rank is
        ahead): account for its seqs now, keep its bytes, and take it as a batch when the job starts.
        False (nothing done) if it is anything else."""
        rbuf = self._rbuf
        if seg < _HLEN:  # datagrams too short for a header: one by one (malformed)
            return False
        st, same = batch_headers(k, seg)
        f = st.unpack_from(rbuf)
        ver, _fl, dtype, _st, job_id, it, rank, bucket, _p, _o, count, _a, _s = f[:_NF]
        act = self._active
        if (ver != _VER or dtype != _FP32 or job_id != self.job_id or rank != self.prev or seg != _HLEN + 4 * count
                or (act is not None and act.job.key == (it, bucket))):  # the active job's: one by one
            return False
        if same(f) != batch_expected(job_id, rank, it, bucket, count, k) or not _NO_ACK.issuperset(f[1::_NF]):
            return False
        base = self._rcv_next
        if base + k > _M32 or f[12::_NF] != tuple(range(base, base + k)):
            return False
        self._rcv_next = (base + k) & _M32
        self._ack_due += k
        if f[11::_NF].count(0) != k:  # an ACK_REQUEST among them: ack this pass
            self._ack_now = True
        self._pending[(it, bucket)].append((_STASHED, bytes(rbuf[:k * seg]), k, seg))
        self.stats.stashed += k
        return True

    def _replay(self, act: ActiveJob, pending: list) -> None:
        """What arrived for ``act``'s job before it started, in arrival order."""
        for e in pending:
            if self._active is not act:
                break
            if e[0] is _STASHED:
                _, buf, k, seg = e
                start = 0
                if self._nrx is not None:  # compiled, up to the first datagram it leaves to Python
                    start = seg * self._native_replay(act, buf, k, seg)
                    if start == k * seg:
                        if act.received == act.expected:
                            self._done(act)
                        continue
                elif self._on_batch(buf, k, seg, fresh=False):
                    continue
                mv = memoryview(buf)
                for at in range(start, k * seg, seg):
                    f = _HDR.unpack_from(mv, at)
                    self._on_data(f[3], f[8], f[9], f[10], mv, at + _HLEN)
            else:
                self._on_data(*e, 0)

    def _batch_expected(self, job: Job, cnt: int, k: int) -> tuple:
        """:func:`batch_expected` for this job's data from the previous rank, cached."""
        key = (job.iteration, job.bucket, cnt, k)
        t = self._bexp
        if t[0] != key:
            t = self._bexp = (key, batch_expected(self.job_id, self.prev, job.iteration, job.bucket, cnt, k))
        return t[1]

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
                    f"packets from rank {self.prev} ({self.in_flight()} of ours unacked by rank {self.next})")
            self._pump(now)
            if self._ack_due and (self._ack_now or now >= self._ack_at):
                self._send_ack()
            wait = 0.02
            if self._nxt != self._una:  # retransmissions happen at scans: sleep until a scan that has work
                due = max(self._dl_low, next_retx_scan)
                wait = min(wait, max(0.0, due - now))
            if self._ack_due:
                wait = min(wait, max(0.0, self._ack_at - now))
            if self._active is None and not self._jobs.empty():
                wait = 0.0
            r, _, _ = select.select([sock, wake], [], [], wait)
            if wake in r:
                try:
                    wake.recv(4096)
                except (BlockingIOError, InterruptedError):
                    pass
            if sock in r:
                budget = 256  # receive calls per wake-up
                while budget > 0:
                    if self._nrx is not None and self._active is not None and not self._rcv_ooo:
                        rc, nbytes, seg, at, used = self._native_rx(self._active, budget)
                        budget -= used
                        if rc == R_AGAIN:
                            break
                    else:
                        try:
                            nbytes, anc, _fl, _addr = sock.recvmsg_into([rbuf], _CMSG_SPACE)
                        except (BlockingIOError, InterruptedError):
                            break
                        budget -= 1
                        seg, at = nbytes, 0
                        for lvl, typ, data in anc:  # UDP GRO: several datagrams of `seg` bytes, back to back
                            if lvl == SOL_UDP and typ == UDP_GRO:
                                seg = _GRO_SIZE.unpack_from(data)[0] or nbytes
                    self._take(rbuf, rview, nbytes, seg, at)
                    if self._ack_due >= self._ack_every:
                        self._send_ack()
                # delayed ack: at once after a hole, a duplicate or the end of a job, else within
                # _ack_delay of the first datagram it covers -- not once per wake-up
                if self._ack_due:
                    if self._ack_now:
                        self._send_ack()
                    elif not self._ack_at:
                        self._ack_at = now + self._ack_delay
            now = time.monotonic()
            if self._nxt != self._una and now >= next_retx_scan and now >= self._dl_low:
                self._retransmit(now)
                self._dl_low = self._next_deadline()
                next_retx_scan = now + self.rto / 4
