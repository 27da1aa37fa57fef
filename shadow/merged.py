"""One tensor for the whole shard: the replayed Adam/AdamW step over every param group at once, and a
snapshot that is one memory copy.

:mod:`shadow.flat` steps each param group as one tensor; a shard of the default model still has two
groups (weight decay on the matrices, none on the biases), so a step is two passes of Adam's ~9
elementwise ops plus their Python.  Cache-cold after 9 ms of other processes, that per-op cost is
most of the shadow's CPU.  The groups usually differ only in ``weight_decay``; for AdamW that is one
extra ``param.mul_(1 - lr * wd)`` on the group's own elements, applied *before* everything else
(``torch.optim.adam._single_tensor_adam``).  So :class:`MergedAdam` keeps the shard's state in one
storage ``S = [params | exp_avg | exp_avg_sq (| max_exp_avg_sq)]`` laid out like the receive buffer
(groups back to back, alignment padding included), and steps it as:

* each group's step count ``+= 1`` (one ``_foreach_add_``), and per group with weight decay, its slice
  of the params ``mul_(1 - lr * wd)`` -- the trainer's own scalar expression;
* then Adam's ops once over the whole span, with the trainer's Python-float scalars (the bias
  corrections of the common step count, ``-lr / bias_correction1``), the denominator into a
  preallocated buffer (``sqrt``/``div``/``add_`` with ``out=``: the same kernels, no allocation).

This applies only when the groups share ``lr`` (checked per step: a manifest with different LRs per
group falls back to the per-group step, which sees the same tensors), ``betas``, ``eps``, ``amsgrad``,
the step count, and weight decay is decoupled (AdamW) or zero; never ``maximize``, ``capturable``,
``differentiable`` or ``fused``.  And, as for the flat step, only where a start-up probe
(:func:`merged_is_exact`, memoised per configuration) measured it bitwise equal to the trainer's
per-tensor ``opt.step()`` with the same groups, on this torch build and CPU.

The optimizer the replica keeps (one flat parameter per group, :mod:`shadow.flat`) is made of views of
``S``: its parameters are ``S``'s param slices and its state entries ``S``'s state slices, created here
(for a bootstrap without state, exactly as ``Adam._init_group`` would: a 0-dim float step of 0 and zeros).
So the per-group fallback, the conversion to per-tensor stepping (``Manifest.no_grad``) and the
checkpoint layout all see the same numbers.  :meth:`MergedAdam.snapshot_parts` clones ``S`` with one
copy and hands out per-parameter views of the copy: a published state shares nothing with ``S``.
"""
from __future__ import annotations

import torch

from .flat import FlatGroup, _probe_key, _same_bits, _steps_as_adam

_exact_cache: dict = {}
_PROBE_SIZES = (1, 3, 7, 16, 17, 31, 33, 47, 64, 100, 129)
_PROBE_STEPS = 5


def _hp_ok(hps: list[dict]) -> bool:
    """Can groups with these hyperparameters be one Adam pass (apart from per-group weight decay)?"""
    first = hps[0]
    for hp in hps:
        if hp.get("maximize") or hp.get("capturable") or hp.get("differentiable") or hp.get("fused"):
            return False
        if not isinstance(hp.get("weight_decay", 0), (int, float)) or not isinstance(hp.get("lr"), (int, float)):
            return False
        if hp.get("weight_decay", 0) and not hp.get("decoupled_weight_decay", False):
            return False
        for k in ("betas", "eps", "amsgrad"):
            a, b = hp.get(k), first.get(k)
            if (tuple(a) if isinstance(a, (list, tuple)) else a) != (tuple(b) if isinstance(b, (list, tuple)) else b):
                return False
        betas = hp.get("betas")
        if not (isinstance(betas, (list, tuple)) and len(betas) == 2 and all(isinstance(x, float) for x in betas)):
            return False
    return True


class MergedAdam:
    """The shard's Adam/AdamW state in one storage, stepped in one pass (see the module docstring).

    ``groups``: the flat groups (buffer order); ``hps``: each group's hyperparameters as the trainer's
    optimizer holds them; ``init``: per flat group, (flat param values, state dict or None)."""

    def __init__(self, groups: list[FlatGroup], hps: list[dict], init: list[tuple[torch.Tensor, dict | None]]):
        dtype = groups[0].dtype
        es = torch.empty((), dtype=dtype).element_size()
        self.base = groups[0].byte_start // es  # element index of the span in the receive buffer
        self.n = n = max(g.byte_start // es + g.numel for g in groups) - self.base
        self.amsgrad = bool(hps[0].get("amsgrad", False))
        self.keys = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if self.amsgrad else [])
        self.S = torch.zeros(n * (1 + len(self.keys)), dtype=dtype)
        self.P = self.S[:n]
        self.state = {k: self.S[(i + 1) * n:(i + 2) * n] for i, k in enumerate(self.keys)}
        self.denom = torch.empty(n, dtype=dtype)
        beta1, beta2 = hps[0]["betas"]
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(hps[0]["eps"])
        self.wd = [float(hp.get("weight_decay", 0) or 0) for hp in hps]
        self.ranges = []  # per group: (start, end) element offsets in the span
        self.params: list[torch.nn.Parameter] = []
        self.states: list[dict] = []
        self.steps: list[torch.Tensor] = []
        for g, (values, st) in zip(groups, init):
            a = g.byte_start // es - self.base
            b = a + g.numel
            self.ranges.append((a, b))
            self.P[a:b] = values
            entry = {}
            step = st["step"].detach().clone() if st else torch.tensor(0.0, dtype=torch.float32)
            entry["step"] = step
            for k in self.keys:
                v = self.state[k][a:b]
                if st:
                    v.copy_(st[k])
                entry[k] = v
            if st and list(st) != list(entry):  # keep the trainer's key order
                entry = {k: entry[k] for k in st}
            self.params.append(torch.nn.Parameter(self.P[a:b], requires_grad=True))
            self.states.append(entry)
            self.steps.append(step)
        self.decayed = [(self.P[a:b], wd) for (a, b), wd in zip(self.ranges, self.wd) if wd]
        #: the state was made here, not by a step or the bootstrap: until a step counts, the trainer's
        #: optimizer has no state for these params, and neither does a published snapshot
        self.synthetic = all(st is None for _, st in init)

    def unstarted(self) -> bool:
        """True while the state is the zeros made here and no step has run (the trainer has none)."""
        return self.synthetic and self.steps[0].item() == 0

    @staticmethod
    def usable(opt_cls, groups: list[FlatGroup], hps: list[dict], states: list[dict | None], foreach=None,
               fused=None) -> bool:
        """Groups of one dtype, contiguous in the buffer, one Adam pass possible, the same step count
        everywhere (or no state anywhere), and the probe measured it exact."""
        if not groups or not _steps_as_adam(opt_cls) or len({g.dtype for g in groups}) != 1:
            return False
        if fused or not _hp_ok(hps):
            return False
        if any(s is None for s in states) and not all(s is None for s in states):
            return False
        if states[0] is not None:
            keys = ["step", "exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if hps[0].get("amsgrad") else [])
            if any(sorted(s) != sorted(keys) for s in states):
                return False
            if len({float(s["step"]) for s in states}) != 1 or any(s["step"].dim() != 0 for s in states):
                return False
        return merged_is_exact(opt_cls, hps, groups[0].dtype, foreach)

    def step(self, grad: torch.Tensor, lrs: list[float]) -> bool:
        """One step with ``grad`` (a view of the span of the receive buffer) and each group's LR; False
        (nothing done) when the groups' LRs differ this time."""
        lr = lrs[0]
        for x in lrs:
            if x != lr:
                return False
        with torch.no_grad():
            torch._foreach_add_(self.steps, 1)
            step = self.steps[0].item()
            for p, wd in self.decayed:
                p.mul_(1 - lr * wd)
            m, v, d = self.state["exp_avg"], self.state["exp_avg_sq"], self.denom
            m.lerp_(grad, 1 - self.beta1)
            v.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
            bias_correction1 = 1 - self.beta1 ** step
            bias_correction2 = 1 - self.beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if self.amsgrad:
                mx = self.state["max_exp_avg_sq"]
                torch.maximum(mx, v, out=mx)
                v = mx
            torch.sqrt(v, out=d)
            torch.div(d, bias_correction2_sqrt, out=d)
            d.add_(self.eps)
            self.P.addcdiv_(m, d, value=-step_size)
        return True

    def plan_snapshot(self, pieces: list[tuple[int, int, tuple]]) -> None:
        """``pieces``: per owned param (pid, element offset in the span, shape), in buffer order.  Prepares
        the split of a copy of ``S`` into per-param tensors (params, then each state key)."""
        n, sizes, names = self.n, [], []
        for part, key in enumerate([None] + self.keys):
            at = part * n
            for pid, off, shape in pieces:
                start = part * n + off
                numel = 1
                for s in shape:
                    numel *= s
                if start > at:
                    sizes.append(start - at)
                    names.append(None)
                sizes.append(numel)
                names.append((pid, key, shape if len(shape) != 1 else None))
                at = start + numel
            if at < (part + 1) * n:
                sizes.append((part + 1) * n - at)
                names.append(None)
        self._split = (sizes, names)
        self._group_of_pid = {pid: gi for pid, off, _ in pieces for gi, (a, b) in enumerate(self.ranges) if a <= off < b}
        self._step_order = [self._group_of_pid[pid] for pid, _, _ in pieces]
        self._pids = [pid for pid, _, _ in pieces]

    def snapshot_parts(self) -> tuple[dict, dict]:
        """Per-param copies of the current state: ({pid: param}, {pid: {key: tensor}}), from one clone of
        ``S`` (and one of the step counts per param)."""
        copy = self.S.clone()
        sizes, names = self._split
        params, opt_state = {}, {}
        if self.unstarted():
            for t, name in zip(copy.split(sizes), names):
                if name is not None and name[1] is None:
                    params[name[0]] = t.view(name[2]) if name[2] is not None else t
            return params, opt_state
        step_copies = torch._foreach_clone([self.steps[g] for g in self._step_order])
        order = [k for k in self.states[0]] if self.states else ["step"] + self.keys
        for pid, st in zip(self._pids, step_copies):
            opt_state[pid] = dict.fromkeys(order)
            opt_state[pid]["step"] = st
        for t, name in zip(copy.split(sizes), names):
            if name is None:
                continue
            pid, key, shape = name
            if shape is not None:
                t = t.view(shape)
            if key is None:
                params[pid] = t
            else:
                opt_state[pid][key] = t
        return params, opt_state


def merged_is_exact(opt_cls, hps: list[dict], dtype: torch.dtype, foreach=None) -> bool:
    """Does :class:`MergedAdam` give bitwise the trainer's per-tensor ``opt_cls`` step for groups with
    ``hps``?  Measured once per configuration on synthetic data (every group a run of pieces whose
    lengths put elements at every vector-tail position), memoised."""
    try:
        key = (opt_cls, dtype, foreach, tuple(_probe_key(opt_cls, hp, None, None, dtype) for hp in hps))
        hash(key)
    except TypeError:
        return False
    got = _exact_cache.get(key)
    if got is None:
        try:
            got = _probe(opt_cls, hps, dtype, foreach)
        except Exception:
            got = False
        _exact_cache[key] = got
    return got


def _probe(opt_cls, hps: list[dict], dtype: torch.dtype, foreach=None) -> bool:
    gen = torch.Generator().manual_seed(4321)
    drop = ("params", "foreach", "fused", "capturable", "differentiable")
    hps = [{k: (tuple(v) if k == "betas" else v) for k, v in hp.items() if k not in drop} for hp in hps]
    pad = 16
    groups, layout, n = [], [], 0  # per group: FlatGroup; per piece: (group, offset, size)
    es = torch.empty((), dtype=dtype).element_size()
    for gi in range(len(hps)):
        start = n
        offs = []
        for s in _PROBE_SIZES:
            offs.append(n - start)
            layout.append((gi, n, s))
            n = -(-(n + s) // pad) * pad
        groups.append(FlatGroup(gi, list(range(len(offs))), offs, start * es, n - start, dtype))
    init = torch.randn(n, generator=gen).to(dtype)
    pieces = [torch.nn.Parameter(init[o:o + s].clone()) for _, o, s in layout]
    trainer = opt_cls([{"params": [p for p, (g, _, _) in zip(pieces, layout) if g == gi], **hp}
                       for gi, hp in enumerate(hps)], foreach=foreach)
    merged = MergedAdam(groups, hps, [(init[g.byte_start // es:g.byte_start // es + g.numel], None) for g in groups])
    for step in range(_PROBE_STEPS):
        lr = 1e-3 * (1 + step) / (1 + 0.3 * step)
        for og in trainer.param_groups:
            og["lr"] = lr
        g = (torch.randn(n, generator=gen) * 10.0 ** (step - 2)).to(dtype)
        for p, (_, o, s) in zip(pieces, layout):
            p.grad = g[o:o + s].clone()
        trainer.step()
        if not merged.step(g, [lr] * len(hps)):
            return False
    for p, (gi, o, s) in zip(pieces, layout):
        if not _same_bits(p.detach(), merged.P[o:o + s]):
            return False
        st = trainer.state[p]
        if float(st["step"]) != float(merged.steps[gi]):
            return False
        for k in merged.keys:
            if not _same_bits(st[k], merged.state[k][o:o + s]):
                return False
    return True
