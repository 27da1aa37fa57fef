"""Acks of posted manifests, on two real shadow nodes fed by a real ShadowLink.

The link reads the acks in batches (``ack_batch`` posts or ``ack_interval`` seconds, whichever
first), and asks the shadows (``hello``) to ack cumulatively: one ack per ``ack_batch`` manifests,
at once for anything the trainer acts on.  flush() still reads the exact state (a sync); a shard's
resync request is noticed by time alone -- no flush, no batch filled -- and served; a shadow that
predates cumulative acks (it refuses ``hello``) acks every manifest and the link copes."""
import time

from shadow import connio
from shadow.protocol import ProtocolError
from tests.linkrig import link_rig


def _latest(n):
    return n.latest.iteration if n.latest else 0


def test_shadows_ack_every_ack_batch_manifests_and_all_at_flush(tmp_path):
    with link_rig(tmp_path, 43, link_attrs={"ack_batch": 4, "ack_interval": 3600.0}) as (link, nodes, feed):
        assert [c.acked_every for c in link.clients] == [4, 4]  # negotiated at the bootstrap's connect
        feed(1)
        assert all(n.wait_for(lambda n: _latest(n) == 1, 10) for n in nodes)  # (acked before replayed)
        for it in range(2, 8):
            feed(it)
        # the shadows replayed (and acked what they ack: a shadow acks before it replays) all seven ...
        assert all(n.wait_for(lambda n: _latest(n) == 7, 10) for n in nodes)
        # ... and the training thread has read none of the acks yet (it read after post 4: ack 1 only)
        assert [c.posted for c in link.clients] == [6, 6]
        assert [a.iteration for a in link.stats.acks] == [1, 1]  # the first ack is sent at once
        feed(8)  # the 8th post reads what arrived: the ack of 1 and one for 2..5; 6, 7, 8 are held
        assert [c.posted for c in link.clients] == [3, 3]
        assert [a.iteration for a in link.stats.acks] == [5, 5]
        assert [c.ack_frames for c in link.clients] == [2, 2]  # (per manifest: 5 by now)
        assert link.flush(10)  # flush() asks for the held ack (a sync) and reads every outstanding one
        assert [c.posted for c in link.clients] == [0, 0]
        assert [a.iteration for a in link.stats.acks] == [8, 8]
        assert all(a.latest_iteration >= 7 for a in link.stats.acks)  # the sync answers with the state now
        assert [c.ack_frames for c in link.clients] == [3, 3]
        assert link.stats.errors == 0 and link.stats.resyncs == 0
        # an ordinary request reads the held acks on its way (the shadow sends them before its reply)
        for it in (9, 10):
            feed(it)
        assert [c.status().latest_iteration is not None for c in link.clients] == [True, True]
        assert [c.posted for c in link.clients] == [0, 0] and [a.iteration for a in link.stats.acks] == [8, 8]
        assert link.flush(10) and [a.iteration for a in link.stats.acks] == [10, 10]


def test_a_shadow_without_cumulative_acks_acks_every_manifest(tmp_path, monkeypatch):
    def old_shadow(self, body):  # what a shadow of the previous protocol answers to hello
        raise ProtocolError("field 'op': unknown request 'hello'")
    monkeypatch.setattr(connio.ConnAcks, "hello", old_shadow)
    with link_rig(tmp_path, 45, link_attrs={"ack_batch": 4, "ack_interval": 3600.0}) as (link, nodes, feed):
        assert [c.acked_every for c in link.clients] == [1, 1] and link.stats.errors == 0
        for it in range(1, 8):
            feed(it)
        assert all(n.wait_for(lambda n: _latest(n) == 7, 10) for n in nodes)
        feed(8)  # acks 1..7 arrived one by one (the 8th may have too); the 8th post reads them unless
        # the link thread holds that client then (a read that never waits: CI of 5c7e5091, posted [2, 1])
        assert link.flush(10) and [c.posted for c in link.clients] == [0, 0]
        assert [a.iteration for a in link.stats.acks] == [8, 8] and [c.ack_frames for c in link.clients] == [8, 8]
        assert link.stats.errors == 0 and link.stats.resyncs == 0


def test_a_resync_request_is_noticed_within_the_ack_interval(tmp_path):
    # ack_batch so large that only time triggers a read here, and the shadows would hold their acks
    # for 1024 manifests -- but a resync need is acked at once
    with link_rig(tmp_path, 44, link_attrs={"ack_batch": 10_000, "ack_interval": 0.2},
                  loss_timeout=0.3) as (link, nodes, feed):
        assert [c.acked_every for c in link.clients] == [1024, 1024]  # the shadow's cap
        feed(1)
        feed(2, drop_shard=1)  # shard 1 never gets iteration 2's gradient: it declares a loss
        assert nodes[1].wait_for(lambda n: n.counters.losses >= 1, 10)
        it, t_loss = 2, time.monotonic()
        while link.stats.resyncs == 0:  # posting only: no flush, no status call
            assert time.monotonic() - t_loss < 5, "the resync request was not noticed"
            it += 1
            feed(it)
            time.sleep(0.02)
        # noticed within the interval (plus the iteration that carried the request; generous for a
        # loaded machine), and served right there by on_record, from the training thread
        assert time.monotonic() - t_loss < 0.2 + 1.5
        assert link.stats.shadow_losses == [0, 1]
        feed(it + 1)
        assert link.flush(10)
        assert all(n.wait_for(lambda n: _latest(n) == it + 1, 10) for n in nodes), [_latest(n) for n in nodes]
        assert not nodes[1].status().needs_resync


def test_a_manifest_that_arrives_while_another_thread_replays_still_arms_the_loss_timer(tmp_path, monkeypatch):
    # Iteration 1 is replayed by a shadow's ingest thread (its manifest came first) and slowly; the
    # manifest of iteration 2 -- whose gradient shard 1 never gets -- arrives meanwhile and wakes the
    # idle apply thread, which finds a replay in progress and must not go back to an untimed wait
    # for good: once iteration 1 is published, iteration 2 is overdue and declared lost.
    from shadow.replay import AdamWReplica
    step = AdamWReplica.step

    def slow_step(self, m, buf):
        if m.iteration == 1:
            time.sleep(0.6)
        return step(self, m, buf)
    monkeypatch.setattr(AdamWReplica, "step", slow_step)
    with link_rig(tmp_path, 46, loss_timeout=0.3) as (link, nodes, feed):
        feed(1, manifest_first=True)
        time.sleep(0.2)  # both shadows are replaying iteration 1, outside their connection threads
        feed(2, drop_shard=1)
        assert nodes[1].wait_for(lambda n: n.counters.losses >= 1, 5), nodes[1].status()
        assert _latest(nodes[1]) == 1 and nodes[0].wait_for(lambda n: _latest(n) == 2, 5)
