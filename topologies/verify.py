"""Bit-for-bit comparison of saved training states (``ddp_train.py --save-final``).

Both files are loaded with ``torch.load(weights_only=True)`` (no arbitrary unpickling) and walked in
parallel: every tensor is compared with ``torch.equal`` *and* on dtype/shape, every other leaf with
``==``.  A NaN tensor equals its bitwise copy (``torch.equal`` says False for NaN, so tensors are
also compared as raw bytes when they differ).  The result lists every path that differs.
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

    @property
    def identical(self) -> bool:
        return not self.mismatches and self.tensors > 0

    def as_dict(self) -> dict:
        return {"identical": self.identical, "tensors": self.tensors, "elements": self.elements,
                "leaves": self.leaves, "mismatches": self.mismatches[:50], "n_mismatches": len(self.mismatches)}


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
            if not _same_bits(a, b):
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
    if type(a) is not type(b) or a != b:
        if not (isinstance(a, float) and isinstance(b, float) and a != a and b != b):  # NaN == NaN here
            out.mismatches.append(f"{path}: {a!r} vs {b!r}")
    return out


def load(path) -> object:
    return torch.load(Path(path), map_location="cpu", weights_only=True)


def compare_files(reference, candidate) -> Comparison:
    return compare(load(reference), load(candidate))
