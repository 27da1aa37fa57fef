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
    c.published_ok(3)
    # the trainer learns it with the next manifest, then resyncs shard 1 from its state after step 3
    for s in range(2):
        c.send(s, c.packets(4, s))
    acks = c.manifest(4)
    assert [a.needs_resync for a in acks] == [False, True]
    assert acks[1].latest_iteration == 2
    c.bootstrap(3, shards=[1], resync=True)  # state after step 3; iteration 4 is already buffered
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
    exact, extras, sent = [0, 0], [0, 0], [0, 0]
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
            sent[s] += len(stream)
        # the accounting below needs every datagram in before the manifest: a skipped iteration is
        # applied at its manifest, and its late datagrams would all count as stale duplicates
        for s in range(2):
            assert c.nodes[s].wait_for(lambda n: n.counters.packets == sent[s], 20)
        c.manifest(it)
        assert c.wait_latest(it)
        c.check(it)
        c.published_ok(it)
    for s, n in enumerate(c.nodes):
        # an iteration completes before all of its retransmissions are read: let them drain
        assert n.wait_for(lambda n: n.counters.packets == sent[s], 20), (s, n.status(), sent)
        st = n.status()
        assert st.losses == 0 and not st.needs_resync
        # of each (original, exact retransmission) pair the later one is a duplicate; each of the
        # two differently cut packets can additionally cover one (small) original completely
        assert exact[s] <= st.duplicates <= extras[s] + 2 * len(run.steps), (s, st, exact, extras)
    # stale packets of an applied iteration count as duplicates and change nothing
    before = c.nodes[0].status().duplicates
    stale = c.packets(2, 0)
    c.send(0, stale)
    assert c.nodes[0].wait_for(lambda n: n.counters.duplicates == before + len(stale), 20)
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
    c.published_ok(0)
    ack = c.clients[0].manifest(run.steps[4].manifest)
    assert ack.needs_resync
    c.bootstrap(4, resync=True)
    c.check(4)
    c.send(0, c.packets(5, 0))
    c.manifest(5)
    assert c.wait_latest(5)
    c.check(5)


@pytest.mark.timeout(60)
def test_late_manifest_is_not_a_loss_but_missing_data_is(reference_run, cluster):
    """Complete data waiting for a late manifest is kept past the timeout; incomplete data is lost."""
    run = reference_run(True)
    c = cluster(run, shards=1, loss_timeout=0.2)
    c.bootstrap(0)
    c.send(0, c.packets(1, 0) + c.packets(2, 0))
    assert not c.clients[0].manifest(run.steps[1].manifest).needs_resync  # manifest 2 before 1
    n = c.nodes[0]
    assert n.wait_for(lambda n: n.status().pending == 2 and all(x.complete for x in n._reasm.slots.values()), 20)
    time.sleep(0.6)  # three loss timeouts
    st = n.status()
    assert st.losses == 0 and not st.needs_resync and st.latest_iteration == 0 and st.pending == 2
    c.clients[0].manifest(run.steps[0].manifest)  # the late manifest 1
    assert c.wait_latest(2)
    c.check(2)
    # iteration 3: manifest in, one packet missing -> lost after the timeout
    c.send(0, c.packets(3, 0)[1:])
    c.manifest(3)
    assert n.wait_for(lambda n: n.status().needs_resync, 5)
    st = n.status()
    assert st.latest_iteration == 2 and st.losses == 1 and "manifest in" in st.last_error
    c.published_ok(2)


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


@pytest.mark.timeout(90)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_faults_soak(reference_run, cluster, seed):
    """12 iterations, 2 shards, random drop / duplicate / reorder across adjacent iterations; the trainer
    resyncs whenever an ack asks.  Every state ever published is exact; losses are counted; the
    final iteration is reached exactly."""
    run = reference_run(True, iters=12)
    c = cluster(run, loss_timeout=0.25)
    c.bootstrap(0)
    rng = random.Random(seed)
    dropped = [0, 0]
    carry = [[], []]  # packets held back into the next iteration (reordering across iterations)
    for it in range(1, 13):
        for s in range(2):
            pk = c.packets(it, s, elems=rng.choice([64, 128, 367]))
            out = []
            for p in pk:
                r = rng.random()
                if r < 0.03:
                    dropped[s] += 1
                    continue
                out.append(p)
                if r > 0.9:
                    out.append(p)
            late = [p for p in out if rng.random() < 0.1]
            out = [p for p in out if p not in late] + carry[s]
            carry[s] = late
            rng.shuffle(out)
            c.send(s, out)
        acks = c.manifest(it)
        time.sleep(0.02)
        for s, a in enumerate(acks):
            if a.needs_resync:
                c.bootstrap(it, shards=[s], resync=True)  # the trainer's state after step `it`
    for s in range(2):
        c.send(s, carry[s])
    # give the last iteration time to complete or be declared lost, then resync any laggard
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        sts = [n.status() for n in c.nodes]
        if all(st.latest_iteration == 12 or st.needs_resync for st in sts):
            break
        time.sleep(0.05)
    for s, st in enumerate(sts):
        if st.latest_iteration != 12:
            assert st.needs_resync
            c.bootstrap(12, shards=[s], resync=True)
    c.check(12)
    c.published_ok(12)
    for s, n in enumerate(c.nodes):  # a dropped packet always ends in a counted loss
        assert (n.status().losses >= 1) if dropped[s] else True, (s, dropped, n.status())
    assert sum(dropped) > 0  # the seeds do inject loss
    assert all(len(n.published) >= 2 for n in c.nodes)


@pytest.mark.timeout(60)
def test_restart_bootstrap_discards_a_previous_runs_buffers(reference_run, cluster):
    """A trainer restarted from iteration 2 must not inherit iteration-3 gradients of its previous run
    that the shadow had buffered; a resync (resync=True) of the same run keeps them."""
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.bootstrap(0)
    for it in (1, 2):
        c.send(0, c.packets(it, 0))
        c.manifest(it)
    assert c.wait_latest(2)
    old = c.run.steps[5].grads  # "iteration 3" of the crashed run: other gradients
    from shadow.packets import gradient_packets
    before = c.nodes[0].counters.packets
    c.send(0, gradient_packets(7, 3, old)[:5])
    # all five buffered (the ingest thread may nap between datagrams of a partial iteration)
    assert c.nodes[0].wait_for(lambda n: n.counters.packets == before + 5 and n.status().pending == 1, 5)
    c.bootstrap(2)  # restart from the shadows' checkpoint 2
    assert c.nodes[0].status().pending == 0
    c.send(0, c.packets(3, 0))
    c.manifest(3)
    assert c.wait_latest(3)
    c.check(3)
    c.published_ok(3)


@pytest.mark.timeout(60)
def test_failing_step_is_never_published(reference_run, cluster, monkeypatch):
    """Fault injection: the optimizer step raises half-way -> loss, latest unchanged, resync recovers."""
    from shadow.replay import AdamWReplica
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.bootstrap(0)
    c.send(0, c.packets(1, 0))
    c.manifest(1)
    assert c.wait_latest(1)
    real = AdamWReplica.step

    def broken(self, manifest, buf):
        for p in self.params.values():  # corrupt the working state, then fail
            p.data.add_(1.0)
        raise RuntimeError("injected: step crashed")
    monkeypatch.setattr(AdamWReplica, "step", broken)
    c.send(0, c.packets(2, 0))
    c.manifest(2)
    n = c.nodes[0]
    assert n.wait_for(lambda n: n.status().needs_resync, 5)
    assert n.status().latest_iteration == 1 and "injected" in n.status().last_error
    c.published_ok(1)
    c.check(1)
    monkeypatch.setattr(AdamWReplica, "step", real)
    assert c.manifest(2)[0].needs_resync
    c.bootstrap(2, resync=True)
    c.send(0, c.packets(3, 0))
    c.manifest(3)
    assert c.wait_latest(3)
    c.check(3)
