"""Checkpointing baselines for ``checkmate bench``: one small class per method, one interface.

Every method is driven by the training loop the same way::

    m = make_method("torch-save", every=k, out_dir=..., rank=r, model=ddp.module, optimizer=opt)
    for it in ...:
        ... forward / backward / opt.step() ...
        stall = m.after_step(it)        # seconds the training thread was blocked by checkpointing
    m.finish()                          # wait for outstanding background work (not counted)

``after_step`` checkpoints when ``it % every == 0`` and returns the time the *training thread*
spent in the checkpointer (the per-checkpoint stall); background work (a persist thread, DCP's
async writer) shows up only in the iteration times it slows down.

Methods (persisting = written *and* ``fsync``-ed, so a crash cannot lose an acknowledged checkpoint):

``none``        nothing (the overhead baseline).
``torch-save``  synchronous ``torch.save({"model", "optimizer"})`` every k, rank 0 only (DDP replicas
                are identical), fsync, atomic rename.
``checkfreq``   CheckFreq-style two phases (Mohan et al., FAST'21): *snapshot* -- copy the model and
                optimizer tensors into pre-allocated CPU buffers in the training thread -- then
                *persist* in a background thread; the next snapshot first waits for the previous
                persist to finish (so a snapshot is never overwritten while being written).
``dcp-async``   PyTorch ``torch.distributed.checkpoint.async_save`` every k, collective on every rank
                (its own gloo group so its background collectives never interleave with training's),
                the previous save's future awaited before the next one starts (as the DCP docs advise).
"""
from __future__ import annotations

import os
import threading
import time
import warnings
from pathlib import Path

import torch

from shadow.store import write_durable

PERIODIC = ("torch-save", "checkfreq", "dcp-async")


def _save_durable(obj, path: Path) -> int:
    """torch.save to ``path`` atomically (tmp + fsync + rename + directory fsync); returns the file size."""
    write_durable(path, lambda f: torch.save(obj, f))
    return path.stat().st_size


class Method:
    """Base class: checkpoint every ``every`` iterations; ``after_step`` returns the stall (s)."""

    name = "none"
    collective = False  # True when every rank takes part in a checkpoint

    def __init__(self, every: int = 1, out_dir: str | os.PathLike | None = None, rank: int = 0,
                 model: torch.nn.Module | None = None, optimizer: torch.optim.Optimizer | None = None,
                 process_group=None):
        if every < 1:
            raise ValueError(f"every must be >= 1, got {every}")
        self.every, self.rank = int(every), rank
        self.model, self.optimizer, self.pg = model, optimizer, process_group
        self.out_dir = Path(out_dir) if out_dir is not None else None
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        self.checkpoints = 0
        self.stalls: list[float] = []
        self.bytes_written = 0

    def due(self, it: int) -> bool:
        return it % self.every == 0

    def after_step(self, it: int) -> float:
        if not self.due(it):
            return 0.0
        t0 = time.perf_counter()
        self.checkpoint(it)
        dt = time.perf_counter() - t0
        self.checkpoints += 1
        self.stalls.append(dt)
        return dt

    def checkpoint(self, it: int) -> None:  # pragma: no cover - overridden
        pass

    def finish(self) -> None:
        pass

    def state(self) -> dict:
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}


class NoCheckpoint(Method):
    name = "none"

    def due(self, it: int) -> bool:
        return False


class TorchSave(Method):
    """Synchronous ``torch.save`` every k iterations (rank 0)."""

    name = "torch-save"

    def checkpoint(self, it: int) -> None:
        if self.rank != 0:
            return
        self.bytes_written = _save_durable({"iteration": it, **self.state()}, self.out_dir / "ckpt.pt")


class CheckFreq(Method):
    """Two-phase snapshot (copy to CPU buffers) + background persist; next snapshot waits for it."""

    name = "checkfreq"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._buf = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.waits: list[float] = []

    def _snapshot(self) -> dict:
        src = self.state()
        if self._buf is None:  # pre-allocate once (CheckFreq keeps a pinned/CPU copy around)
            self._buf = _clone(src)
        else:
            _copy_into(self._buf, src)
        return self._buf

    def _persist(self, snap: dict, it: int) -> None:
        try:
            self.bytes_written = _save_durable({"iteration": it, **snap}, self.out_dir / "ckpt.pt")
        except BaseException as e:  # noqa: BLE001 -- surfaced at the next checkpoint
            self._error = e

    def _wait(self) -> None:
        if self._thread is not None:
            t0 = time.perf_counter()
            self._thread.join()
            self.waits.append(time.perf_counter() - t0)
            self._thread = None
        if self._error is not None:
            raise RuntimeError(f"checkfreq persist failed: {self._error}") from self._error

    def checkpoint(self, it: int) -> None:
        if self.rank != 0:
            return
        self._wait()  # the previous persist must be done before its buffer is overwritten
        snap = self._snapshot()
        self._thread = threading.Thread(target=self._persist, args=(snap, it), name="checkfreq-persist",
                                        daemon=True)
        self._thread.start()

    def finish(self) -> None:
        self._wait()


def _clone(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        return {k: _clone(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(v) for v in obj)
    return obj


def _copy_into(dst, src):
    if isinstance(src, dict):
        for k, v in src.items():
            if isinstance(v, torch.Tensor) and isinstance(dst.get(k), torch.Tensor) and dst[k].shape == v.shape:
                dst[k].copy_(v)
            elif isinstance(v, (dict, list)) and k in dst:
                _copy_into(dst[k], v)
            else:
                dst[k] = _clone(v)
    elif isinstance(src, list):
        for i, v in enumerate(src):
            if isinstance(v, torch.Tensor) and isinstance(dst[i], torch.Tensor):
                dst[i].copy_(v)
            elif isinstance(v, (dict, list)):
                _copy_into(dst[i], v)
            else:
                dst[i] = _clone(v)


class DcpAsync(Method):
    """``torch.distributed.checkpoint.async_save`` every k iterations (collective)."""

    name = "dcp-async"
    collective = True

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._future = None
        self.waits: list[float] = []

    def _wait(self) -> None:
        if self._future is not None:
            t0 = time.perf_counter()
            self._future.result(timeout=120)
            self.waits.append(time.perf_counter() - t0)
            self._future = None

    def checkpoint(self, it: int) -> None:
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.state_dict import get_state_dict
        self._wait()
        msd, osd = get_state_dict(self.model, self.optimizer)
        path = self.out_dir / f"dcp-{(it // self.every) % 2}"  # alternate: the previous one stays valid
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Detected an existing checkpoint ... overwriting"
            res = dcp.async_save({"model": msd, "optimizer": osd}, checkpoint_id=str(path),
                                 process_group=self.pg)
        self._future = getattr(res, "upload_completion", res)  # Future, or AsyncSaveResponse (torch >= 2.9)

    def finish(self) -> None:
        self._wait()
        if self.out_dir is not None and self.rank == 0:
            self.bytes_written = sum(f.stat().st_size for f in self.out_dir.rglob("*") if f.is_file())


METHODS = {c.name: c for c in (NoCheckpoint, TorchSave, CheckFreq, DcpAsync)}


def make_method(name: str, **kw) -> Method:
    if name not in METHODS:
        raise ValueError(f"unknown checkpoint method {name!r}; one of {sorted(METHODS)}")
    return METHODS[name](**kw)
