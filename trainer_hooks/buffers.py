"""Model state the shadows cannot replay: buffers and frozen parameters.

The shadows rebuild parameters and optimizer state from the reduced gradients.  Two kinds of
model state never cross the ring:

* **buffers** (``model.named_buffers()``: BatchNorm ``running_mean``/``running_var``/
  ``num_batches_tracked``, ...) change in the *forward* pass, from each rank's own batch.  DDP
  (``broadcast_buffers=True``, its default) overwrites every rank's buffers with rank 0's at the
  start of each forward, so rank 0's buffers after an iteration are the whole job's buffer state:
  rank 0 copies them once per iteration (at the first bucket of its backward, see
  :mod:`trainer_hooks.iteration`) and sends the copy with the manifest to the *buffer shard*
  (shard 0, :data:`BUFFER_SHARD`).  Exact and cheap: a BatchNorm layer's buffers are 2C+1 numbers.
* **frozen parameters** (``requires_grad=False``) get no gradient and are not in any DDP bucket,
  so no shard owns them (:func:`trainer_hooks.layout.shard_plan` skips them); they are constant, so
  the buffer shard gets a copy with every bootstrap.

:func:`load_model_state` puts both back on restore and fails loudly when the checkpoint lacks
one the model has -- a model would otherwise resume with a fresh model's buffers and diverge
silently.
"""
from __future__ import annotations

import torch

#: the shard that carries buffers and frozen parameters
BUFFER_SHARD = 0


def frozen_ids(model: torch.nn.Module) -> set[int]:
    """``param_id`` of every parameter with ``requires_grad=False``."""
    return {i for i, p in enumerate(model.parameters()) if not p.requires_grad}


def capture_buffers(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every buffer (persistent or not), by fully qualified name."""
    with torch.no_grad():
        return {name: b.detach().to("cpu", copy=True) for name, b in model.named_buffers()}


def capture_frozen(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every frozen parameter, by fully qualified name."""
    with torch.no_grad():
        return {name: p.detach().to("cpu", copy=True) for name, p in model.named_parameters() if not p.requires_grad}


def buffer_capturer(model: torch.nn.Module):
    """``capture()`` for :class:`~trainer_hooks.iteration.IterationTracker`, or None without buffers."""
    if next(model.buffers(), None) is None:
        return None
    return lambda: capture_buffers(model)


def no_grad_reader(model: torch.nn.Module):
    """``read()`` -> param ids of *trainable* parameters whose ``.grad`` is None (skipped by the step)."""
    params = [(i, p) for i, p in enumerate(model.parameters()) if p.requires_grad]
    return lambda: tuple(i for i, p in params if p.grad is None)


class MissingModelState(RuntimeError):
    """The checkpoint does not hold a buffer or frozen parameter the model has."""


def load_model_state(model: torch.nn.Module, buffers: dict[str, torch.Tensor],
                     frozen: dict[str, torch.Tensor]) -> None:
    """Copy ``buffers`` and ``frozen`` into ``model`` bit for bit; every one the model has must be there."""
    mine_b = dict(model.named_buffers())
    mine_f = {n: p for n, p in model.named_parameters() if not p.requires_grad}
    for what, mine, got in (("buffer", mine_b, buffers), ("frozen parameter", mine_f, frozen)):
        missing = sorted(set(mine) - set(got))
        if missing:
            raise MissingModelState(f"the checkpoint holds no {what}(s) {missing[:5]}"
                                    f"{' ...' if len(missing) > 5 else ''}: restoring would leave a fresh "
                                    f"model's values there (shard {BUFFER_SHARD} carries them)")
        extra = sorted(set(got) - set(mine))
        if extra:
            raise MissingModelState(f"the checkpoint holds {what}(s) {extra[:5]} the model does not have")
        for name, t in mine.items():
            src = got[name]
            if src.shape != t.shape or src.dtype != t.dtype:
                raise MissingModelState(f"{what} {name!r}: checkpoint {src.dtype}{tuple(src.shape)}, "
                                        f"model {t.dtype}{tuple(t.shape)}")
    with torch.no_grad():
        for name, t in mine_b.items():
            t.copy_(buffers[name])
        for name, p in mine_f.items():
            p.copy_(frozen[name])
