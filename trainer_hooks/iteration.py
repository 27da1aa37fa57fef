"""Iteration bookkeeping shared by the comm hook and the optimizer step hooks.

Iteration numbers follow the shadow protocol: ``completed`` counts iterations
already applied (optimizer steps *and* skipped steps), and the gradient being
reduced belongs to iteration ``completed + 1`` -- the number carried in the
wire header and in the manifest.

A training iteration moves through three phases::

    idle --first bucket--> reducing --last bucket--> reduced --step/skip--> idle

It ends with ``optimizer.step()`` (post-step hook), an explicit
``skip_step()``, or -- AMP-style, when ``GradScaler`` decided not to call
``optimizer.step()`` -- implicitly when the next backward starts while the
previous one is still ``reduced``.  Each end produces one
:class:`IterationRecord`, handed to a callback (the manifest sender).

With ``check_grads`` (rank 0, shadows attached) the step pre-hook also asks
:mod:`trainer_hooks.grad_guard` whether the gradients are still the all-reduced ones: a uniform
scale becomes the record's ``clip_coef`` (exact), anything else marks the record ``unreplayable``
(or raises :class:`GradientsChanged` with ``on_grad_change="raise"``).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from trainer_hooks.grad_guard import GradVerdict


@dataclass(frozen=True)
class IterationRecord:
    """What the trainer did in one iteration besides the gradient (becomes a Manifest)."""

    iteration: int
    lrs: tuple[float, ...]
    clip_coef: float | None
    skip: bool
    buffers: dict | None = None  #: FQN -> tensor (a copy), when buffers are captured
    no_grad: tuple[int, ...] = ()  #: param ids without a gradient at the step
    #: why the shadows cannot replay this step (the gradients were changed after the all-reduce beyond
    #: one uniform scale, see :mod:`trainer_hooks.grad_guard`); "" when they can.  Non-empty: no
    #: manifest is sent and every shard is resynced from the trainer's state instead
    unreplayable: str = ""


class GradientsChanged(RuntimeError):
    """``param.grad`` was changed after the all-reduce beyond one uniform scale, and the caller asked
    (``on_grad_change="raise"``) to stop rather than resync the shadows."""


class IterationTracker:
    def __init__(self, completed: int, read_lrs: Callable[[], list[float]],
                 on_record: Callable[[IterationRecord], None] | None = None, *,
                 capture_buffers: Callable[[], dict] | None = None,
                 read_no_grad: Callable[[], tuple[int, ...]] | None = None,
                 check_grads: Callable[[int, float | None], "GradVerdict"] | None = None,
                 on_grad_change: str = "resync"):
        if completed < 0:
            raise ValueError(f"completed iterations must be >= 0, got {completed}")
        self.completed = completed
        self._read_lrs = read_lrs
        self._on_record = on_record
        self._phase = "idle"
        self._lrs: tuple[float, ...] | None = None
        self._clip: float | None = None
        self._capture, self._read_no_grad = capture_buffers, read_no_grad
        self._buffers: dict | None = None
        self._no_grad: tuple[int, ...] = ()
        self._check_grads, self._on_grad_change = check_grads, on_grad_change
        self._unreplayable = ""
        self._lock = threading.Lock()
        self.skipped = 0

    @property
    def current(self) -> int:
        """The iteration whose gradient is being (or will next be) reduced."""
        return self.completed + 1

    @property
    def phase(self) -> str:
        return self._phase

    def on_bucket(self, index: int, is_last: bool) -> int:
        """Called by the comm hook for every bucket; returns the bucket's iteration."""
        record = None
        with self._lock:
            if self._phase == "reduced":
                record = self._conclude(skip=True)  # the previous iteration never stepped
            if self._phase == "idle" and self._capture is not None:
                self._buffers = self._capture()  # first bucket: every forward of this iteration ran
            self._phase = "reduced" if is_last else "reducing"
            it = self.current
        if record is not None:
            self._emit(record)
        return it

    def _require_reduced(self, what: str) -> None:
        if self._phase != "reduced":
            raise RuntimeError(f"{what} in iteration {self.current} before its backward pass finished "
                               f"(phase {self._phase!r}); with Checkmate attached every optimizer step must "
                               "follow exactly one backward through the DDP model (use no_sync() to accumulate)")

    def on_step_pre(self) -> None:
        with self._lock:
            self._require_reduced("optimizer.step()")
            self._lrs = tuple(float(x) for x in self._read_lrs())
            if self._read_no_grad is not None:
                self._no_grad = tuple(self._read_no_grad())
            if self._check_grads is not None:
                self._judge_grads()

    def on_step_post(self) -> None:
        with self._lock:
            record = self._conclude(skip=False)
        self._emit(record)

    def skip_step(self) -> IterationRecord:
        with self._lock:
            self._require_reduced("skip_step()")
            record = self._conclude(skip=True)
        self._emit(record)
        return record

    def record_clip(self, coef: float) -> None:
        with self._lock:
            self._require_reduced("clip_grad_norm_()")
            if self._clip is not None:
                raise RuntimeError(f"gradients of iteration {self.current} were already clipped once; "
                                   "Checkmate mirrors a single clip coefficient per iteration")
            self._clip = coef

    def _judge_grads(self) -> None:
        """Step pre-hook: are the gradients still the all-reduced ones (times one coefficient)?"""
        v = self._check_grads(self.current, self._clip)
        if v.kind == "scaled":
            self._clip = v.coef  # the exact coefficient applied, whoever applied it
        elif v.kind == "changed":
            msg = (f"iteration {self.current}: the gradients changed between the all-reduce and optimizer.step() "
                   f"in a way the shadows cannot replay: {v.detail}")
            if self._on_grad_change == "raise":
                raise GradientsChanged(msg + " (attach(on_grad_change='raise'); the optimizer step was not taken)")
            self._unreplayable = msg

    def _conclude(self, skip: bool) -> IterationRecord:
        lrs = self._lrs if self._lrs is not None else tuple(float(x) for x in self._read_lrs())
        record = IterationRecord(self.current, lrs, None if skip else self._clip, skip, self._buffers,
                                 () if skip else self._no_grad, unreplayable="" if skip else self._unreplayable)
        self.completed += 1
        self.skipped += skip
        self._phase, self._lrs, self._clip = "idle", None, None
        self._buffers, self._no_grad, self._unreplayable = None, (), ""
        return record

    def _emit(self, record: IterationRecord) -> None:
        if self._on_record is not None:
            self._on_record(record)
