"""ShadowLink reads the acks of posted manifests in batches (``ack_batch`` posts or ``ack_interval``
seconds, whichever first), on two real shadow nodes: acks pile up unread in the socket between reads,
flush() still reads every one, and a shard's resync request is noticed by time alone -- no flush, no
batch filled -- and served."""
import time

from tests.linkrig import link_rig


def _latest(n):
    return n.latest.iteration if n.latest else 0


def test_acks_are_read_every_ack_batch_posts_and_all_at_flush(tmp_path):
    with link_rig(tmp_path, 43) as (link, nodes, feed):
        link.ack_batch, link.ack_interval = 4, 3600.0
        for it in (1, 2, 3):
            feed(it)
        # the shadows replayed (and acked: a shadow acks before it replays) all three ...
        assert all(n.wait_for(lambda n: _latest(n) == 3, 10) for n in nodes)
        # ... and the training thread has read none of the acks yet
        assert [c.posted for c in link.clients] == [3, 3]
        assert link.stats.acks == [None, None]
        feed(4)  # the 4th post reads what arrived: acks 1..3 at least
        assert all(c.posted <= 1 for c in link.clients), [c.posted for c in link.clients]
        assert all(a is not None and a.iteration >= 3 for a in link.stats.acks)
        assert link.flush(10)  # flush() reads every outstanding ack
        assert [c.posted for c in link.clients] == [0, 0]
        assert [a.iteration for a in link.stats.acks] == [4, 4]
        assert link.stats.errors == 0 and link.stats.resyncs == 0


def test_a_resync_request_is_noticed_within_the_ack_interval(tmp_path):
    with link_rig(tmp_path, 44, loss_timeout=0.3) as (link, nodes, feed):
        link.ack_batch, link.ack_interval = 10_000, 0.2  # only time triggers a read here
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
