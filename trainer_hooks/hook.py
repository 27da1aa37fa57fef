"""The DDP communication hook: ``checkmate_hook(state, bucket) -> Future``.

Written in the style of ``torch.distributed.algorithms.ddp_comm_hooks``: a plain
function of ``(state, bucket)`` registered with
``ddp_model.register_comm_hook(state, checkmate_hook)``.  Per call it

1. tells the :class:`~trainer_hooks.iteration.IterationTracker` that a bucket of
   the current backward pass arrived (which is how skipped optimizer steps
   are noticed),
2. maps ``bucket.parameters()`` to chunk addresses -- afresh on every call, so
   DDP's bucket rebuild after step 0 changes nothing -- and checks that the
   flat buffer really is those parameters back to back,
3. submits the buffer to the :class:`~trainer_hooks.transport.UdpRing`, which
   divides by the world size, ring-reduces in place and resolves the future
   with the buffer.  DDP then copies the buffer into ``param.grad``.  A CUDA
   bucket goes through :class:`~trainer_hooks.staging.CudaStaging` (pinned host
   buffer, copies overlapped with the ring, result copied back into the bucket);
   anything but float32 is refused with the reason (:func:`~trainer_hooks.staging.check_bucket`).
4. with a :class:`~trainer_hooks.grad_guard.GradGuard` (rank 0 with shadows), keeps the reduced
   bucket for the step pre-hook's check that the optimizer steps on exactly what the shadows
   received: the CPU bucket buffer itself when DDP's gradients are not views of it (DDP leaves it
   as reduced until the next backward), else a copy made when the future completes.
"""
# no `from __future__ import annotations`: DDP inspects the real annotations of the hook

from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from trainer_hooks.grad_guard import GradGuard
from trainer_hooks.iteration import IterationTracker
from trainer_hooks.layout import bucket_params, plan_bucket
from trainer_hooks.staging import CudaStaging, check_bucket
from trainer_hooks.transport import Job, UdpRing


@dataclass
class HookState:
    """What the hook needs; built by :func:`trainer_hooks.attach`."""

    ring: UdpRing
    param_index: dict[int, int]  # id(parameter) -> param_id
    world_size: int
    max_elements: int
    packet_bases: list[int]  # layout.packet_bases of the whole model
    tracker: IterationTracker
    layouts: set = field(default_factory=set)  # distinct bucket compositions seen (param ids)
    staging: CudaStaging | None = None  # created at the first CUDA bucket
    # bucket composition -> its plan: built once, and the same object every iteration (the ring
    # keeps its array index of a plan by identity)
    plans: dict = field(default_factory=dict)
    guard: GradGuard | None = None  # rank 0 with shadows: keeps the reduced gradient for the step check
    #: the guard must copy the reduced bucket (DDP's gradient_as_bucket_view: the grads are views of it);
    #: False: it keeps the CPU bucket buffer itself, which DDP leaves as reduced until the next backward
    guard_copy: bool = True


def _check_contiguous_layout(bucket: dist.GradBucket, params: list[tuple[int, int]]) -> None:
    buf = bucket.buffer()
    base, esize = buf.data_ptr(), buf.element_size()
    expect = 0
    for (pid, numel), g in zip(params, bucket.gradients()):
        at = (g.data_ptr() - base) // esize
        if at != expect:
            raise RuntimeError(f"DDP bucket {bucket.index()}: gradient of param {pid} sits at element {at} of the "
                               f"bucket buffer, expected {expect}; the Checkmate hook needs the parameters back to back")
        expect += numel


def checkmate_hook(state: HookState, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """All-reduce (average) one DDP bucket over the Checkmate UDP ring."""
    check_bucket(bucket.buffer(), bucket.index())
    iteration = state.tracker.on_bucket(bucket.index(), bucket.is_last())
    params = bucket_params(state.param_index, bucket.parameters())
    _check_contiguous_layout(bucket, params)
    key = tuple(params)
    state.layouts.add(tuple(pid for pid, _ in params))
    buf = bucket.buffer()
    plan = state.plans.get(key)
    if plan is None:
        plan = state.plans[key] = plan_bucket(params, state.world_size, state.max_elements, state.packet_bases)
    if plan.total != buf.numel():
        raise RuntimeError(f"DDP bucket {bucket.index()}: buffer holds {buf.numel()} elements, "
                           f"its parameters {plan.total}")
    if buf.device.type == "cuda":
        if state.staging is None:
            state.staging = CudaStaging(state.ring)
        fut = state.staging.submit(iteration, bucket.index(), buf, plan)
    else:
        fut = state.ring.submit(Job(iteration, bucket.index(), buf, plan))
    guard = state.guard
    if guard is None:
        return fut
    if not state.guard_copy and buf.device.type == "cpu" and not guard.copy_always:
        guard.capture(iteration, params, buf, copy=False)  # read at the step, after DDP waited for `fut`
        return fut

    def keep(f):
        out = f.value()
        guard.capture(iteration, params, out)
        return out
    return fut.then(keep)
