"""Are the gradients ``optimizer.step()`` uses still the ones the shadows received?

The shadows replay a step from the FINAL chunks of the all-reduce plus the manifest (LRs, one clip
coefficient, skip).  Anything that changes ``param.grad`` between the all-reduce and the step --
``torch.nn.utils.clip_grad_norm_`` called directly, a ``GradScaler``'s ``unscale_``, a user's own
scaling or masking -- is invisible to them, and the replayed step is silently wrong.

:class:`GradGuard` closes that gap on rank 0 (the rank that talks to the shadows):

* ``capture`` -- in the comm hook, the reduced bucket is remembered with its ``(param_id, numel)``
  list (no per-parameter view is made), as the reference the check compares with.  Two ways:

  - *by reference* (``copy=False``; a CPU bucket of a DDP model with ``gradient_as_bucket_view=False``,
    the default): the bucket buffer itself, remembered when the hook submits it.  DDP copies the
    reduced buffer into each ``param.grad`` (separate tensors) and writes the buffer again only in
    the next backward, after this iteration's step -- so at the step pre-hook the buffer still
    holds exactly what the ring reduced and the shadows received, whatever was done to ``.grad``.
    No copy and no callback on the ring's thread.  Should a gradient alias the buffer after all
    (then a change to it would change the reference too), the check says so (``"changed"``: the
    iteration is resynced, never wrongly replayed) and the guard copies from then on;
  - *by copy* (``copy=True``: CUDA buckets, ``gradient_as_bucket_view=True``, whose gradients are
    views of the buffer): when the bucket's all-reduce completes, a copy of it (one memcpy of the
    gradient per iteration).  The copies go into buffers kept per bucket and reused (two per bucket,
    alternating by iteration parity, so a check never reads a buffer the next iteration writes): a
    fresh ``clone`` of a large bucket every iteration paid the kernel's page faults each time;
* ``check`` -- in the optimizer's step pre-hook, every captured parameter's ``.grad`` is compared
  bit for bit (``int32`` views: NaN and signed zeros count) with its reduced copy:

  - all equal (``memcmp`` of each CPU gradient against its byte range of the bucket copy: bit
    equality, several times cheaper than an elementwise ``torch.equal``, and no tensor is created):
    nothing changed (``GradVerdict.kind == "unchanged"``);
  - else, when ``Checkpointer.clip_grad_norm_`` recorded a coefficient ``c`` for this step and every
    CPU gradient is bitwise ``reduced * c`` (one multiplication per bucket into a reused buffer, then
    one ``memcmp`` per parameter): ``"scaled"`` with ``c`` -- the clipped step, several times cheaper
    than the general search below;
  - else, if one float32 coefficient ``c`` reproduces every gradient exactly
    (``torch._foreach_mul(reduced, c)`` -- the multiplication the shadow performs), it is
    ``"scaled"`` and ``c`` goes into the manifest's ``clip_coef``.  Candidates: the coefficient
    ``Checkpointer.clip_grad_norm_`` recorded, then the float32 values within two ulps of
    ``grad / reduced`` at the element of largest magnitude.  A clip, a power-of-two unscale and both
    together (``unscale`` then ``clip``: the product of a power of two and a float32 is exact) are
    all one coefficient;
  - else ``"changed"`` (masking, per-parameter scaling, noise...): the step cannot be replayed.
    The caller then never sends that iteration's manifest and resyncs every shard from the
    trainer's state after the step (or raises, with ``on_grad_change="raise"``).

Parameters whose ``.grad`` is ``None`` at the step are not judged here (the optimizer skips them;
mirroring that is the manifest's business), nor are parameters outside every bucket (frozen).
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

import numpy as np
import torch

ULPS = 2  #: float32 neighbours of the estimated ratio tried on each side

try:  # libc's memcmp: bitwise equality of two CPU buffers at memory speed
    _memcmp = ctypes.CDLL(None).memcmp
    _memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    _memcmp.restype = ctypes.c_int
except (OSError, AttributeError):  # no libc symbol table (unusual platforms): torch.equal below
    _memcmp = None


@dataclass(frozen=True)
class GradVerdict:
    """What :meth:`GradGuard.check` found for one iteration."""

    kind: str  #: "unchanged" | "scaled" | "changed"
    coef: float | None = None  #: the exact float32 coefficient (kind "scaled")
    detail: str = ""  #: for "changed": which parameter differs and how


class GradGuard:
    def __init__(self, names: dict[int, str]):
        self.names = names  # param_id -> name (for messages)
        self._lock = threading.Lock()
        self._iteration = -1
        #: the reduced buckets of ``_iteration``: (copy, [(param_id, numel), ...] in buffer order)
        self._captured: list[tuple[torch.Tensor, list]] = []
        self._copies: dict[tuple, torch.Tensor] = {}  # (bucket's first param, parity) -> reused copy buffer
        self._scratch: dict[int, torch.Tensor] = {}  # numel -> reused buffer for reduced * coefficient
        self._refs: set[int] = set()  # indices into _captured held by reference (the bucket buffer itself)
        #: set once a gradient was found aliasing a bucket held by reference: copy every bucket from then on
        self.copy_always = False
        self.checks = 0
        self.scaled = 0
        self.changed = 0

    def capture(self, iteration: int, params: list[tuple[int, int]], buffer: torch.Tensor, *,
                copy: bool = True) -> None:
        """Keep a copy of a reduced bucket (``params``: ``(param_id, numel)`` in buffer order), or with
        ``copy=False`` the bucket buffer itself (see the module docstring: only where the gradients are
        not views of it; called when the hook submits the bucket, the buffer is read at the check).
        Per-parameter views are made only if a check needs them."""
        src = buffer.detach()
        if not copy and self.copy_always:
            copy = True
        if not copy:
            with self._lock:
                if iteration != self._iteration:
                    self._iteration, self._captured, self._refs = iteration, [], set()
                self._captured.append((src, params))
                self._refs.add(len(self._captured) - 1)
            return
        key = (params[0][0] if params else -1, iteration & 1)
        with self._lock:
            copy = self._copies.get(key)
            if copy is None or copy.shape != src.shape or copy.dtype != src.dtype or copy.device != src.device:
                copy = self._copies[key] = torch.empty_like(src, memory_format=torch.contiguous_format)
        copy.copy_(src)
        with self._lock:
            if iteration != self._iteration:
                self._iteration, self._captured, self._refs = iteration, [], set()
            self._captured.append((copy, params))

    def _scaled_equal_cpu(self, captured, params, c: float) -> bool:
        return _scaled_equal_cpu_impl(captured, params, c, self._scratch)

    def check(self, iteration: int, params: list[torch.Tensor], hint: float | None = None) -> GradVerdict:
        """Compare the gradients about to be stepped on with the reduced ones of ``iteration``."""
        with self._lock:
            if iteration != self._iteration:
                return GradVerdict("changed", detail=f"no reduced gradient of iteration {iteration} was captured")
            captured = list(self._captured)
            refs = set(self._refs)
        self.checks += 1
        for i in refs:  # a gradient that shares memory with the reference would hide any change to it
            alias = _aliasing(captured[i], params)
            if alias is not None:
                self.copy_always = True
                self.changed += 1
                return GradVerdict("changed", detail=f"param {self.names.get(alias, alias)!r}: .grad shares "
                                                     "memory with the DDP bucket kept as the reference, so a "
                                                     "change cannot be told (the guard copies buckets from now on)")
        if _memcmp is not None and _all_equal_cpu(captured, params):
            return GradVerdict("unchanged")  # the common case: one memcmp per parameter, no tensor made
        if hint is not None and _memcmp is not None:
            # the other common case: ckpt.clip_grad_norm_ scaled every gradient by the coefficient it
            # recorded -- one multiplication per bucket into a reused scratch buffer (the shadow's
            # float32 product: IEEE multiplication is exact-rounded, so any kernel gives these bits),
            # then one memcmp per parameter; anything else takes the full path below
            c = float(np.float32(hint))
            if self._scaled_equal_cpu(captured, params, c):
                self.scaled += 1
                return GradVerdict("scaled", coef=c)
        reduced = {}
        for copy, meta in captured:
            at = 0
            for pid, n in meta:
                reduced[pid] = copy[at:at + n]
                at += n
        cur, ref, ids = [], [], []
        for pid, r in reduced.items():
            g = params[pid].grad
            if g is None:
                continue
            if g.dtype != torch.float32 or g.numel() != r.numel():
                self.changed += 1
                return GradVerdict("changed", detail=f"param {self.names.get(pid, pid)!r}: .grad is "
                                                     f"{g.dtype}[{g.numel()}], the reduced gradient float32[{r.numel()}]")
            cur.append(g.detach().reshape(-1))
            ref.append(r)
            ids.append(pid)
        if _bits_equal(cur, ref):
            return GradVerdict("unchanged")
        for c in _candidates(cur, ref, hint):
            if _bits_equal(cur, torch._foreach_mul(ref, torch.tensor(c, dtype=torch.float32))):
                self.scaled += 1
                return GradVerdict("scaled", coef=c)
        self.changed += 1
        return GradVerdict("changed", detail=_first_difference(cur, ref, ids, self.names))


def _all_equal_cpu(captured, params) -> bool:
    """True when every captured parameter's ``.grad`` is a contiguous float32 CPU tensor bitwise equal to
    its slice of the reduced copy (``memcmp`` against the copy's address plus the parameter's byte
    offset); False at the first one that is not (or cannot be compared this way): the caller then
    runs the full check, which also says what differs."""
    f32 = torch.float32
    for copy, meta in captured:
        if copy.dtype != f32 or copy.device.type != "cpu":
            return False
        if not _grads_match(params, meta, copy.data_ptr()):
            return False
    return True


def _scaled_equal_cpu_impl(captured, params, c: float, scratch: dict) -> bool:
    """True when every captured parameter's ``.grad`` is a contiguous float32 CPU tensor bitwise equal to
    its slice of ``reduced * c`` (float32); False at the first one that is not or cannot be compared so."""
    f32 = torch.float32
    ct = torch.tensor(c, dtype=f32)
    for buf, meta in captured:
        if buf.dtype != f32 or buf.device.type != "cpu" or not buf.is_contiguous():
            return False
        out = scratch.get(buf.numel())
        if out is None:
            out = scratch[buf.numel()] = torch.empty(buf.numel(), dtype=f32)
        torch.mul(buf.reshape(-1), ct, out=out)
        if not _grads_match(params, meta, out.data_ptr()):
            return False
    return True


def _grads_match(params, meta, base: int) -> bool:
    """True when each parameter of ``meta`` (``(param id, elements)``, back to back from address
    ``base``, float32) has no ``.grad`` or a contiguous float32 CPU one with exactly those bytes."""
    f32, at = torch.float32, 0
    for pid, n in meta:
        g = params[pid].grad
        if g is not None:
            if (g.dtype != f32 or g.device.type != "cpu" or g.numel() != n or not g.is_contiguous()
                    or (n and _memcmp(g.data_ptr(), base + 4 * at, 4 * n) != 0)):
                return False
        at += n
    return True


def _aliasing(entry, params) -> int | None:
    """The param id of the first ``.grad`` whose memory overlaps the bucket buffer of ``entry``, or None."""
    buf, meta = entry
    lo = buf.data_ptr()
    hi = lo + buf.numel() * buf.element_size()
    for pid, _ in meta:
        g = params[pid].grad
        if g is not None and g.numel():
            a = g.data_ptr()
            if a < hi and lo < a + g.numel() * g.element_size():
                return pid
    return None


def _bits_equal(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(_same_bits(x, y) for x, y in zip(a, b))


def _same_bits(x: torch.Tensor, y: torch.Tensor) -> bool:
    if (_memcmp is not None and x.device.type == "cpu" and y.device.type == "cpu" and x.dtype == y.dtype
            and x.shape == y.shape and x.is_contiguous() and y.is_contiguous()):
        n = x.numel() * x.element_size()
        return n == 0 or _memcmp(x.data_ptr(), y.data_ptr(), n) == 0
    return torch.equal(x.view(torch.int32), y.view(torch.int32))


def _candidates(cur: list[torch.Tensor], ref: list[torch.Tensor], hint: float | None) -> list[float]:
    out: list[float] = [] if hint is None else [float(np.float32(hint))]
    best, num, den = -1.0, 0.0, 0.0
    for g, r in zip(cur, ref):
        if r.numel() == 0:
            continue
        i = int(r.abs().argmax())
        m = abs(float(r[i]))
        if m > best and m != 0.0 and np.isfinite(m):
            best, num, den = m, float(g[i]), float(r[i])
    if best > 0 and np.isfinite(num):
        c = np.float32(num / den)
        up, down = c, c
        out.append(float(c))
        for _ in range(ULPS):
            up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(-np.inf))
            out += [float(up), float(down)]
    seen, uniq = set(), []
    for c in out:
        if c not in seen and np.isfinite(c):
            seen.add(c)
            uniq.append(c)
    return uniq


def _first_difference(cur, ref, ids, names) -> str:
    for g, r, pid in zip(cur, ref, ids):
        ne = g.view(torch.int32) != r.view(torch.int32)
        if bool(ne.any()):
            n = int(ne.sum())
            i = int(ne.nonzero()[0])
            return (f"param {names.get(pid, pid)!r}: {n}/{g.numel()} elements differ from the all-reduced "
                    f"gradient (element {i}: {float(r[i])!r} -> {float(g[i])!r}) and no single float32 "
                    f"coefficient explains them all")
    return "gradients differ from the all-reduced ones"
