"""CUDA buckets through the CPU ring: pinned host staging, copies overlapped with the ring.

The UDP ring (:mod:`trainer_hooks.transport`) reduces float32 buffers in host memory.  When DDP
runs on GPUs its buckets live on the device, so :class:`CudaStaging` moves each one through a
*pinned* host buffer (one per bucket index, reused every iteration):

1. **out** -- in the comm hook (autograd's thread): a side stream waits for the stream that
   produced the gradients, copies the bucket device -> pinned host asynchronously and records an
   event.  The hook returns at once, so backward goes on computing the next buckets;
2. **ring** -- a staging thread waits for that event and hands the host buffer to the ring; it
   takes the buckets in hook order (DDP's order, the ring's FIFO), so the copy of bucket *k+1*
   runs while the ring reduces bucket *k*;
3. **back** -- when the ring's future resolves, the reduced host buffer is copied host -> device
   on the same side stream into DDP's bucket tensor, and the hook's CUDA-aware future
   (``Future(devices=[dev])``) is completed with that stream current, so DDP's stream waits for
   the copy, not the CPU.

Both directions use one stream per device, so the next iteration's copy-out of a bucket is
ordered after this iteration's copy-back from the same pinned buffer.  The arithmetic is the
ring's (float32, bit-identical across ranks); staging only moves bytes, so a CUDA run gives the
same averaged gradients as a CPU run of the same buckets.

Only float32 gradients are accepted: the wire carries ``DTYPE_FP32`` and the shadows replay an
fp32 AdamW; :func:`check_bucket` rejects bf16/fp16 (and anything else) with the reason.
"""
from __future__ import annotations

import queue
import threading

import torch
import torch.futures

from trainer_hooks.transport import Job


class StagingError(RuntimeError):
    """A bucket the Checkmate hook cannot carry (dtype, device)."""


def check_bucket(buf: torch.Tensor, index: int) -> None:
    """float32 on CPU or CUDA, contiguous; a clear error otherwise."""
    if buf.dtype != torch.float32:
        raise StagingError(
            f"DDP bucket {index} holds {buf.dtype} gradients: the Checkmate hook carries float32 only (wire dtype "
            "DTYPE_FP32; the shadows replay an fp32 AdamW). Keep fp32 parameters and gradients -- autocast/AMP "
            "with fp32 master weights is fine -- instead of a bf16/fp16 model")
    if buf.device.type not in ("cpu", "cuda"):
        raise StagingError(f"DDP bucket {index} is on {buf.device}: the Checkmate hook supports CPU and CUDA buckets")
    if not buf.is_contiguous():
        raise StagingError(f"DDP bucket {index} is not contiguous")


class CudaStaging:
    """Pinned host buffers and one copy stream per device; see the module docstring."""

    def __init__(self, ring):
        self.ring = ring
        self._host: dict[tuple[int, int], torch.Tensor] = {}  # (device index, bucket index) -> pinned buffer
        self._streams: dict[int, torch.cuda.Stream] = {}
        self._todo: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="checkmate-cuda-staging", daemon=True)
        self._thread.start()
        self.staged = 0

    def _stream(self, dev: torch.device) -> torch.cuda.Stream:
        s = self._streams.get(dev.index)
        if s is None:
            s = self._streams[dev.index] = torch.cuda.Stream(device=dev)
        return s

    def _pinned(self, dev: torch.device, index: int, numel: int) -> torch.Tensor:
        key = (dev.index, index)
        host = self._host.get(key)
        if host is None or host.numel() != numel:  # DDP rebuilds its buckets once, after the first step
            host = self._host[key] = torch.empty(numel, dtype=torch.float32, pin_memory=True)
        return host

    def submit(self, iteration: int, index: int, buf: torch.Tensor, plan) -> torch.futures.Future:
        """Stage ``buf`` (a CUDA bucket) out, all-reduce it on the ring, copy it back; a CUDA-aware future."""
        dev = buf.device
        stream = self._stream(dev)
        host = self._pinned(dev, index, buf.numel())
        stream.wait_stream(torch.cuda.current_stream(dev))  # the gradients are written on the current stream
        with torch.cuda.stream(stream):
            host.copy_(buf, non_blocking=True)
            buf.record_stream(stream)
            copied = torch.cuda.Event()
            copied.record(stream)
        out = torch.futures.Future(devices=[dev])
        self._todo.put((Job(iteration, index, host, plan), copied, buf, stream, out))
        return out

    def _run(self) -> None:
        while True:
            item = self._todo.get()
            if item is None:
                return
            job, copied, buf, stream, out = item
            try:
                copied.synchronize()  # the copy-out is done: the host buffer holds the bucket
                fut = self.ring.submit(job)
            except BaseException as e:  # noqa: BLE001 - delivered through DDP's future
                out.set_exception(e)
                continue
            fut.add_done_callback(lambda f, buf=buf, stream=stream, out=out: self._back(f, buf, stream, out))

    def _back(self, fut, buf, stream, out) -> None:
        try:
            host = fut.wait()
            with torch.cuda.device(buf.device), torch.cuda.stream(stream):
                buf.copy_(host, non_blocking=True)
                out.set_result(buf)  # records an event on ``stream``: DDP's stream waits for the copy
            self.staged += 1
        except BaseException as e:  # noqa: BLE001
            out.set_exception(e)

    def close(self) -> None:
        self._todo.put(None)
        self._thread.join(timeout=5.0)
