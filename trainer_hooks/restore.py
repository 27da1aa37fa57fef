"""``trainer_hooks.restore``: load model and optimizer from the shadows' checkpoints.

Each shadow publishes iteration *i* only when its shard of *i* is complete and
applied, and keeps the last ``--history`` published states in memory (and the
newest ``--keep`` persisted files on disk).  Restore asks every shard what it
holds and picks, in this order: the newest iteration all shards hold in memory;
else the newest all shards can load (memory or file); else nothing: shadows that
are fresh or were emptied (or hold no common iteration) raise :class:`RestoreError`
-- resuming would silently restart training from scratch -- unless the caller
allows a fresh start (``allow_fresh=True``: iteration 0, nothing loaded; a
deterministic job restarted from scratch is still bit-identical, just slower).
With several trainer ranks, rank 0 picks and broadcasts it so all ranks load the
same one; each shard's state is fetched and copied into the model's parameters
and the optimizer's per-parameter state -- bit for bit -- and the buffer shard's
buffers and frozen parameters into the model (:mod:`trainer_hooks.buffers`).  ``last_restore`` says
which source was used and how many iterations are repeated (at least).

It returns that iteration: the number of iterations already applied, i.e. the
index of the next iteration to run.  Restoring the LR scheduler and the data
position to it is the training script's job (see ``examples/ddp_train.py``).
"""
from __future__ import annotations

import logging

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from shadow.client import ShadowClient
from shadow.protocol import ShadowError, ShardState
from trainer_hooks.api import parse_shadows
from trainer_hooks.buffers import MissingModelState, frozen_ids, load_model_state

log = logging.getLogger(__name__)


class RestoreError(RuntimeError):
    """No consistent checkpoint could be loaded; the message says why."""


def _held(st) -> set:
    """Iterations a shard holds in memory (its history; older shadows report latest/previous only)."""
    held = set(getattr(st, "held_iterations", None) or ())
    held |= {i for i in (st.latest_iteration, st.previous_iteration) if i is not None}
    return held


def plan_restore(statuses) -> tuple[int, str]:
    """``(iteration, source)``: the newest iteration every shard holds in memory (``"memory"``), else
    the newest every shard has persisted (``"disk"``), else 0 (``"initial"``: the job's initial state,
    nothing is loaded; a deterministic job restarted from scratch is still bit-identical)."""
    if not statuses:
        return 0, "initial"
    common = set.intersection(*[_held(st) for st in statuses])
    if common:
        return max(common), "memory"
    disk = set.intersection(*[set(getattr(st, "persisted_iterations", None) or ()) | _held(st) for st in statuses])
    if disk:
        return max(disk), "disk"
    return 0, "initial"


def choose_iteration(statuses) -> int:
    """Newest iteration every shard can deliver (memory, else disk); raises when there is none.
    :func:`restore` falls back to the initial state instead (see :func:`plan_restore`)."""
    it, src = plan_restore(statuses)
    if src == "initial":
        raise RestoreError("the shards hold no common iteration: " + ", ".join(
            f"shard {st.shard}: in memory {sorted(_held(st))} on disk {list(getattr(st, 'persisted_iterations', []) or [])}"
            for st in statuses))
    return it


def _ask(shard: int, call):
    """One request to a shard's shadow; a connection or protocol failure becomes a :class:`RestoreError`
    naming the shard (the message of :class:`shadow.client.ShadowUnreachable` names address and checks)."""
    try:
        return call()
    except (OSError, ShadowError) as e:
        raise RestoreError(f"shard {shard}: {e}") from e


def _nothing_to_restore(held: dict) -> str:
    empty = all(not h["memory"] and not h["disk"] for h in held.values())
    what = ("the shadows hold no checkpoint at all (fresh, restarted or emptied)" if empty else
            "the shards hold no common iteration")
    return (f"nothing to resume from: {what} -- " + "; ".join(
        f"shard {k}: in memory {h['memory']}, on disk {h['disk']}" for k, h in sorted(held.items())) +
        ". Resuming would silently restart from iteration 0; pass allow_fresh=True (ddp_train.py: "
        "--allow-fresh, or start without --resume) to start from the initial state")


#: what the last :func:`restore` in this process did: iteration, source, newest iteration any shard
#: had published, iterations repeated (at least), per-shard holdings
last_restore: dict = {}


def _load(model: torch.nn.Module, optimizer: torch.optim.Optimizer, states: list[ShardState]) -> None:
    params = list(model.parameters())
    seen: dict[int, int] = {}
    for st in states:
        for pid, t in st.tensors.items():
            if not 0 <= pid < len(params):
                raise RestoreError(f"shard {st.shard} holds param_id {pid}; the model has {len(params)} parameters")
            if pid in seen:
                raise RestoreError(f"param_id {pid} is held by shards {seen[pid]} and {st.shard}")
            if tuple(t.shape) != tuple(params[pid].shape) or t.dtype != params[pid].dtype:
                raise RestoreError(f"param_id {pid}: shadow has {tuple(t.shape)}/{t.dtype}, "
                                   f"model has {tuple(params[pid].shape)}/{params[pid].dtype}")
            seen[pid] = st.shard
    missing = sorted(set(range(len(params))) - set(seen) - frozen_ids(model))
    if missing:
        raise RestoreError(f"no shard holds param_ids {missing[:10]}")
    buffers, frozen = {}, {}
    for st in states:
        for mine, theirs, what in ((buffers, getattr(st, "buffers", {}) or {}, "buffer"),
                                   (frozen, getattr(st, "frozen", {}) or {}, "frozen parameter")):
            dup = sorted(set(mine) & set(theirs))
            if dup:
                raise RestoreError(f"{what} {dup[0]!r} is held by more than one shard")
            mine.update(theirs)
    try:
        load_model_state(model, buffers, frozen)  # checks first, copies only when all are there
    except MissingModelState as e:
        raise RestoreError(str(e)) from None
    with torch.no_grad():
        for st in states:
            for pid, t in st.tensors.items():
                p = params[pid]
                p.copy_(t)
                if pid in st.opt_state:
                    # moments next to the parameter (CUDA models too); AdamW keeps a non-capturable ``step`` on CPU
                    optimizer.state[p] = {k: v.clone() if k == "step" else v.to(p.device, copy=True)
                                          for k, v in st.opt_state[pid].items()}
                else:
                    optimizer.state.pop(p, None)


def restore(model: torch.nn.Module, optimizer: torch.optim.Optimizer, *, shadows, job_id: int,
            timeout: float = 30.0, allow_fresh: bool = False) -> int:
    """Load ``model``/``optimizer`` from the newest iteration every shard holds; return it.

    ``model`` may be the plain module or its DDP wrapper; ``shadows`` is the list given to
    :func:`trainer_hooks.attach` (shard order).  When the shards hold no common iteration (fresh or
    emptied shadows) it raises :class:`RestoreError`, or with ``allow_fresh=True`` returns 0 and
    leaves model and optimizer as they are (a first start).  Collective when torch.distributed is
    initialised.
    """
    if isinstance(model, DistributedDataParallel):
        model = model.module
    addrs = parse_shadows(shadows)
    if not addrs:
        raise ValueError("restore() needs the shadows (host, mgmt_port) in shard order")
    clients = [ShadowClient(a.host, a.mgmt_port, timeout=timeout) for a in addrs]
    try:
        distributed = dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1
        choice: list = [None]
        if not distributed or dist.get_rank() == 0:
            try:
                statuses = [_ask(k, c.status) for k, c in enumerate(clients)]
                for k, st in enumerate(statuses):
                    if st.job_id != job_id or st.shard != k:
                        raise RestoreError(f"shadow {addrs[k]} is job {st.job_id} shard {st.shard}, "
                                           f"expected job {job_id} shard {k}")
                it, src = plan_restore(statuses)
                newest = max((st.latest_iteration for st in statuses if st.latest_iteration is not None), default=0)
                choice[0] = [it, src, newest, {st.shard: {"memory": sorted(_held(st)),
                                                          "disk": list(getattr(st, "persisted_iterations", []) or [])}
                                               for st in statuses}]
            except Exception as e:  # noqa: BLE001 - shipped to the other ranks, raised everywhere
                choice[0] = e if not distributed else (str(e) if isinstance(e, RestoreError)
                                                       else f"{type(e).__name__}: {e}")
                if not distributed:
                    raise
        if distributed:
            dist.broadcast_object_list(choice, src=0)
        if not isinstance(choice[0], list):
            raise RestoreError(f"rank 0 could not choose a checkpoint: {choice[0]}")
        it, src, newest, held = choice[0]
        last_restore.clear()
        last_restore.update(iteration=it, source=src, newest_published=newest,
                            repeated_at_least=max(0, newest - it), shards=held)
        log.warning("checkmate restore: iteration %d from %s (newest published %d: at least %d iteration(s) "
                    "repeated; shards %s)", it, src, newest, max(0, newest - it), held)
        if src == "initial":
            if not allow_fresh:
                raise RestoreError(_nothing_to_restore(held))
            return 0  # a fresh start, explicitly allowed: the model and optimizer keep their initial state
        states = [_ask(k, lambda c=c: c.fetch(it)) for k, c in enumerate(clients)]
        for k, st in enumerate(states):
            if st.iteration != it or st.shard != k or st.job_id != job_id or st.num_shards != len(addrs):
                raise RestoreError(f"shard {k} returned job {st.job_id} shard {st.shard} iteration {st.iteration} "
                                   f"of {st.num_shards} shards; asked for job {job_id} iteration {it} of {len(addrs)}")
        _load(model, optimizer, states)
        return it
    finally:
        for c in clients:
            c.close()
