"""The ring's compiled receive loop (trainer_hooks/ring_native.c) against the Python engine's rules.

Real UDP sockets on loopback carry hand-made datagrams of a small plan to ``ring_rx``: what it takes
must be exactly what the Python path would take (same sums, bit for bit, same receive map, same
forward list, same sequence and ack counters), and it must stop -- leaving everything as it was for
that datagram -- at each kind of datagram the Python engine decides about: an ack, a packet out of
order, a duplicate, another job's, a truncated one.  The division of a bucket into wire order must give numpy's bits.
The end-to-end ring with and without it: tests/hooks/test_transport.py.
"""
from __future__ import annotations

import socket

import numpy as np
import pytest
import torch

from checkmate import wire
from trainer_hooks import ring_native as rn
from trainer_hooks.layout import plan_bucket
from trainer_hooks.ring_arrays import WIRE_F32, ActiveJob, Job, PlanIndex

LIB = rn.load()
pytestmark = pytest.mark.skipif(LIB is None, reason="the ring's native receive loop is not built here (no C compiler, or CHECKMATE_NATIVE=0)")

N, RANK, JOB_ID, IT, BUCKET = 3, 1, 7, 5, 2
PREV = (RANK - 1) % N


def special_values(k: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(k).astype(np.float32) * 1e3
    sp = np.array([np.inf, -np.inf, np.nan, 1e-40, -1e-45, -0.0, 3.4e38, 1.0], dtype=np.float32)
    x[:8] = sp[:k]
    return x


@pytest.mark.parametrize("k", [1, 7, 1000, 4099])
def test_division_into_wire_order_is_numpys_bits(k):
    x = special_values(k, k)
    for n in (1, 2, 3, 7):
        ours, ref = np.empty(k, WIRE_F32), np.empty(k, WIRE_F32)
        rn.to_wire_div(LIB, x, ours, n)
        np.divide(x, n, out=ref)
        assert ours.tobytes() == ref.tobytes()


class Rig:
    """Rank 1's receive side of a 3-rank job, the datagrams coming from rank 0 over loopback."""

    def __init__(self, total: int = 700, max_el: int = 100):
        self.plan = plan_bucket([(0, total - 40), (1, 40)], N, max_el)
        self.index = PlanIndex(self.plan, N, RANK, JOB_ID)
        self.bucket = torch.from_numpy(special_values(total, 1))
        self.act = ActiveJob(Job(IT, BUCKET, self.bucket, self.plan), self.index, N, lib=LIB)
        self.rx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx_sock.bind(("127.0.0.1", 0))
        self.rx_sock.setblocking(False)
        self.tx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rbuf = bytearray(1 << 16)
        self.nrx = rn.NativeRx(LIB, self.rbuf, ack_every=1000)
        keys = self.index.native()
        self.job_addr, self._refs = self.nrx.job_array(keys, self.act.recv_table(PREV), self.act.seen, self.act.w,
                                                       N, self.act.expected)
        self.rcv_next = 0

    def close(self):
        self.rx_sock.close()
        self.tx_sock.close()

    def expected_at(self, step: int) -> list[int]:
        """Plan indices rank 1 expects from rank 0 at ``step``."""
        npk = len(self.plan.packets)
        return [i for i in range(npk) if self.act.seen[step * npk + i] == 0]

    def datagram(self, i: int, step: int, seq: int, *, flags: int = 0, aux: int = 0, payload=None,
                 iteration: int = IT, count: int | None = None) -> bytes:
        p = self.plan.packets[i]
        cnt = p.count if count is None else count
        if payload is None:
            payload = special_values(p.count, 100 + i)[::-1].copy()
        h = wire.HEADER.pack(wire.WIRE_VERSION, flags, wire.DTYPE_FP32, step, JOB_ID, iteration, PREV, BUCKET,
                             p.param_id, p.offset, cnt, aux, seq)
        return h + payload.astype(WIRE_F32).tobytes()

    def send(self, *dgs: bytes) -> None:
        for d in dgs:
            self.tx_sock.sendto(d, self.rx_sock.getsockname())

    def rx(self, max_recvs: int = 64):
        st = self.nrx.st
        st[rn.S_RCV_NEXT:rn.S_RCV_NEXT + 7] = (self.rcv_next, 0, 0, self.act.received, 0, 0, 0)
        st[rn.S_MAX_RECVS] = max_recvs
        rc = self.nrx.rx(self.rx_sock.fileno(), self.job_addr)
        self.rcv_next = int(st[rn.S_RCV_NEXT])
        self.act.received = int(st[rn.S_RECEIVED])
        nout = int(st[rn.S_NOUT])
        return rc, dict(zip(rn.S_SLOTS, st.tolist())), list(zip(self.nrx.out_idx[:nout].tolist(),
                                                                 self.nrx.out_step[:nout].tolist()))


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.close()


def test_takes_in_order_data_as_the_python_path_would(rig):
    w0 = rig.act.w.copy()
    rs = rig.expected_at(0)  # reduce-scatter: added
    payloads = {i: special_values(rig.plan.packets[i].count, 200 + i) for i in rs}
    rig.send(*(rig.datagram(i, 0, s, payload=payloads[i], flags=wire.FLAG_RETX if s == 1 else 0)
               for s, i in enumerate(rs)))
    rc, st, out = rig.rx()
    assert rc == rn.R_AGAIN
    assert st["S_TAKEN"] == len(rs) and st["S_RCV_NEXT"] == len(rs) and st["S_ACK_DUE"] == len(rs)
    assert out == [(i, 1) for i in rs]  # forwarded at the next step
    npk = len(rig.plan.packets)
    ref = w0.copy()
    for i in rs:
        a, c = rig.index.boff[i], rig.plan.packets[i].count
        with np.errstate(over="ignore"):  # 3.4e38 + 3.4e38: inf, as in C
            ref[a:a + c] = (w0[a:a + c].astype(np.float32) + payloads[i]).astype(WIRE_F32)  # local + received
        assert rig.act.seen[i] == 1
    assert rig.act.w.tobytes() == ref.tobytes()
    assert sum(rig.act.seen[j] == 1 for j in range(npk)) == len(rs)
    # all-gather: copied as they are; the last hop (step 2n-3) is not forwarded
    last = 2 * N - 3
    ag = rig.expected_at(last)
    rig.send(*(rig.datagram(i, last, len(rs) + s) for s, i in enumerate(ag)))
    rc, st, out = rig.rx()
    assert st["S_TAKEN"] == len(ag) and out == []
    for i in ag:
        a, c = rig.index.boff[i], rig.plan.packets[i].count
        assert rig.act.w[a:a + c].tobytes() == special_values(c, 100 + i)[::-1].astype(WIRE_F32).tobytes()


@pytest.mark.parametrize("bad", ["ack", "seq_gap", "other_iteration", "truncated", "count", "step",
                                 "not_expected", "aux"])
def test_stops_at_what_python_decides_and_changes_nothing_for_it(rig, bad):
    rs = rig.expected_at(0)
    good = rig.datagram(rs[0], 0, 0)
    if bad == "ack":
        d = wire.HEADER.pack(wire.WIRE_VERSION, wire.FLAG_ACK, wire.DTYPE_FP32, 0, JOB_ID, 0, PREV, 0, 0, 0, 0, 0, 1)
    elif bad == "seq_gap":
        d = rig.datagram(rs[1], 0, 2)
    elif bad == "other_iteration":
        d = rig.datagram(rs[1], 0, 1, iteration=IT + 1)
    elif bad == "truncated":
        d = rig.datagram(rs[1], 0, 1)[:-4]
    elif bad == "count":
        d = rig.datagram(rs[1], 0, 1, count=3)
    elif bad == "step":
        d = rig.datagram(rs[1], 2 * N - 2, 1)
    elif bad == "not_expected":  # a packet of a segment rank 1 does not get at step 0
        d = rig.datagram(rig.expected_at(1)[0] if rig.expected_at(1)[0] not in rs else rs[1], 0, 1)
    else:  # aux other than 0 / ACK_REQUEST
        d = rig.datagram(rs[1], 0, 1, aux=7)
    rig.send(good)
    rc, st, out = rig.rx()
    assert (rc, st["S_TAKEN"], out) == (rn.R_AGAIN, 1, [(rs[0], 1)])
    w_before, seen_before = rig.act.w.tobytes(), bytes(rig.act.seen)
    rig.send(d)
    rc, st, out = rig.rx()
    assert rc == rn.R_REST and st["S_AT"] == 0 and st["S_NBYTES"] == len(d) and st["S_TAKEN"] == 0
    assert bytes(rig.rbuf[:len(d)]) == d  # left in the buffer for Python
    assert rig.rcv_next == 1 and rig.act.received == 1 and out == [] and st["S_ACK_DUE"] == 0
    assert rig.act.w.tobytes() == w_before and bytes(rig.act.seen) == seen_before


def test_duplicate_and_ack_request_and_done(rig):
    rs = rig.expected_at(0)
    rig.send(rig.datagram(rs[0], 0, 0, aux=1))  # ACK_REQUEST: taken, asks for an ack now
    rc, st, _ = rig.rx()
    assert st["S_TAKEN"] == 1 and st["S_ACK_NOW"] == 1
    rig.send(rig.datagram(rs[0], 0, 1))  # the same packet again, next seq: a protocol matter for Python
    rc, st, _ = rig.rx()
    assert rc == rn.R_REST and st["S_TAKEN"] == 0
    # every other expected packet, all steps, in order: the last one completes the job
    rig.rcv_next = 1
    seq = 1
    todo = [(t, i) for t in range(2 * N - 2) for i in rig.expected_at(t)]
    rig.send(*(rig.datagram(i, t, seq + k) for k, (t, i) in enumerate(todo)))
    rig.send(rig.datagram(rs[1] if len(rs) > 1 else rs[0], 0, seq + len(todo)))  # after the end: left over
    got = 0
    while True:
        rc, st, _ = rig.rx()
        got += st["S_TAKEN"]
        if rc != rn.R_AGAIN or got == len(todo):
            break
    assert rc == rn.R_DONE and rig.act.received == rig.act.expected
    assert got == len(todo)
    rc, st, _ = rig.rx()  # the datagram after the job's end is Python's
    assert rc == rn.R_REST and st["S_TAKEN"] == 0


def test_ack_due_and_limits(rig):
    rs = rig.expected_at(0)
    rig.nrx.st[rn.S_ACK_EVERY] = 2
    rig.send(*(rig.datagram(i, 0, s) for s, i in enumerate(rs[:3])))
    rc, st, _ = rig.rx()
    assert rc == rn.R_ACK and st["S_TAKEN"] == 2 and st["S_AT"] == st["S_NBYTES"]
    rc, st, _ = rig.rx(max_recvs=0)
    assert rc == rn.R_LIMIT and st["S_TAKEN"] == 0
    rig.nrx.st[rn.S_ACK_EVERY] = 1000
    rc, st, _ = rig.rx()
    assert rc == rn.R_AGAIN and st["S_TAKEN"] == 1


def replay(rig, buf: bytes, k: int, seg: int):
    st = rig.nrx.st
    st[rn.S_RECEIVED:rn.S_RECEIVED + 3] = (rig.act.received, 0, 0)
    st[rn.S_RCV_NEXT] = 77  # a kept batch's seqs were accounted for when it arrived: not read, not changed
    st[rn.S_ACK_DUE] = st[rn.S_ACK_NOW] = 0
    j = rig.nrx.replay(buf, k, seg, rig.job_addr)
    rig.act.received = int(st[rn.S_RECEIVED])
    nout = int(st[rn.S_NOUT])
    assert (st[rn.S_RCV_NEXT], st[rn.S_ACK_DUE], st[rn.S_ACK_NOW]) == (77, 0, 0)
    return j, int(st[rn.S_TAKEN]), list(zip(rig.nrx.out_idx[:nout].tolist(), rig.nrx.out_step[:nout].tolist()))


def test_replay_of_a_kept_batch_takes_what_ring_rx_would_whatever_its_seqs(rig):
    """A GRO batch kept before its job started: taken as ring_rx takes fresh data (same sums, map,
    forward list), seqs and acks left alone (accounted for when it arrived)."""
    rs = rig.expected_at(0)
    same = [i for i in rs if rig.plan.packets[i].count == rig.plan.packets[rs[0]].count]
    payloads = {i: special_values(rig.plan.packets[i].count, 300 + i) for i in same}
    w0 = rig.act.w.copy()
    dgs = [rig.datagram(i, 0, 1000 + s, payload=payloads[i], aux=1 if s == 0 else 0) for s, i in enumerate(same)]
    seg = len(dgs[0])
    j, taken, out = replay(rig, b"".join(dgs), len(dgs), seg)
    assert j == taken == len(same) and out == [(i, 1) for i in same]
    ref = w0.copy()
    for i in same:
        a, c = rig.index.boff[i], rig.plan.packets[i].count
        with np.errstate(over="ignore"):
            ref[a:a + c] = (w0[a:a + c].astype(np.float32) + payloads[i]).astype(WIRE_F32)
        assert rig.act.seen[i] == 1
    assert rig.act.w.tobytes() == ref.tobytes() and rig.act.received == len(same)


def test_replay_stops_at_the_first_datagram_python_decides(rig):
    """A duplicate (or anything take() refuses) ends the compiled part; the rest is Python's, untouched."""
    rs = rig.expected_at(0)
    a, b = rs[0], next(i for i in rs[1:] if rig.plan.packets[i].count == rig.plan.packets[rs[0]].count)
    dgs = [rig.datagram(a, 0, 5), rig.datagram(a, 0, 6), rig.datagram(b, 0, 7)]
    j, taken, out = replay(rig, b"".join(dgs), 3, len(dgs[0]))
    assert (j, taken, out) == (1, 1, [(a, 1)])
    w_after_first = rig.act.w.tobytes()
    assert rig.act.seen[b] == 0 and rig.act.received == 1
    j, taken, out = replay(rig, dgs[2], 1, len(dgs[2]))  # the one after the duplicate, on its own: taken
    assert (j, taken) == (1, 1) and rig.act.w.tobytes() != w_after_first


def _recv_all(sock, expect: int) -> list[bytes]:
    got = []
    sock.settimeout(2.0)
    while len(got) < expect:
        got.append(sock.recv(1 << 16))
    return got


@pytest.mark.parametrize("mtu_el", [100, 2235])
def test_compiled_send_puts_the_python_sends_datagrams_on_the_wire(mtu_el):
    """ring_send and ring_arrays.send_datagrams, given the same header slots, bucket and packets (runs
    of equal sizes, shorter packets inside and at the ends, a run longer than a GSO message holds, a
    start in the middle of the slot ring), deliver the same datagrams in the same order."""
    from trainer_hooks.ring_arrays import GSO_MAX_BYTES, GSO_MAX_SEGS, send_datagrams
    plan = plan_bucket([(0, 150 * mtu_el - 7), (1, 3), (2, 40 * mtu_el + 1)], N, mtu_el)
    index = PlanIndex(plan, N, RANK, JOB_ID)
    npk = len(plan.packets)
    order = list(range(npk)) + list(range(0, npk, 3)) + [npk - 1, 0, npk - 1]
    cap = 1 << (len(order) - 1).bit_length()
    rng = np.random.default_rng(mtu_el)
    hbuf = rng.integers(0, 256, size=(cap, wire.HEADER_LEN), dtype=np.uint8)
    w = special_values(plan.total, 5).astype(WIRE_F32)
    s0 = cap // 2 - 5  # the slots of datagram k: (s0 + k) mod cap
    rx = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for r in rx:
            r.bind(("127.0.0.1", 0))
            r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
        tx.setblocking(False)
        tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 23)
        ntx = rn.NativeTx(LIB, tx.fileno(), rn.sockaddr_in(rx[0].getsockname()), hbuf, cap - 1, GSO_MAX_SEGS,
                          GSO_MAX_BYTES)
        idx = np.array(order, dtype=np.int64)
        sent, err = ntx.send(s0, w, index.native(), idx)
        assert (sent, err) == (len(order), 0)
        hv = memoryview(hbuf.reshape(-1))
        wb = memoryview(w).cast("B")
        hs = [hv[((s0 + k) % cap) * wire.HEADER_LEN:((s0 + k) % cap + 1) * wire.HEADER_LEN] for k in range(len(order))]
        ps = [wb[4 * index.boff[i]:4 * (index.boff[i] + index.cnt[i])] for i in order]
        sizes = [wire.HEADER_LEN + 4 * index.cnt[i] for i in order]
        left, gso = send_datagrams(tx, rx[1].getsockname(), hs, ps, sizes, True)
        assert left == len(order) and gso
        ours, ref = _recv_all(rx[0], len(order)), _recv_all(rx[1], len(order))
        assert ours == ref
        assert ref[0] == bytes(hs[0]) + bytes(ps[0]) and len({len(d) for d in ref}) > 1
    finally:
        for s in rx + [tx]:
            s.close()


def test_compiled_send_reports_an_error_for_python_to_take_over():
    """A failed call (here a closed descriptor) is an errno, nothing sent: the pump hands the rest to
    the Python send."""
    import errno
    plan = plan_bucket([(0, 500)], N, 100)
    index = PlanIndex(plan, N, RANK, JOB_ID)
    hbuf = np.zeros((8, wire.HEADER_LEN), dtype=np.uint8)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fd = s.fileno()
    s.close()
    ntx = rn.NativeTx(LIB, fd, rn.sockaddr_in(("127.0.0.1", 9)), hbuf, 7, 64, 60000)
    sent, err = ntx.send(0, np.zeros(plan.total, WIRE_F32), index.native(), np.arange(3, dtype=np.int64))
    assert (sent, err) == (0, errno.EBADF)
    assert rn.sockaddr_in(("::1", 9)) is None and rn.sockaddr_in("/tmp/x") is None
