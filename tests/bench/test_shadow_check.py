"""benchmarks/shadow_check: the bench's per-segment "did the shadows keep up" record and verdict, on
two real shadow nodes (loopback UDP + management TCP) fed by a real ShadowLink -- a segment whose
shadows published every iteration passes, one where a shard lost an iteration (and was resynced)
or stopped short of the last one fails, loudly, and fails the run's analysis."""
import time

import pytest

from benchmarks import shadow_check
from tests.linkrig import link_rig

JOB = 31


@pytest.fixture
def rig(tmp_path):
    with link_rig(tmp_path, JOB, loss_timeout=0.5, ring=3) as r:
        yield r


def _segment(link, nodes, feed, first, iters, drop=None, resync=False):
    """Iterations ``first`` .. ``first + iters - 1`` as one bench segment; its ``end`` record."""
    before = shadow_check.counts(link)
    for it in range(first, first + iters):
        feed(it, drop_shard=1 if it == drop else None)
    target = first + iters - 1
    if resync:  # the next iteration's ack tells rank 0 about the loss (its datagrams may be ingested
        # after the manifests of the iterations around it were acked)
        assert nodes[1].wait_for(lambda n: n.counters.losses >= 1, 10)
        target += 1
        feed(target)
    link.flush(10)
    at_end = shadow_check.latest(link)
    if resync:  # what wait_for_shadows does while it waits: serve the resync of a lost shard
        for _ in range(100):
            link.flush(10)
            link.serve_resyncs(target)
            if all((c.status().latest_iteration or 0) >= target for c in link.clients):
                break
            time.sleep(0.05)
    caught = all(n.wait_for(lambda n: (n.latest.iteration if n.latest else 0) >= target, 10) for n in nodes)
    return {"round": 0, "method": "checkmate", "every": 1,
            "shadows": shadow_check.record(link, target, caught, before, at_end)}


def test_a_segment_whose_shadows_kept_up_passes(rig):
    link, nodes, feed = rig
    seg = _segment(link, nodes, feed, 1, 6)
    ok, text = shadow_check.verdict(seg)
    assert ok, text
    s = seg["shadows"]
    assert s["latest"] == [6, 6] and s["losses"] == [0, 0] and s["resyncs"] == 0 and s["target"] == 6
    assert "no loss, no resync" in text
    assert shadow_check.summary_lines([seg])[0].startswith("shadows kept up: all 1 segment(s)")


def test_a_lost_iteration_fails_the_segment_even_after_a_resync(rig):
    link, nodes, feed = rig
    assert shadow_check.verdict(_segment(link, nodes, feed, 1, 3))[0]
    # iterations 4..13; shard 1 never gets iteration 5's gradient: it declares the loss when the
    # window is full, rank 0 resyncs it, and it catches up to 13 -- the segment still fails
    seg = _segment(link, nodes, feed, 4, 9, drop=5, resync=True)
    ok, text = shadow_check.verdict(seg)
    s = seg["shadows"]
    assert not ok and "SHADOWS FAILED" in text, (text, s)
    assert s["losses"][1] >= 1 and s["losses"][0] == 0 and s["resyncs"] >= 1, s
    assert s["latest"] == [13, 13], s


def test_shadows_short_of_the_last_iteration_fail(rig):
    link, nodes, feed = rig
    seg = _segment(link, nodes, feed, 1, 2)
    bad = dict(seg, shadows=dict(seg["shadows"], latest=[2, 1], caught_up=False))
    ok, text = shadow_check.verdict(bad)
    assert not ok and "not at the last iteration 2" in text
    lines = shadow_check.summary_lines([seg, bad])
    assert lines[0].startswith("SHADOWS FAILED in 1 of 2 segment(s)")


def test_verdict_edges():
    assert shadow_check.verdict({"round": 0, "method": "none"})[0]
    assert not shadow_check.verdict({"round": 0, "method": "checkmate", "shadows": None})[0]
    old = {"round": 0, "method": "host", "every": 1}  # a bench.json from before the check
    assert shadow_check.verdict(old)[0] and shadow_check.summary_lines([old]) == [
        "shadows not checked (segments recorded before the check)"]
