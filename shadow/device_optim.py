"""The trainer's optimizer step as a GPU computes it, on the shadow's CPU: bit-exact replay of CUDA trainers.

A shadow replays the trainer's ``torch.optim`` step (:mod:`shadow.replay`).  When the trainer steps on
CPU the shadow runs the same torch class and gets the same bits.  When it steps on a CUDA device it
does not: the GPU kernels round differently from the CPU ones (measured on an H200 with torch
2.11+cu130, ``tools/adamw_cuda_vs_cpu.py``: after one AdamW step 0.7-1 % of the parameters differ, by
up to ~700 ulp where a parameter is near zero; after 1000 steps 60-64 %).  The differences are not noise;
they are which operations a kernel contracts into one fused multiply-add and how it divides by a
scalar.  Recorded per operation on the GPU and matched bit for bit on CPU (``tests/shadow/
test_device_optim.py`` replays the recording):

=====================================  ==========================================================
CUDA operation (float32)               the same bits on CPU
=====================================  ==========================================================
``x.mul_(s)``, ``x.add_(s)``, sqrt     one IEEE operation (``s`` rounded to float32)
``x / s`` (``s`` a Python float)       ``x * float32(1 / s)`` (the reciprocal in double, rounded)
``_foreach_div_(xs, [s])``             ``x / float32(s)`` (a true division)
``a.lerp_(b, w)``                      ``fma(w, b - a, a)`` if ``w < 0.5`` else ``fma(w - 1, b - a, b)``
``a.addcmul_(b, c, value=v)``          ``fma(b * c, v, a)`` (the product ``b * c`` rounded first)
``a.addcdiv_(b, c, value=v)``          ``fma(v, b / c, a)``
``a.add_(b, alpha=s)``                 ``fma(s, b, a)``
=====================================  ==========================================================

and the fused kernel (``fused=True``) computes in float32 with its hyperparameters rounded to float32:
``m = fma(b1, m, (1 - b1) * g)``, ``v = fma(b2, v, (1 - b2) * (g * g))``, the bias corrections
``1 - b1 ** step`` in float32, ``p = p - (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)``.  Its
``b ** step`` is the GPU's ``powf``, which is not correctly rounded (0.9 ** 57: one ulp above; exact
rationals, lead s58), so the shadows cannot compute it: the trainer ships it.  (The share of steps it
misses, 0.03-6 % by beta, was most likely measured against numpy's float32 power, which on an AVX-512
host is SVML's and not correctly rounded either: at the 36 single steps recorded below, picked against
it, the GPU's values are the correctly rounded ones, which the replay computes in double when it has no
table -- ``_power``.)  A fused Adam/AdamW trainer on CUDA sends, in every bootstrap,
``torch.pow(beta, step)`` computed on its GPU for the next :data:`POWERS_SPAN` optimizer steps of each
beta (:func:`device_powers`, recorded equal to the fused kernels' values on the H200), and re-bootstraps
the shards before they run out; the replay looks its bias corrections up there
(``device_powers``).  With them fused AdamW is exact, and so is fused Adam with L2
weight decay, whose ``grad += param * wd`` is an fma in three of each thread's four elements and a
product and a sum in the first (:func:`fused_lane0`: a compiler's choice, recorded).  The per-tensor and
``foreach`` variants -- ``foreach`` is torch's default on CUDA -- are exact: 0 of 19,210 parameters
and moments apart after 1000 steps.

:class:`CudaAdamW` and :class:`CudaAdam` are ``torch.optim.AdamW`` / ``Adam`` whose ``step`` does
that arithmetic (per-tensor, ``foreach`` and ``fused`` orders each as the CUDA code path has them),
on CPU float32 tensors in place: per-tensor and ``foreach`` in one compiled pass (``cuda_adam`` in
``shadow/adam_native.c``, ~2.4 ns an element, about torch's own CPU step) where a start-up probe found it
equal bit for bit to the NumPy arithmetic (:func:`_probe_native`), else through NumPy (~30x slower: fine
for the testbed, slow for a big shard).  In NumPy the fused multiply-add is exact: the product of two
float32 numbers is exact in float64, the sum is rounded *to odd* in float64 (error-free TwoSum, then
the last bit forced odd when inexact), and the final rounding to float32 is then the correctly rounded
``fmaf`` (53 >= 24 + 2 bits).  The replica picks these classes for an :class:`~shadow.protocol.
OptimizerSpec` whose ``device`` is ``"cuda"`` (:func:`replay_class`); the probes of :mod:`shadow.flat`
still check that stepping a group as one tensor gives the per-tensor bits, and the merged and direct
steps (torch's CPU arithmetic) are never used for them.  SGD needs no such class: recorded on the GPU
(momentum, Nesterov, weight decay, per-tensor and ``foreach``), torch's CPU kernels give its bits (each
of its steps is one IEEE operation or one ``fma`` on both), so a CUDA trainer's SGD replays with
``torch.optim.SGD`` itself.

What is *not* claimed: a kernel of another torch or CUDA version may round otherwise.  The fact is
checked where it matters, in the running job: ``ckpt.compare_with_shadows()`` on the trainer compares
its parameters and moments with the shadows' replay of the same iteration, bit for bit
(``docs/HOOKS.md``).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch

F32 = np.float32


def fmaf(a, b, c) -> np.ndarray:
    """Correctly rounded float32 ``a * b + c`` elementwise (C's ``fmaf``), for float32 arrays/scalars."""
    a, b, c = (np.asarray(x, dtype=F32) for x in (a, b, c))
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    p = np.atleast_1d(a.astype(np.float64) * b)  # exact: 24 + 24 bits
    c64 = np.atleast_1d(c.astype(np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c64
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)  # TwoSum: s + err == p + c exactly (finite values)
        bits = s.view(np.int64)
        fix = (err != 0) & np.isfinite(err) & ((bits & 1) == 0)
        if fix.any():  # round to odd: step the even result one ulp towards the exact sum
            s = s.copy()
            s[fix] = np.nextafter(s[fix], np.where(err[fix] > 0, np.inf, -np.inf))
        return s.astype(F32).reshape(shape)


def _f(x: float) -> np.float32:
    return F32(x)


def lerp(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    """CUDA's ``a.lerp(b, w)`` with a scalar weight (both formulas, by ``|w| < 0.5``)."""
    wf = _f(w)
    d = b - a
    if abs(wf) < 0.5:
        return fmaf(wf, d, a)
    return fmaf(wf - F32(1), d, b)


def _np(t: torch.Tensor) -> np.ndarray:
    if t.dtype != torch.float32 or t.device.type != "cpu":
        raise TypeError(f"the CUDA-arithmetic replay steps CPU float32 tensors only (got {t.dtype} on {t.device})")
    return t.detach().numpy()


#: how ATen's fused optimizers split a tensor (``MultiTensorApply.cuh``): chunks of 65,536 elements,
#: blocks of 512 threads, 4 elements per thread (ILP)
FUSED_CHUNK, FUSED_BLOCK, FUSED_ILP = 65536, 512, 4


@functools.lru_cache(maxsize=256)
def fused_lane0(n: int) -> np.ndarray:
    """Which elements of an ``n``-element tensor the fused Adam kernel computes as the first of its
    thread's four (``ii == 0``): there nvcc did not contract Adam's L2 term ``grad += param * wd`` into
    an fma (recorded on the H200: the other three lanes are one fma, lane 0 a product and a sum).  A
    tensor whose size is a multiple of 4 (with 16-byte aligned storage, as separately allocated
    parameters, gradients and states are) takes the vectorised loop, four consecutive elements per
    thread: lane 0 is every fourth element.  Any other takes the strided loop, thread t handling
    elements t, t + 512, t + 1024, t + 1536 of each 2,048: lane 0 is the first 512 of every 2,048
    (read from ATen's loop; the recording's unaligned tensor is short, but the DDP case of
    tests/hooks/test_cuda.py on 1,005/67/335/5-element tensors replays bit for bit on the H200)."""
    j = np.arange(n)
    if n % FUSED_ILP == 0:
        lane0 = j % FUSED_ILP == 0
    else:
        lane0 = (j % FUSED_CHUNK) % (FUSED_BLOCK * FUSED_ILP) < FUSED_BLOCK
    lane0.flags.writeable = False
    return lane0


#: steps of ``beta ** step`` a trainer ships per bootstrap (1 MiB per beta); it re-bootstraps before they run out
POWERS_SPAN = 1 << 18


def needs_powers(kind: str, device: str, fused: bool) -> bool:
    """Does the shadows' replay of this trainer need the GPU's ``beta ** step`` (:func:`device_powers`)?"""
    return device == "cuda" and fused and kind in ("adamw", "adam")


def device_powers(betas, first: int, count: int, device) -> dict[str, torch.Tensor]:
    """``beta ** step`` for ``step`` in ``first .. first + count - 1`` computed by ``torch.pow`` on
    ``device`` (float32 base and exponent: the fused kernels' powf -- recorded equal on the H200 where it
    differs from the correctly rounded value), on CPU: ``repr(beta)`` -> float32 tensor."""
    steps = torch.arange(first, first + count, dtype=torch.float32, device=device)
    return {repr(float(b)): torch.pow(torch.full((count,), float(b), dtype=torch.float32, device=device),
                                      steps).cpu() for b in sorted({float(b) for b in betas})}


def _native():
    from . import adam_native
    return adam_native.load()


def _ptr(a: np.ndarray) -> int:
    return a.ctypes.data


def _contiguous(*arrays) -> bool:
    return all(a is None or (a.dtype == F32 and a.flags.c_contiguous and a.flags.writeable) for a in arrays)


_native_checked: list = []  # [bool] once the probe ran


def _native_ok() -> bool:
    """Is the compiled ``cuda_adam`` there and, probed once, bit for bit the NumPy arithmetic below?"""
    if not _native_checked:
        _native_checked.append(_native() is not None and _probe_native())
    return _native_checked[0]


def _probe_native() -> bool:
    """Both implementations on the same awkward data -- every binade, zeros, subnormals, inf, NaN, both
    lerp formulas, AdamW/Adam-L2/plain, maximize, AMSGrad, per-tensor and foreach -- must agree."""
    rng = np.random.default_rng(7)
    n = 4099
    base = (rng.standard_normal((4, n)) * np.exp2(rng.integers(-30, 8, (4, n)))).astype(F32)
    base[:, :6] = np.array([0.0, -0.0, 1e-41, np.inf, np.nan, 3e38], F32)
    for beta1, decoupled, wd, maximize, amsgrad, foreach in ((0.9, True, 0.01, False, False, False),
                                                            (0.3, True, 0.0, True, True, True),
                                                            (0.9, False, 0.05, False, True, False),
                                                            (0.6, False, 0.0, False, False, True)):
        outs = []
        for native in (False, True):
            p, g = base[0].copy(), base[1].copy()
            m, v = base[2].copy(), np.abs(base[3])
            vmax = np.abs(base[3][::-1]).copy() if amsgrad else None
            st = {"step": torch.tensor(3.0), "exp_avg": torch.from_numpy(m), "exp_avg_sq": torch.from_numpy(v)}
            if amsgrad:
                st["max_exp_avg_sq"] = torch.from_numpy(vmax)
            group = {"lr": 1e-3, "betas": (beta1, 0.999), "eps": 1e-8, "weight_decay": wd, "amsgrad": amsgrad,
                     "maximize": maximize, "decoupled_weight_decay": decoupled, "foreach": foreach}
            _native_checked[:] = [native]
            try:
                with np.errstate(all="ignore"):  # (inf and NaN among the inputs on purpose)
                    _CudaAdamBase._one(_Probe(), group, "foreach" if foreach else "single", p, g, st)
            finally:
                _native_checked.clear()
            outs.append([p, m, v] + ([vmax] if amsgrad else []))
        for a, b in zip(*outs):
            if not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
                return False
    return True


class _Probe:
    """A stand-in ``self`` for :meth:`_CudaAdamBase._one` in :func:`_probe_native` (no optimizer)."""


class _CudaAdamBase:
    """The step shared by :class:`CudaAdamW` and :class:`CudaAdam` (``decoupled`` tells them apart)."""

    emulates = "cuda"
    #: the trainer's ``beta ** step`` (:func:`device_powers`), set by the replica: (first step, {repr(beta): array})
    device_powers: tuple[int, dict] = (1, {})

    @classmethod
    def position_dependent(cls, hp: dict, fused) -> bool:
        """Whether an element's rounding depends on where it sits in its tensor (fused Adam's L2 term,
        :func:`fused_lane0`): the replica then never steps such a group as one flat tensor."""
        decoupled = hp.get("decoupled_weight_decay", issubclass(cls, torch.optim.AdamW))
        return bool(fused) and bool(hp.get("weight_decay")) and not decoupled

    def _variant(self, group) -> str:
        if group.get("fused"):
            return "fused"
        # torch's default on CUDA tensors (foreach=None): the foreach implementation
        return "single" if group.get("foreach") is False else "foreach"

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            if group.get("capturable") or group.get("differentiable"):
                raise ValueError("capturable/differentiable Adam is not replayed with CUDA arithmetic")
            if not isinstance(group["lr"], float) and not isinstance(group["lr"], int):
                raise TypeError("the CUDA-arithmetic replay takes a Python-float lr")
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["step"] = torch.tensor(0.0, dtype=torch.float32)
                    st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if group["amsgrad"]:
                        st["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                st["step"] += 1
                self._one(group, self._variant(group), _np(p), _np(p.grad), st)
        return loss

    def _one(self, group, variant: str, p: np.ndarray, g: np.ndarray, st: dict) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        amsgrad = group["amsgrad"]
        decoupled = group.get("decoupled_weight_decay", isinstance(self, torch.optim.AdamW))
        m, v = _np(st["exp_avg"]), _np(st["exp_avg_sq"])
        vmax = _np(st["max_exp_avg_sq"]) if amsgrad else None
        step = float(st["step"])
        if variant == "fused":
            if group["maximize"]:
                g = -g
            self._fused(p, g, m, v, vmax, step, lr, beta1, beta2, eps, wd, amsgrad, decoupled)
            return
        bc1, bc2 = 1 - beta1 ** step, 1 - beta2 ** step
        if variant == "single":
            scalars = (_f(1 / math.sqrt(bc2)), _f(-(lr / bc1)))  # times the reciprocal; addcdiv value
        else:
            scalars = (_f(bc2 ** 0.5), _f((lr / bc1) * -1))  # a true division by the scalar list's entry
        if _native_ok() and _contiguous(p, g, m, v, vmax):
            _native().cuda_adam(p.size, _ptr(p), _ptr(g), _ptr(m), _ptr(v), _ptr(vmax) if amsgrad else None,
                                bool(group["maximize"]), _f(1 - lr * wd) if wd != 0 and decoupled else F32(1),
                                wd != 0 and not decoupled, _f(wd), _f(1 - beta1), _f(beta2), _f(1 - beta2),
                                0 if variant == "single" else 1, scalars[0], _f(eps), scalars[1])
            return
        if group["maximize"]:
            g = -g
        if wd != 0:
            if decoupled:
                p *= _f(1 - lr * wd)
            else:
                g = fmaf(_f(wd), p, g)  # grad.add(param, alpha=wd) / _foreach_add(..., alpha=wd)
        m[...] = lerp(m, g, 1 - beta1)
        v *= _f(beta2)
        v[...] = fmaf(g * g, _f(1 - beta2), v)
        if amsgrad:
            np.maximum(vmax, v, out=vmax)
        root = np.sqrt(vmax if amsgrad else v)
        if variant == "single":
            denom = root * scalars[0] + _f(eps)  # tensor / Python float: times the reciprocal
        else:
            denom = root / scalars[0] + _f(eps)  # _foreach_div_ by a scalar list: a true division
        p[...] = fmaf(scalars[1], m / denom, p)

    def _power(self, beta: float, step: float) -> np.float32:
        """``beta ** step`` as the trainer's GPU computed it where the replica has its table, else
        the correctly rounded float32 power, computed in double and rounded once -- not numpy's
        float32 ``power``, which on AVX-512 hosts is SVML's and misses the correctly rounded value
        at some steps (it was the reference the recorded steps were picked against)."""
        first, tables = self.device_powers
        t = tables.get(repr(float(beta)))
        i = int(step) - first
        if t is not None and 0 <= i < len(t):
            return F32(t[i])
        with np.errstate(over="ignore", under="ignore"):
            return F32(float(_f(beta)) ** float(step))

    def _fused(self, p, g, m, v, vmax, step, lr, beta1, beta2, eps, wd, amsgrad, decoupled) -> None:
        one = F32(1)
        lr_f, b1, b2, eps_f, wd_f = (_f(x) for x in (lr, beta1, beta2, eps, wd))
        if wd != 0:
            if decoupled:
                p[...] = fmaf(-(lr_f * wd_f), p, p)
            else:  # grad += param * weight_decay: contracted, except in the first element of each ILP group
                lane0 = fused_lane0(p.size).reshape(p.shape)
                g = np.where(lane0, g + p * wd_f, fmaf(p, wd_f, g))
        m[...] = fmaf(b1, m, (one - b1) * g)
        v[...] = fmaf(b2, v, (one - b2) * (g * g))
        bc1 = one - self._power(beta1, step)
        bc2_sqrt = np.sqrt(one - self._power(beta2, step))
        step_size = lr_f / bc1
        if amsgrad:
            np.maximum(vmax, v, out=vmax)
        denom = np.sqrt(vmax if amsgrad else v) / bc2_sqrt + eps_f
        p -= (step_size * m) / denom


class CudaAdamW(_CudaAdamBase, torch.optim.AdamW):
    """``torch.optim.AdamW`` stepping with the CUDA kernels' arithmetic (module docstring)."""


class CudaAdam(_CudaAdamBase, torch.optim.Adam):
    """``torch.optim.Adam`` stepping with the CUDA kernels' arithmetic (module docstring)."""


#: torch class -> its CUDA-arithmetic replay
CUDA_CLASSES = {torch.optim.AdamW: CudaAdamW, torch.optim.Adam: CudaAdam}


def inexact_replay(device: str) -> str | None:
    """Why the shadows' replay of a trainer whose parameters live on ``device`` (a device type, or
    ``"mixed"``) is not known to be bit-exact, or None where it is measured exact: a CPU trainer, and a
    CUDA trainer's Adam/AdamW (per-tensor, ``foreach``, fused with the GPU's powers shipped in the
    bootstrap) and SGD -- every optimizer a shadow replays."""
    if device == "cpu":
        return None
    if device != "cuda":
        return (f"the trainer steps on {device!r}: the shadows replay with torch's CPU arithmetic, "
                f"which has not been measured against that device's kernels")
    return None


def replay_class(cpu_class: type, device: str) -> type:
    """The class a shadow replays with for a trainer whose parameters live on ``device`` (a device
    type: ``"cpu"``, ``"cuda"``, ...): the CUDA-arithmetic class where one exists, else ``cpu_class``."""
    if device == "cuda":
        return CUDA_CLASSES.get(cpu_class, cpu_class)
    return cpu_class
