"""Unit tests of the reassembly logic (no sockets): placement, coverage, dedupe, window, restart."""
import pytest
import torch

from checkmate import wire
from shadow.ingest import Counters, Reassembler
from shadow.layout import ShardLayout
from shadow.packets import gradient_packets
from shadow.protocol import ParamSpec, ProtocolError

PARAMS = [ParamSpec(0, "a", (10, 10), "float32"), ParamSpec(1, "b", (7,), "float32"),
          ParamSpec(2, "c", (33,), "bfloat16"), ParamSpec(3, "d", (5,), "float32")]
OWNER = {0: 0, 1: 1, 2: 0, 3: 0}


def _feed(r, pkts):
    buf = bytearray(65536)
    mv = memoryview(buf)
    done = False
    for p in pkts:
        buf[:len(p)] = p
        done |= r.ingest(buf, mv, len(p))
    return done


def _make(ring=3, head=1):
    lay = ShardLayout.build(PARAMS, OWNER, 0)
    return lay, Reassembler(lay, 5, head, ring, Counters())


def _grads(seed=0):
    g = torch.Generator().manual_seed(seed)
    return {0: torch.randn(10, 10, generator=g), 2: torch.randn(33, generator=g).to(torch.bfloat16),
            3: torch.randn(5, generator=g)}


def test_layout_is_aligned_and_rejects_bad_specs():
    lay = ShardLayout.build(PARAMS, OWNER, 0)
    assert lay.owned == [0, 2, 3] and lay.byte_base[1] == -1
    assert all(lay.byte_base[p] % 64 == 0 for p in lay.owned)
    assert lay.total_elems == 100 + 33 + 5
    with pytest.raises(ProtocolError, match="'param_id'"):
        ShardLayout.build(PARAMS[1:], OWNER, 0)
    with pytest.raises(ProtocolError, match="'dtype'"):
        ShardLayout.build([ParamSpec(0, "x", (3,), "int64")], {0: 0}, 0)


def test_placement_is_exact_in_any_cut_and_order():
    lay, r = _make()
    g = _grads()
    pk = gradient_packets(5, 1, g, elems=9, order="little")[::-1]
    assert _feed(r, pk)
    slot = r.slots[1]
    for pid, t in g.items():
        got = torch.frombuffer(slot.buf, dtype=t.dtype, count=t.numel(), offset=lay.byte_base[pid]).view(t.shape)
        assert torch.equal(got, t)
    assert r.c.duplicates == 0 and r.c.bytes_received == 100 * 4 + 33 * 2 + 5 * 4


def test_duplicates_and_partial_overlap():
    lay, r = _make()
    g = _grads()
    a = gradient_packets(5, 1, g, elems=10)
    b = gradient_packets(5, 1, g, elems=7, retx=True)
    assert not _feed(r, a[:3])  # param 0 elements 0..29
    assert r.slots[1].filled == 30
    _feed(r, b[:4])  # 0..27: all covered -> 4 duplicates
    assert r.c.duplicates == 4 and r.slots[1].filled == 30
    _feed(r, b[4:5])  # 28..34: partial overlap, 5 new
    assert r.c.duplicates == 4 and r.slots[1].filled == 35
    assert _feed(r, a)  # completes; a[0..2] are duplicates, a[3] (30..39) still brings 35..39
    assert r.c.duplicates == 4 + 3


def test_duplicate_accounting_precise():
    _, r = _make()
    g = _grads()
    a = gradient_packets(5, 1, g, elems=10)
    _feed(r, a)
    assert r.c.duplicates == 0
    _feed(r, a)
    assert r.c.duplicates == len(a)


def test_rejects_name_the_field_and_change_nothing():
    _, r = _make()
    good = gradient_packets(5, 1, _grads(), elems=10)[0]
    h = wire.ChunkHeader.unpack(good)
    body = good[32:]
    for field, pkt in {"job_id": h.replace(job_id=6).pack() + body,
                       "param_id": h.replace(param_id=1).pack() + body,
                       "dtype": h.replace(dtype=wire.DTYPE_FP16, count=10).pack() + body[:20],
                       "flags": h.replace(flags=wire.FLAG_FINAL | wire.FLAG_ACK).pack() + body}.items():
        before = r.c.rejected
        _feed(r, [pkt])
        assert r.c.rejected == before + 1 and f"'{field}'" in r.c.last_error
    assert not r.slots


def test_window_overflow_declares_one_loss_then_slides():
    _, r = _make(ring=3)
    g = _grads()
    _feed(r, gradient_packets(5, 1, g)[:-1])
    for it in (2, 3):
        _feed(r, gradient_packets(5, it, g))
    assert not r.needs_resync
    _feed(r, gradient_packets(5, 4, g))
    assert r.needs_resync and r.c.losses == 1 and "window" in r.c.last_error
    assert sorted(r.slots) == [2, 3, 4]
    _feed(r, gradient_packets(5, 5, g))  # while resyncing: the oldest buffer is evicted, no new loss
    assert sorted(r.slots) == [3, 4, 5] and r.c.losses == 1
    r.restart(4)  # bootstrap at 3: keep 4 and 5, drop 3
    assert sorted(r.slots) == [4, 5] and not r.needs_resync and all(r.slots[i].complete for i in (4, 5))


def test_stale_iterations_are_duplicates():
    _, r = _make(head=10)
    _feed(r, gradient_packets(5, 9, _grads()))
    assert not r.slots and r.c.duplicates > 0


def test_drain_takes_a_stream_exactly_as_ingest_does():
    """The batch path (Reassembler.drain, what the node's ingest thread runs) against one ingest() call
    per datagram on the same stream -- valid chunks cut two ways, duplicates, partial overlaps, another
    shard's param, a bad flag, a short datagram, stale and future iterations, the window sliding -- with
    the same buffers, counters and results; refusals of a source filter (-1) are skipped."""
    import random
    rnd = random.Random(3)
    stream = []
    for it in range(1, 8):
        g = _grads(it)
        pk = gradient_packets(5, it, g, elems=9) + gradient_packets(5, it, g, elems=13)[::2]
        pk += gradient_packets(5, it, {1: torch.randn(7)}, elems=4)  # shard 1's param
        if it == 3:
            pk.append(gradient_packets(5, it, g, elems=9)[0][:20])  # shorter than a header
            bad = bytearray(gradient_packets(5, it, g, elems=9)[1])
            bad[1] = wire.FLAG_ACK
            pk.append(bytes(bad))
        if it == 5:
            pk += gradient_packets(5, 1, g, elems=9)[:3]  # stale
            pk += gradient_packets(5, 12, g, elems=9)[:2]  # far ahead: the window slides
        rnd.shuffle(pk)
        stream += pk
    _, r1 = _make()
    _, r2 = _make()
    skipped = set(range(0, len(stream), 17))  # refused by a source filter: never taken
    want = []
    buf = bytearray(65536)
    mv = memoryview(buf)
    for i, p in enumerate(stream):
        if i not in skipped:
            buf[:len(p)] = p
            want.append(r1.ingest(buf, mv, len(p)))
    feed = iter([None if i % 17 == 0 else p for i, p in enumerate(stream)])  # None: a filtered datagram

    def recv_into(b):
        p = next(feed, ...)
        if p is ...:
            raise BlockingIOError
        if p is None:
            return -1
        b[:len(p)] = p
        return len(p)

    got, completed = 0, False
    while True:
        n, done, any_done, idle, err = r2.drain(recv_into, buf, mv, limit=5)
        assert not err
        got += n
        completed |= any_done
        if idle:
            break
    assert got == len(want) and completed == any(want) and 0 < sum(want) < len(want)
    c1, c2 = r1.c, r2.c
    assert (c1.bytes_received, c1.rejected, c1.misrouted, c1.losses) == (c2.bytes_received, c2.rejected, c2.misrouted, c2.losses)
    assert c2.packets == got and c1.duplicates == c2.duplicates > 0 and c1.rejected > 0 and c1.misrouted > 0
    assert sorted(r1.slots) == sorted(r2.slots) and r1.needs_resync == r2.needs_resync
    for it, s in r1.slots.items():
        assert s.filled == r2.slots[it].filled and s.cov == r2.slots[it].cov and s.buf == r2.slots[it].buf
