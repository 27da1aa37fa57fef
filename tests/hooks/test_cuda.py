"""CUDA buckets: staged through pinned host memory around the CPU ring (trainer_hooks/staging.py).

The dtype checks run everywhere.  The GPU tests run when ``torch.cuda.is_available()``: three ring
ranks as threads on loopback, their buckets on the GPU, must end bit-identical to each other and to
the same ring on CPU buffers (staging moves bytes, it must not change one); the CUDA-vs-CPU
AdamW measurement of tools/adamw_cuda_vs_cpu.py runs and reports; and two DDP ranks on the GPU
(cuda_worker.py) train through the hook into real shadows: ranks bit-identical, every iteration
published, and the shadows' CPU replay -- with the CUDA kernels' rounding, shadow/device_optim.py --
bit-identical to the trainer's CUDA step, parameters and AdamW moments (docs/HOOKS.md).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch

from checkmate import wire
from trainer_hooks.layout import plan_bucket
from trainer_hooks.staging import CudaStaging, StagingError, check_bucket

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)
gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device (the CPU suite covers the rest)")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float64])
def test_non_fp32_buckets_are_refused_with_the_reason(dtype):
    with pytest.raises(StagingError, match=r"bucket 3 holds .* float32 only"):
        check_bucket(torch.zeros(8, dtype=dtype), 3)


def test_fp32_cpu_bucket_passes_and_strided_is_refused():
    check_bucket(torch.zeros(8), 0)
    with pytest.raises(StagingError, match="not contiguous"):
        check_bucket(torch.zeros(8, 2)[:, 0], 1)


def _rings(n):
    spec = importlib.util.spec_from_file_location("checkmate_tests_transport", Path(__file__).with_name(
        "test_transport.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, mod.make_ring(n, rto=0.02, timeout=30)


@gpu
def test_cuda_buckets_through_pinned_staging_equal_the_cpu_ring():
    mod, rings = _rings(3)
    stagers = [CudaStaging(r) for r in rings]
    try:
        g = torch.Generator().manual_seed(5)
        shapes = [(300, 7), (1000,), (13,)]
        plan = plan_bucket([(i, torch.Size(s).numel()) for i, s in enumerate(shapes)], 3, wire.max_elements(1500))
        for it in range(4):  # several iterations: the pinned buffers are reused
            grads = [torch.randn(plan.total, generator=g) for _ in range(3)]
            bufs = [x.cuda() for x in grads]
            futs = [stagers[r].submit(it, 0, bufs[r], plan) for r in range(3)]
            outs = [f.wait() for f in futs]
            torch.cuda.synchronize()
            assert all(o.is_cuda and o.data_ptr() == b.data_ptr() for o, b in zip(outs, bufs)), "reduced in place"
            for r in range(1, 3):
                assert torch.equal(outs[r].cpu(), outs[0].cpu()), "ranks must end bit-identical"
            assert torch.equal(outs[0].cpu(), mod.reference(grads, plan, 3)), "staging changed bits"
        assert all(s.staged == 4 for s in stagers)
    finally:
        for s in stagers:
            s.close()
        mod.close_all(rings, 0.5)


@gpu
def test_adamw_cuda_vs_cpu_replay_is_measured(capsys):
    spec = importlib.util.spec_from_file_location("adamw_cuda_vs_cpu", ROOT / "tools" / "adamw_cuda_vs_cpu.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for foreach in (False, True):
        rows = tool.measure([1, 10, 100, 300], foreach)
        assert [r["iteration"] for r in rows] == [1, 10, 100, 300]
        for r in rows:
            assert 0 <= r["params_differing"] <= r["params_total"] and r["max_ulp_params"] >= 0
            # the shadows' replay of a CUDA trainer (shadow/device_optim.py) is the GPU's step, bit for bit
            assert r["emulated_params_differing"] == 0 and r["emulated_moments_differing"] == 0, r
        with capsys.disabled():
            print(f"\nAdamW CUDA vs CPU, foreach={foreach}: {json.dumps(rows)}")


@gpu
# AdamW: the per-tensor loop, foreach, fused (the GPU's powers shipped); 3: fused Adam with L2 decay on odd sizes
@pytest.mark.parametrize("foreach", [0, 1, 2, 3])
def test_ddp_on_cuda_with_the_hook_feeds_the_shadows(tmp_path, foreach):
    """Two ranks of DDP on the GPU, CUDA buckets through the hook, host-mode copies into two real shadows:
    ranks bit-identical, every iteration published; the shadows' CPU replay (CUDA rounding) equals the
    trainer's CUDA AdamW step bit for bit, parameters and moments (its distance printed with -rP)."""
    import os
    import socket
    import subprocess
    import sys
    from shadow.node import ShadowConfig, ShadowNode
    tool = importlib.util.module_from_spec(spec := importlib.util.spec_from_file_location(
        "adamw_cuda_vs_cpu_e2e", ROOT / "tools" / "adamw_cuda_vs_cpu.py"))
    spec.loader.exec_module(tool)
    nodes = [ShadowNode(ShadowConfig(job_id=31, shard=k, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                     ckpt_dir=tmp_path / "ckpt", loss_timeout=10.0)).start() for k in range(2)]
    try:
        shadows = ",".join(f"127.0.0.1:{n.mgmt_address[1]}:{n.data_address[1]}" for n in nodes)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
        procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("cuda_worker.py")), "--rank", str(r),
                                   "--world-size", "2", "--port", str(port), "--shadows", shadows,
                                   "--foreach", str(foreach), "--out", str(tmp_path)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(2)]
        outs = [p.communicate(timeout=100)[0] for p in procs]
        assert all(p.returncode == 0 for p in procs), "\n".join(o[-3000:] for o in outs)
    finally:
        for n in nodes:
            n.stop()
    r0, r1 = (torch.load(tmp_path / f"rank{r}.pt", weights_only=False) for r in range(2))
    assert r0["staged"] > 0, "no bucket went through the CUDA staging"
    for a, b in zip(r0["params"], r1["params"]):
        assert torch.equal(a, b), "ranks must end bit-identical"
    held = {pid: t for st in r0["shadows"] for pid, t in st["tensors"].items()}
    assert all(st["iteration"] == 8 for st in r0["shadows"]) and sorted(held) == list(range(len(r0["params"])))
    worst = max(tool.ulps(held[i], p) for i, p in enumerate(r0["params"]))
    differing = sum(int((held[i] != p).sum()) for i, p in enumerate(r0["params"]))
    print(f"CUDA trainer ({['loop', 'foreach', 'fused', 'fused Adam L2, odd sizes'][foreach]}) vs CPU shadow replay after 8 steps: "
          f"{differing} parameter elements differ, max {worst} ulp; with AdamW moments: {r0['stepcheck']} "
          "(shown with pytest -rP)")
    # the shadows replay a CUDA trainer's step with the CUDA kernels' rounding (shadow/device_optim.py)
    assert differing == 0 and r0["stepcheck"]["differing"] == 0, r0["stepcheck"]
    # attach verified the first step by itself (verify_replay defaults on for a GPU trainer)
    assert r0["replay_check"] == {"iteration": 1, "differing": 0, "elements": r0["stepcheck"]["elements"]}, r0


@gpu
@pytest.mark.parametrize("foreach", [False, True])
def test_restore_onto_the_gpu_continues_bit_for_bit(tmp_path, gloo_group, foreach):
    """A CUDA trainer checkpointed by CPU shadows, restored into a fresh model on the GPU from them,
    trains on exactly as the original: the shadows' state is the GPU's (shadow/device_optim.py) and
    restore puts it back next to each parameter (AdamW's non-capturable ``step`` on CPU)."""
    import shadowkit
    from torch.nn.parallel import DistributedDataParallel as DDP
    import trainer_hooks

    def build(seed):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(12, 48), torch.nn.GELU(), torch.nn.Linear(48, 5)).cuda()
        opt = torch.optim.AdamW([{"params": [model[0].weight, model[2].weight], "weight_decay": 0.05},
                                 {"params": [model[0].bias, model[2].bias], "weight_decay": 0.0}],
                                lr=3e-3, foreach=foreach)
        return model, opt

    def train(ddp, opt, it, clip):
        g = torch.Generator().manual_seed(1000 + it)
        x, y = torch.randn(32, 12, generator=g).cuda(), torch.randint(0, 5, (32,), generator=g).cuda()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        clip(1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    with shadowkit.running_nodes(tmp_path, 41) as nodes:
        model, opt = build(0)
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, 41, nodes)
        for it in range(1, 7):
            train(ddp, opt, it, ckpt.clip_grad_norm_)
        assert ckpt.wait_for_shadows(6, timeout=30)
        assert ckpt.compare_with_shadows(6).differing == 0
        ckpt.close()
        fresh, fopt = build(1)
        assert trainer_hooks.restore(fresh, fopt, shadows=shadowkit.spec(nodes), job_id=41) == 6
    for a, b in zip(model.parameters(), fresh.parameters()):
        assert b.is_cuda and torch.equal(a, b)
    for it in range(7, 11):  # both go on without the hook (plain modules: one rank), the same batches
        train(model, opt, it, lambda n: torch.nn.utils.clip_grad_norm_(model.parameters(), n))
        train(fresh, fopt, it, lambda n: torch.nn.utils.clip_grad_norm_(fresh.parameters(), n))
    for a, b in zip(model.parameters(), fresh.parameters()):
        assert torch.equal(a, b), "the restored GPU trainer drifted from the original"


def _example_models():
    spec = importlib.util.spec_from_file_location("checkmate_test_example_models_cuda",
                                                  Path(__file__).with_name("test_example_models.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def example_on(device: str, tmp_path, monkeypatch, model: str) -> None:
    """tests/hooks/test_example_models.py's run with ``--device``: examples/ddp_train.py, 2 ranks in
    host mode into 2 real shadows, every rank SIGKILLed mid-run, ``--resume``, final state of each
    rank bit-identical to an uninterrupted run (BatchNorm buffers included for the CNN)."""
    em = _example_models()
    monkeypatch.setitem(em.FLAGS, model, em.FLAGS[model] + ["--device", device])
    em.test_killed_mid_run_resumes_bit_identically(tmp_path, monkeypatch, model)
    saved = torch.load(tmp_path / "b0.pt", weights_only=True)
    assert all(t.device.type == device for t in saved["model"].values()), "the run did not train on the device"


@gpu
@pytest.mark.timeout(300)
@pytest.mark.parametrize("model", ["cnn", "gpt"])
def test_example_on_cuda_killed_mid_run_resumes_bit_identically(tmp_path, monkeypatch, model):
    example_on("cuda", tmp_path, monkeypatch, model)
