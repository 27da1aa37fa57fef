"""One real rank in this process (gloo, world size 1) against real shadow nodes.

Covers what needs no second trainer: clipping equals torch's, host-mode copies reach the
shadows, a restarted shadow is resynced, and ``restore`` brings back model and optimizer
bit for bit.
"""
from __future__ import annotations

import socket
import time

import pytest
import shadowkit
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("gloo_group")]
JOB = 31


def build(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(10, 40), torch.nn.ReLU(), torch.nn.Linear(40, 3))
    opt = torch.optim.AdamW([{"params": [model[0].weight, model[2].weight], "lr": 1e-2},
                             {"params": [model[0].bias, model[2].bias], "lr": 2e-3, "weight_decay": 0.0}])
    return model, opt


def step(ddp, opt, ckpt, it, clip=0.1):
    g = torch.Generator().manual_seed(it)
    x, y = torch.randn(16, 10, generator=g), torch.randint(0, 3, (16,), generator=g)
    torch.nn.functional.cross_entropy(ddp(x), y).backward()
    norm = ckpt.clip_grad_norm_(clip)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return norm


def assert_shadows_equal_trainer(nodes, model, opt, iteration):
    params = list(model.parameters())
    for node in nodes:
        st = node.fetch(None)
        assert st.iteration == iteration
        for pid, t in st.tensors.items():
            assert torch.equal(t, params[pid])
            for k, v in st.opt_state[pid].items():
                assert torch.equal(v, opt.state[params[pid]][k])


def test_clip_matches_torch_bit_for_bit():
    model, opt = build()
    ddp = DDP(model)
    ckpt = trainer_hooks.attach(ddp, opt, mode="off", job_id=JOB)
    ref = [p.detach().clone().requires_grad_() for p in model.parameters()]
    for max_norm in (1e-3, 1e3):
        torch.nn.functional.cross_entropy(ddp(torch.randn(8, 10)), torch.randint(0, 3, (8,))).backward()
        for r, p in zip(ref, model.parameters()):
            r.grad = p.grad.clone()
        want = torch.nn.utils.clip_grad_norm_(ref, max_norm)
        got = ckpt.clip_grad_norm_(max_norm)
        assert torch.equal(got, want)
        assert all(torch.equal(r.grad, p.grad) for r, p in zip(ref, model.parameters()))
        opt.zero_grad(set_to_none=True)
    ckpt.close()


def test_host_mode_resync_after_shadow_restart_and_restore(tmp_path):
    nodes = [shadowkit.start_node(tmp_path, JOB, k) for k in range(2)]
    model, opt = build()
    ddp = DDP(model, bucket_cap_mb=0.0005)
    ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes, shadow_timeout=5.0)
    try:
        for it in range(1, 5):
            step(ddp, opt, ckpt, it)
        assert ckpt.wait_for_shadows(4, timeout=20)
        assert_shadows_equal_trainer(nodes, model, opt, 4)
        # shard 1 crashes and comes back empty on the same ports: it must be resynced
        data, mgmt = nodes[1].data_address[1], nodes[1].mgmt_address[1]
        nodes[1].stop()
        nodes[1] = shadowkit.start_node(tmp_path, JOB, 1, data, mgmt)
        for it in range(5, 10):
            step(ddp, opt, ckpt, it)
        assert ckpt.wait_for_shadows(9, timeout=20), ckpt.stats
        assert ckpt.link.stats.resyncs == 1, ckpt.link.stats
        assert_shadows_equal_trainer(nodes, model, opt, 9)
        want_params = [p.detach().clone() for p in model.parameters()]
        want_state = {i: {k: v.clone() for k, v in opt.state[p].items()} for i, p in enumerate(model.parameters())}
    finally:
        ckpt.close()
    # a fresh process would do this: new model and optimizer, restore from the shadows
    model2, opt2 = build(seed=123)
    it = trainer_hooks.restore(model2, opt2, shadows=shadowkit.spec(nodes), job_id=JOB)
    assert it == 9
    for a, b in zip(model2.parameters(), want_params):
        assert torch.equal(a, b)
    for i, p in enumerate(model2.parameters()):
        for k, v in want_state[i].items():
            assert torch.equal(opt2.state[p][k], v)
    with pytest.raises(trainer_hooks.RestoreError, match="expected job"):
        trainer_hooks.restore(model2, opt2, shadows=shadowkit.spec(nodes), job_id=JOB + 1)
    for n in nodes:
        n.stop()


def test_attach_errors_are_clear():
    model, opt = build()
    ddp = DDP(model)
    with pytest.raises(ValueError, match="world_size >= 2"):
        trainer_hooks.attach(ddp, opt, mode="switch", job_id=JOB)
    with pytest.raises(ValueError, match="mode must be one of"):
        trainer_hooks.attach(ddp, opt, mode="nic", job_id=JOB)
    with pytest.raises(ValueError, match="needs shadows"):
        trainer_hooks.attach(ddp, opt, mode="host", job_id=JOB)
    with pytest.raises(TypeError, match=r"RMSprop; supported optimizers: torch.optim.AdamW, torch.optim.Adam, "
                                        r"torch.optim.SGD"):
        trainer_hooks.attach(ddp, torch.optim.RMSprop(model.parameters(), lr=0.1), mode="host", job_id=JOB,
                             shadows=["127.0.0.1:1"], udp_port=0, bind_ip="127.0.0.1")
    dead = shadowkit.free_port()  # a port nobody listens on
    with pytest.raises(RuntimeError, match="bootstrapping the shadows failed"):
        trainer_hooks.attach(ddp, opt, mode="host", job_id=JOB, shadows=[("127.0.0.1", dead, dead)],
                             udp_port=0, bind_ip="127.0.0.1", shadow_timeout=2.0)


def test_resync_when_the_shadow_reports_a_loss(tmp_path):
    """A shadow that lost an iteration says so in its ManifestAck; the trainer re-bootstraps it."""
    from checkmate import wire
    nodes = [shadowkit.start_node(tmp_path, JOB, k) for k in range(2)]
    model, opt = build()
    ddp = DDP(model)
    ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes)
    try:
        for it in range(1, 3):
            step(ddp, opt, ckpt, it)
        assert ckpt.wait_for_shadows(2, timeout=20)
        # a FINAL chunk from far in the future overflows shard 0's iteration window: it declares a loss
        pid = min(p for p, s in ckpt.shard_map.items() if s == 0)
        h = wire.ChunkHeader(job_id=JOB, iteration=1000, param_id=pid, offset=0, count=1, flags=wire.FLAG_FINAL)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(wire.encode(h, b"\0\0\0\0"), nodes[0].data_address)
        deadline = time.monotonic() + 10
        while not nodes[0].status().needs_resync:
            assert time.monotonic() < deadline, "the shadow did not declare the loss"
            time.sleep(0.02)
        for it in range(3, 7):
            step(ddp, opt, ckpt, it)
        assert ckpt.wait_for_shadows(6, timeout=20), ckpt.stats
        assert ckpt.link.stats.resyncs >= 1
        assert_shadows_equal_trainer(nodes, model, opt, 6)
    finally:
        ckpt.close()
        for n in nodes:
            n.stop()


def pretend_cuda(monkeypatch) -> None:
    """The trainer's OptimizerSpec says its parameters live on a GPU: the shadows replay the CUDA
    kernels' arithmetic (shadow/device_optim.py) for what is in fact a CPU trainer."""
    import dataclasses

    from shadow.protocol import OptimizerSpec
    real = OptimizerSpec.from_optimizer
    monkeypatch.setattr(OptimizerSpec, "from_optimizer",
                        classmethod(lambda cls, o: dataclasses.replace(real(o), device="cuda")))


@pytest.mark.parametrize("shadows_round", ["alike", "otherwise"])
def test_verify_replay_checks_the_first_step(tmp_path, caplog, monkeypatch, shadows_round):
    """attach(verify_replay=True): after the first step rank 0 compares the shadows' replay with its own
    state and says what it found -- identical, or (shadows replaying a GPU's arithmetic for a CPU
    trainer) different, with a WARNING."""
    if shadows_round == "otherwise":
        pretend_cuda(monkeypatch)
    caplog.set_level("INFO", logger="trainer_hooks.api")
    with shadowkit.running_nodes(tmp_path, JOB) as nodes:
        model, opt = build()
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes, verify_replay=True)
        try:
            for it in range(1, 4):
                step(ddp, opt, ckpt, it)
            chk = ckpt.replay_check
            assert chk is not None and chk.iteration == 1 and chk.elements > 0
            if shadows_round == "alike":
                assert chk.identical and "replay of iteration 1 is bit-identical" in caplog.text
            else:
                assert chk.differing > 0
                assert "differs from this trainer" in caplog.text and "not bit-exact" in caplog.text
        finally:
            ckpt.close()


def test_verify_replay_is_off_by_default_on_cpu(tmp_path):
    with shadowkit.running_nodes(tmp_path, JOB) as nodes:
        model, opt = build()
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes)
        try:
            step(ddp, opt, ckpt, 1)
            assert ckpt.replay_check is None
        finally:
            ckpt.close()


def test_a_fused_gpu_trainer_ships_its_powers_and_refreshes_them(tmp_path, monkeypatch):
    """The mechanics of shadow.device_optim's powers for fused Adam/AdamW on CUDA, on the CPU: the
    trainer's spec says "cuda" (patched), so every bootstrap carries ``beta ** step`` from the
    trainer's device, the shadows' replica steps with them, and before they run out (a span patched to
    4 steps) the link re-bootstraps every shard with the next ones."""
    from shadow import device_optim
    pretend_cuda(monkeypatch)
    monkeypatch.setattr(device_optim, "POWERS_SPAN", 4)
    with shadowkit.running_nodes(tmp_path, JOB) as nodes:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(10, 40), torch.nn.ReLU(), torch.nn.Linear(40, 3))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, betas=(0.8, 0.99), fused=True)
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes)
        try:
            boots = ckpt.link.stats.bootstraps_sent
            for it in range(1, 4):
                step(ddp, opt, ckpt, it)
            assert ckpt.wait_for_shadows(3, timeout=20)
            first, tables = nodes[0]._replica.opt.device_powers
            assert first == 1 and sorted(tables) == ["0.8", "0.99"] and len(tables["0.8"]) == 4
            assert tables["0.99"][2] == torch.pow(torch.tensor(0.99), torch.tensor(3.0)).item()
            assert ckpt.link.stats.bootstraps_sent == boots  # still within the span
            for it in range(4, 7):
                step(ddp, opt, ckpt, it)
            assert ckpt.wait_for_shadows(6, timeout=20)
            assert ckpt.link.stats.bootstraps_sent == boots + len(nodes)  # refreshed once, every shard
            first, tables = nodes[1]._replica.opt.device_powers
            assert first == 5 and len(tables["0.8"]) == 4
        finally:
            ckpt.close()
