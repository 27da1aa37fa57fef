"""benchmarks/shadow_check: the bench's per-segment "did the shadows keep up" record and verdict, on
two real shadow nodes (loopback UDP + management TCP) fed by a real ShadowLink -- a segment whose
shadows published every iteration passes, one where a shard lost an iteration (and was resynced)
or stopped short of the last one fails, loudly, and fails the run's analysis."""
import socket
import time

import pytest
import torch

from benchmarks import shadow_check
from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from trainer_hooks.iteration import IterationRecord
from trainer_hooks.layout import shard_plan
from trainer_hooks.shadow_link import ShadowAddr, ShadowLink

JOB = 31


@pytest.fixture
def rig(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Linear(8, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    nodes = [ShadowNode(ShadowConfig(JOB, s, ("127.0.0.1", 0), ("127.0.0.1", 0), tmp_path / str(s),
                                     loss_timeout=0.5, ring=3)).start() for s in (0, 1)]
    owner = shard_plan(model, 2)
    link = ShadowLink(JOB, [ShadowAddr(*n.mgmt_address, n.data_address[1]) for n in nodes], model, opt, owner,
                      timeout=10)
    link.bootstrap_all(0)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    grads = {pid: torch.randn(p.shape) for pid, p in enumerate(model.parameters())}

    def feed(it, drop_shard=None):
        for k, n in enumerate(nodes):
            if k == drop_shard:
                continue
            own = {pid: g for pid, g in grads.items() if owner[pid] == k}
            for pkt in gradient_packets(JOB, it, own):
                tx.sendto(pkt, n.data_address)
        link.on_record(IterationRecord(it, (1e-3,), None, False))

    yield link, nodes, feed
    tx.close()
    link.close(5)
    for n in nodes:
        n.stop()


def _segment(link, nodes, feed, iters, drop=None, resync=False):
    before = shadow_check.counts(link)
    for it in range(1 + _segment.done, 1 + _segment.done + iters):
        feed(it, drop_shard=1 if it == drop else None)
    target = _segment.done + iters
    _segment.done = target
    link.flush(10)
    at_end = shadow_check.latest(link)
    if resync:  # what wait_for_shadows does while it waits: serve the resync of a lost shard
        assert nodes[1].wait_for(lambda n: n.counters.losses >= 1, 10)
        for _ in range(100):
            link.serve_resyncs(target)
            if all((c.status().latest_iteration or 0) >= target for c in link.clients):
                break
            time.sleep(0.05)
    caught = all(n.wait_for(lambda n: (n.latest.iteration if n.latest else 0) >= target, 10) for n in nodes)
    return {"round": 0, "method": "checkmate", "every": 1,
            "shadows": shadow_check.record(link, target, caught, before, at_end)}


_segment.done = 0


def test_a_segment_whose_shadows_kept_up_passes(rig):
    _segment.done = 0
    link, nodes, feed = rig
    seg = _segment(link, nodes, feed, 6)
    ok, text = shadow_check.verdict(seg)
    assert ok, text
    s = seg["shadows"]
    assert s["latest"] == [6, 6] and s["losses"] == [0, 0] and s["resyncs"] == 0 and s["target"] == 6
    assert "no loss, no resync" in text
    assert shadow_check.summary_lines([seg])[0].startswith("shadows kept up: all 1 segment(s)")


def test_a_lost_iteration_fails_the_segment_even_after_a_resync(rig):
    _segment.done = 0
    link, nodes, feed = rig
    assert shadow_check.verdict(_segment(link, nodes, feed, 3))[0]
    # iterations 4..12; shard 1 never gets iteration 5's gradient: it declares the loss when the
    # window is full, rank 0 resyncs it, and it catches up to 12 -- the segment still fails
    seg = _segment(link, nodes, feed, 9, drop=5, resync=True)
    ok, text = shadow_check.verdict(seg)
    s = seg["shadows"]
    assert not ok and "SHADOWS FAILED" in text, (text, s)
    assert s["losses"][1] >= 1 and s["losses"][0] == 0 and s["resyncs"] >= 1, s
    assert s["latest"] == [12, 12], s


def test_shadows_short_of_the_last_iteration_fail(rig):
    _segment.done = 0
    link, nodes, feed = rig
    seg = _segment(link, nodes, feed, 2)
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
