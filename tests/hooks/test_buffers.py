"""Unit tests (no network) for the model state the shadows carry instead of replaying: buffers and
frozen parameters (trainer_hooks/buffers.py), their capture point in the iteration tracker, the
shard plan without frozen parameters, and restore refusing a checkpoint that lacks buffers."""
import pytest
import torch

from shadow.protocol import OptimizerSpec, ShardState
from trainer_hooks.buffers import MissingModelState, capture_buffers, load_model_state
from trainer_hooks.iteration import IterationTracker
from trainer_hooks.layout import shard_plan
from trainer_hooks.restore import RestoreError, _load


def bn_model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))
    m[0].weight.requires_grad_(False)  # frozen
    return m


def test_load_model_state_needs_every_buffer_and_frozen_param():
    src, dst = bn_model(), bn_model()
    src(torch.randn(8, 4))  # moves the running stats
    with torch.no_grad():
        src[0].weight.add_(1.0)
    bufs = capture_buffers(src)
    with pytest.raises(MissingModelState, match=r"no buffer\(s\) \['1.running_mean'\]"):
        load_model_state(dst, {k: v for k, v in bufs.items() if k != "1.running_mean"}, {"0.weight": src[0].weight})
    assert torch.equal(dst[1].running_var, torch.ones(3))  # checked first: nothing was copied
    with pytest.raises(MissingModelState, match=r"no frozen parameter\(s\) \['0.weight'\]"):
        load_model_state(dst, bufs, {})
    load_model_state(dst, bufs, {"0.weight": src[0].weight.detach()})
    assert torch.equal(dst[1].running_mean, src[1].running_mean) and int(dst[1].num_batches_tracked) == 1
    assert torch.equal(dst[0].weight, src[0].weight)


def test_shard_plan_skips_frozen_params():
    plan = shard_plan(bn_model(), 2)
    assert 0 not in plan and sorted(plan) == [1, 2, 3, 4, 5]


def test_tracker_captures_buffers_at_the_first_bucket_of_each_iteration():
    state = {"v": 0}
    recs = []
    t = IterationTracker(0, lambda: [0.1], recs.append, capture_buffers=lambda: {"b": torch.tensor(state["v"])},
                         read_no_grad=lambda: (3,))
    state["v"] = 1  # forward of iteration 1
    t.on_bucket(0, False)
    state["v"] = 99  # later buckets do not capture again
    t.on_bucket(1, True)
    t.on_step_pre()
    t.on_step_post()
    state["v"] = 2  # forward of iteration 2, which ends without a step (implicit skip) ...
    t.on_bucket(0, True)
    state["v"] = 3  # ... noticed only at iteration 3's first bucket, after its forward ran
    t.on_bucket(0, True)
    t.skip_step()
    assert [int(r.buffers["b"]) for r in recs] == [1, 2, 3]
    assert [r.no_grad for r in recs] == [(3,), (), ()] and [r.skip for r in recs] == [False, True, True]


def test_restore_refuses_a_checkpoint_without_buffers():
    model = bn_model()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
    tensors = {i: p.detach().clone() for i, p in enumerate(model.parameters()) if p.requires_grad}
    st = ShardState(1, 0, 3, tensors, {}, OptimizerSpec.from_optimizer(opt), [], 1,
                    frozen={"0.weight": model[0].weight.detach().clone()})
    with pytest.raises(RestoreError, match="no buffer"):
        _load(model, opt, [st])
    st.buffers = capture_buffers(model)
    _load(model, opt, [st])
