"""Compile with real p4c (when it is installed) and load the result on the embedded target.

The project never needs p4c; tests and tools use this to run a program through
``p4c --target bmv2`` -> :func:`switch.bmv2json.translate` -> ``switch.runtime.Pipeline``,
the path a BMv2 controller takes with checkmate-switch.  ``CHECKMATE_FRONTEND=bmv2json``
makes the conformance and data-plane fixtures use it (tests/bmv2compat/test_json_path.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

FRONTEND_ENV = "CHECKMATE_FRONTEND"


class P4cFailed(RuntimeError):
    """p4c is missing, timed out or rejected the program (its first error line in the message, all of
    its output in ``stderr``)."""

    def __init__(self, message: str, stderr: str = ""):
        super().__init__(message)
        self.stderr = stderr


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


def run_p4c(src, outdir, *, exe: str | None = None, args=(), timeout: float = 300.0) -> tuple[Path, Path]:
    """Run real ``p4c --target bmv2 --arch v1model`` on ``src`` into ``outdir`` (the one place the
    project spells that command line: the controller's ``make build``, these tools and the
    differential suite use it).  Returns the paths of the BMv2 JSON and the P4Info (text format)
    p4c wrote, ``<stem>.json`` and ``<stem>.p4info.txtpb``; raises :class:`P4cFailed`."""
    exe = exe or p4c_path()
    if exe is None:
        raise P4cFailed("p4c is not installed (see ../shared/p4ref/README.md)")
    src, out = Path(src), Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, p4info_path = out / f"{src.stem}.json", out / f"{src.stem}.p4info.txtpb"
    try:
        r = subprocess.run([exe, "--target", "bmv2", "--arch", "v1model", "--p4runtime-files", str(p4info_path),
                            "-o", str(out), *args, str(src)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise P4cFailed(f"p4c did not finish compiling {src} within {timeout:g}s") from None
    if r.returncode != 0 or not json_path.is_file() or not p4info_path.is_file():
        text = r.stderr + r.stdout
        err = [ln for ln in text.splitlines() if "error" in ln.lower()] or text.splitlines() or [""]
        raise P4cFailed(f"p4c rejects {src.name} (exit {r.returncode}): {err[0].strip()}", text)
    return json_path, p4info_path


def compile_with_p4c(src, outdir=None, args=()) -> P4cProgram:
    out = Path(outdir) if outdir else Path(tempfile.mkdtemp(prefix="p4c-"))
    return load_p4c_output(*run_p4c(src, out, args=args))


_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def source_digest(src) -> str:
    """A cache key for p4c's outcome on ``src`` (for :func:`run_p4c_cached`'s folder name): its
    own bytes and those of every local file it ``#include "..."``s, at any depth, each looked up
    next to the file that names it -- two programs with the same main text and different
    includes (a copy with one include adapted) never share a result."""
    h = hashlib.sha256()
    seen: set[Path] = set()
    todo = [Path(src)]
    while todo:
        f = todo.pop(0)
        try:
            f = f.resolve()
        except OSError:
            continue
        if f in seen or not f.is_file():
            continue
        seen.add(f)
        data = f.read_bytes()
        h.update(str(len(data)).encode() + b"\0" + data)
        todo += [f.parent / name for name in _LOCAL_INCLUDE.findall(data.decode(errors="replace"))]
    return h.hexdigest()[:20]


def run_p4c_cached(src, cache, *, timeout: float = 300.0) -> tuple[bytes, str] | str:
    """:func:`run_p4c` with its outcome kept in the folder ``cache`` (the caller names it after what
    it compiles, e.g. a hash of the source): ``(BMv2 JSON bytes, P4Info text format)``, or p4c's
    error text when it rejects the program.  A later call with the same folder reads it back instead
    of running p4c again; a run that died half-way (no ``ok``/``error`` marker) is redone.  Processes
    sharing the folder (parallel test workers) take turns on a lock file in it: one compiles, the
    others read what it wrote."""
    import fcntl

    cache = Path(cache)
    if not (cache / "ok").exists() and not (cache / "error").exists():
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (cache / "ok").exists() and not (cache / "error").exists():
                try:
                    out_json, out_info = run_p4c(src, cache, timeout=timeout)
                except P4cFailed as e:
                    (cache / "error").write_text(e.stderr or str(e))
                else:
                    out_json.rename(cache / "p.json")
                    out_info.rename(cache / "p.p4info.txtpb")
                    (cache / "ok").write_text("")
    if (cache / "error").exists():
        return (cache / "error").read_text()
    return (cache / "p.json").read_bytes(), (cache / "p.p4info.txtpb").read_text()
