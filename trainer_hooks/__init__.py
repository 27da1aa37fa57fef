"""Checkmate's trainer side: a DDP comm hook whose all-reduce crosses the switch.

Public API (see docs/HOOKS.md):

* :func:`attach` -- hook a stock ``DistributedDataParallel`` model and its optimizer;
* :func:`restore` -- load model and optimizer from the shadows, return the iteration;
* :func:`resume_decision` -- under torchrun: first start (fresh) or restart (restore), same on every rank;
* :meth:`Checkpointer.compare_with_shadows` -- the trainer's state vs the shadows' replay, bit for bit;
* :func:`shard_plan` -- ``param_id -> shard``, deterministic from the model (for the controller);
* :func:`checkmate_hook` / :class:`HookState` -- the comm hook itself, ``ddp_comm_hooks`` style.
"""
from trainer_hooks.api import MODES, Checkpointer, RingConfig, attach, parse_shadows
from trainer_hooks.elastic import ResumeDecision, resume_decision
from trainer_hooks.hook import HookState, checkmate_hook
from trainer_hooks.layout import plan_bucket, shard_plan
from trainer_hooks.iteration import GradientsChanged
from trainer_hooks.restore import RestoreError, restore
from trainer_hooks.shadow_link import ShadowsUnavailable
from trainer_hooks.shard_map import ShardMapMismatch
from trainer_hooks.transport import RingError, UdpRing

__all__ = ["MODES", "Checkpointer", "RingConfig", "attach", "parse_shadows", "HookState", "checkmate_hook",
           "plan_bucket", "shard_plan", "RestoreError", "restore", "RingError", "ShadowsUnavailable", "UdpRing",
           "ResumeDecision", "resume_decision", "GradientsChanged", "ShardMapMismatch"]
