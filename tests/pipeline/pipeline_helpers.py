"""Shared helpers of the pipeline tests: compile a program of programs/ once, build frames."""
from __future__ import annotations

import functools
import os

from switch.compiler import compile_file
from switch.runtime import Pipeline

HERE = os.path.dirname(os.path.abspath(__file__))


@functools.lru_cache(maxsize=None)
def compiled(name: str):
    return compile_file(os.path.join(HERE, "programs", name))


def pipeline(name: str, **kw) -> Pipeline:
    return Pipeline(compiled(name).device_config, **kw)


def ipv4_csum(hdr: bytes) -> int:
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
