"""Bit-for-bit comparison of saved training states (``ddp_train.py --save-final``).

Both files are loaded with ``torch.load(weights_only=True)`` (no arbitrary unpickling) and walked in
parallel: every tensor is compared with ``torch.equal`` *and* on dtype/shape, every other leaf with
``==``.  A NaN tensor equals its bitwise copy (``torch.equal`` says False for NaN, so tensors are
also compared as raw bytes when they differ).  The result lists every path that differs.

The verdict is over the *full* training state ``examples/ddp_train.py --save-final`` writes, and
:attr:`Comparison.categories` says how much of each part was compared (and how much differed), so
a verdict cannot pass while silently comparing only parameters:

* ``params`` -- the model's parameters (``model/<name>`` not listed in ``buffer_names``);
* ``buffers`` -- its buffers (BatchNorm running statistics, ``num_batches_tracked``, ...);
* ``optimizer`` -- per-parameter optimizer state (``exp_avg``, ``momentum_buffer``, ...) and the
  param groups' hyperparameters;
* ``counters`` -- step counters: the optimizer's per-parameter ``step``, the scheduler's
  ``last_epoch``/``_step_count``/``_last_lr``, the iteration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch


@dataclass
class Comparison:
    tensors: int = 0
    elements: int = 0
    leaves: int = 0
    mismatches: list = field(default_factory=list)
    #: every compared leaf (tensor or value): ``(path, identical)``
    checked: list = field(default_factory=list)
    buffer_names: frozenset = frozenset()

    @property
    def categories(self) -> dict:
        """``{category: {"compared": n, "mismatches": m}}`` over params/buffers/optimizer/counters/other."""
        out = {k: {"compared": 0, "mismatches": 0} for k in ("params", "buffers", "optimizer", "counters", "other")}
        for path, ok in self.checked:
            c = out[category(path, self.buffer_names)]
            c["compared"] += 1
            c["mismatches"] += not ok
        return out

    @property
    def identical(self) -> bool:
        return not self.mismatches and self.tensors > 0

    def as_dict(self) -> dict:
        return {"identical": self.identical, "tensors": self.tensors, "elements": self.elements,
                "leaves": self.leaves, "mismatches": self.mismatches[:50], "n_mismatches": len(self.mismatches),
                "categories": self.categories}


_BUFFER_SUFFIXES = ("running_mean", "running_var", "num_batches_tracked")


def category(path: str, buffer_names=frozenset()) -> str:
    """Which part of the training state a compared path belongs to (see the module docstring)."""
    parts = path.strip("/").split("/")
    top = parts[0] if parts else ""
    if top == "model" and len(parts) > 1:
        name = "/".join(parts[1:])
        return "buffers" if name in buffer_names or name.endswith(_BUFFER_SUFFIXES) else "params"
    if top == "optimizer":
        return "counters" if parts[-1] == "step" and "state" in parts else "optimizer"
    if top in ("scheduler", "iteration"):
        return "counters"
    return "other"


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if torch.equal(a, b):
        return True
    try:
        return a.contiguous().view(torch.uint8).equal(b.contiguous().view(torch.uint8))
    except (RuntimeError, TypeError):
        return False


def compare(a, b, path: str = "", out: Comparison | None = None) -> Comparison:
    out = out if out is not None else Comparison()
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            out.mismatches.append(f"{path}: tensor vs {type(b if isinstance(a, torch.Tensor) else a).__name__}")
        elif a.dtype != b.dtype or a.shape != b.shape:
            out.mismatches.append(f"{path}: {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}")
        else:
            out.tensors += 1
            out.elements += a.numel()
            same = _same_bits(a, b)
            out.checked.append((path, same))
            if not same:
                diff = (a.double() - b.double()).abs()
                out.mismatches.append(f"{path}: {int((diff > 0).sum())} of {a.numel()} elements differ "
                                      f"(max |diff| {float(diff.max()):.3g})")
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        ka, kb = set(a), set(b)
        for k in sorted(ka ^ kb, key=str):
            out.mismatches.append(f"{path}/{k}: only in {'first' if k in ka else 'second'}")
        for k in sorted(ka & kb, key=str):
            compare(a[k], b[k], f"{path}/{k}", out)
        return out
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            out.mismatches.append(f"{path}: length {len(a)} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", out)
        return out
    out.leaves += 1
    same = True
    if type(a) is not type(b) or a != b:
        if not (isinstance(a, float) and isinstance(b, float) and a != a and b != b):  # NaN == NaN here
            out.mismatches.append(f"{path}: {a!r} vs {b!r}")
            same = False
    out.checked.append((path, same))
    return out


def load(path) -> object:
    return torch.load(Path(path), map_location="cpu", weights_only=True)


def compare_states(reference, candidate) -> Comparison:
    """:func:`compare` of two saved training states, with their ``buffer_names`` for the categories."""
    out = Comparison()
    if isinstance(reference, dict):
        out.buffer_names = frozenset(reference.get("buffer_names") or ())
    return compare(reference, candidate, "", out)


def compare_files(reference, candidate) -> Comparison:
    return compare_states(load(reference), load(candidate))
