"""A CUDA trainer's optimizer step, replayed on CPU bit for bit (:mod:`shadow.device_optim`).

The ground truth is a recording made on a GPU (``data/cuda_optim_h200.pt``: an NVIDIA H200, torch
2.11+cu130, by ``tools/optim_cuda_record.py``; its ``env`` says so): each elementwise operation the
optimizers use, and whole AdamW/Adam steps (per-tensor, foreach, fused, AMSGrad) and SGD steps
(momentum, Nesterov) over six iterations with a changing LR; ``torch.pow(beta, step)`` on the GPU, and
fused steps at step counts where it is not the correctly rounded power.  Elementwise steps are independent per element, so the file keeps a slice of
each parameter.  The CPU replay must give every recorded bit; torch's own CPU step must not (else
this test would not be about anything).  ``tests/hooks/test_cuda.py`` checks the same end to end on a
GPU when one is present.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import inspect
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

from shadow import device_optim
from shadow.device_optim import CudaAdam, CudaAdamW, fmaf
from shadow.protocol import OptimizerSpec
from tests.shadow.test_replay_flat import Trainer, check, slot_of

REC = torch.load(Path(__file__).with_name("data") / "cuda_optim_h200.pt")
F = np.float32


def _bits_equal(a, b) -> bool:
    a, b = np.asarray(a, F), np.asarray(b, F)
    return a.shape == b.shape and bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))))


def _libm_fmaf():
    lib = ctypes.CDLL(ctypes.util.find_library("m"))
    lib.fmaf.restype, lib.fmaf.argtypes = ctypes.c_float, [ctypes.c_float] * 3
    return np.vectorize(lambda a, b, c: lib.fmaf(a, b, c), otypes=[F])


def test_fmaf_is_the_correctly_rounded_one():
    """Against C's fmaf, on random values and on the cases a plain float64 ``a * b + c`` rounds twice."""
    ref = _libm_fmaf()
    g = np.random.default_rng(3)
    a, b, c = (g.standard_normal(20000).astype(F) * F(2.0) ** g.integers(-30, 30, 20000).astype(F) for _ in range(3))
    with np.errstate(all="ignore"):
        assert _bits_equal(fmaf(a, b, c), ref(a, b, c))
    # a * b exactly halfway between two floats, c a nudge far below float64's last bit: only a
    # single rounding gets the direction right
    x = F(1) + F(2.0 ** -12)
    halves = np.full(8, x, F)
    nudges = np.array([2.0 ** -60, -2.0 ** -60, 2.0 ** -80, -2.0 ** -80, 0.0, -0.0, 1e-40, -1e-40], F)
    got, want = fmaf(halves, halves, nudges), ref(halves, halves, nudges)
    assert _bits_equal(got, want)
    assert len({v.tobytes() for v in got}) > 1  # the nudges do change the result
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3e38, 1e-45], F)
    for arr in (special, special[::-1]):
        with np.errstate(all="ignore"):
            assert _bits_equal(fmaf(arr, special, special[::2].repeat(2)[:7]), ref(arr, special, special[::2].repeat(2)[:7]))


def _op(name: str, a, b, c, pos):
    """The CPU formula for one recorded CUDA operation (the table in shadow/device_optim.py)."""
    parts = name.split("_")
    v = float(parts[-1]) if parts[-1] not in ("sqrt", "alpha", "maximum") else None
    base = name.removeprefix("foreach_")
    if base == "maximum":
        return np.maximum(a, b)
    if base.startswith("lerp_"):
        return device_optim.lerp(a, b, v)
    if base.startswith("mul_"):
        return a * F(v)
    if base.startswith("addcmul_"):
        return fmaf(b * c, F(v), a)
    if base.startswith("addcdiv_"):
        return fmaf(F(v), b / pos, a)
    if base.startswith("div_list_"):
        return pos / F(v)
    if base.startswith("div_") or base.startswith("div__"):
        return pos * F(1 / v)
    if base == "sqrt":
        return np.sqrt(pos)
    if base.startswith("add_alpha"):
        return fmaf(F(-0.01), b, a)
    if base.startswith("add_"):
        return pos + F(v)
    raise AssertionError(name)


@pytest.mark.parametrize("name", REC["ops"]["names"])
def test_each_recorded_cuda_operation_is_reproduced(name):
    a, b, c, pos = (t.numpy() for t in REC["ops"]["inputs"])
    want = REC["ops"]["results"][REC["ops"]["names"].index(name)].numpy()
    with np.errstate(all="ignore"):
        assert _bits_equal(_op(name, a, b, c, pos), want), name


def _replay(run, cls):
    """Run a recorded optimizer on CPU with class ``cls``; yields (iteration, params, state) per step."""
    sizes = REC["sizes"]
    params = [torch.nn.Parameter(t.clone()) for t in torch.split(run["init"], sizes)]
    wd = run["weight_decay"]
    opt = cls([{"params": [params[i] for i in run["groups"][0]], "weight_decay": wd},
               {"params": [params[i] for i in run["groups"][1]], "weight_decay": 0.0}], lr=run["lrs"][0], **run["kwargs"])
    for it, lr in enumerate(run["lrs"]):
        for grp in opt.param_groups:
            grp["lr"] = lr
        for p, g in zip(params, torch.split(run["grads"][it], sizes)):
            p.grad = g.clone()
        opt.step()
        state = {k: torch.cat([opt.state[p][k].reshape(-1) for p in params])
                 for k in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer") if k in opt.state[params[0]]}
        yield it, torch.cat([p.detach().reshape(-1) for p in params]), state


def _runs(fused: bool, kinds=("AdamW", "Adam")):
    return [pytest.param(i, id=f"{r['optimizer']}-{'-'.join(f'{k}={v}' for k, v in r['kwargs'].items())}")
            for i, r in enumerate(REC["runs"]) if bool(r["kwargs"].get("fused")) == fused and r["optimizer"] in kinds]


#: recorded optimizer -> (the class a shadow replays a CUDA trainer with, torch's CPU class)
@pytest.fixture(params=["numpy", "compiled"])
def kernel(request, monkeypatch):
    """The CUDA arithmetic through NumPy, or through the compiled ``cuda_adam`` (shadow/adam_native.c)."""
    if request.param == "compiled":
        if device_optim._native() is None:
            pytest.skip("shadow/adam_native.c is not built here (no compiler, or a CPU without FMA)")
        monkeypatch.setattr(device_optim, "_native_checked", [True])
    else:
        monkeypatch.setattr(device_optim, "_native_checked", [False])
    return request.param


CLASSES = {"AdamW": (CudaAdamW, torch.optim.AdamW), "Adam": (CudaAdam, torch.optim.Adam),
           "SGD": (device_optim.replay_class(torch.optim.SGD, "cuda"), torch.optim.SGD)}


@pytest.mark.parametrize("idx", _runs(fused=False, kinds=("AdamW", "Adam", "SGD")))
def test_recorded_cuda_steps_are_replayed_bit_for_bit(idx, kernel):
    """Adam/AdamW through the CUDA-arithmetic classes; SGD (momentum, Nesterov, weight decay) through
    torch's own class -- its CPU kernels give the GPU's bits (one IEEE op or one fma per step each)."""
    run = REC["runs"][idx]
    for it, params, state in _replay(run, CLASSES[run["optimizer"]][0]):
        assert _bits_equal(params, run["params"][it]), (it, "params")
        for k, v in state.items():
            assert _bits_equal(v, run[k][it]), (it, k)


@pytest.mark.parametrize("idx", _runs(fused=False))
def test_torch_cpu_step_is_not_the_cuda_step(idx):
    """Why the module exists: the trainer's class on CPU differs from the GPU's recorded bits."""
    run = REC["runs"][idx]
    differing = [int((params != run["params"][it]).sum()) for it, params, _ in _replay(run, CLASSES[run["optimizer"]][1])]
    assert max(differing) > 0, differing


def _gpu_powers(first: int = 1) -> tuple[int, dict]:
    """The recording's ``torch.pow(beta, step)`` on the GPU, steps 1..64, as the replica hands it over."""
    return first, {k: v.numpy() for k, v in REC["powers"].items()}


@pytest.mark.parametrize("idx", _runs(fused=True))
def test_fused_cuda_steps_are_replayed_bit_for_bit_with_the_gpus_powers(idx):
    """The fused kernel's bias corrections use the GPU's powf (not correctly rounded at some steps);
    given its values -- the trainer ships them in the bootstrap -- the fused step is exact: AdamW, and
    Adam with its L2 term computed per lane as the kernel does (``fused_lane0``)."""
    run = REC["runs"][idx]
    cls = CLASSES[run["optimizer"]][0]
    orig = cls.device_powers
    cls.device_powers = _gpu_powers()
    try:
        for it, params, state in _replay(run, cls):
            assert _bits_equal(params, run["params"][it]), (it, "params")
            for k, v in state.items():
                assert _bits_equal(v, run[k][it]), (it, k)
    finally:
        cls.device_powers = orig


@pytest.mark.parametrize("model", ["all fma", "all product and sum"])
def test_fused_adam_l2_term_is_contracted_in_three_lanes_of_four(model, monkeypatch):
    """Why ``fused_lane0`` exists: with the L2 term one fma everywhere, or a product and a sum
    everywhere, the recorded fused Adam run is not reproduced (the moments show it first)."""
    idx = next(i for i, r in enumerate(REC["runs"]) if r["optimizer"] == "Adam" and r["kwargs"].get("fused"))
    run = REC["runs"][idx]
    assert run["weight_decay"] != 0
    everywhere = model == "all product and sum"
    monkeypatch.setattr(device_optim, "fused_lane0", lambda n: np.full(n, everywhere))
    monkeypatch.setattr(CudaAdam, "device_powers", _gpu_powers())
    off = 0
    for it, params, state in _replay(run, CudaAdam):
        off += int((params != run["params"][it]).sum()) + sum(int((v != run[k][it]).sum()) for k, v in state.items())
    assert off > 0


def test_fused_lanes_follow_atens_two_loops():
    lane0 = device_optim.fused_lane0(12)  # a multiple of 4: four consecutive elements per thread
    assert lane0.tolist() == [True, False, False, False] * 3
    lane0 = device_optim.fused_lane0(5001)  # strided: thread t takes t, t + 512, t + 1024, t + 1536 of each 2,048
    assert lane0[:512].all() and not lane0[512:2048].any() and lane0[2048:2560].all() and not lane0[2560:4096].any()
    assert lane0[4096:4608].all() and not lane0[4608:].any()
    assert not device_optim.fused_lane0(8).flags.writeable


def _far_step(i: int, powers: bool):
    far = REC["far"]
    p = torch.nn.Parameter(far["param"][i].clone())
    cls = CudaAdamW if far["optimizer"][i] == "AdamW" else CudaAdam
    opt = cls([p], lr=1e-3, weight_decay=far["weight_decay"][i], fused=True)
    k = far["step"][i]
    opt.state[p] = {"step": torch.tensor(float(k - 1)), "exp_avg": far["exp_avg"][i].clone(),
                    "exp_avg_sq": far["exp_avg_sq"][i].clone()}
    if powers:
        opt.device_powers = (k, {b: np.array([v], F) for b, v in far["pow"][i].items()})
    p.grad = far["grad"][i].clone()
    opt.step()
    return p.detach()


def test_fused_steps_recorded_where_numpys_float32_power_misses():
    """Recorded at step counts (4 .. 43016) picked where the GPU's ``beta ** step`` differed from numpy's
    float32 power on the recording host (AVX-512: SVML's, not correctly rounded): with the GPU's powers
    every AdamW and Adam (L2 decay) step is exact, and so is the replay without a table, whose powers
    are the correctly rounded ones computed in double (``_power``) -- at these steps the GPU's values are
    the correctly rounded ones (this test asserted the opposite: it held on AVX-512 hosts only)."""
    far = REC["far"]
    steps = range(len(far["optimizer"]))
    assert {"AdamW", "Adam"} <= set(far["optimizer"]) and len(steps) >= 20
    for i in steps:
        assert _bits_equal(_far_step(i, powers=True), far["after_param"][i]), far["step"][i]
        assert _bits_equal(_far_step(i, powers=False), far["after_param"][i]), far["step"][i]


def _rounded(x: Fraction) -> np.float32:
    """The float32 nearest the rational ``x`` (ties: the even one)."""
    c = F(float(x))
    return min((np.nextafter(c, F(-np.inf)), c, np.nextafter(c, F(np.inf))),
               key=lambda y: (abs(Fraction(float(y)) - x), int(np.asarray(y).view(np.uint32)) & 1))


def test_fallback_powers_are_correctly_rounded_on_every_host():
    """The replay's ``beta ** step`` without the trainer's table is the correctly rounded float32 power
    (exact rationals), whatever the host's SIMD: numpy's float32 power is not on AVX-512 hosts."""
    opt = CudaAdamW([torch.nn.Parameter(torch.zeros(1))], lr=1e-3, fused=True)
    for beta in (0.9, 0.999, 0.99, 0.95):
        b = Fraction(float(F(beta)))
        for step in list(range(1, 400)) + [1023, 1024, 4097, 10007]:
            assert opt._power(beta, float(step)) == _rounded(b ** step), (beta, step)


def test_the_gpus_powf_is_not_correctly_rounded_everywhere():
    """Why the trainer ships its powers: among the recorded steps 1..64 the GPU's 0.9 ** 57 is one ulp
    above the correctly rounded float32 (what the replay computes without a table)."""
    opt = CudaAdamW([torch.nn.Parameter(torch.zeros(1))], lr=1e-3, fused=True)
    gpu = REC["powers"]["0.9"].numpy()
    missed = [k for k in range(1, len(gpu) + 1) if opt._power(0.9, float(k)) != gpu[k - 1]]
    assert missed == [57], missed


def test_device_powers_are_torch_pow_in_float32():
    got = device_optim.device_powers([0.9, 0.999, 0.9], 3, 5, "cpu")
    assert sorted(got) == ["0.9", "0.999"]
    want = torch.pow(torch.full((5,), 0.9, dtype=torch.float32), torch.arange(3, 8, dtype=torch.float32))
    assert got["0.9"].dtype == torch.float32 and torch.equal(got["0.9"], want)
    assert device_optim.needs_powers("adamw", "cuda", True) and not device_optim.needs_powers("adamw", "cuda", False)
    assert not device_optim.needs_powers("sgd", "cuda", True) and not device_optim.needs_powers("adamw", "cpu", True)


@pytest.mark.parametrize("kind", ["adamw", "adamw-amsgrad", "adam"])
@pytest.mark.parametrize("foreach", [False, True])
def test_replica_of_a_cuda_trainer_steps_with_cuda_arithmetic(bits, kind, foreach, kernel):
    """The replica machinery (flat groups, clipping, skipped steps, LR schedule, the switch to
    per-tensor stepping on ``no_grad``) around the CUDA-arithmetic class: a replica bootstrapped with
    ``device="cuda"`` stays bit-identical to a trainer stepping that arithmetic (which the tests above
    tie to the GPU), and differs from one stepping torch's CPU arithmetic."""
    tr = Trainer(kind, foreach)
    cpu_spec = OptimizerSpec.from_optimizer(tr.opt)
    assert cpu_spec.device == "cpu"
    cls = device_optim.replay_class(type(tr.opt), "cuda")
    assert cls is not type(tr.opt)
    cpu_twin = Trainer(kind, foreach)  # same seed: the same run with torch's CPU step
    takes = inspect.signature(cls.__init__).parameters
    tr.opt = cls(tr.opt.param_groups, **{k: v for k, v in tr.opt.defaults.items() if k in takes})
    tr.sched = torch.optim.lr_scheduler.LambdaLR(tr.opt, lambda s: 1.0 / (1 + 0.1 * s))
    rep, lay = tr.bootstrap(spec=dataclasses.replace(cpu_spec, device="cuda"))
    assert type(rep.opt) is cls and rep.flat is not None and rep._merged is None and rep._direct is None
    apart = 0
    for it in range(30):
        m, grads = tr.step(unused=(3,) if it == 17 else ())
        cpu_twin.step(unused=(3,) if it == 17 else ())
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
        apart += sum(int((p.detach() != q.detach()).sum()) for p, q in zip(tr.ps, cpu_twin.ps))
    assert rep.flat is None  # the no_grad step converted it to per-tensor stepping
    assert apart > 0


@pytest.mark.parametrize("decay", [0.05, 0.0])
def test_replica_of_a_fused_adam_l2_cuda_trainer_steps_each_tensor_by_itself(bits, decay):
    """Fused Adam's L2 term rounds by an element's lane in its own tensor (``fused_lane0``); a group
    stepped as one flat tensor would put the elements of a tensor whose size is not a multiple of 4 in
    other lanes.  Such a replica steps per tensor and stays bit-identical to a trainer stepping the
    same arithmetic; without L2 decay the flat step is kept."""
    tr = Trainer("adam", False)
    for g in tr.opt.param_groups:
        g["weight_decay"] = decay if g["weight_decay"] else 0.0
    groups = [{k: v for k, v in g.items() if k in ("params", "weight_decay")} for g in tr.opt.param_groups]
    spec = dataclasses.replace(OptimizerSpec.from_optimizer(torch.optim.Adam(groups, lr=3e-3, fused=True)), device="cuda")
    tr.opt = CudaAdam(groups, lr=3e-3, fused=True)
    tr.sched = torch.optim.lr_scheduler.LambdaLR(tr.opt, lambda s: 1.0 / (1 + 0.1 * s))
    assert spec.fused
    rep, lay = tr.bootstrap(spec=spec)
    assert type(rep.opt) is CudaAdam and (rep.flat is None) == bool(decay)
    # refused by rule, before the flat probe (which finds it too, with its random data)
    assert CudaAdam.position_dependent({"weight_decay": 0.05}, True) and not CudaAdam.position_dependent({}, True)
    assert not CudaAdam.position_dependent({"weight_decay": 0.05}, False)
    assert not CudaAdamW.position_dependent({"weight_decay": 0.05}, True)
    for it in range(12):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


def test_a_spec_names_the_trainers_device_and_refuses_a_mix():
    p = torch.nn.Parameter(torch.zeros(3))
    assert OptimizerSpec.from_optimizer(torch.optim.AdamW([p])).device == "cpu"
    m = torch.nn.Parameter(torch.zeros(3, device="meta"))
    assert OptimizerSpec.from_optimizer(torch.optim.AdamW([m])).device == "meta"
    with pytest.raises(Exception, match="field 'device'"):
        OptimizerSpec.from_optimizer(torch.optim.AdamW([p, m]))
    assert device_optim.replay_class(torch.optim.SGD, "cuda") is torch.optim.SGD
    assert device_optim.replay_class(torch.optim.AdamW, "cpu") is torch.optim.AdamW


def test_attach_is_told_where_the_replay_is_not_exact():
    """trainer_hooks.attach logs this reason (rank 0) before training starts."""
    assert device_optim.inexact_replay("cpu") is None
    assert device_optim.inexact_replay("cuda") is None  # every variant (fused: the GPU's powers shipped)
    assert "not been measured" in device_optim.inexact_replay("mps")
    assert "not been measured" in device_optim.inexact_replay("mixed")


def test_the_compiled_step_is_used_only_where_the_probe_found_it_equal(monkeypatch):
    """The probe compares the compiled step with the NumPy one on awkward data (inf, NaN, subnormals,
    both lerp formulas, AdamW/L2/none, maximize, AMSGrad, both modes); a compiled step that divides
    where the per-tensor variant multiplies by the reciprocal is refused."""
    lib = device_optim._native()
    if lib is None:
        pytest.skip("shadow/adam_native.c is not built here (no compiler, or a CPU without FMA)")
    assert device_optim._probe_native()
    real = lib.cuda_adam

    class Off:
        @staticmethod
        def cuda_adam(*a):
            return real(*a[:13], 1, *a[14:])  # mode 1 (true division) for every variant
    monkeypatch.setattr(device_optim, "_native", lambda: Off)
    assert not device_optim._probe_native()
