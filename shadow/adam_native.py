"""The shadow's compiled Adam step (``adam_native.c``): :class:`~shadow.merged.MergedAdam`'s arithmetic in
two C passes instead of about ten torch and NumPy calls.

Why: on the testbed the shadows share two cores with the trainers and the emulated switch, so every
step runs cache-cold; the merged step's ten calls cost some 160 us a shard and iteration, nearly all of
it per-call dispatch, not arithmetic (17 k floats).  Two passes over the storage plus torch's own sqrt
(MKL's, which is not always correctly rounded, so it stays torch's) cost a fifth of that.

``cuda_adam`` is the same idea for a trainer that steps on a GPU: :mod:`shadow.device_optim`'s CUDA
arithmetic in one pass instead of a few dozen NumPy passes (its float64 fused multiply-add emulation),
used only after a probe found it equal to that NumPy arithmetic bit for bit.

It is an accelerator, never a source of truth: :func:`shadow.merged.merged_is_exact` probes the
compiled step against the trainer's ``torch.optim`` step like every other kernel choice, and only a
probe that found every bit equal lets a replica use it (else the torch/NumPy step runs, else the
per-group one).  Built by :mod:`checkmate.native` for float32 on CPUs with hardware fused multiply-add
(torch's lerp and addcmul are one ``fma`` each; a software ``fmaf`` would be slower than torch);
``CHECKMATE_SHADOW_NATIVE=0`` (or ``CHECKMATE_NATIVE=0``) turns it off.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

from checkmate import native

SOURCE = Path(__file__).with_name("adam_native.c")


def cflags() -> tuple[str, ...] | None:
    """The flags for this CPU, or None where it has no fused multiply-add instruction."""
    if native.is_x86_64():
        have = native.cpu_flags()
        return native.BASE_CFLAGS + ("-mavx2", "-mfma") if {"avx2", "fma"} <= have else None
    return native.BASE_CFLAGS  # (aarch64 and the like: fma is part of the base instruction set)


_P, _I64, _F32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float
_PRE = (_I64, _P, _P, _P, _P, _I64, _P, _P, _P, _P, _P, _F32, _F32, _F32)
_I32 = ctypes.c_int32
TYPES = {"adam_pre": (_PRE, None), "adam_post": ((_I64, _P, _P, _P, _F32, _F32, _F32), None),
         "adam_step": (_PRE + (_P, _P, _F32, _F32, _F32), None),
         # a CUDA trainer's step (shadow/device_optim.py): n, p, g, m, v, vmax, maximize, decay, l2_on, l2,
         # w1, beta2, w2, mode, bc2, eps, step
         "cuda_adam": ((_I64, _P, _P, _P, _P, _P, _I32, _F32, _I32, _F32, _F32, _F32, _F32, _I32, _F32, _F32,
                        _F32), None)}
KERNEL = native.Kernel(SOURCE, cflags(), "CHECKMATE_SHADOW_NATIVE", "the shadow's compiled Adam step", None, TYPES)


def load():
    """The library with argument types set, or None (no compiler, no FMA, switched off); once per process."""
    return KERNEL.get()


_sqrt = None


def torch_sqrt() -> int | None:
    """The address of the float32 sqrt torch's CPU kernel calls (MKL's ``vsSqrt``, exported by
    ``libtorch_cpu``), or None (a torch built without MKL): the compiled step then leaves the sqrt to
    ``torch.sqrt``.  Whether it is really torch's is not assumed: the start-up probe compares bits."""
    global _sqrt
    if _sqrt is None:
        import torch
        try:
            lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
            _sqrt = ctypes.cast(lib.vsSqrt, ctypes.c_void_p).value or 0
        except (OSError, AttributeError):
            _sqrt = 0
    return _sqrt or None


def main() -> None:
    """``make setup``: build ahead, say where (or why not); never fails the setup."""
    KERNEL.build_ahead()
