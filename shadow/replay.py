"""Replaying the trainer's optimizer step on the shard: :class:`OptimizerReplica` (alias ``AdamWReplica``).

Bit-identity with the trainer rests on doing *the same floating-point operations in the same
order*, so the replica does not reimplement the optimizer: it runs the trainer's ``torch.optim``
class itself (AdamW, Adam or SGD -- :mod:`shadow.optimizers`) over the shard's parameters, with

* the same variant (``foreach``/``fused`` from :class:`OptimizerSpec`; ``foreach=True`` and
  ``False`` are bitwise equal on CPU, ``fused=True`` is a different kernel and is replayed as such),
  and for a trainer stepping on a GPU (``OptimizerSpec.device == "cuda"``) the GPU kernels' rounding:
  Adam/AdamW then step through :mod:`shadow.device_optim` (torch's class, its ``step`` redone with the
  CUDA code path's fused multiply-adds and scalar divisions, measured per operation),
* the same param-group structure and hyperparameters, the step's LR per group taken from the
  manifest (a Python float, exactly what an LR scheduler writes into ``group["lr"]``),
* gradients = the received bits, multiplied in place by the clip coefficient as a 0-dim float32
  tensor through ``torch._foreach_mul_`` -- the op ``clip_grad_norm_`` uses (per-element it is the
  same multiplication as ``Tensor.mul_``),
* ``skip`` honoured (no step, the iteration still counts),
* parameters listed in ``Manifest.no_grad`` given no gradient (``grad = None``): the optimizer
  skips them exactly as it did on the trainer (no state update, no step count), although the ring
  carried zeros for them.

What the optimizer does not produce is carried, not replayed: the model's *buffers* (BatchNorm
running statistics, ``num_batches_tracked``) arrive with every manifest of the buffer shard
(shard 0) and frozen parameters with its bootstrap; the snapshot publishes them with the
parameters of the same iteration.

Gradients are zero-copy ``torch.frombuffer`` views of the iteration's receive buffer (byte-swapped
in place first when the wire payload is big endian).  Where it is measured to give the same bits
(:mod:`shadow.flat`), each param group is stepped as *one* tensor -- its params lie back to back in the
buffer -- and Adam/AdamW through torch's functional ``adam`` directly; otherwise, and for good after a
manifest with ``no_grad``, tensor by tensor as the trainer does.  Adam/AdamW whose groups differ only in
weight decay run as one pass over the whole shard (:mod:`shadow.merged`), whose :meth:`snapshot` is the
current copy of a pool nobody writes while it is held; otherwise :meth:`snapshot` clones the state into an
immutable :class:`ShardState` that is published and may be persisted while the next step runs.
"""
from __future__ import annotations

import dataclasses
import sys

import numpy as np
import torch

from . import device_optim, flat
from .merged import MergedAdam
from .layout import ShardLayout
from .optimizers import optimizer_class
from .protocol import DTYPES, Bootstrap, Manifest, OptimizerSpec, ProtocolError, ShardState

#: group keys the replica controls itself (never taken from the trainer's description)
_FORCED = {"params", "foreach", "fused", "capturable", "differentiable"}
_SWAP = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _clone_all(tensors: list) -> list:
    """``torch._foreach_clone`` where this torch has it (one dispatch for the lot), else a clone each
    (older torch builds -- a GPU machine's own torch, say -- lack the op; same bits either way)."""
    fn = getattr(torch, "_foreach_clone", None)
    return fn(tensors) if fn is not None else [t.clone() for t in tensors]


def _device_powers(boot: Bootstrap) -> tuple[int, dict]:
    """``Bootstrap.device_powers`` checked, as (first step, {repr(beta): float32 array})."""
    first, tables = boot.device_powers_from, boot.device_powers
    if type(first) is not int or first < 1:
        raise ProtocolError(f"Bootstrap: field 'device_powers_from' must be an int >= 1, got {first!r}")
    if not isinstance(tables, dict):
        raise ProtocolError("Bootstrap: field 'device_powers' is not a map")
    out = {}
    for k, t in tables.items():
        if not isinstance(k, str) or not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or t.dim() != 1:
            raise ProtocolError(f"Bootstrap: field 'device_powers' entry {k!r}: expected beta -> 1-D float32 tensor")
        out[k] = t.detach().cpu().numpy()
    return first, out


def _named_tensors(what: str, m) -> dict[str, torch.Tensor]:
    if not isinstance(m, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in m.items()):
        raise ProtocolError(f"{what}: not a map of names to tensors")
    return {k: v.detach().clone() for k, v in m.items()}


class OptimizerReplica:
    def __init__(self, boot: Bootstrap, layout: ShardLayout, payload_order: str = "big"):
        spec = boot.optimizer
        try:
            opt_cls = optimizer_class(spec.kind)
        except KeyError as e:
            raise ProtocolError(f"OptimizerSpec: field 'kind': {e.args[0]}") from None
        if not isinstance(spec.device, str):
            raise ProtocolError(f"OptimizerSpec: field 'device': {spec.device!r} is not a device type name")
        opt_cls = device_optim.replay_class(opt_cls, spec.device)  # a CUDA trainer's rounding, on CPU
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
        for pid in boot.opt_state:
            if pid not in self.params:
                raise ProtocolError(f"Bootstrap.opt_state: param {pid} is not owned by shard {boot.shard}")
        self._opt_cls = opt_cls
        self._powers = _device_powers(boot)
        # optimizer groups in the trainer's order; groups without a param here are left out
        by_group = []
        for g in range(len(spec.param_groups)):
            pids = [pid for pid in layout.owned if layout.params[pid].group == g]
            if pids:
                by_group.append((g, pids))
        self.group_of: list[int] = [g for g, _ in by_group]
        self.opt: torch.optim.Optimizer | None = None
        #: the flat groups while the optimizer steps one tensor per group (:mod:`shadow.flat`), else None
        self.flat: list[flat.FlatGroup] | None = None
        self._flat_params: list[torch.nn.Parameter] = []
        self._state_views: tuple | None = None  # (flat state tensors, per-pid views) for snapshot
        self._direct: flat.AdamDirect | None = None  # the flat Adam/AdamW step without opt.step()'s wrapper
        self._direct_ok = False
        self._merged: MergedAdam | None = None  # the whole shard in one storage, one pass (shadow.merged)
        if by_group:
            plan = self._flat_plan(by_group, boot.opt_state)
            if plan is not None:
                self._build_flat(plan, boot.opt_state)
            else:
                self.opt = self._make_opt([{"params": [self.params[pid] for pid in pids]} for _, pids in by_group])
                for pid, st in boot.opt_state.items():
                    self.opt.state[self.params[pid]] = {k: v.detach().clone() for k, v in st.items()}
        self._owned = [(pid, self.params[pid]) for pid in layout.owned]
        self._views: dict[int, tuple] = {}  # id(slot buffer) -> (buffer, byte-swap arrays, gradient views)
        self._spans: dict[int, tuple] = {}  # id(slot buffer) -> (buffer, the merged span's gradient view)
        self._param_list = list(layout.params)  # shared by every snapshot
        self._spec_cache: tuple | None = None
        self.buffers = _named_tensors("Bootstrap.buffers", boot.buffers)
        self.frozen = _named_tensors("Bootstrap.frozen", boot.frozen)

    def _make_opt(self, groups: list[dict]) -> torch.optim.Optimizer:
        """The trainer's optimizer class over ``groups`` (one per entry of ``group_of``), with the
        trainer's variant flags and each group's hyperparameters."""
        spec = self.spec
        opt = self._opt_cls(groups, foreach=spec.foreach, fused=spec.fused)
        if hasattr(opt, "device_powers"):  # the trainer GPU's beta ** step (shadow.device_optim)
            opt.device_powers = self._powers
        for og, g in zip(opt.param_groups, self.group_of):
            for k, v in spec.param_groups[g].items():
                if k not in _FORCED:
                    og[k] = tuple(v) if k == "betas" else v
        return opt

    def _flat_plan(self, by_group, opt_state) -> list | None:
        """The flat groups if every optimizer group can be stepped as one tensor with the trainer's
        bits (:mod:`shadow.flat`): consecutive in the buffer, one dtype, a uniform bootstrap state,
        and the flat step measured exact for its optimizer, variant and hyperparameters."""
        lay = self.layout
        plan = flat.plan(lay, by_group, {pid: self.params[pid].dtype for _, pids in by_group for pid in pids})
        if plan is None:
            return None
        spec = self.spec
        direct = True
        for fg in plan:
            if not flat.uniform_state([opt_state.get(pid) for pid in fg.pids],
                                      [tuple(self.params[pid].shape) for pid in fg.pids]):
                return None
            hp = {k: v for k, v in spec.param_groups[fg.group].items() if k not in _FORCED}
            by_position = getattr(self._opt_cls, "position_dependent", None)
            if by_position is not None and by_position(hp, spec.fused):
                return None
            if not flat.flat_is_exact(self._opt_cls, hp, spec.foreach, spec.fused, fg.dtype):
                return None
            direct = direct and flat.direct_is_exact(self._opt_cls, hp, spec.foreach, spec.fused, fg.dtype)
        self._direct_ok = direct
        return plan

    def _build_flat(self, plan, opt_state) -> None:
        """One parameter (and one state entry per key) per group; ``self.params[pid]`` become views
        of it, so the per-parameter tensors the snapshot clones are always current.  Where
        :class:`~shadow.merged.MergedAdam` applies, those parameters and state entries are views of its
        one storage (the whole shard stepped in one pass, snapshotted with one copy)."""
        lay = self.layout
        values, states = [], []
        for fg in plan:
            data = torch.zeros(fg.numel, dtype=fg.dtype)
            for pid, off in zip(fg.pids, fg.offsets):
                data[off:off + lay.numel[pid]] = self.params[pid].detach().reshape(-1)
            values.append(data)
            pstates = [opt_state.get(pid) for pid in fg.pids]
            if pstates[0] is None:
                states.append(None)
                continue
            st = {}
            for k, first in pstates[0].items():
                if k == "step":  # one count for the group (uniform_state checked they are equal)
                    st[k] = first.detach().clone()
                    continue
                t = torch.zeros(fg.numel, dtype=first.dtype)
                for pid, off, v in zip(fg.pids, fg.offsets, (s[k] for s in pstates)):
                    t[off:off + lay.numel[pid]] = v.detach().reshape(-1)
                st[k] = t
            states.append(st)
        spec = self.spec
        hps = [{k: v for k, v in spec.param_groups[fg.group].items() if k not in _FORCED} for fg in plan]
        self._merged = None
        kernel = self._direct_ok and MergedAdam.usable(self._opt_cls, plan, hps, states, spec.foreach, spec.fused)
        if kernel:
            es = lay.elem_size[plan[0].pids[0]]
            base = plan[0].byte_start // es
            pieces = sorted(((pid, lay.byte_base[pid] // es - base, tuple(lay.params[pid].shape)) for pid in lay.owned),
                            key=lambda x: x[1])
            m = MergedAdam(plan, hps, list(zip(values, states)), pieces, native=kernel == "native")
            params, states = m.params, m.states
            self._merged = m
        else:
            params = [torch.nn.Parameter(v, requires_grad=True) for v in values]
        self.opt = self._make_opt([{"params": [fp]} for fp in params])
        for fp, st in zip(params, states):
            if st is not None:
                self.opt.state[fp] = st
        self.flat, self._flat_params = plan, params
        self._direct = flat.AdamDirect(self.opt) if self._direct_ok and flat.AdamDirect.supports(self.opt) else None
        self._param_views()

    def _param_views(self) -> None:
        """``self.params[pid]``: views of the flat parameter of its group (after the flat parameters
        were made or re-pointed)."""
        lay = self.layout
        for fg, fp in zip(self.flat, self._flat_params):
            data = fp.detach()
            for pid, off in zip(fg.pids, fg.offsets):
                self.params[pid] = data[off:off + lay.numel[pid]].view(lay.params[pid].shape)
        self._owned = [(pid, self.params[pid]) for pid in lay.owned]

    def _bind_merged(self) -> None:
        """Before the optimizer itself steps (or is converted): point it at the merged state's current copy."""
        self._merged.bind()
        if self._direct is not None:
            self._direct.lists = None  # its cached state lists are the former copy's
        self._param_views()

    def _unflatten(self) -> None:
        """Convert to one tensor per parameter (same values, state sliced out, the group's step
        count copied to each) -- for good: a step that skips some parameters (``no_grad``) leaves
        them with a smaller step count than the rest of their group, which one flat state cannot hold."""
        unstarted = self._merged is not None and self._merged.unstarted()  # its zeros are not the trainer's state
        if self._merged is not None:
            self._bind_merged()
        lay, old = self.layout, self.opt
        params, states = {}, {}
        for fg, fp in zip(self.flat, self._flat_params):
            st = None if unstarted else old.state.get(fp)
            for pid, off in zip(fg.pids, fg.offsets):
                n, shape = lay.numel[pid], self.params[pid].shape
                params[pid] = torch.nn.Parameter(self.params[pid].detach().clone(), requires_grad=True)
                if st:
                    states[pid] = {k: (v.clone() if k == "step" else v[off:off + n].view(shape).clone())
                                   if isinstance(v, torch.Tensor) else v for k, v in st.items()}
        self.opt = self._make_opt([{"params": [params[pid] for pid in fg.pids]} for fg in self.flat])
        for og, oldg in zip(self.opt.param_groups, old.param_groups):
            og.update({k: v for k, v in oldg.items() if k not in _FORCED})
        for pid, st in states.items():
            self.opt.state[params[pid]] = st
        self.params.update(params)
        self._owned = [(pid, self.params[pid]) for pid in lay.owned]
        self.flat, self._flat_params, self._state_views, self._direct = None, [], None, None
        self._merged = None
        self._views.clear()

    def step(self, manifest: Manifest, buf: bytearray | None) -> None:
        """Apply iteration ``manifest.iteration`` with the gradient in ``buf`` (a slot buffer)."""
        if manifest.iteration != self.iteration + 1:
            raise RuntimeError(f"replica at iteration {self.iteration} cannot apply {manifest.iteration}")
        if len(manifest.lrs) != len(self.spec.param_groups):
            raise ProtocolError(f"Manifest {manifest.iteration}: field 'lrs' has {len(manifest.lrs)} entries, "
                                f"optimizer has {len(self.spec.param_groups)} param groups")
        buffers = self._check_buffers(manifest)
        if manifest.skip or self.opt is None:
            self.iteration += 1
            self.buffers = buffers
            return
        no_grad = manifest.no_grad or []
        if not isinstance(no_grad, list) or not all(type(i) is int for i in no_grad):
            raise ProtocolError(f"Manifest {manifest.iteration}: field 'no_grad' must be a list of param ids")
        if no_grad and self.flat is not None:
            self._unflatten()
        swaps, views = self._views_of(buf)
        for a in swaps:
            a.byteswap(inplace=True)  # big endian on the wire -> native, in place
        if self._merged is not None:  # the whole shard in one pass when the groups' LRs agree
            if manifest.clip_coef is not None and views:
                torch._foreach_mul_(views, torch.tensor(float(manifest.clip_coef), dtype=torch.float32))
            lrs = []
            for og, g in zip(self.opt.param_groups, self.group_of):
                og["lr"] = lr = manifest.lrs[g]
                lrs.append(lr)
            if self._merged.step(self._span_of(buf), lrs):
                self.iteration += 1
                self.buffers = buffers
                return
            self._bind_merged()  # the groups' own step, on a copy the optimizer may write
            self._step_groups(manifest, views, buffers, clipped=True)
            self._merged.after_bound_step()
            return None
        return self._step_groups(manifest, views, buffers, no_grad=no_grad)

    def _step_groups(self, manifest: Manifest, views: list, buffers, no_grad=(), clipped: bool = False) -> None:
        """The step through the optimizer (flat groups or per tensor), gradients ``views``."""
        if self.flat is not None:  # one gradient view per group, padding included
            targets = self._flat_params
            for p, g in zip(targets, views):
                p.grad = g
            grads = views
        elif no_grad:
            no_grad = set(no_grad)
            targets, grads = [], []
            for (pid, p), g in zip(self._owned, views):
                if pid in no_grad:
                    continue  # the trainer's optimizer saw grad None: skip it here too
                p.grad = g
                targets.append(p)
                grads.append(g)
        else:
            targets = [p for _pid, p in self._owned]
            for p, g in zip(targets, views):
                p.grad = g
            grads = views
        if manifest.clip_coef is not None and not clipped:
            coef = torch.tensor(float(manifest.clip_coef), dtype=torch.float32)
            if grads:
                torch._foreach_mul_(grads, coef)
        for og, g in zip(self.opt.param_groups, self.group_of):
            og["lr"] = manifest.lrs[g]
        try:
            if self._direct is None or not self._direct.step():
                self.opt.step()
        finally:
            for p in targets:
                p.grad = None
        self.iteration += 1
        self.buffers = buffers

    def _views_of(self, buf) -> tuple[list, list]:
        """The numpy arrays to byte-swap and the gradient tensors (zero-copy views, in ``layout.owned``
        order) of one slot buffer.  Slots are reused for the life of the layout, so the views are made
        once per buffer (``torch.frombuffer`` costs more than the step's own work on small params),
        and a buffer whose params all have one element size is byte-swapped with one call (the
        alignment padding between params is swapped too: nobody reads it)."""
        v = self._views.get(id(buf))
        if v is not None and v[0] is buf:
            return v[1], v[2]
        lay = self.layout
        swaps = []
        if self._swap:
            sizes = {lay.elem_size[pid] for pid in lay.owned if lay.numel[pid]}
            if len(sizes) == 1 and (es := sizes.pop()) > 1:
                swaps.append(np.frombuffer(buf, dtype=_SWAP[es], count=len(buf) // es))
            else:
                swaps += [np.frombuffer(buf, dtype=_SWAP[lay.elem_size[pid]], count=lay.numel[pid],
                                        offset=lay.byte_base[pid])
                          for pid in lay.owned if lay.numel[pid] and lay.elem_size[pid] > 1]
        views = []
        if self.flat is not None:
            for fg in self.flat:
                views.append(torch.frombuffer(buf, dtype=fg.dtype, count=fg.numel, offset=fg.byte_start)
                             if fg.numel else torch.zeros(0, dtype=fg.dtype))
        else:
            for pid, p in self._owned:
                n = lay.numel[pid]
                views.append(torch.frombuffer(buf, dtype=p.dtype, count=n, offset=lay.byte_base[pid]).view(p.shape)
                             if n else torch.zeros_like(p))
        if len(self._views) >= 64:  # buffers of a replaced ring; keep the cache bounded
            self._views.clear()
        self._views[id(buf)] = (buf, swaps, views)
        return swaps, views

    def _span_of(self, buf) -> torch.Tensor:
        """The gradient of the whole merged span of one slot buffer (a zero-copy view, made once per buffer)."""
        v = self._spans.get(id(buf))
        if v is not None and v[0] is buf:
            return v[1]
        m = self._merged
        t = torch.frombuffer(buf, dtype=m.dtype, count=m.n, offset=m.base * m.denom.element_size())
        if len(self._spans) >= 64:
            self._spans.clear()
        self._spans[id(buf)] = (buf, t)
        return t

    def _check_buffers(self, m: Manifest) -> dict[str, torch.Tensor]:
        """The buffers after iteration ``m.iteration``: the manifest's (buffer shard), checked against
        the names the bootstrap carried -- a buffer shard never publishes a state with stale buffers."""
        if not self.buffers:
            if m.buffers:
                raise ProtocolError(f"Manifest {m.iteration}: field 'buffers': shard {self.shard} carries no buffers "
                                    f"(its bootstrap had none)")
            return self.buffers
        if m.buffers is None:
            raise ProtocolError(f"Manifest {m.iteration}: field 'buffers' is missing; shard {self.shard} carries the "
                                f"model's buffers ({len(self.buffers)}) and would publish stale ones")
        got = _named_tensors(f"Manifest {m.iteration}: field 'buffers'", m.buffers)
        if set(got) != set(self.buffers):
            diff = sorted(set(got) ^ set(self.buffers))[:5]
            raise ProtocolError(f"Manifest {m.iteration}: field 'buffers': names differ from the bootstrap's ({diff})")
        for k, v in got.items():
            old = self.buffers[k]
            if v.shape != old.shape or v.dtype != old.dtype:
                raise ProtocolError(f"Manifest {m.iteration}: buffer {k!r} is {v.dtype}{tuple(v.shape)}, "
                                    f"was {old.dtype}{tuple(old.shape)}")
        return got

    def snapshot(self) -> ShardState:
        """An immutable copy of the shard's state: every tensor cloned with one ``torch._foreach_clone``
        call (a plain copy: the same bits), the rest shared with the previous snapshot when unchanged
        (the param list, the optimizer description while the LRs stay the same)."""
        if self._merged is not None:  # one copy of the shard's storage, cut into per-param views
            params, opt_state = self._merged.snapshot_parts()
            return ShardState(
                job_id=self.job_id, shard=self.shard, iteration=self.iteration, tensors=params, opt_state=opt_state,
                optimizer=self.spec_with_lrs(), params=self._param_list, num_shards=self.num_shards,
                buffers=dict(self.buffers), frozen=dict(self.frozen))
        st = self.opt.state if self.opt is not None else {}
        per_pid = self._flat_state_views() if self.flat is not None else None
        keys, tensors, other, opt_state = [], [], [], {}
        for pid, p in self._owned:
            tensors.append(p.detach())
            keys.append((pid, None))
            if per_pid is not None:
                s = per_pid.get(pid)
            else:
                s = st.get(p) if st else None
            if s is not None:
                opt_state[pid] = {}  # (an optimizer's state entry may be empty)
                for k, v in s.items():
                    if isinstance(v, torch.Tensor):
                        tensors.append(v)
                        keys.append((pid, k))
                    else:
                        other.append((pid, k, v))
        copies = _clone_all(tensors) if tensors else []
        params = {}
        for (pid, k), t in zip(keys, copies):
            if k is None:
                params[pid] = t
            else:
                opt_state[pid][k] = t
        for pid, k, v in other:
            opt_state[pid][k] = v
        return ShardState(
            job_id=self.job_id, shard=self.shard, iteration=self.iteration, tensors=params, opt_state=opt_state,
            optimizer=self.spec_with_lrs(), params=self._param_list, num_shards=self.num_shards,
            buffers=dict(self.buffers), frozen=dict(self.frozen))  # replaced, never mutated: no clone needed

    def _flat_state_views(self) -> dict[int, dict]:
        """Per owned param, its slice of the flat state (``step``: the group's count itself; the
        snapshot clones each into its own tensor).  Made once per set of state tensors: the
        optimizer creates them at its first step and updates them in place after that."""
        flat_states = [self.opt.state.get(fp) for fp in self._flat_params]
        key = [id(v) for s in flat_states if s for v in s.values()]
        if self._state_views is not None and self._state_views[0] == key:
            return self._state_views[2]
        lay, out = self.layout, {}
        for fg, s in zip(self.flat, flat_states):
            if not s:
                continue
            for pid, off in zip(fg.pids, fg.offsets):
                n, shape = lay.numel[pid], self.params[pid].shape
                out[pid] = {k: (v if k == "step" or not isinstance(v, torch.Tensor) else v[off:off + n].view(shape))
                            for k, v in s.items()}
        self._state_views = (key, flat_states, out)  # flat_states keeps the ids valid
        return out

    def spec_with_lrs(self) -> OptimizerSpec:
        """The optimizer description with each group's current LR (as of the last step); the same
        object as long as the LRs do not change (published states are never mutated)."""
        lrs = tuple(og["lr"] for og in self.opt.param_groups) if self.opt is not None else ()
        if self._spec_cache is not None and self._spec_cache[0] == lrs:
            return self._spec_cache[1]
        groups = [dict(g) for g in self.spec.param_groups]
        for lr, g in zip(lrs, self.group_of):
            groups[g]["lr"] = lr
        spec = dataclasses.replace(self.spec, param_groups=groups)
        self._spec_cache = (lrs, spec)
        return spec


#: the name this class had while AdamW was the only optimizer replayed
AdamWReplica = OptimizerReplica
