"""ShadowLink.manifest_batch: compact manifests held back and sent N per write, on two real shadow
nodes -- every iteration is still published (in order, none lost), nothing is published before its
manifest went out, and flush() sends what is held."""
import pytest

from tests.linkrig import link_rig


def _latest(n):
    return n.latest.iteration if n.latest else 0


@pytest.mark.parametrize("batch", [2, 3])
def test_held_manifests_go_out_together_and_at_flush(tmp_path, batch):
    with link_rig(tmp_path, 41) as (link, nodes, feed):
        link.manifest_batch = batch
        for it in range(1, batch):  # held: their gradients are in, their manifests are not
            feed(it)
        assert all(n.wait_for(lambda n: n.counters.packets >= 1 and n.status().pending == batch - 1, 10)
                   for n in nodes)
        assert [_latest(n) for n in nodes] == [0, 0] and len(link._held) == batch - 1
        feed(batch)  # the batch is full: one write per shard, every iteration replayed
        assert all(n.wait_for(lambda n: _latest(n) == batch, 10) for n in nodes)
        assert not link._held
        feed(batch + 1)  # held again ...
        assert len(link._held) == 1
        assert link.flush(10)  # ... until flush() sends it
        assert all(n.wait_for(lambda n: _latest(n) == batch + 1, 10) for n in nodes)
        for n in nodes:
            st = n.status()
            assert st.losses == 0 and not st.needs_resync and st.held_iterations[-1] == batch + 1
        assert link.stats.manifests_sent == batch + 1 and link.stats.errors == 0
