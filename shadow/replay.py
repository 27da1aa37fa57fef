"""Replaying the trainer's optimizer step on the shard: :class:`AdamWReplica`.

Bit-identity with the trainer rests on doing *the same floating-point operations in the same
order*, so the replica does not reimplement AdamW: it runs ``torch.optim.AdamW`` itself over the
shard's parameters, with

* the same variant (``foreach``/``fused`` from :class:`OptimizerSpec`; ``foreach=True`` and
  ``False`` are bitwise equal on CPU, ``fused=True`` is a different kernel and is replayed as such),
* the same param-group structure and hyperparameters, the step's LR per group taken from the
  manifest (a Python float, exactly what an LR scheduler writes into ``group["lr"]``),
* gradients = the received bits, multiplied in place by the clip coefficient as a 0-dim float32
  tensor through ``torch._foreach_mul_`` -- the op ``clip_grad_norm_`` uses (per-element it is the
  same multiplication as ``Tensor.mul_``),
* ``skip`` honoured (no step, the iteration still counts).

Gradients are zero-copy ``torch.frombuffer`` views of the iteration's receive buffer (byte-swapped
in place first when the wire payload is big endian).  :meth:`snapshot` clones the state into an
immutable :class:`ShardState` that is published and may be persisted while the next step runs.
"""
from __future__ import annotations

import sys

import numpy as np
import torch

from .layout import ShardLayout
from .protocol import DTYPES, Bootstrap, Manifest, OptimizerSpec, ProtocolError, ShardState

#: group keys the replica controls itself (never taken from the trainer's description)
_FORCED = {"params", "foreach", "fused", "capturable", "differentiable"}
_SWAP = {2: np.uint16, 4: np.uint32, 8: np.uint64}


class AdamWReplica:
    def __init__(self, boot: Bootstrap, layout: ShardLayout, payload_order: str = "big"):
        spec = boot.optimizer
        if spec.kind.lower() != "adamw":
            raise ProtocolError(f"OptimizerSpec: field 'kind': {spec.kind!r} is not replayed (only 'adamw')")
        if not spec.param_groups:
            raise ProtocolError("OptimizerSpec: field 'param_groups' is empty")
        if payload_order not in ("big", "little"):
            raise ValueError(f"payload_order: {payload_order!r} is neither 'big' nor 'little'")
        self.spec, self.layout, self.job_id, self.shard = spec, layout, boot.job_id, boot.shard
        self.num_shards = boot.shard_map.num_shards
        self.iteration = boot.iteration
        self._swap = payload_order != sys.byteorder
        self.params: dict[int, torch.nn.Parameter] = {}
        for pid in layout.owned:
            ps = layout.params[pid]
            if pid not in boot.tensors:
                raise ProtocolError(f"Bootstrap.tensors: owned param {pid} ({ps.name!r}) is missing")
            t = boot.tensors[pid]
            if tuple(t.shape) != ps.shape or t.dtype != DTYPES[ps.dtype]:
                raise ProtocolError(f"Bootstrap.tensors[{pid}] ({ps.name!r}): shape/dtype {tuple(t.shape)}/{t.dtype} "
                                    f"!= spec {ps.shape}/{ps.dtype}")
            if not 0 <= ps.group < len(spec.param_groups):
                raise ProtocolError(f"ParamSpec {ps.name!r}: field 'group' {ps.group} not in 0..{len(spec.param_groups) - 1}")
            self.params[pid] = torch.nn.Parameter(t.detach().to("cpu", copy=True), requires_grad=True)
        extra = set(boot.tensors) - set(layout.owned)
        if extra:
            raise ProtocolError(f"Bootstrap.tensors: params {sorted(extra)[:5]} are not owned by shard {boot.shard}")
        # optimizer groups in the trainer's order; groups without a param here are left out
        self.group_of: list[int] = []
        groups = []
        for g, hp in enumerate(spec.param_groups):
            ps = [self.params[pid] for pid in layout.owned if layout.params[pid].group == g]
            if ps:
                groups.append({"params": ps})
                self.group_of.append(g)
        self.opt: torch.optim.AdamW | None = None
        if groups:
            self.opt = torch.optim.AdamW(groups, foreach=spec.foreach, fused=spec.fused)
            for og, g in zip(self.opt.param_groups, self.group_of):
                for k, v in spec.param_groups[g].items():
                    if k not in _FORCED:
                        og[k] = tuple(v) if k == "betas" else v
        for pid, st in boot.opt_state.items():
            if pid not in self.params:
                raise ProtocolError(f"Bootstrap.opt_state: param {pid} is not owned by shard {boot.shard}")
            self.opt.state[self.params[pid]] = {k: v.detach().clone() for k, v in st.items()}
        self._ordered = [self.params[pid] for pid in layout.owned]

    def step(self, manifest: Manifest, buf: bytearray | None) -> None:
        """Apply iteration ``manifest.iteration`` with the gradient in ``buf`` (a slot buffer)."""
        if manifest.iteration != self.iteration + 1:
            raise RuntimeError(f"replica at iteration {self.iteration} cannot apply {manifest.iteration}")
        if len(manifest.lrs) != len(self.spec.param_groups):
            raise ProtocolError(f"Manifest {manifest.iteration}: field 'lrs' has {len(manifest.lrs)} entries, "
                                f"optimizer has {len(self.spec.param_groups)} param groups")
        if manifest.skip or self.opt is None:
            self.iteration += 1
            return
        lay = self.layout
        grads = []
        for pid in lay.owned:
            n, es, bb = lay.numel[pid], lay.elem_size[pid], lay.byte_base[pid]
            if self._swap and es > 1 and n:
                np.frombuffer(buf, dtype=_SWAP[es], count=n, offset=bb).byteswap(inplace=True)
            p = self.params[pid]
            g = torch.frombuffer(buf, dtype=p.dtype, count=n, offset=bb).view(p.shape) if n else torch.zeros_like(p)
            p.grad = g
            grads.append(g)
        if manifest.clip_coef is not None:
            coef = torch.tensor(float(manifest.clip_coef), dtype=torch.float32)
            torch._foreach_mul_(grads, coef)
        for og, g in zip(self.opt.param_groups, self.group_of):
            og["lr"] = manifest.lrs[g]
        try:
            self.opt.step()
        finally:
            for p in self._ordered:
                p.grad = None
        self.iteration += 1

    def snapshot(self) -> ShardState:
        st = self.opt.state if self.opt is not None else {}
        return ShardState(
            job_id=self.job_id, shard=self.shard, iteration=self.iteration,
            tensors={pid: p.detach().clone() for pid, p in self.params.items()},
            opt_state={pid: {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in st[p].items()}
                       for pid, p in self.params.items() if p in st},
            optimizer=self.spec_with_lrs(), params=list(self.layout.params), num_shards=self.num_shards)

    def spec_with_lrs(self) -> OptimizerSpec:
        """The optimizer description with each group's current LR (as of the last step)."""
        groups = [dict(g) for g in self.spec.param_groups]
        if self.opt is not None:
            for og, g in zip(self.opt.param_groups, self.group_of):
                groups[g]["lr"] = og["lr"]
        return OptimizerSpec(self.spec.kind, self.spec.foreach, self.spec.fused, groups)
