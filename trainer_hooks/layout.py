"""Chunk addressing: how a DDP bucket is cut into ring segments and packets.

Every gradient element has a fixed *chunk address* ``(param_id, offset)``: the
index of its parameter in ``model.parameters()`` and the element offset inside
that parameter.  DDP regroups parameters into new buckets after step 0 (the
"bucket rebuild"), so nothing here is cached across calls: the hook maps
``bucket.parameters()`` to param ids on every call and cuts the bucket afresh.

Cutting rules -- deterministic from the chunk address alone, so every rank
computes the same plan without talking, and the *arithmetic* of the
all-reduce does not depend on how DDP happens to bucket the parameters:

* Each parameter is cut into packets of ``max_elements`` elements from its
  first element (the last one shorter): a packet never straddles a parameter,
  and its address ``(param_id, offset)`` is the same in every bucket layout.
* Numbering all packets of the model in ``param_id`` order (global packet
  index ``q``), packet ``q`` belongs to ring segment ``q mod world_size``.
  The segment fixes the order in which the ring sums the packet's elements
  (reduce-scatter of segment ``k`` starts at rank ``k``), so a gradient element
  is summed in the same order before and after DDP's bucket rebuild -- which
  is what makes a run resumed from a checkpoint bit-identical to an
  uninterrupted one.  Round-robin keeps the segments of a bucket balanced to
  within one packet per parameter.

:func:`shard_plan` assigns whole parameters to shadow shards (the switch looks
shards up by ``(job_id, param_id)``), balancing element counts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import torch


@dataclass(frozen=True, slots=True)
class Packet:
    """One gradient packet: ``count`` elements at ``buf_offset`` of the bucket buffer."""

    param_id: int
    offset: int  # element offset inside the parameter
    buf_offset: int  # element offset inside the flat bucket buffer
    count: int
    segment: int  # ring segment this packet belongs to


@dataclass(frozen=True, slots=True)
class BucketPlan:
    """The packets of one bucket, grouped into ``world_size`` ring segments."""

    total: int
    packets: tuple[Packet, ...]
    segments: tuple[tuple[int, ...], ...]  # packet indices per segment
    by_address: dict  # (param_id, offset) -> packet index

    def segment_elements(self, k: int) -> int:
        return sum(self.packets[i].count for i in self.segments[k])


def param_ids(model: torch.nn.Module) -> dict[int, int]:
    """``id(parameter) -> index in model.parameters()`` (the wire's ``param_id``)."""
    return {id(p): i for i, p in enumerate(model.parameters())}


def bucket_params(param_index: dict[int, int], params: Iterable[torch.Tensor]) -> list[tuple[int, int]]:
    """``[(param_id, numel), ...]`` for the parameters of a bucket, in bucket order."""
    out = []
    for p in params:
        pid = param_index.get(id(p))
        if pid is None:
            raise KeyError("a DDP bucket holds a parameter that is not in model.parameters(); "
                           "attach() must be given the DDP model that owns the optimizer's parameters")
        out.append((pid, p.numel()))
    return out


def packet_bases(numels: Sequence[int], max_elements: int) -> list[int]:
    """Global index of each parameter's first packet (params in ``param_id`` order)."""
    out, acc = [], 0
    for n in numels:
        out.append(acc)
        acc += -(-n // max_elements)
    return out


def plan_bucket(params: Sequence[tuple[int, int]], world_size: int, max_elements: int,
                bases: Sequence[int] | None = None) -> BucketPlan:
    """Cut a bucket holding ``params`` (``(param_id, numel)`` in buffer order) into packets.

    ``bases``: :func:`packet_bases` of the whole model (default: of ``params`` sorted by id,
    correct when the bucket holds every parameter).
    """
    if world_size < 1:
        raise ValueError(f"world_size must be >= 1, got {world_size}")
    if max_elements < 1:
        raise ValueError(f"max_elements must be >= 1, got {max_elements}")
    if bases is None:
        numel = dict(params)
        ordered = sorted(numel)
        if ordered != list(range(len(ordered))):
            raise ValueError("plan_bucket: pass `bases` unless the bucket holds params 0..n-1")
        bases = packet_bases([numel[i] for i in ordered], max_elements)
    packets: list[Packet] = []
    segments: list[list[int]] = [[] for _ in range(world_size)]
    pos = 0
    for pid, numel in params:
        for j, off in enumerate(range(0, numel, max_elements)):
            seg = (bases[pid] + j) % world_size
            segments[seg].append(len(packets))
            packets.append(Packet(pid, off, pos + off, min(max_elements, numel - off), seg))
        pos += numel
    by_address = {(p.param_id, p.offset): i for i, p in enumerate(packets)}
    return BucketPlan(pos, tuple(packets), tuple(tuple(s) for s in segments), by_address)


def shard_plan(model: torch.nn.Module, num_shards: int) -> dict[int, int]:
    """Assign every parameter (by ``param_id``) to one of ``num_shards`` shadow shards.

    Greedy longest-processing-time: parameters in decreasing size (ties: lower id
    first) each go to the shard with the fewest elements so far (ties: lower
    shard).  Deterministic from the parameter shapes alone, so the controller can
    compute it before training starts and program the switch with it.  Frozen
    parameters (``requires_grad=False``) are in no DDP bucket, so no gradient of theirs
    ever crosses the switch: they get no shard (the buffer shard carries their constant
    value, see :mod:`trainer_hooks.buffers`).
    """
    if isinstance(model, torch.nn.parallel.DistributedDataParallel):
        model = model.module
    if not isinstance(num_shards, int) or num_shards < 1:
        raise ValueError(f"num_shards must be a positive int, got {num_shards!r}")
    sizes = [p.numel() for p in model.parameters()]
    trainable = [i for i, p in enumerate(model.parameters()) if p.requires_grad]
    load = [0] * num_shards
    plan: dict[int, int] = {}
    for pid in sorted(trainable, key=lambda i: (-sizes[i], i)):
        s = min(range(num_shards), key=lambda k: (load[k], k))
        plan[pid] = s
        load[s] += sizes[pid]
    return dict(sorted(plan.items()))
