"""Under ``torchrun``: was this incarnation of the workers started fresh, or restarted after a failure?

torchrun's elastic agent (``torch.distributed.elastic``) restarts the workers of *every* node when one
worker dies (``--max-restarts K``).  A restarted job should continue from the shadows' newest
consistent iteration; the very first start has nothing to restore and starts from the initial state.
The agent tells each worker ``TORCHELASTIC_RESTART_COUNT`` -- but only the agent whose worker
*failed* counts the restart: the agents of the healthy nodes restart their workers because the
rendezvous has a new round (``num_nodes_waiting > 0``), and their count stays where it was.  So the
workers of one incarnation can see different counts (``0`` on a healthy node, ``1`` on the failed one).

:func:`resume_decision` therefore decides *collectively*: the job is a restart when **any** rank's
count is above zero (a max over the process group, after ``init_process_group``), and every rank gets
the same answer -- a job never has some ranks restoring and others starting fresh.  The decision is a
plain :class:`ResumeDecision` (a seam: :func:`trainer_hooks.restore` gets told whether an empty set of
shadows is acceptable, which it is on a fresh start only).

Known limit: an elastic *membership change* without a failure (a node joining a running job with
``--nnodes MIN:MAX``) restarts the workers with unchanged counts, so it reads as a fresh start; the
fixed-size jobs (``--nnodes N``) that Checkmate's bit-identical resume targets never see one.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch.distributed as dist

RESTART_ENV = "TORCHELASTIC_RESTART_COUNT"


class NotUnderTorchrun(RuntimeError):
    """``--resume-auto`` outside torchrun: there is no restart count to decide from."""


@dataclass(frozen=True)
class ResumeDecision:
    """What :func:`resume_decision` found: ``restore`` (restore from the shadows) or start fresh."""

    restore: bool
    local_restarts: int  # this worker's TORCHELASTIC_RESTART_COUNT
    max_restarts_seen: int  # the largest count over all ranks of the job
    run_id: str | None  # TORCHELASTIC_RUN_ID (torchrun's --rdzv-id)

    @property
    def fresh_start(self) -> bool:
        """The first start of the job: the shadows may be empty, and that is fine."""
        return not self.restore

    def describe(self) -> str:
        if self.restore:
            return (f"torchrun restart (restart count {self.local_restarts} here, {self.max_restarts_seen} at most "
                    f"in the job): restoring from the shadows")
        return "torchrun first start (restart count 0 on every rank): starting fresh"


def restart_count(env=None) -> int:
    """This worker's ``TORCHELASTIC_RESTART_COUNT``; :class:`NotUnderTorchrun` when unset or not a count."""
    env = os.environ if env is None else env
    raw = env.get(RESTART_ENV)
    if raw is None:
        raise NotUnderTorchrun(f"{RESTART_ENV} is not set: --resume-auto needs torchrun's elastic agent "
                               "(use --resume for a hand-started restart)")
    try:
        n = int(raw)
    except ValueError:
        raise NotUnderTorchrun(f"{RESTART_ENV}={raw!r} is not an integer") from None
    if n < 0:
        raise NotUnderTorchrun(f"{RESTART_ENV}={n} is negative")
    return n


def resume_decision(env=None, group=None) -> ResumeDecision:
    """Fresh start or restart, the same answer on every rank (collective when a process group exists)."""
    env = os.environ if env is None else env
    local = restart_count(env)
    seen = local
    if dist.is_available() and dist.is_initialized() and dist.get_world_size(group) > 1:
        counts: list = [None] * dist.get_world_size(group)
        dist.all_gather_object(counts, local, group=group)  # works with gloo and NCCL alike
        seen = max(counts)
    return ResumeDecision(restore=seen > 0, local_restarts=local, max_restarts_seen=seen,
                          run_id=env.get("TORCHELASTIC_RUN_ID"))
