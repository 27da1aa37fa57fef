"""Loss, reordering and duplication injected into the replicated stream.

Nothing wrong is ever published (every published iteration is bitwise the trainer's), losses are
counted, ``needs_resync`` reaches the trainer through the ManifestAck, and a resync (a new
Bootstrap from the trainer's state) restores exact replay of the following iterations.
"""
import dataclasses
import random
import time

import pytest

from checkmate import wire


def _published_ok(c, it_max):
    """Every shard's latest and previous are iterations <= it_max and equal the trainer's."""
    for s, n in enumerate(c.nodes):
        for snap in (n.latest, n.previous):
            if snap is None:
                continue
            assert snap.iteration <= it_max
            params, opt = c.run.state(snap.iteration)
            c_owned = c.owned(s)
            from conftest import assert_state_equal  # noqa: PLC0415 (conftest is importable in-process)
            assert_state_equal(snap, params, opt, c_owned)


@pytest.fixture(autouse=True)
def _conftest_on_path():
    import sys
    from pathlib import Path
    p = str(Path(__file__).parent)
    added = p not in sys.path
    if added:
        sys.path.insert(0, p)
    yield
    if added:
        sys.path.remove(p)


@pytest.mark.timeout(60)
def test_lost_packet_times_out_is_counted_and_resync_restores_exactness(reference_run, cluster):
    run = reference_run(True)
    c = cluster(run, loss_timeout=0.3)
    c.bootstrap(0)
    for it in (1, 2):
        for s in range(2):
            c.send(s, c.packets(it, s))
        c.manifest(it)
    assert c.wait_latest(2)
    # iteration 3: shard 1 loses one packet (the middle one)
    c.send(0, c.packets(3, 0))
    pk = c.packets(3, 1)
    del pk[len(pk) // 2]
    c.send(1, pk)
    acks = c.manifest(3)
    assert c.wait_latest(3, shards=[0])
    assert c.nodes[1].wait_for(lambda n: n.status().needs_resync, 5)
    st = c.nodes[1].status()
    assert st.losses == 1 and st.latest_iteration == 2 and "iteration 3" in st.last_error
    _published_ok(c, 3)
    # the trainer learns it with the next manifest, then resyncs shard 1 from its state after step 3
    for s in range(2):
        c.send(s, c.packets(4, s))
    acks = c.manifest(4)
    assert [a.needs_resync for a in acks] == [False, True]
    assert acks[1].latest_iteration == 2
    c.bootstrap(3, shards=[1])  # state after step 3; iteration 4's packets are already buffered or stale
    # iteration 4 was received before the resync: shard 1 keeps the buffer and applies it
    assert c.wait_latest(4)
    c.check(4)
    for it in range(5, len(run.steps) + 1):
        for s in range(2):
            c.send(s, c.packets(it, s))
        assert not any(a.needs_resync for a in c.manifest(it))
        assert c.wait_latest(it)
        c.check(it)
    assert c.nodes[1].status().losses == 1 and c.nodes[0].status().losses == 0


@pytest.mark.timeout(60)
def test_reordering_and_duplicates_are_harmless(reference_run, cluster):
    run = reference_run(False)
    c = cluster(run, loss_timeout=5.0)
    c.bootstrap(0)
    rng = random.Random(7)
    exact, extras = [0, 0], [0, 0]
    for it in range(1, len(run.steps) + 1):
        for s in range(2):
            pk = c.packets(it, s, elems=100)
            retx = c.packets(it, s, elems=100, retx=True)  # retransmissions keep FINAL and add RETX
            extra = rng.sample(retx, k=max(1, len(retx) // 3))
            exact[s] += len(extra)
            # an overlapping retransmission cut differently (partial overlap, same bits)
            extra += c.packets(it, s, elems=64, retx=True)[:2]
            stream = pk + extra
            rng.shuffle(stream)
            c.send(s, stream)
            extras[s] += len(extra)
        c.manifest(it)
        assert c.wait_latest(it)
        c.check(it)
        _published_ok(c, it)
    for s, n in enumerate(c.nodes):
        st = n.status()
        assert st.losses == 0 and not st.needs_resync
        # of each (original, exact retransmission) pair the later one is a duplicate; the
        # differently cut pair can additionally cover one original completely per iteration
        assert exact[s] <= st.duplicates <= extras[s] + len(run.steps), (s, st, exact, extras)
    # stale packets of an applied iteration count as duplicates and change nothing
    before = c.nodes[0].status().duplicates
    stale = c.packets(2, 0)
    c.send(0, stale)
    assert c.nodes[0].wait_for(lambda n: n.counters.duplicates == before + len(stale), 5)
    c.check(len(run.steps))


@pytest.mark.timeout(60)
def test_window_overflow_declares_loss_immediately_and_nothing_partial_is_published(reference_run, cluster):
    run = reference_run(True)
    c = cluster(run, shards=1, loss_timeout=30.0, ring=3)
    c.bootstrap(0)
    pk = c.packets(1, 0)
    c.send(0, pk[:-1])  # iteration 1 never completes
    for it in (1, 2, 3, 4):
        c.manifest(it)
    for it in (2, 3, 4):
        c.send(0, c.packets(it, 0))
    n = c.nodes[0]
    assert n.wait_for(lambda n: n.status().needs_resync, 5)
    st = n.status()
    assert st.losses == 1 and st.latest_iteration == 0 and "window" in st.last_error
    _published_ok(c, 0)
    ack = c.clients[0].manifest(run.steps[4].manifest)
    assert ack.needs_resync
    c.bootstrap(4)
    c.check(4)
    c.send(0, c.packets(5, 0))
    c.manifest(5)
    assert c.wait_latest(5)
    c.check(5)


@pytest.mark.timeout(60)
def test_missing_manifest_with_later_evidence_times_out(reference_run, cluster):
    """All packets of 1 and 2 arrive, only manifest 2 does: 1 is never applied, loss after the timeout."""
    run = reference_run(True)
    c = cluster(run, shards=1, loss_timeout=0.3)
    c.bootstrap(0)
    c.send(0, c.packets(1, 0) + c.packets(2, 0))
    ack = c.clients[0].manifest(run.steps[1].manifest)
    assert not ack.needs_resync
    n = c.nodes[0]
    assert n.wait_for(lambda n: n.status().needs_resync, 5)
    assert n.status().latest_iteration == 0 and n.status().losses == 1
    _published_ok(c, 0)


@pytest.mark.timeout(60)
def test_bad_packets_are_rejected_with_the_field_named(reference_run, cluster):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.bootstrap(0)
    good = c.packets(1, 0)
    h = wire.ChunkHeader.unpack(good[0])
    body = good[0][wire.HEADER_LEN:]
    cases = {
        "job_id": h.replace(job_id=99).pack() + body,
        "param_id": h.replace(param_id=1).pack() + body,  # owned by shard 1
        "flags": h.replace(flags=0).pack() + body,  # untagged (reduce-scatter) packet
        "offset": h.replace(offset=10_000).pack() + body,
        "version": bytes([9]) + good[0][1:],
        "count": good[0][:-4],  # truncated payload
    }
    n = c.nodes[0]
    for field, pkt in cases.items():
        before = n.status().rejected
        c.send(0, [pkt])
        assert n.wait_for(lambda n: n.counters.rejected > before, 5), field
        assert f"'{field}'" in n.status().last_error, (field, n.status().last_error)
    c.send(0, [b"\x01\x01"])  # shorter than a header
    assert n.wait_for(lambda n: n.counters.rejected == len(cases) + 1, 5)
    # the good stream still completes exactly
    c.send(0, good)
    c.send(1, c.packets(1, 1))
    c.manifest(1)
    assert c.wait_latest(1)
    c.check(1)


@pytest.mark.timeout(30)
def test_bad_control_messages_get_clear_errors(reference_run, cluster):
    from shadow.protocol import ShadowError
    run = reference_run(True)
    c = cluster(run, shards=1)
    cl = c.clients[0]
    with pytest.raises(ShadowError, match="nothing published"):
        cl.fetch()
    assert cl.manifest(run.steps[0].manifest).needs_resync  # not bootstrapped yet
    c.bootstrap(0)
    with pytest.raises(ShadowError, match="'lrs'"):
        cl.manifest(dataclasses.replace(run.steps[0].manifest, lrs=[1e-3]))
    with pytest.raises(ShadowError, match="'job_id'"):
        cl.manifest(dataclasses.replace(run.steps[0].manifest, job_id=3))
    params, _ = run.state(0)
    from shadow.protocol import Bootstrap
    with pytest.raises(ShadowError, match="'shard'"):
        cl.bootstrap(Bootstrap(c.map.job_id, 5, 0, run.params, c.map, run.spec, {}, {}))
    bad = {p: params[p] for p in c.owned(0)}
    bad[0] = bad[0][:1]
    with pytest.raises(ShadowError, match=r"tensors\[0\]"):
        cl.bootstrap(Bootstrap(c.map.job_id, 0, 0, run.params, c.map, run.spec, bad, {}))
    # still serving, state intact
    time.sleep(0.05)
    c.check(0)
