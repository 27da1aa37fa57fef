"""Gradients changed between the all-reduce and ``optimizer.step()`` (issue #19, case 1).

One real rank (gloo, world size 1), host mode, two real in-process shadow nodes.  Whatever the
training loop does to ``param.grad`` after the backward -- torch's own ``clip_grad_norm_``, a
``GradScaler``'s unscale, a user's scaling or masking -- every state a shadow publishes must equal
the trainer's state of that iteration bit for bit: a uniform scale is mirrored as one exact
coefficient, anything else is never replayed (every shard is resynced from the trainer instead).
"""
from __future__ import annotations

import logging

import pytest
import shadowkit
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from trainer_hooks.iteration import GradientsChanged

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("gloo_group")]
JOB = 33
STEPS = 5


@pytest.fixture
def nodes(tmp_path):
    with shadowkit.running_nodes(tmp_path, JOB, history=STEPS + 2) as ns:
        yield ns


def build():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(10, 40), torch.nn.ReLU(), torch.nn.Linear(40, 3))
    opt = torch.optim.AdamW([{"params": [model[0].weight, model[2].weight], "lr": 1e-2},
                             {"params": [model[0].bias, model[2].bias], "lr": 2e-3, "weight_decay": 0.0}])
    return model, opt


def attach(nodes, ddp_kw=None, **kw):
    model, opt = build()
    ddp = DDP(model, bucket_cap_mb=0.0005, **(ddp_kw or {}))  # several buckets
    ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes, **kw)
    return model, opt, ddp, ckpt


def snapshot(model, opt):
    return ([p.detach().clone() for p in model.parameters()],
            [{k: v.clone() for k, v in opt.state[p].items()} for p in model.parameters()])


def run(nodes, change, steps=STEPS, loss_scale=1.0, ddp_kw=None, **kw):
    """Train ``steps`` iterations calling ``change(model, it)`` between backward and step; returns the
    trainer's state after each iteration and the Checkpointer (closed)."""
    model, opt, ddp, ckpt = attach(nodes, ddp_kw, **kw)
    states = {0: snapshot(model, opt)}
    try:
        for it in range(1, steps + 1):
            g = torch.Generator().manual_seed(it)
            x, y = torch.randn(16, 10, generator=g), torch.randint(0, 3, (16,), generator=g)
            (torch.nn.functional.cross_entropy(ddp(x), y) * loss_scale).backward()
            change(model, it)
            opt.step()
            opt.zero_grad(set_to_none=True)
            states[it] = snapshot(model, opt)
        assert ckpt.wait_for_shadows(steps, timeout=30), ckpt.stats
    finally:
        ckpt.close()
    return states, ckpt


def assert_every_published_state_is_the_trainers(nodes, states, newest):
    """Every iteration a shadow holds is bit-identical to the trainer's state of that iteration."""
    for node in nodes:
        held = node.status().held_iterations
        assert newest in held, (node.cfg.shard, held)
        for it in held:
            st = node.fetch(it)
            params, opt_state = states[it]
            for pid, t in st.tensors.items():
                assert torch.equal(t, params[pid]), f"shard {node.cfg.shard} iteration {it} param {pid}"
                for k, v in st.opt_state.get(pid, {}).items():
                    assert torch.equal(v, opt_state[pid][k]), f"shard {node.cfg.shard} iteration {it} {k}[{pid}]"


def torch_clip(max_norm):
    return lambda model, it: torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


@pytest.mark.parametrize("as_view", [False, True])
def test_torch_clip_grad_norm_is_mirrored_exactly(nodes, as_view):
    # gradient_as_bucket_view=False (DDP's default): the guard's reference is the bucket buffer itself;
    # True: the gradients are views of it, so the guard copies the reduced bucket
    states, ckpt = run(nodes, torch_clip(0.01), ddp_kw={"gradient_as_bucket_view": as_view})
    assert ckpt.hook_state.guard_copy is as_view
    assert_every_published_state_is_the_trainers(nodes, states, STEPS)
    assert ckpt.hook_state.guard.scaled == STEPS  # every step was clipped (0.01 is tiny) and mirrored
    assert ckpt.hook_state.guard.copy_always is False
    assert ckpt.link.stats.unreplayable == 0 and ckpt.link.stats.resyncs == 0


def test_gradscaler_like_unscale_then_torch_clip_is_one_coefficient(nodes):
    inv = torch.tensor(1.0 / 1024.0)

    def unscale_and_clip(model, it):
        torch._foreach_mul_([p.grad for p in model.parameters()], inv)  # what GradScaler.unscale_ does
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
    states, ckpt = run(nodes, unscale_and_clip, loss_scale=1024.0)
    assert_every_published_state_is_the_trainers(nodes, states, STEPS)
    assert ckpt.hook_state.guard.scaled == STEPS and ckpt.link.stats.unreplayable == 0


def test_real_gradscaler_on_cpu(nodes):
    """torch.amp.GradScaler('cpu'): scaled loss, unscale_ inside scaler.step (or before a clip)."""
    model, opt, ddp, ckpt = attach(nodes)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
    states = {0: snapshot(model, opt)}
    try:
        for it in range(1, STEPS + 1):
            g = torch.Generator().manual_seed(it)
            x, y = torch.randn(16, 10, generator=g), torch.randint(0, 3, (16,), generator=g)
            scaler.scale(torch.nn.functional.cross_entropy(ddp(x), y)).backward()
            if it % 2:
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            states[it] = snapshot(model, opt)
        assert ckpt.wait_for_shadows(STEPS, timeout=30), ckpt.stats
    finally:
        ckpt.close()
    assert_every_published_state_is_the_trainers(nodes, states, STEPS)
    assert ckpt.link.stats.unreplayable == 0


def test_user_uniform_scaling_is_mirrored(nodes):
    def scale(model, it):
        for p in model.parameters():
            p.grad.mul_(0.37)  # a Python float: multiplied as float32, one coefficient for the model
    states, ckpt = run(nodes, scale)
    assert_every_published_state_is_the_trainers(nodes, states, STEPS)
    assert ckpt.hook_state.guard.scaled == STEPS and ckpt.link.stats.unreplayable == 0


def test_user_masking_is_never_replayed_and_every_shard_is_resynced(nodes, caplog):
    def mask(model, it):
        if it in (2, 4):
            model[0].weight.grad[:, :3] = 0.0  # not a uniform scale
    with caplog.at_level(logging.WARNING, logger="trainer_hooks.shadow_link"):
        states, ckpt = run(nodes, mask)
    assert_every_published_state_is_the_trainers(nodes, states, STEPS)
    assert ckpt.link.stats.unreplayable == 2
    assert ckpt.link.stats.resyncs == 2 * len(nodes)  # every shard, at iterations 2 and 4
    warned = [r.getMessage() for r in caplog.records if "cannot replay" in r.getMessage()]
    assert len(warned) == 2 and "iteration 2" in warned[0] and "'0.weight'" in warned[0], warned
    assert all(n.counters.losses == 0 for n in nodes)


def test_user_per_parameter_scaling_is_refused(nodes):
    def scale_one(model, it):
        model[2].bias.grad.mul_(0.5)  # uniform inside one parameter, but not across the model
    states, ckpt = run(nodes, scale_one, steps=3)
    assert_every_published_state_is_the_trainers(nodes, states, 3)
    assert ckpt.link.stats.unreplayable == 3


def test_on_grad_change_raise_stops_before_the_step(nodes):
    model, opt, ddp, ckpt = attach(nodes, on_grad_change="raise")
    try:
        torch.nn.functional.cross_entropy(ddp(torch.randn(4, 10)), torch.randint(0, 3, (4,))).backward()
        before = [p.detach().clone() for p in model.parameters()]
        model[0].bias.grad.add_(1.0)
        with pytest.raises(GradientsChanged, match=r"iteration 1: .*'0.bias'"):
            opt.step()
        assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))  # no step taken
        ckpt.skip_step()
    finally:
        ckpt.close()
    with pytest.raises(ValueError, match="on_grad_change"):
        attach(nodes, on_grad_change="ignore")


def test_two_ranks_torch_clip_mirrored_and_masking_resynced(nodes, tmp_path):
    """Two real trainer processes (gloo), host mode: every held state is the trainers' (grad_worker.py)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    port = shadowkit.free_port()
    shadows = ",".join(f"127.0.0.1:{n.mgmt_address[1]}:{n.data_address[1]}" for n in nodes)
    out = tmp_path / "verdict.json"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(root))
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("grad_worker.py")), "--rank", str(r),
                               "--world", "2", "--master", f"127.0.0.1:{port}", "--shadows", shadows,
                               "--job-id", str(JOB), "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) for r in range(2)]
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=100)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(logs)
    v = json.loads(out.read_text())
    assert v["published"] and v["compared"] >= 2 * 4 and not v["wrong"], v
    assert v["unreplayable"] == 1 and v["scaled"] == 5, v  # iteration 3 resynced, the 5 others mirrored
    assert "iteration 3: the gradients changed" in logs[0], logs[0]
