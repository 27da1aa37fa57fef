"""The sending half of the UDP ring (:class:`trainer_hooks.transport.UdpRing`): the flow from this
rank to the next one -- window slots, the pump, acknowledgements, retransmission and the
congestion window.

**Slots.**  Seqs ``una .. nxt-1`` are in flight; seq ``s`` lives in slot ``s mod cap``, which keeps
the datagram's header as sent, its job and packet index, send time, deadline and retries (``-1``:
selectively acked).  The pump writes the headers of a whole batch at once (a per-job header table,
step/flags/seq per batch); acks and retransmission scans are vector operations over the slots.
The pump's datagrams leave through the compiled send where it runs (``_transmit_native``:
:func:`~trainer_hooks.ring_native.NativeTx.send`, GSO runs, several per ``sendmmsg``); resends, loss
injection, host mode's copies to the shadows and a ring without the C library use ``_transmit``
(Python's socket calls, :func:`~trainer_hooks.ring_arrays.send_datagrams`), the same datagrams.

**Congestion window.**  ``window`` is the most seqs in flight; how many are actually allowed is
``cwnd`` (at most ``window``), which adapts to the path as TCP's does:

* it starts at ``min(window, 64)`` and grows by one per acked packet (*slow start*, doubling per
  round trip) up to ``ssthresh`` (initially ``window``), then by ``4 / cwnd`` per acked packet
  (four packets per round trip);
* a *loss signal* -- a hole the receiver's selective ack shows (a later seq arrived, this one did
  not; the ring's paths do not reorder), or a retransmission timeout -- halves it (not below 16) and
  sets ``ssthresh`` there, once per round trip: no further cut until every seq sent before the cut has
  been acknowledged.  Timeouts count even when spurious: through the emulated switch nothing is
  actually dropped at 2 M / 9 M parameters -- every resend of a fixed 512-packet window arrives as a
  duplicate -- but 3 x 512 packets queued in a CPU-bound software switch stretch the round trip past
  the timeout; a smaller window delivers as fast (the switch is the bottleneck) with a shorter queue;
* the packet at the hole is resent at once (*fast retransmit*, once per packet; later ones wait
  for their timeout), instead of a whole retransmission timeout later;
* the receiver coalesces acks (one per ``min(128, window // 4)`` datagrams, or 2 ms after the first
  it covers), which a window smaller than that would wait for: so the datagram that fills the window
  while more is queued carries ``aux = ACK_REQUEST`` (``aux`` is unused in data packets otherwise),
  and the receiver acks at the end of the receive pass that brought it.

On loopback nothing is lost, so the window opens to ``window`` within the first job and stays
there; through the emulated switch the window settles where the round trip stays inside the timeout
instead of queueing three full windows in the switch and resending each late packet.

**Receiver's buffer.**  Whatever ``cwnd`` says, no more datagrams are in flight than the next rank's
receive buffer holds (``PlanIndex.flight_cap``: its granted size, assumed equal to ours, over the
kernel's charge for the plan's largest datagram, :func:`~trainer_hooks.ring_arrays.datagram_truesize`)
-- a full buffer is the one place loopback drops.  ``TransportStats.buffer_limited`` counts the sends
held back by it rather than by ``cwnd``.

**Undoing a spurious timeout.**  A rank descheduled past the timeout (three ranks on two busy cores)
makes its predecessor resend what had arrived and halve its window, which then takes dozens of round
trips to regrow -- for a stall, not a loss.  The receiver reports its count of duplicates in every
ack (the ack's ``offset`` field); when every datagram resent since a timeout cut has come back as a
duplicate, the cut is undone (``cwnd`` and ``ssthresh`` as before it, ``TransportStats.cwnd_undos``),
as TCP's D-SACK undo does.  Only when no ack at all had arrived for ``UNDO_SILENCE`` of the timeout
when it expired -- the peer (or the switch) was not running -- not when acks kept coming and the
oldest packets still expired: that is a queue longer than the timeout (the emulated switch, see
above), whose cut stays even though its resends are duplicates too.  And not again within
``UNDO_SPACING`` windows of seqs after an undo.  A selective-ack hole (a real loss) disarms it.
"""
from __future__ import annotations

import collections
import logging
import os
import time

import numpy as np

from checkmate import wire
from trainer_hooks.ring_arrays import ActiveJob, RingError, send_datagrams

log = logging.getLogger(__name__)

_HDR = wire.HEADER
_HLEN = wire.HEADER_LEN
_VER = wire.WIRE_VERSION
_FP32 = wire.DTYPE_FP32
_FINAL = wire.FLAG_FINAL
_RETX = wire.FLAG_RETX
_O = wire.FIELD_OFFSET
_FLAGS, _STEP = _O["flags"], _O["step"]
_SEQ = slice(_O["seq"], _O["seq"] + 4)  # u32
_AUX_LO = _O["aux"] + 1  # low byte of the big-endian u16 aux
ACK_REQUEST = 1  # ``aux`` of a data datagram that ends a full window: the receiver acks it at once
_M32 = 0xFFFFFFFF
_SACK_BITS = 16
_MAX_RTO = 2.0
_RETX_BURST = 32  # expired packets resent per retransmission scan
_SCALAR_PUMP = 24  # up to this many packets, the pump writes headers one by one (struct) instead of numpy
INIT_CWND = 64  # the congestion window's start (at most `window`)
MIN_CWND = 16  # a loss never halves it below this
CA_GAIN = 4.0  # congestion avoidance: packets the window grows per round trip
UNDO_SILENCE = 0.5  # a timeout cut is undoable only after no ack at all for this share of the timeout
UNDO_SPACING = 4  # ... and at least this many windows of seqs were sent since the last undo


class RingSender:
    """The sender state and methods of :class:`~trainer_hooks.transport.UdpRing` (a base class: the
    receiver and the job engine live there and call :meth:`_push`, :meth:`_pump`, :meth:`_on_ack`,
    :meth:`_retransmit`)."""

    def _init_sender(self, window: int, rto: float, world_size: int) -> None:
        self.window, self.rto = window, rto
        self._srtt: float | None = None  # smoothed RTT (Jacobson/Karels), Karn's rule for samples
        self._rttvar = 0.0
        self._cur_rto = rto
        # congestion window (see the module docstring): seqs allowed in flight, at most `window`
        self._cwnd = float(min(window, INIT_CWND))
        self._ssthresh = float(window)
        self._recover = 0  # no further cut until una reaches this seq (the nxt at the last cut)
        self._recovering = False
        # undoing a cut after a spurious timeout: [cwnd, ssthresh before the cut, resends not yet
        # reported back as duplicates] while armed; the receiver's duplicate count as last acked
        self._undo: list | None = None
        self._peer_dups = 0
        self._undo_after = 0  # no undo is armed until nxt passes this seq (UNDO_SPACING after the last)
        self._last_ack_at = 0.0  # when the last ack arrived (time.monotonic())
        cap = 1 << max(6, (window - 1).bit_length())
        self._cap, self._mask = cap, cap - 1
        self._una = self._nxt = 0
        self._hbuf = np.zeros((cap, _HLEN), dtype=np.uint8)  # the header of each slot, as sent
        self._h_flags, self._h_step = self._hbuf[:, _FLAGS], self._hbuf[:, _STEP]
        self._h_seq = self._hbuf[:, _SEQ].view(">u4")[:, 0]
        self._hmv = hb = memoryview(self._hbuf.reshape(-1))
        self._hv = [hb[i * _HLEN:(i + 1) * _HLEN] for i in range(cap)]
        self._flags_of_step = np.zeros(256, dtype=np.uint8)
        self._flags_of_step[world_size - 1] = _FINAL  # the first all-gather hop: the owner tags the chunk, once
        self._s_act: list = [None] * cap
        self._s_idx = np.zeros(cap, dtype=np.intp)
        self._s_sent = np.zeros(cap)
        self._s_dl = np.zeros(cap)
        self._s_state = np.zeros(cap, dtype=np.int64)  # retransmissions so far; -1: selectively acked
        # a lower bound of the deadlines in flight (exact after each retransmission scan, lowered by
        # each send): the loop sleeps until then, and only then scans the slots
        self._dl_low = float("inf")
        self._ar = np.arange(cap, dtype=np.int64)
        self._backlog: collections.deque = collections.deque()  # [act, [packet], [step], next] to send
        self._tx = None  # the compiled send (ring_native.NativeTx), set by the owner where it can run

    @property
    def cwnd(self) -> int:
        """Seqs the congestion window allows in flight now (at most ``window``)."""
        return int(self._cwnd)

    def in_flight(self) -> int:
        """Datagrams sent to the next rank and not acknowledged yet."""
        return (self._nxt - self._una) & _M32

    # -- congestion window ----------------------------------------------------------------
    def _on_loss(self) -> None:
        """A loss on the path: halve the window, once per round trip."""
        if self._recovering:
            return
        self._ssthresh = self._cwnd = min(float(self.window), max(float(MIN_CWND), self._cwnd / 2))
        self._recover = self._nxt
        self._recovering = True
        self.stats.cwnd_cuts += 1

    def _grow(self, acked: int) -> None:
        if self._recovering:
            if ((self._una - self._recover) & _M32) < 0x80000000:  # everything sent before the cut is acked
                self._recovering = False
            return
        c = self._cwnd
        if c < self.window:
            c = c + acked if c < self._ssthresh else c + CA_GAIN * acked / c
            self._cwnd = min(c, float(self.window))

    def _push(self, act: ActiveJob, idx: int, step: int) -> None:
        """Queue packet ``idx`` of ``act`` to be sent at ``step``."""
        bl = self._backlog
        g = bl[-1] if bl else None
        if g is None or g[0] is not act:
            bl.append([act, [idx], [step], 0])
        else:
            g[1].append(idx)
            g[2].append(step)

    # -- sockets ---------------------------------------------------------------------------
    def _drop(self) -> bool:
        """Fault injection: drop this outgoing datagram (seeded, one draw per datagram)?"""
        if self.loss_prob and self._rng.random() < self.loss_prob:
            self.stats.dropped_injected += 1
            return True
        return False

    def _send(self, addr, hs: list, ps: list, sizes: list) -> int:
        """Send datagrams ``hs[i] + ps[i]`` to ``addr`` in order (:func:`send_datagrams`); how many left."""
        sent, self._gso = send_datagrams(self.sock, addr, hs, ps, sizes, self._gso)
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
            run = items[i:j]
            self.stats.copies_sent += self._send(addr, [h for h, _, _ in run], [p for _, p, _ in run],
                                                 [len(h) + len(p) for h, p, _ in run])
            i = j

    def _transmit(self, hs: list, ps: list, sizes: list, pids: list) -> None:
        """Send (or resend) datagrams to the next rank; FINAL ones also to the shadows in host mode."""
        if self.loss_prob:
            keep = [not self._drop() for _ in hs]
            hs, ps, sizes, pids = ([x for x, k in zip(v, keep) if k] for v in (hs, ps, sizes, pids))
            if not hs:
                return
        k = self._send(self.next_addr, hs, ps, sizes)
        if self.final_copies is not None:
            fin = [(h, p, pid) for h, p, pid in zip(hs[:k], ps[:k], pids[:k]) if h[1] & _FINAL]
            if fin:
                self._send_copies(fin)

    def _pump(self, now: float) -> None:
        """Send queued packets while the congestion window (``cwnd`` seqs past the oldest unacked) allows."""
        bl = self._backlog
        if not bl:
            return
        # the congestion window, and never more than the receiver's buffer holds (a full buffer drops)
        cw = int(self._cwnd)
        capped = bl[0][0].index.flight_cap < cw
        if capped:
            cw = bl[0][0].index.flight_cap
        space = cw - ((self._nxt - self._una) & _M32)
        if space <= 0:
            return
        cap, mask, hv = self._cap, self._mask, self._hv
        host = self.final_copies is not None
        tx = self._tx  # the compiled send (None: Python's lists and socket calls)
        hs, ps, sizes, pids = [], [], [], []
        chunks = []  # with tx: (job, first slot, plan indices) per chunk taken
        finals = sent = 0
        dl = now + self._cur_rto
        first_ag = self.n - 1
        while space > 0 and bl:
            g = bl[0]
            act, il, sl, pos = g
            nxt = self._nxt
            s0 = nxt & mask
            m = min(space, len(il) - pos, cap - s0)
            end = pos + m
            li, ls = il[pos:end], sl[pos:end]
            if end == len(il):
                bl.popleft()
            else:
                g[3] = end
            s1 = s0 + m
            if m <= _SCALAR_PUMP:  # a few packets (one received datagram's worth): numpy's per-call cost
                job, ix = act.job, act.index  # would dominate, write them one by one
                hmv, pack, it, b = self._hmv, _HDR.pack_into, job.iteration, job.bucket
                for j, (i, step) in enumerate(zip(li, ls)):
                    pack(hmv, (s0 + j) * _HLEN, _VER, _FINAL if step == first_ag else 0, _FP32, step, self.job_id,
                         it, self.rank, b, ix.pid[i], ix.off[i], ix.cnt[i], 0, (nxt + j) & _M32)
                self._s_idx[s0:s1] = li
                if tx is not None:
                    chunks.append((act, s0, np.array(li, dtype=np.int64)))
            else:
                idx = np.array(li, dtype=np.int64)
                np.take(act.header_table(), idx, axis=0, out=self._hbuf[s0:s1])
                self._s_idx[s0:s1] = idx
                t0 = ls[0]
                if ls.count(t0) == m:  # one step (a forwarded GRO batch): scalar fills
                    self._h_step[s0:s1] = t0
                    self._h_flags[s0:s1] = self._flags_of_step[t0]
                else:
                    st = np.array(ls, dtype=np.uint8)
                    self._h_step[s0:s1] = st
                    self._h_flags[s0:s1] = self._flags_of_step[st]
                seqs = nxt + self._ar[:m]
                self._h_seq[s0:s1] = seqs if nxt + m <= _M32 else seqs & _M32
                if tx is not None:
                    chunks.append((act, s0, idx))
            self._s_act[s0:s1] = [act] * m
            self._s_sent[s0:s1] = now
            self._s_dl[s0:s1] = dl
            self._s_state[s0:s1] = 0
            self._nxt = (nxt + m) & _M32
            if tx is None:
                hs += hv[s0:s1]
                ix = act.index
                ps += map(act.views.__getitem__, li)
                sizes += map(ix.size_l.__getitem__, li)
                pids += map(ix.pid.__getitem__, li) if host else [0] * m
            finals += ls.count(first_ag)
            sent += m
            space -= m
        self.stats.data_sent += sent
        self.stats.finals_sent += finals
        self._dl_low = min(self._dl_low, dl)
        if bl:  # the window is full and more is queued: the last datagram asks for an ack at once
            if capped:
                self.stats.buffer_limited += 1
            self._hbuf[(self._nxt - 1) & mask, _AUX_LO] = ACK_REQUEST
            self.stats.ack_requests += 1
        if tx is None:
            self._transmit(hs, ps, sizes, pids)
        else:
            self._transmit_native(tx, chunks)

    def _transmit_native(self, tx, chunks: list) -> None:
        """The pump's chunks (``(job, first slot, plan indices)``) to the next rank by the compiled send
        (:func:`~trainer_hooks.ring_native.NativeTx.send`: the same datagrams and GSO runs as
        :func:`send_datagrams`, one ``sendmmsg`` per up to 16 runs, no Python object per datagram).  A
        full socket buffer ends it as it ends the Python send (the rest is a loss to the protocol); any
        other error hands the rest to the Python send, which decides about GSO."""
        for c, (act, s0, idx) in enumerate(chunks):
            sent, err = tx.send(s0, act.w, act.index.native(), idx)
            self.stats.native_sent += len(idx) if not err else sent
            if err:
                log.debug("compiled send failed (%s): the Python send takes the rest", os.strerror(err))
                self._tx = None
                hs, ps, sizes = [], [], []
                for a, first, ix in chunks[c:]:
                    li = ix.tolist()[sent:]
                    hs += self._hv[first + sent:first + sent + len(li)]  # a chunk's slots never wrap
                    ps += map(a.views.__getitem__, li)
                    sizes += map(a.index.size_l.__getitem__, li)
                    sent = 0
                self._transmit(hs, ps, sizes, [0] * len(hs))
                return
            if sent < len(idx):   # a full buffer: this chunk's rest and the later chunks are lost here,
                # as in the Python send (retransmission recovers them); they were the compiled send's
                self.stats.native_sent += sum(len(ix) for _a, _f, ix in chunks[c + 1:])
                return

    def _in_flight_slots(self):
        """Slots of the seqs in flight (una..nxt-1), oldest first: a slice unless they wrap the ring."""
        cnt = (self._nxt - self._una) & _M32
        s0 = self._una & self._mask
        if s0 + cnt <= self._cap:
            return slice(s0, s0 + cnt)
        return (s0 + self._ar[:cnt]) & self._mask

    def _next_deadline(self) -> float:
        """Earliest retransmission deadline of a datagram in flight that is not selectively acked."""
        s = self._in_flight_slots()
        d = self._s_dl[s][self._s_state[s] >= 0]
        return float(d.min()) if len(d) else float("inf")

    def _retransmit(self, now: float) -> None:
        """Resend expired packets, oldest first, at most ``_RETX_BURST`` per scan: when the timeout was
        spurious (a peer descheduled past it), the acks of the first ones usually cover the rest, and a
        whole window is not sent twice through a busy switch.  An expiry halves the congestion window
        (once per round trip): spurious or not, it says the path holds more than it delivers in time."""
        s = self._in_flight_slots()
        due = np.flatnonzero((self._s_dl[s] <= now) & (self._s_state[s] >= 0))[:_RETX_BURST]
        due = (due + s.start) if isinstance(s, slice) else s[due]
        if len(due):
            if not self._recovering:  # this expiry cuts the window: may it be undone if it was a stall?
                self._undo = ([self._cwnd, self._ssthresh, 0]
                              if now - self._last_ack_at > self._cur_rto * UNDO_SILENCE
                              and ((self._nxt - self._undo_after) & _M32) < 0x80000000 else None)
            self._on_loss()
            self._resend(due, now)
            if self._undo is not None:
                self._undo[2] += len(due)

    def _resend(self, due: np.ndarray, now: float) -> None:
        """Resend the datagrams of slots ``due`` with ``FLAG_RETX``; their timeouts double."""
        retries = self._s_state[due] + 1
        self._s_state[due] = retries
        dl = now + np.minimum(self._cur_rto * np.exp2(np.minimum(retries, 10)), _MAX_RTO)
        self._s_dl[due] = dl
        self._dl_low = min(self._dl_low, float(dl.min()))
        self._h_flags[due] |= _RETX  # FINAL, if set, is kept
        hs, ps, sizes, pids = [], [], [], []
        for slot, i in zip(due.tolist(), self._s_idx[due].tolist()):
            act = self._s_act[slot]
            hs.append(self._hv[slot])
            ps.append(act.views[i])
            sizes.append(act.index.size_l[i])
            pids.append(act.index.pid[i])
        self.stats.retransmits += len(hs)
        self._transmit(hs, ps, sizes, pids)

    def _on_ack(self, cum: int, sack: int, dups: int | None = None) -> None:
        """Cumulative ack ``cum`` (every seq below it arrived), the bitmap of ``cum+1 .. cum+16`` and
        the receiver's count of duplicates so far (``dups``, mod 2**32; None: not reported)."""
        self._last_ack_at = time.monotonic()
        if dups is not None:
            d = (dups - self._peer_dups) & _M32
            self._peer_dups = dups
            u = self._undo
            if u is not None and 0 < d < 0x80000000:
                u[2] -= d
                if u[2] <= 0:  # every resend since the cut had arrived before: the timeout was spurious
                    self._cwnd, self._ssthresh = max(self._cwnd, u[0]), max(self._ssthresh, u[1])
                    self._recovering = False
                    self._undo = None
                    self.stats.cwnd_undos += 1
                    self._undo_after = (self._nxt + UNDO_SPACING * self.window) & _M32
        una = self._una
        span = (self._nxt - una) & _M32
        d = (cum - una) & _M32
        sample = -1
        if 0 < d <= span:  # (an older ack, or one beyond what was sent, moves nothing)
            last = (cum - 1) & self._mask
            if self._s_state[last] >= 0:
                sample = last
            a, b = una & self._mask, cum & self._mask  # let go of the acked packets' jobs (their buckets)
            if a < b:
                self._s_act[a:b] = [None] * (b - a)
            else:
                self._s_act[a:] = [None] * (self._cap - a)
                self._s_act[:b] = [None] * b
            self._una = una = cum
            span -= d
            if not span:
                self._dl_low = float("inf")  # nothing in flight: no timer
            self._grow(d)
        if sack:
            state = self._s_state
            for i in range(_SACK_BITS):
                if sack >> i & 1:
                    s = (cum + 1 + i) & _M32
                    slot = s & self._mask
                    if ((s - una) & _M32) < span and state[slot] >= 0:
                        if state[slot] == 0:
                            sample = slot
                        state[slot] = -1
            if cum == una and span:  # holes below the highest seq that arrived: lost, not late
                self._undo = None  # a real loss: whatever cut is in force stays
                self._on_loss()
                holes = [s & self._mask for s in
                         [cum] + [(cum + 1 + i) & _M32 for i in range(sack.bit_length() - 1) if not sack >> i & 1]
                         if ((s - una) & _M32) < span]
                fast = [slot for slot in holes if state[slot] == 0]  # never resent yet: resend now
                if fast:
                    self.stats.fast_retransmits += len(fast)
                    self._resend(np.array(fast, dtype=np.intp), time.monotonic())
        if sample >= 0 and self._s_state[sample] <= 0:  # Karn: never time a retransmitted packet
            self._rtt_sample(time.monotonic() - self._s_sent[sample])

    def _rtt_sample(self, r: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = r, r / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - r)
            self._srtt = 0.875 * self._srtt + 0.125 * r
        self._cur_rto = min(max(self.rto, self._srtt + 4 * self._rttvar), _MAX_RTO)
