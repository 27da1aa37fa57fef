"""One tensor for the whole shard: the replayed Adam/AdamW step over every param group at once, and
publication without a copy.

:mod:`shadow.flat` steps each param group as one tensor; a shard of the default model still has two
groups (weight decay on the matrices, none on the biases), so a step is two passes of Adam's ~9
elementwise ops plus their Python.  Cache-cold after 9 ms of other processes, that per-op cost is
most of the shadow's CPU.  The groups usually differ only in ``weight_decay``; for AdamW that is one
extra ``param.mul_(1 - lr * wd)`` on the group's own elements, applied *before* everything else
(``torch.optim.adam._single_tensor_adam``).  So :class:`MergedAdam` keeps the shard's state in one
storage ``S = [params | exp_avg | exp_avg_sq (| max_exp_avg_sq)]`` laid out like the receive buffer
(groups back to back, alignment padding included), and steps it as:

* per group with weight decay, its slice of the params times ``1 - lr * wd`` -- the trainer's own scalar
  expression -- and the step count ``+ 1``;
* then Adam's ops once over the whole span, with the trainer's Python-float scalars (the bias
  corrections of the common step count, ``-lr / bias_correction1``), the denominator into a
  preallocated buffer.  What is one IEEE operation per element (copy, ``x * scalar``, ``x / scalar``,
  ``x + scalar``, the step count) runs through NumPy on the same memory: the same bits at a third of the
  cache-cold cost of a torch call; ``lerp``, ``addcmul``, ``sqrt`` (torch's differs from the correctly
  rounded one on some inputs) and ``addcdiv`` through torch's kernels.

This applies only when the groups share ``lr`` (checked per step: a manifest with different LRs per
group falls back to the per-group step, which sees the same tensors), ``betas``, ``eps``, ``amsgrad``,
the step count, and weight decay is decoupled (AdamW) or zero; never ``maximize``, ``capturable``,
``differentiable`` or ``fused``.  And, as for the flat step, only where a start-up probe
(:func:`merged_is_exact`, memoised per configuration) measured it bitwise equal to the trainer's
per-tensor ``opt.step()`` with the same groups, on this torch build and CPU.

*Publishing without a copy.*  The state lives in a pool of copies (:class:`_Entry`): a step reads the
current copy and writes its result into one that nothing outside holds, which becomes current.  So the
published :class:`~shadow.protocol.ShardState` is simply the current copy's per-parameter views (the
same dicts and tensors each time that copy is published), and the next steps never write it while
anybody holds it: :meth:`_Entry.free` checks the storage's use count (any tensor on the memory -- a
slice, a NumPy array's base) and the reference counts of the published dicts and views against the
copy's own.

The replica's optimizer (one flat parameter per group, :mod:`shadow.flat`) sees this state only when it
has to step itself -- the groups' LRs differ this step, or a ``no_grad`` manifest converts the replica
to per-tensor stepping: :meth:`MergedAdam.bind` points its parameters and state at a fresh copy of the
current state first.  A bootstrap without state gets the state ``Adam._init_group`` would create (step 0,
zeros), which is not published until a step counts (the trainer has none before).
"""
from __future__ import annotations

import sys

import numpy as np
import torch

from . import adam_native
from .flat import FlatGroup, _probe_key, _same_bits, _steps_as_adam

_exact_cache: dict = {}
_PROBE_SIZES = (1, 3, 7, 16, 17, 31, 33, 47, 64, 100, 129)
_PROBE_STEPS = 8


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


def _uses(t: torch.Tensor) -> int:
    """How many tensors (and storage objects) hold ``t``'s memory (the C++ storage use count)."""
    return torch._C._storage_Use_Count(t.untyped_storage()._cdata)


def _refcounts(objs: list) -> list[int]:
    return [sys.getrefcount(o) for o in objs]


class _Entry:
    """One copy of the shard's state: the storage ``S`` (params, then each state key), the per-param
    step counts, and the per-param views a published :class:`~shadow.protocol.ShardState` holds (the
    same dicts and tensors every time this entry is published)."""
    __slots__ = ("S", "steps", "P", "state", "decayed", "params", "opt_state", "refs", "uses", "np", "addr")

    def seal(self) -> None:
        """Record who holds this entry's memory when only the entry does."""
        # containers before what they contain, tensors last (see free())
        self.refs = [self.params, self.opt_state, *self.opt_state.values(), *self.params.values(),
                     *(t for d in self.opt_state.values() for t in d.values())]
        self.uses = (_refcounts(self.refs), _uses(self.S), _uses(self.steps))

    def free(self) -> bool:
        """True when nothing but this entry holds its memory -- no published state, fetch or persist
        in progress, caller's dict or tensor (a reference to a published dict or view raises its
        refcount; any other tensor on the memory, a slice or a NumPy array's base, the storage's use
        count) -- so the next step may write into it.  Checked from the outside in (the dicts, then
        the published tensors, then the storages): a holder can only move from a container to what it
        contains and from a published tensor to one derived from it, so another thread that does so
        while this runs is still seen holding something."""
        return (_refcounts(self.refs) == self.uses[0] and _uses(self.S) == self.uses[1]
                and _uses(self.steps) == self.uses[2])


class MergedAdam:
    """The shard's Adam/AdamW state, stepped in one pass (see the module docstring).

    ``groups``: the flat groups (buffer order); ``hps``: each group's hyperparameters as the trainer's
    optimizer holds them; ``init``: per flat group, (flat param values, state dict or None);
    ``pieces``: per owned param (pid, element offset in its group's span, shape), in buffer order."""

    #: entries kept for reuse (published states in the node's history, plus a few in flight)
    MAX_POOL = 32

    def __init__(self, groups: list[FlatGroup], hps: list[dict], init: list[tuple[torch.Tensor, dict | None]],
                 pieces: list[tuple[int, int, tuple]], native: bool = False):
        self.dtype = dtype = groups[0].dtype
        #: the compiled step (shadow.adam_native), when asked for and it can be had (float32 only)
        self.lib = adam_native.load() if native and dtype == torch.float32 else None
        es = torch.empty((), dtype=dtype).element_size()
        self.base = groups[0].byte_start // es  # element index of the span in the receive buffer
        self.n = n = max(g.byte_start // es + g.numel for g in groups) - self.base
        self.amsgrad = bool(hps[0].get("amsgrad", False))
        self.keys = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if self.amsgrad else [])
        beta1, beta2 = hps[0]["betas"]
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(hps[0]["eps"])
        self.wd = [float(hp.get("weight_decay", 0) or 0) for hp in hps]
        self.ranges = [(g.byte_start // es - self.base, g.byte_start // es - self.base + g.numel) for g in groups]
        self.pieces = [(pid, off, tuple(shape)) for pid, off, shape in pieces]
        st0 = init[0][1]
        self.order = list(st0) if st0 else ["step"] + self.keys  # the trainer's key order
        self.step_dtype = st0["step"].dtype if st0 else torch.float32
        self.denom = torch.empty(n, dtype=dtype)
        self.denom_np = self.denom.numpy()
        self.np_scalar = self.denom_np.dtype.type  # a Python float as the storage's dtype (np.float32)
        # the compiled step's decayed ranges ([a, b) pairs) and their factors (1 - lr * wd, per step)
        dec = [(r, wd) for r, wd in zip(self.ranges, self.wd) if wd]
        self.decay = np.array([x for (a, b), _ in dec for x in (a, b)] or [0], dtype=np.int64)
        self.decay_wd = [wd for _, wd in dec]
        self.factor = np.zeros(max(1, len(dec)), dtype=np.float32)
        self.native_addr = (self.decay.ctypes.data, self.factor.ctypes.data, self.denom.data_ptr())
        #: torch's own float32 sqrt for the one-call compiled step (None: torch.sqrt between two calls)
        self.vsqrt = adam_native.torch_sqrt() if self.lib is not None and not self.amsgrad and n < 2 ** 31 else None
        #: the state was made here, not by a step or the bootstrap: until a step counts, the trainer's
        #: optimizer has no state for these params, and neither does a published snapshot
        self.synthetic = all(st is None for _, st in init)
        self.count = float(st0["step"]) if st0 else 0.0
        cur = self._new_entry()
        for (a, b), (values, st) in zip(self.ranges, init):
            cur.P[a:b] = values
            if st:
                for k in self.keys:
                    cur.state[k][a:b] = st[k]
        cur.steps.fill_(self.count)
        self.cur, self.pool = cur, [cur]
        # the optimizer's view (per-group fallback, conversion to per-tensor): bound on demand
        self.params = [torch.nn.Parameter(cur.P[a:b], requires_grad=True) for a, b in self.ranges]
        self.gsteps = [torch.tensor(self.count, dtype=self.step_dtype) for _ in self.ranges]
        self.states = [{k: (gs if k == "step" else cur.state[k][a:b]) for k in self.order}
                       for (a, b), gs in zip(self.ranges, self.gsteps)]
        self._bound = cur

    def _new_entry(self) -> _Entry:
        n, e = self.n, _Entry()
        e.S = torch.zeros(n * (1 + len(self.keys)), dtype=self.dtype)
        e.steps = torch.zeros(len(self.pieces), dtype=self.step_dtype)
        e.P = e.S[:n]
        e.state = {k: e.S[(i + 1) * n:(i + 2) * n] for i, k in enumerate(self.keys)}
        e.decayed = [(e.P[a:b].numpy(), wd) for (a, b), wd in zip(self.ranges, self.wd) if wd]
        e.np = (e.P.numpy(), e.state["exp_avg_sq"].numpy(), e.steps.numpy())
        e.addr = (e.P.data_ptr(), e.state["exp_avg"].data_ptr(), e.state["exp_avg_sq"].data_ptr())
        e.params, e.opt_state = {}, {}
        for i, (pid, off, shape) in enumerate(self.pieces):
            numel = 1
            for d in shape:
                numel *= d
            e.params[pid] = e.P[off:off + numel].view(shape)
            views = {k: e.state[k][off:off + numel].view(shape) for k in self.keys}
            views["step"] = e.steps[i]
            e.opt_state[pid] = {k: views[k] for k in self.order}
        views = None  # (holds the last param's tensors: not part of what the entry holds)
        e.seal()
        return e

    def _free_entry(self) -> _Entry:
        """A copy nothing holds: the pool is kept oldest-used first, so the first one checked is
        usually free (the states published before it have left the node's history)."""
        cur, pool = self.cur, self.pool
        for i, e in enumerate(pool):
            if e is not cur and e.free():
                del pool[i]
                pool.append(e)
                return e
        e = self._new_entry()
        if len(self.pool) >= self.MAX_POOL:  # the rest stay alive as long as their holders do
            self.pool = [x for x in self.pool if x is cur]
        self.pool.append(e)
        return e

    def unstarted(self) -> bool:
        """True while the state is the zeros made here and no step has run (the trainer has none)."""
        return self.synthetic and self.count == 0

    @staticmethod
    def usable(opt_cls, groups: list[FlatGroup], hps: list[dict], states: list[dict | None], foreach=None,
               fused=None) -> str | None:
        """Which step to use -- ``"native"`` (the compiled one) or ``"torch"`` -- or None when neither
        applies: groups of one dtype, contiguous in the buffer, one Adam pass possible, the same step
        count everywhere (or no state anywhere), and the probe measured the step exact."""
        if not groups or not _steps_as_adam(opt_cls) or len({g.dtype for g in groups}) != 1:
            return None
        if groups[0].dtype not in (torch.float32, torch.float64):  # (NumPy has no bfloat16; half: not probed)
            return None
        if fused or not _hp_ok(hps):
            return None
        if any(s is None for s in states) and not all(s is None for s in states):
            return None
        if states[0] is not None:
            keys = ["step", "exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if hps[0].get("amsgrad") else [])
            if any(sorted(s) != sorted(keys) for s in states):
                return None
            if len({float(s["step"]) for s in states}) != 1 or any(s["step"].dim() != 0 for s in states):
                return None
            if len({s["step"].dtype for s in states}) != 1:
                return None
        dtype = groups[0].dtype
        if dtype == torch.float32 and adam_native.load() is not None and merged_is_exact(
                opt_cls, hps, dtype, foreach, native=True):
            return "native"
        return "torch" if merged_is_exact(opt_cls, hps, dtype, foreach) else None

    def step(self, grad: torch.Tensor, lrs: list[float]) -> bool:
        """One step with ``grad`` (a view of the span of the receive buffer) and each group's LR, read
        from the current entry and written into a free one (which becomes current); False (nothing
        done) when the groups' LRs differ this time."""
        lr = lrs[0]
        for x in lrs:
            if x != lr:
                return False
        src, dst = self.cur, self._free_entry()
        if self.lib is not None:
            self._native_step(src, dst, grad, lr)
            self.cur = dst
            return True
        f32 = self.np_scalar
        (sp, sv, _), (dp, dv, dsteps) = src.np, dst.np
        with torch.no_grad():
            # single IEEE operations (copy, x * scalar, x + scalar) through NumPy: the same bits as
            # torch's kernels at a fraction of the call cost; the rest through torch's own kernels
            self.count = step = self.count + 1
            dsteps.fill(step)  # `step_t += 1`: exact on integer counts
            np.copyto(dp, sp)
            for p, wd in dst.decayed:
                np.multiply(p, f32(1 - lr * wd), out=p)
            m, v, d = dst.state["exp_avg"], dst.state["exp_avg_sq"], self.denom
            torch.lerp(src.state["exp_avg"], grad, 1 - self.beta1, out=m)
            np.multiply(sv, f32(self.beta2), out=dv)
            v.addcmul_(grad, grad, value=1 - self.beta2)
            bias_correction1 = 1 - self.beta1 ** step
            bias_correction2 = 1 - self.beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if self.amsgrad:
                mx = dst.state["max_exp_avg_sq"]
                torch.maximum(src.state["max_exp_avg_sq"], v, out=mx)
                v = mx
            torch.sqrt(v, out=d)  # (not NumPy's: torch's sqrt differs from it on some inputs)
            dn = self.denom_np
            np.divide(dn, f32(bias_correction2_sqrt), out=dn)
            np.add(dn, f32(self.eps), out=dn)
            dst.P.addcdiv_(m, d, value=-step_size)
        self.cur = dst
        return True

    def _native_step(self, src: _Entry, dst: _Entry, grad: torch.Tensor, lr: float) -> None:
        """:meth:`step`'s arithmetic with the compiled passes (shadow/adam_native.c) around torch's sqrt
        (and torch's maximum for amsgrad): the same operations, rounded the same way, in 3-4 calls."""
        self.count = step = self.count + 1
        dst.np[2].fill(step)
        fac = self.factor
        for k, wd in enumerate(self.decay_wd):
            fac[k] = 1 - lr * wd  # (rounded to float32 as the torch/NumPy step's scalar)
        (sp, sm, sv), (dp, dm, dv) = src.addr, dst.addr
        dec, fa, den = self.native_addr
        g = grad.data_ptr()
        lib = self.lib
        # the torch/NumPy step's scalars: bias_correction2_sqrt and -step_size
        bc2_sqrt, neg_step = (1 - self.beta2 ** step) ** 0.5, -(lr / (1 - self.beta1 ** step))
        if self.vsqrt is not None:  # all of it in one call, torch's sqrt included
            lib.adam_step(self.n, sp, dp, dec, fa, len(self.decay_wd), sm, dm, sv, dv, g, 1 - self.beta1, self.beta2,
                          1 - self.beta2, den, self.vsqrt, bc2_sqrt, self.eps, neg_step)
            return
        lib.adam_pre(self.n, sp, dp, dec, fa, len(self.decay_wd), sm, dm, sv, dv, g, 1 - self.beta1, self.beta2,
                     1 - self.beta2)
        v = dst.state["exp_avg_sq"]
        if self.amsgrad:
            v = torch.maximum(src.state["max_exp_avg_sq"], v, out=dst.state["max_exp_avg_sq"])
        torch.sqrt(v, out=self.denom)  # torch's (MKL's) sqrt: not always the correctly rounded one
        lib.adam_post(self.n, dp, dm, den, bc2_sqrt, self.eps, neg_step)

    def bind(self) -> None:
        """Point the optimizer's flat parameters and state (:attr:`params`, :attr:`states`) at a free
        copy of the current state, which becomes current: the per-group step (or the conversion to
        per-tensor stepping) then reads and writes what the next snapshot publishes."""
        dst = self._free_entry()
        with torch.no_grad():
            dst.S.copy_(self.cur.S)
            dst.steps.copy_(self.cur.steps)
            for fp, st, (a, b) in zip(self.params, self.states, self.ranges):
                fp.data = dst.P[a:b]
                for k in self.keys:
                    st[k] = dst.state[k][a:b]
                st["step"].fill_(self.count)
        self.cur = self._bound = dst

    def after_bound_step(self) -> None:
        """After the optimizer stepped the bound entry: its per-param step counts follow the groups'."""
        self.count = float(self.gsteps[0])
        self.cur.steps.fill_(self.count)

    def snapshot_parts(self) -> tuple[dict, dict]:
        """The current state as per-param tensors: ({pid: param}, {pid: {key: tensor}}) -- views of the
        current entry, which no later step writes while anything holds them (:meth:`_Entry.free`)."""
        cur = self.cur
        if self.unstarted():
            return dict(cur.params), {}
        return cur.params, cur.opt_state


def merged_is_exact(opt_cls, hps: list[dict], dtype: torch.dtype, foreach=None, native: bool = False) -> bool:
    """Does :class:`MergedAdam` (with the compiled step when ``native``) give bitwise the trainer's
    per-tensor ``opt_cls`` step for groups with ``hps``?  Measured once per configuration on synthetic
    data (every group a run of pieces whose lengths put elements at every vector-tail position),
    memoised."""
    try:
        key = (opt_cls, dtype, foreach, native, tuple(_probe_key(opt_cls, hp, None, None, dtype) for hp in hps))
        hash(key)
    except TypeError:
        return False
    got = _exact_cache.get(key)
    if got is None:
        try:
            got = _probe(opt_cls, hps, dtype, foreach, native)
        except Exception:
            got = False
        _exact_cache[key] = got
    return got


def _probe(opt_cls, hps: list[dict], dtype: torch.dtype, foreach=None, native: bool = False) -> bool:
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
    merged = MergedAdam(groups, hps, [(init[g.byte_start // es:g.byte_start // es + g.numel], None) for g in groups],
                        [(i, o, (s,)) for i, (_, o, s) in enumerate(layout)], native)
    if native and merged.lib is None:
        return False
    for step in range(_PROBE_STEPS):
        lr = 1e-3 * (1 + step) / (1 + 0.3 * step)
        for og in trainer.param_groups:
            og["lr"] = lr
        # magnitudes from 1e-30 to 1e3 side by side (squares underflow into subnormals, or to zero)
        scale = 10.0 ** torch.randint(-30, 4, (n,), generator=gen).to(torch.float64)
        g = (torch.randn(n, generator=gen, dtype=torch.float64) * scale).to(dtype)
        for p, (_, o, s) in zip(pieces, layout):
            p.grad = g[o:o + s].clone()
        trainer.step()
        if not merged.step(g, [lr] * len(hps)):
            return False
    params, opt_state = merged.snapshot_parts()
    for i, p in enumerate(pieces):
        if not _same_bits(p.detach(), params[i]):
            return False
        st = trainer.state[p]
        if float(st["step"]) != float(opt_state[i]["step"]):
            return False
        for k in merged.keys:
            if not _same_bits(st[k], opt_state[i][k]):
                return False
    return True
