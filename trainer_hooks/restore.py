"""``trainer_hooks.restore``: load model and optimizer from the shadows' checkpoints.

Each shadow publishes iteration *i* only when its shard of *i* is complete and
applied, and keeps the latest and the previous published state in memory.
Restore asks every shard for those two numbers, picks the newest iteration all
shards hold (with several trainer ranks, rank 0 picks and broadcasts it so all
ranks load the same one), fetches each shard's state for it and copies it into
the model's parameters and the optimizer's per-parameter state -- bit for bit.

It returns that iteration: the number of iterations already applied, i.e. the
index of the next iteration to run.  Restoring the LR scheduler and the data
position to it is the training script's job (see ``examples/ddp_train.py``).
"""
from __future__ import annotations

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from shadow.client import ShadowClient
from shadow.protocol import ShardState
from trainer_hooks.api import parse_shadows


class RestoreError(RuntimeError):
    """No consistent checkpoint could be loaded; the message says why."""


def choose_iteration(statuses) -> int:
    """Newest iteration present (latest or previous) on every shard."""
    have = []
    for st in statuses:
        have.append({i for i in (st.latest_iteration, st.previous_iteration) if i is not None})
    common = set.intersection(*have) if have else set()
    if not common:
        raise RestoreError("the shards hold no common iteration: " + ", ".join(
            f"shard {st.shard}: latest {st.latest_iteration} previous {st.previous_iteration}" for st in statuses))
    return max(common)


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
    missing = sorted(set(range(len(params))) - set(seen))
    if missing:
        raise RestoreError(f"no shard holds param_ids {missing[:10]}")
    with torch.no_grad():
        for st in states:
            for pid, t in st.tensors.items():
                p = params[pid]
                p.copy_(t)
                if pid in st.opt_state:
                    optimizer.state[p] = {k: v.clone() for k, v in st.opt_state[pid].items()}
                else:
                    optimizer.state.pop(p, None)


def restore(model: torch.nn.Module, optimizer: torch.optim.Optimizer, *, shadows, job_id: int,
            timeout: float = 30.0) -> int:
    """Load ``model``/``optimizer`` from the newest iteration every shard holds; return it.

    ``model`` may be the plain module or its DDP wrapper; ``shadows`` is the list given to
    :func:`trainer_hooks.attach` (shard order).  Collective when torch.distributed is initialised.
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
                statuses = [c.status() for c in clients]
                for k, st in enumerate(statuses):
                    if st.job_id != job_id or st.shard != k:
                        raise RestoreError(f"shadow {addrs[k]} is job {st.job_id} shard {st.shard}, "
                                           f"expected job {job_id} shard {k}")
                choice[0] = choose_iteration(statuses)
            except Exception as e:  # noqa: BLE001 - shipped to the other ranks, raised everywhere
                choice[0] = e if not distributed else f"{type(e).__name__}: {e}"
                if not distributed:
                    raise
        if distributed:
            dist.broadcast_object_list(choice, src=0)
        if not isinstance(choice[0], int):
            raise RestoreError(f"rank 0 could not choose a checkpoint: {choice[0]}")
        it = choice[0]
        states = [c.fetch(it) for c in clients]
        for k, st in enumerate(states):
            if st.iteration != it or st.shard != k or st.job_id != job_id or st.num_shards != len(addrs):
                raise RestoreError(f"shard {k} returned job {st.job_id} shard {st.shard} iteration {st.iteration} "
                                   f"of {st.num_shards} shards; asked for job {job_id} iteration {it} of {len(addrs)}")
        _load(model, optimizer, states)
        return it
    finally:
        for c in clients:
            c.close()
