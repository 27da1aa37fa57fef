"""Shared helpers of the pipeline tests: compile a program of programs/ once, build frames."""
from __future__ import annotations

import functools
import os

from switch.compiler import compile_file
from switch.runtime import Pipeline

HERE = os.path.dirname(os.path.abspath(__file__))


@functools.lru_cache(maxsize=None)
def compiled(name: str):
    from switch.bmv2json.p4c import P4cFailed, compile_with_p4c, frontend
    if frontend() == "bmv2json":  # real p4c's JSON through switch/bmv2json (docs/SWITCH.md)
        import pytest
        if os.environ.get("CHECKMATE_P4C_FROZEN"):  # p4c's output kept in tests/bmv2compat/p4c_out/pipeline
            from switch.bmv2json.p4c import load_p4c_output
            stem = os.path.join(HERE, "..", "bmv2compat", "p4c_out", "pipeline", os.path.splitext(name)[0])
            if not os.path.exists(stem + ".json"):
                pytest.skip(f"no frozen p4c output for {name} (p4c rejects it)")
            return load_p4c_output(stem + ".json", stem + ".p4info.txtpb")
        try:
            return compile_with_p4c(os.path.join(HERE, "programs", name))
        except P4cFailed as e:
            pytest.skip(str(e))
    return compile_file(os.path.join(HERE, "programs", name))


def pipeline(name: str, **kw) -> Pipeline:
    return Pipeline(compiled(name).device_config, **kw)

