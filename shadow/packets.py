"""Cutting a gradient into Checkmate FINAL packets, exactly as the trainer hook puts them on the wire.

Used by the tests and the benchmark to play the switch's role (the replicated copy a shadow
receives is byte-for-byte the trainer's FINAL packet, only re-addressed).  Packets never straddle
a parameter; each carries ``(param_id, offset, count)`` and the elements in ``order`` byte order
(``"big"``: network order, the testbed's convention for payloads, see docs/SHADOW.md).
"""
from __future__ import annotations

import sys

import numpy as np
import torch

from checkmate import wire

from .layout import WIRE_DTYPE
from .protocol import DTYPE_NAMES

_NP = {torch.float32: np.uint32, torch.float16: np.uint16, torch.bfloat16: np.uint16}


def payload_bytes(t: torch.Tensor, order: str = "big") -> bytes:
    """The raw element bytes of ``t`` in the given byte order."""
    t = t.detach().contiguous().reshape(-1)
    raw = t.view(torch.uint8).numpy() if t.numel() else np.zeros(0, np.uint8)
    if order != sys.byteorder and t.numel():
        return raw.view(_NP[t.dtype]).byteswap().tobytes()
    return raw.tobytes()


def gradient_packets(job_id: int, iteration: int, grads: dict[int, torch.Tensor], *, elems: int | None = None,
                     order: str = "big", rank: int = 0, retx: bool = False) -> list[bytes]:
    """All FINAL packets (UDP payloads) for ``grads`` (param_id -> gradient) of one iteration."""
    out = []
    seq = 0
    for pid in sorted(grads):
        g = grads[pid]
        dt = WIRE_DTYPE[DTYPE_NAMES[g.dtype]]
        per = elems or wire.max_elements(1500, dt)
        data = payload_bytes(g, order)
        es = wire.DTYPE_SIZE[dt]
        n = g.numel()
        for off in range(0, n, per):
            cnt = min(per, n - off)
            h = wire.ChunkHeader(job_id=job_id, iteration=iteration, rank=rank, param_id=pid, offset=off,
                                 count=cnt, dtype=dt, seq=seq & 0xFFFFFFFF,
                                 flags=wire.FLAG_FINAL | (wire.FLAG_RETX if retx else 0))
            out.append(h.pack() + data[off * es:(off + cnt) * es])
            seq += 1
    return out
