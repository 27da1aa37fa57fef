"""Unit tests of the pieces: packet plan, shard plan, iteration tracking, argument checking."""
from __future__ import annotations

import pytest
import torch

import trainer_hooks
from checkmate import wire
from trainer_hooks.iteration import IterationTracker
from trainer_hooks.layout import packet_bases, plan_bucket, shard_plan


# -- packet plan ----------------------------------------------------------------------------------
def check_plan(params, world, max_el, bases=None):
    plan = plan_bucket(params, world, max_el, bases)
    numel = dict(params)
    pos = 0
    for p in plan.packets:  # contiguous cover of the buffer, never straddling a param
        assert p.buf_offset == pos and 1 <= p.count <= max_el
        assert p.offset + p.count <= numel[p.param_id]
        pos += p.count
    assert pos == plan.total == sum(numel.values())
    assert sorted(i for s in plan.segments for i in s) == list(range(len(plan.packets)))
    return plan


def test_plan_cuts_at_params_and_mtu():
    plan = check_plan([(0, 1000), (1, 7), (2, 360)], 3, wire.max_elements(1500))
    assert [(p.param_id, p.offset, p.count) for p in plan.packets] == [
        (0, 0, 360), (0, 360, 360), (0, 720, 280), (1, 0, 7), (2, 0, 360)]
    assert [p.segment for p in plan.packets] == [0, 1, 2, 0, 1]  # round robin over global packets


def test_plan_segment_of_an_address_does_not_depend_on_bucketing():
    sizes = [5000, 3, 700, 64, 1]
    bases = packet_bases(sizes, 360)
    whole = check_plan(list(enumerate(sizes)), 4, 360, bases)
    seg = {(p.param_id, p.offset): p.segment for p in whole.packets}
    for buckets in ([[4, 3], [2], [1, 0]], [[0], [1, 2, 3, 4]], [[3, 1], [4, 0, 2]]):
        for b in buckets:
            plan = check_plan([(i, sizes[i]) for i in b], 4, 360, bases)
            assert all(seg[(p.param_id, p.offset)] == p.segment for p in plan.packets)


def test_plan_segments_balanced_for_large_params():
    plan = check_plan([(0, 100_000)], 3, wire.max_elements(9000))
    counts = [plan.segment_elements(k) for k in range(3)]
    assert max(counts) - min(counts) <= wire.max_elements(9000)


def test_plan_rejects_bad_input():
    with pytest.raises(ValueError):
        plan_bucket([(0, 10)], 0, 360)
    with pytest.raises(ValueError):
        plan_bucket([(0, 10)], 2, 0)
    with pytest.raises(ValueError, match="bases"):
        plan_bucket([(3, 10)], 2, 360)


# -- shard plan ------------------------------------------------------------------------------------
def test_shard_plan_deterministic_balanced_complete():
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 64),
                                torch.nn.Linear(64, 10))
    plan = shard_plan(model, 2)
    assert plan == shard_plan(model, 2) and sorted(plan) == list(range(6))
    load = [sum(p.numel() for i, p in enumerate(model.parameters()) if plan[i] == s) for s in range(2)]
    assert abs(load[0] - load[1]) <= max(p.numel() for p in model.parameters())
    assert set(shard_plan(model, 1).values()) == {0}
    assert set(shard_plan(model, 6).values()) == set(range(6))
    with pytest.raises(ValueError, match="num_shards"):
        shard_plan(model, 0)


# -- iteration tracker ------------------------------------------------------------------------------
def test_tracker_steps_and_skips():
    recs = []
    lrs = [0.1, 0.2]
    t = IterationTracker(5, lambda: lrs, recs.append)
    assert t.current == 6
    assert t.on_bucket(0, False) == 6 and t.on_bucket(1, True) == 6
    t.on_step_pre()
    t.record_clip(0.5)
    lrs[0] = 0.05  # a scheduler stepping after optimizer.step must not change the record
    t.on_step_post()
    assert recs[-1].iteration == 6 and recs[-1].lrs == (0.1, 0.2) and recs[-1].clip_coef == 0.5
    assert not recs[-1].skip and t.completed == 6
    t.on_bucket(0, True)
    t.skip_step()  # explicit
    assert recs[-1].iteration == 7 and recs[-1].skip and recs[-1].clip_coef is None
    t.on_bucket(0, True)  # iteration 8: optimizer.step never called (AMP overflow)...
    assert t.on_bucket(0, True) == 9  # ...noticed when the next backward starts
    assert recs[-1].iteration == 8 and recs[-1].skip and t.skipped == 2


def test_tracker_rejects_misuse():
    t = IterationTracker(0, lambda: [1.0])
    with pytest.raises(RuntimeError, match="before its backward"):
        t.on_step_pre()
    with pytest.raises(RuntimeError, match="before its backward"):
        t.skip_step()
    t.on_bucket(0, True)
    t.record_clip(0.3)
    with pytest.raises(RuntimeError, match="already clipped"):
        t.record_clip(0.3)
    with pytest.raises(ValueError):
        IterationTracker(-1, lambda: [])


# -- argument checking -------------------------------------------------------------------------------
def test_parse_shadows():
    got = trainer_hooks.parse_shadows(["h1:48881", ("h2", 5000, 5001), "10.0.0.3:1:2"])
    assert [(s.host, s.mgmt_port, s.data_port) for s in got] == [
        ("h1", 48881, wire.SHADOW_UDP_PORT), ("h2", 5000, 5001), ("10.0.0.3", 1, 2)]
    for bad in (["h1"], ["h1:x"], [("h", 0)], ["h:1:2:3"], [":5"]):
        with pytest.raises(ValueError):
            trainer_hooks.parse_shadows(bad)


def test_attach_needs_ddp():
    model = torch.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="DistributedDataParallel"):
        trainer_hooks.attach(model, torch.optim.AdamW(model.parameters()), job_id=1)
