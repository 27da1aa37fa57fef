"""Which trainer optimizers a shadow can replay, and how each is rebuilt on the shard.

A shadow stays bit-identical to the trainer only by running *the same* ``torch.optim`` class
with the same variant flags and hyperparameters over its shard (see :mod:`shadow.replay`), so
the set of replayable optimizers is a fixed table, not a plug-in point:

=========  =========================  ======================================================
kind       class                      per-parameter state carried in checkpoints
=========  =========================  ======================================================
``adamw``  ``torch.optim.AdamW``      ``step``, ``exp_avg``, ``exp_avg_sq`` (+ ``max_exp_avg_sq``)
``adam``   ``torch.optim.Adam``       same as AdamW (coupled weight decay)
``sgd``    ``torch.optim.SGD``        ``momentum_buffer`` (momentum / Nesterov; none without momentum)
=========  =========================  ======================================================

``foreach`` and the plain for-loop are replayed as given (on CPU they are bitwise equal for these
optimizers); ``fused`` is a different kernel and is replayed as fused.  The class is matched
exactly (``type(opt) is ...``): a user subclass may override ``step`` and cannot be replayed.
Everything else is refused by :func:`optimizer_kind` with an error that names what is supported
-- ``trainer_hooks.attach`` calls it before any state leaves the trainer.
"""
from __future__ import annotations

import torch

#: kind -> torch class; the order is the one error messages list
SUPPORTED: dict[str, type] = {"adamw": torch.optim.AdamW, "adam": torch.optim.Adam, "sgd": torch.optim.SGD}
_KIND_OF = {cls: kind for kind, cls in SUPPORTED.items()}


class UnsupportedOptimizer(TypeError):
    """The optimizer cannot be replayed by the shadows; the message lists those that can."""


def supported_names() -> str:
    return ", ".join(f"torch.optim.{cls.__name__}" for cls in SUPPORTED.values())


def optimizer_kind(opt) -> str:
    """``"adamw"`` / ``"adam"`` / ``"sgd"`` for a live optimizer; raises :class:`UnsupportedOptimizer`."""
    kind = _KIND_OF.get(type(opt))
    if kind is None:
        raise UnsupportedOptimizer(
            f"the shadows cannot replay {type(opt).__module__}.{type(opt).__name__}; supported optimizers: "
            f"{supported_names()} (momentum/Nesterov for SGD; foreach, for-loop or fused)")
    for i, g in enumerate(opt.param_groups):
        if g.get("differentiable"):
            raise UnsupportedOptimizer(f"param_groups[{i}]: differentiable=True is not replayed")
        if g.get("capturable"):
            raise UnsupportedOptimizer(f"param_groups[{i}]: capturable=True is not replayed (CPU shadows)")
    return kind


def optimizer_class(kind: str) -> type:
    """The torch class replaying ``kind`` (as written in ``OptimizerSpec.kind``)."""
    cls = SUPPORTED.get(str(kind).lower())
    if cls is None:
        raise KeyError(f"{kind!r} is not replayed; supported kinds: {', '.join(SUPPORTED)}")
    return cls
