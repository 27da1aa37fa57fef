"""Is the trainer's state bit-identical to the shadows' replay?  ``compare_with_shadows``.

The shadows replay ``torch.optim.AdamW`` on CPU.  A trainer whose optimizer steps somewhere else (a
GPU, another AdamW kernel) is mirrored exactly only if both round the same way.  This check
answers it for the running job: it fetches every shard's published state of one iteration and
compares it with the trainer's parameters and AdamW moments, element by element, reporting how
many differ and by how many ulps (float32 units in the last place).  ``identical`` is the
condition for a bit-identical restore; run it once on a new device/optimizer combination (or
every K iterations) -- see docs/HOOKS.md "Optimizer step on the GPU vs the shadows' CPU replay".
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from shadow.client import ShadowClient


def ulps(a: torch.Tensor, b: torch.Tensor) -> int:
    """Largest distance in float32 ulps between ``a`` and ``b`` (same shape, CPU; +0 and -0 are 0 apart)."""
    if a.numel() == 0:
        return 0
    ia, ib = a.contiguous().view(torch.int32).long(), b.contiguous().view(torch.int32).long()
    ia = torch.where(ia < 0, -(2**31) - ia, ia)  # sign-magnitude -> ordered integers
    ib = torch.where(ib < 0, -(2**31) - ib, ib)
    return int((ia - ib).abs().max())


@dataclass
class StepCheck:
    """Result of :func:`compare_with_shadows`."""

    iteration: int
    elements: int = 0
    differing: int = 0
    max_ulp: int = 0
    per_tensor: dict = field(default_factory=dict)  # "param 3" / "param 3 exp_avg" -> (differing, max ulp)

    @property
    def identical(self) -> bool:
        return self.elements > 0 and self.differing == 0

    def add(self, name: str, mine: torch.Tensor, theirs: torch.Tensor) -> None:
        mine = mine.detach().to("cpu")
        if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
            raise ValueError(f"{name}: trainer has {tuple(mine.shape)}/{mine.dtype}, "
                             f"shadow has {tuple(theirs.shape)}/{theirs.dtype}")
        diff = int((mine.view(torch.int32) != theirs.contiguous().view(torch.int32)).sum()) \
            if mine.dtype == torch.float32 else int((mine != theirs).sum())
        u = ulps(mine, theirs) if mine.dtype == torch.float32 and diff else 0
        self.elements += mine.numel()
        self.differing += diff
        self.max_ulp = max(self.max_ulp, u)
        if diff:
            self.per_tensor[name] = (diff, u)


def compare_with_shadows(model: torch.nn.Module, optimizer: torch.optim.Optimizer, shadows, *, iteration: int,
                         timeout: float = 30.0) -> StepCheck:
    """Compare ``model``/``optimizer`` (after ``iteration`` steps) with every shard's state of ``iteration``.

    ``shadows``: :class:`~trainer_hooks.shadow_link.ShadowAddr` list in shard order.  The shards must
    still hold ``iteration`` (their ``--history``): call it right after the step, once the shadows
    published it (:meth:`Checkpointer.wait_for_shadows`).
    """
    params = list(getattr(model, "module", model).parameters())
    out = StepCheck(iteration)
    for addr in shadows:
        with ShadowClient(addr.host, addr.mgmt_port, timeout=timeout) as c:
            st = c.fetch(iteration)
        if st.iteration != iteration:
            raise ValueError(f"shard {st.shard} returned iteration {st.iteration}, asked for {iteration}")
        for pid, t in st.tensors.items():
            out.add(f"param {pid}", params[pid], t)
            mine = optimizer.state.get(params[pid], {})
            for k, v in st.opt_state.get(pid, {}).items():
                if k in mine and isinstance(mine[k], torch.Tensor):
                    out.add(f"param {pid} {k}", mine[k], v)
    return out
