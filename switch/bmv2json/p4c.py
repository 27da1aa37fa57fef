"""Compile with real p4c (when it is installed) and load the result on the embedded target.

The project never needs p4c; tests and tools use this to run a program through
``p4c --target bmv2`` -> :func:`switch.bmv2json.translate` -> ``switch.runtime.Pipeline``,
the path a BMv2 controller takes with checkmate-switch.  ``CHECKMATE_FRONTEND=bmv2json``
makes the conformance and data-plane fixtures use it (tests/bmv2compat/test_json_path.py).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

FRONTEND_ENV = "CHECKMATE_FRONTEND"


class P4cFailed(RuntimeError):
    """p4c is missing or rejected the program (its last error line in the message)."""


def frontend() -> str:
    """``checkmate-p4c`` (default) or ``bmv2json`` (real p4c + the JSON loader)."""
    return os.environ.get(FRONTEND_ENV, "checkmate-p4c")


def p4c_path() -> str | None:
    found = shutil.which("p4c")
    if found:
        return found
    cand = Path("/opt/p4lang/bin/p4c")
    return str(cand) if cand.exists() else None


@dataclass
class P4cProgram:
    """What p4c wrote, loaded: ``device_config`` (embedded IR), ``p4info``, the raw ``bmv2_json``."""

    device_config: dict
    p4info: object
    bmv2_json: dict
    json_path: Path
    p4info_path: Path


def strip_source_info(x):
    """The JSON without ``source_info`` (file paths and source fragments; the loader ignores
    them) -- what tests keep as frozen p4c output."""
    if isinstance(x, dict):
        return {k: strip_source_info(v) for k, v in x.items() if k != "source_info"}
    if isinstance(x, list):
        return [strip_source_info(v) for v in x]
    return x


def load_p4c_output(json_path, p4info_path) -> P4cProgram:
    """Translate a JSON + P4Info (text format) that p4c wrote earlier."""
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    from . import translate

    json_path, p4info_path = Path(json_path), Path(p4info_path)
    j = json.loads(json_path.read_text())
    info = p4info_pb2.P4Info()
    text_format.Parse(p4info_path.read_text(), info)
    return P4cProgram(translate(j, info), info, j, json_path, p4info_path)


def compile_with_p4c(src, outdir=None, args=()) -> P4cProgram:
    exe = p4c_path()
    if exe is None:
        raise P4cFailed("p4c is not installed (see ../shared/p4ref/README.md)")
    src = Path(src)
    out = Path(outdir) if outdir else Path(tempfile.mkdtemp(prefix="p4c-"))
    out.mkdir(parents=True, exist_ok=True)
    p4info_path = out / f"{src.stem}.p4info.txtpb"
    r = subprocess.run([exe, "--target", "bmv2", "--arch", "v1model", "--p4runtime-files", str(p4info_path),
                        "-o", str(out), *args, str(src)], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        err = [ln for ln in r.stderr.splitlines() if "error" in ln.lower()] or r.stderr.splitlines() or [""]
        raise P4cFailed(f"p4c rejects {src.name}: {err[0].strip()}")
    return load_p4c_output(out / f"{src.stem}.json", p4info_path)
