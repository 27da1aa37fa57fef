"""CUDA buckets: staged through pinned host memory around the CPU ring (trainer_hooks/staging.py).

The dtype checks run everywhere.  The GPU tests run when ``torch.cuda.is_available()``: three ring
ranks as threads on loopback, their buckets on the GPU, must end bit-identical to each other and to
the same ring on CPU buffers (staging moves bytes, it must not change one); and the CUDA-vs-CPU
AdamW measurement of tools/adamw_cuda_vs_cpu.py runs and reports (the number goes into
docs/HOOKS.md).
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
        for r in rings:
            r.close(linger=0.5)


@gpu
def test_adamw_cuda_vs_cpu_replay_is_measured(capsys):
    spec = importlib.util.spec_from_file_location("adamw_cuda_vs_cpu", ROOT / "tools" / "adamw_cuda_vs_cpu.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for foreach in (False, True):
        rows = tool.measure([1, 10, 100], foreach)
        assert [r["iteration"] for r in rows] == [1, 10, 100]
        for r in rows:
            assert 0 <= r["params_differing"] <= r["params_total"] and r["max_ulp_params"] >= 0
        with capsys.disabled():
            print(f"\nAdamW CUDA vs CPU, foreach={foreach}: {json.dumps(rows)}")
