"""One flat tensor per param group: the replayed optimizer step on a shard in one kernel call per op.

The trainer's ``torch.optim`` step runs its elementwise ops once per parameter tensor; on a shard of
a small model most of its cost is that per-tensor overhead (about 200 us for AdamW on 6 tensors
against 60 us on one tensor of the same elements).  The optimizers the shadows replay (AdamW, Adam,
SGD -- :mod:`shadow.optimizers`) are elementwise: every element's new value depends only on that
element's parameter, gradient and state and on per-group scalars (LR, betas, the step count).  So a
group whose parameters lie back to back in the shard's receive buffer (:class:`~shadow.layout.
ShardLayout`, each parameter on a 64-byte boundary) can be stepped as *one* tensor spanning them
(alignment padding included: its gradient is zero and nobody reads its result), with the same
floating-point operations per element as the trainer's per-tensor step.

"The same operations" has one catch: torch's CPU kernels run a vectorised body and a scalar tail
per call, and a kernel whose two paths rounded differently (an FMA in one, not the other) would give
an element different bits depending on where its tensor ends.  On torch 2.13 (default, AVX2 and
AVX-512 kernels) they agree -- ``tests/shadow/test_replay_flat.py`` proves it against the trainer's
per-tensor optimizer over many steps -- but instead of trusting that for every build and CPU,
:func:`flat_is_exact` *measures* it for the group's exact optimizer, variant, dtype and
hyperparameters before a replica uses the flat form (a few ms, once per process and
configuration): synthetic tensors whose lengths put every element position at a tail, both ways,
bit for bit.  Where it does not hold, or the group is not contiguous in the buffer, or the
bootstrap's state is not uniform across the group (different step counts, state for only some
params), the replica steps per tensor as before.

The flat form carries one ``step`` count per group, so it cannot represent a parameter skipped by
one step (``Manifest.no_grad``: its step count falls behind); on the first such manifest the
replica converts to the per-tensor form for good (:meth:`shadow.replay.OptimizerReplica`).
Published states are unaffected: a snapshot clones each parameter's slice into its own tensor, so
``ShardState`` and the checkpoint export see the per-parameter layout either way.

The direct call (:class:`AdamDirect`).  With a tensor per group left, what remains of an Adam/AdamW
step is mostly the ``Optimizer.step`` machinery around the arithmetic -- the profiler/hook wrapper,
``_init_group`` rebuilding the state lists, the graph-capture check -- which, cache-cold after
9 ms of other processes, costs about as much as the arithmetic itself.  Once every flat parameter
has its state, :class:`AdamDirect` calls torch's own functional ``torch.optim.adam.adam`` with the
lists and group values ``Adam.step`` would pass (the same kernels, so the same bits); the probe
checks that too, against the per-tensor ``opt.step()``, before a replica uses it.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import torch

from .layout import ShardLayout

#: element counts of the probe's tensors: every length 1..33 (so every residue modulo 16 and 32 ends a
#: tensor, in a vectorised kernel's tail), and a few that run several vector widths
_PROBE_SIZES = tuple(range(1, 34)) + (47, 64, 100, 129)
_PROBE_STEPS = 4
_exact_cache: dict = {}


@dataclass
class FlatGroup:
    """One optimizer group stepped as one tensor: ``pids`` in buffer order with their element offsets
    into the group's span, which starts at byte ``byte_start`` of the slot buffer."""
    group: int  #: index into the trainer's param_groups
    pids: list[int]
    offsets: list[int]  #: element offset of each pid inside the span
    byte_start: int
    numel: int  #: elements in the span (padding included)
    dtype: torch.dtype


def plan(layout: ShardLayout, groups: list[tuple[int, list[int]]], dtypes: dict[int, torch.dtype]) -> list[FlatGroup] | None:
    """The flat groups for ``groups`` ((trainer group index, owned pids) per optimizer group), or None
    when some group's params are not consecutive in the buffer or differ in dtype.  (The layout puts
    each group's params back to back; a group's pids are listed in buffer order in the result.)"""
    bb = layout.byte_base
    pos = {pid: i for i, pid in enumerate(sorted(layout.owned, key=bb.__getitem__))}
    out = []
    for g, pids in groups:
        pids = sorted(pids, key=bb.__getitem__)
        idx = [pos[p] for p in pids]
        if idx != list(range(idx[0], idx[0] + len(idx))) or len({dtypes[p] for p in pids}) != 1:
            return None
        dt = dtypes[pids[0]]
        es = layout.elem_size[pids[0]]
        start = layout.byte_base[pids[0]]
        end = layout.byte_base[pids[-1]] + layout.numel[pids[-1]] * es
        out.append(FlatGroup(g, list(pids), [(layout.byte_base[p] - start) // es for p in pids], start,
                             (end - start) // es, dt))
    return out


def uniform_state(states: list[dict | None], shapes: list[tuple]) -> bool:
    """Can the per-param states of one group (params of ``shapes``) be one flat state?  All absent,
    or all with the same keys: ``step`` a 0-dim tensor equal in every one (one count for the
    group), every other entry a tensor of its param's shape."""
    if all(s is None for s in states):
        return True
    if any(s is None for s in states):
        return False
    keys = list(states[0])
    first_step = states[0].get("step")
    for s, shape in zip(states, shapes):
        if list(s) != keys or not all(isinstance(v, torch.Tensor) for v in s.values()):
            return False
        for k, v in s.items():
            if k == "step":
                if v.dim() != 0 or v.dtype != first_step.dtype or not torch.equal(v, first_step):
                    return False
            elif tuple(v.shape) != tuple(shape):
                return False
    return True


def _probe_key(opt_cls, hp: dict, foreach, fused, dtype) -> tuple:
    items = []
    for k, v in sorted(hp.items()):
        if k == "params":
            continue
        items.append((k, tuple(v) if isinstance(v, (list, tuple)) else v))
    return opt_cls, foreach, fused, dtype, tuple(items)


def flat_is_exact(opt_cls, hp: dict, foreach, fused, dtype: torch.dtype) -> bool:
    """Does ``opt_cls(**hp)`` give, on this torch build and CPU, bitwise the same values stepping one
    flat tensor as stepping its pieces one by one?  Measured on synthetic data, memoised."""
    return _probe_memoised(opt_cls, hp, foreach, fused, dtype, direct=False)


def _probe_memoised(opt_cls, hp: dict, foreach, fused, dtype, direct: bool) -> bool:
    try:
        key = (direct,) + _probe_key(opt_cls, hp, foreach, fused, dtype)
        hash(key)
    except TypeError:  # an unhashable hyper-parameter: not probed, never flat
        return False
    got = _exact_cache.get(key)
    if got is None:
        try:
            got = _exact_cache[key] = _probe(opt_cls, hp, foreach, fused, dtype, direct=direct)
        except Exception:  # an optimizer/variant the probe cannot run: never flat
            got = _exact_cache[key] = False
    return got


def _steps_as_adam(cls) -> bool:
    """Is ``cls.step`` torch's ``Adam.step``?  (Optimizer instances wrap their class's ``step`` in a
    profiling hook: compare the functions underneath.)"""
    return (isinstance(cls, type) and issubclass(cls, torch.optim.Adam)
            and inspect.unwrap(cls.step) is inspect.unwrap(torch.optim.Adam.step))


class AdamDirect:
    """``opt.step()`` of an Adam/AdamW optimizer (``torch.optim.Adam.step``, which AdamW inherits)
    without its wrapper: ``torch.optim.adam.adam`` per group with the state lists cached.  Usable
    once every parameter has its state (the first step, or a bootstrap, creates it) and while every
    parameter has a gradient; :meth:`step` returns False (nothing done) otherwise."""

    def __init__(self, opt: torch.optim.Optimizer):
        self.opt = opt
        self.lists: list | None = None

    @staticmethod
    def supports(opt) -> bool:
        return _steps_as_adam(type(opt))

    def _build(self) -> bool:
        lists = []
        for g in self.opt.param_groups:
            states = [self.opt.state.get(p) for p in g["params"]]
            if not all(states) or any(torch.is_complex(p) for p in g["params"]):
                return False
            lists.append((g, list(g["params"]), [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
                          [s["max_exp_avg_sq"] for s in states] if g["amsgrad"] else [],
                          [s["step"] for s in states]))
        self.lists = lists
        return True

    def step(self) -> bool:
        if self.lists is None and not self._build():
            return False
        from torch.optim.adam import adam
        with torch.no_grad():
            for g, ps, ea, eas, mx, steps in self.lists:
                grads = [p.grad for p in ps]
                if any(x is None for x in grads):
                    raise RuntimeError("AdamDirect: a parameter has no gradient")
                beta1, beta2 = g["betas"]
                adam(ps, grads, ea, eas, mx, steps, amsgrad=g["amsgrad"], has_complex=False, beta1=beta1,
                     beta2=beta2, lr=g["lr"], weight_decay=g["weight_decay"], eps=g["eps"], maximize=g["maximize"],
                     foreach=g["foreach"], capturable=g["capturable"], differentiable=g["differentiable"],
                     fused=g["fused"], grad_scale=None, found_inf=None,
                     decoupled_weight_decay=g["decoupled_weight_decay"])
        return True


def direct_is_exact(opt_cls, hp: dict, foreach, fused, dtype: torch.dtype) -> bool:
    """Like :func:`flat_is_exact`, for the flat step made through :class:`AdamDirect`."""
    if not _steps_as_adam(opt_cls):
        return False
    return _probe_memoised(opt_cls, hp, foreach, fused, dtype, direct=True)


def _probe(opt_cls, hp, foreach, fused, dtype, direct: bool = False) -> bool:
    gen = torch.Generator().manual_seed(12345)
    hp = {k: v for k, v in hp.items() if k not in ("params", "foreach", "fused", "capturable", "differentiable")}
    if "betas" in hp:
        hp["betas"] = tuple(hp["betas"])
    pad = 16  # pieces start on 16-element boundaries, as on a shard (64 bytes of float32)
    offs, n = [], 0
    for s in _PROBE_SIZES:
        offs.append(n)
        n = -(-(n + s) // pad) * pad
    init = torch.randn(n, generator=gen).to(dtype)
    pieces = [torch.nn.Parameter(init[o:o + s].clone()) for o, s in zip(offs, _PROBE_SIZES)]
    flat = torch.nn.Parameter(init.clone())
    o1 = opt_cls([{"params": pieces, **hp}], foreach=foreach, fused=fused)
    o2 = opt_cls([{"params": [flat], **hp}], foreach=foreach, fused=fused)
    fast = AdamDirect(o2) if direct else None
    for step in range(_PROBE_STEPS):
        g = (torch.randn(n, generator=gen) * 10.0 ** (step - 2)).to(dtype)
        for p, o, s in zip(pieces, offs, _PROBE_SIZES):
            p.grad = g[o:o + s].clone()
        flat.grad = g
        o1.step()
        if fast is None or not fast.step():  # (the first step creates the state)
            o2.step()
        flat.grad = None
    if fast is not None and fast.lists is None:
        return False
    for p, o, s in zip(pieces, offs, _PROBE_SIZES):
        if not _same_bits(p.detach(), flat.detach()[o:o + s]):
            return False
        for k, v in o1.state[p].items():
            if isinstance(v, torch.Tensor) and v.dim() > 0 and not _same_bits(v, o2.state[flat][k][o:o + s]):
                return False
    return True


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    ib = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
    return torch.equal(a.contiguous().view(ib), b.contiguous().view(ib))
