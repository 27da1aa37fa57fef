"""Find the pipeline to push: P4Info + device config per target, from ``build/`` or compiled now.

Each target needs its own pair of files, and ``build/`` holds them side by side so that
building for one never breaks the other (no ``make clean`` between them):

==========  =========================================  =====================================
target      device config                              P4Info
==========  =========================================  =====================================
embedded    ``build/checkmate.embedded.json`` (IR)     ``build/checkmate.embedded.p4info.txtpb``
bmv2        ``build/checkmate.bmv2.json`` (p4c BMv2)   ``build/checkmate.bmv2.p4info.txtpb``
==========  =========================================  =====================================

``make build`` runs :func:`build` (``python -m controller.artifacts``): the embedded pair always
(``switch.compiler``, in-process), the BMv2 pair when real ``p4c`` is on PATH.  The two compilers
assign the same P4Info names but not necessarily the same ids, so each target is programmed with
its own P4Info.  The controller pushes the device config bytes as they are; :attr:`Artifacts.target`
says which switch they are for.

:func:`load_artifacts` picks the pair for the switch in use.  When it is missing or older than
``p4src/checkmate.p4`` it compiles now: the embedded pair in memory (a fresh checkout needs no
``make build``), the BMv2 pair with ``p4c`` into ``build/`` (an error naming the cause when p4c
is not on PATH).  Writes go to a temporary name first and are renamed into place, so a reader
never sees half a build.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from p4.config.v1 import p4info_pb2

from checkmate.paths import BUILD, P4SRC
from switch.bmv2json.p4c import P4cFailed, run_p4c

from .errors import ControllerError
from .p4info import P4InfoIndex, load_p4info

DEFAULT_PROGRAM = P4SRC / "checkmate.p4"
TARGETS = ("embedded", "bmv2")
P4C_TIMEOUT_S = 300


@dataclass(frozen=True)
class Artifacts:
    p4info: p4info_pb2.P4Info
    device_config: bytes
    source: str  # where they came from, for messages
    target: str  # "embedded" | "bmv2"

    @property
    def index(self) -> P4InfoIndex:
        return P4InfoIndex(self.p4info)


def artifact_paths(build_dir: Path | str, target: str, name: str = "checkmate") -> tuple[Path, Path]:
    """``(p4info, device config)`` paths of ``target``'s pair in ``build_dir``."""
    if target not in TARGETS:
        raise ControllerError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    d = Path(build_dir)
    return d / f"{name}.{target}.p4info.txtpb", d / f"{name}.{target}.json"


def _target_of(device_config: bytes) -> str:
    try:
        d = json.loads(device_config)
    except ValueError:
        return "unknown"
    if isinstance(d, dict) and "pipelines" in d and "header_types" in d:
        return "bmv2"
    return "embedded"


def _replace(src: Path, dst: Path) -> None:
    os.replace(src, dst)  # same folder: atomic


def compile_now(program: Path = DEFAULT_PROGRAM) -> Artifacts:
    """The embedded pair, compiled in this process (nothing written)."""
    try:
        from switch.compiler import P4CompileError, compile_file
    except ImportError as e:
        raise ControllerError(f"no build artifacts and the embedded compiler is unavailable ({e}); "
                              "run `make build`") from None
    try:
        prog = compile_file(str(program))
    except P4CompileError as e:
        raise ControllerError(f"compiling {program} failed: {e}") from None
    return Artifacts(prog.p4info, json.dumps(prog.device_config).encode(), f"compiled {program}", "embedded")


def write_embedded(program: Path, build_dir: Path, name: str = "checkmate") -> Artifacts:
    """Compile with the embedded compiler and write its pair into ``build_dir``."""
    from google.protobuf import text_format
    art = compile_now(program)
    build_dir.mkdir(parents=True, exist_ok=True)
    p4info_path, json_path = artifact_paths(build_dir, "embedded", name)
    for path, data in ((json_path, art.device_config),
                       (p4info_path, text_format.MessageToString(art.p4info).encode())):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        _replace(tmp, path)
    return Artifacts(art.p4info, art.device_config, f"{p4info_path} + {json_path}", "embedded")


def p4c_binary() -> str | None:
    return shutil.which("p4c")


def compile_p4c(program: Path, build_dir: Path, name: str = "checkmate") -> Artifacts:
    """Compile with real ``p4c --target bmv2 --arch v1model`` and write the BMv2 pair into ``build_dir``."""
    p4c = p4c_binary()
    if p4c is None:
        raise ControllerError("BMv2 needs p4c's BMv2 JSON, but p4c is not on PATH (see README: real p4c/BMv2)")
    build_dir.mkdir(parents=True, exist_ok=True)
    p4info_path, json_path = artifact_paths(build_dir, "bmv2", name)
    with tempfile.TemporaryDirectory(dir=build_dir, prefix=".p4c-") as tmp:
        try:
            out_json, out_info = run_p4c(program, tmp, exe=p4c, timeout=P4C_TIMEOUT_S)
        except P4cFailed as e:
            raise ControllerError(f"p4c failed on {program}: {e}" + (f"\n{e.stderr.strip()}" if e.stderr else "")) from None
        _replace(out_json, json_path)
        _replace(out_info, p4info_path)
    return Artifacts(load_p4info(p4info_path), json_path.read_bytes(), f"{p4info_path} + {json_path}", "bmv2")


def build(program: Path | str = DEFAULT_PROGRAM, build_dir: Path | str = BUILD, name: str = "checkmate",
          targets: tuple[str, ...] | None = None) -> list[Artifacts]:
    """What ``make build`` does: every target whose compiler is here (embedded always, bmv2 with p4c)."""
    program, build_dir = Path(program), Path(build_dir)
    if targets is None:
        targets = ("embedded", "bmv2") if p4c_binary() else ("embedded",)
    out = []
    for t in targets:
        out.append(write_embedded(program, build_dir, name) if t == "embedded"
                   else compile_p4c(program, build_dir, name))
    return out


def load_artifacts(build_dir: Path | str | None = None, program: Path | str = DEFAULT_PROGRAM,
                   name: str = "checkmate", allow_compile: bool = True, target: str = "embedded") -> Artifacts:
    """The pipeline for ``target``'s switch: its pair from ``build_dir`` (default ``build/``), or compiled
    now (see module doc)."""
    build_dir, program = Path(BUILD if build_dir is None else build_dir), Path(program)
    p4info_path, json_path = artifact_paths(build_dir, target, name)
    have = p4info_path.is_file() and json_path.is_file()
    stale = have and program.is_file() and program.stat().st_mtime > min(
        p4info_path.stat().st_mtime, json_path.stat().st_mtime)
    if have and not stale:
        cfg = json_path.read_bytes()
        if _target_of(cfg) != target:
            raise ControllerError(f"{json_path} is not a {target} device config (it looks like "
                                  f"{_target_of(cfg)}); run `make build` again")
        return Artifacts(load_p4info(p4info_path), cfg, f"{p4info_path} + {json_path}", target)
    why = f"{json_path} is older than {program}" if stale else f"no build artifacts at {p4info_path} and {json_path}"
    if not allow_compile:
        raise ControllerError(f"{why}; run `make build`")
    if target == "embedded":
        return compile_now(program)
    if p4c_binary() is None:
        raise ControllerError(f"{why}, and p4c is not on PATH to compile it for BMv2; "
                              "run `make build` with p4c on PATH")
    return compile_p4c(program, build_dir, name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller.artifacts",
                                 description="make build: compile the data plane for every target available")
    ap.add_argument("program", nargs="?", default=str(DEFAULT_PROGRAM))
    ap.add_argument("-o", "--build-dir", default=str(BUILD))
    ap.add_argument("--target", action="append", choices=TARGETS,
                    help="only this target (repeatable; default: embedded, plus bmv2 when p4c is on PATH)")
    args = ap.parse_args(argv)
    try:
        for art in build(args.program, args.build_dir, targets=tuple(args.target) if args.target else None):
            print(f"{art.target:8s} {art.source}")
    except ControllerError as e:
        print(f"make build: error: {e}", file=sys.stderr)
        return 1
    if p4c_binary() is None and not args.target:
        print("bmv2     skipped: p4c not on PATH (the embedded target needs none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
