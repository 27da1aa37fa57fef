"""Find the pipeline to push: P4Info + device config, from ``build/`` or compiled now.

``make build`` writes ``build/checkmate.p4info.txtpb`` and ``build/checkmate.json``:
the embedded compiler's JSON IR (``checkmate-p4c``) or, when ``p4c`` is on PATH, p4c's
BMv2 JSON.  The controller pushes the device config bytes as they are, so the same code
programs ``checkmate-switch`` and ``simple_switch_grpc``; :attr:`Artifacts.target` says
which one the JSON is for (``"embedded"`` or ``"bmv2"``) so that a mismatch can be named.

When ``build/`` lacks them (a fresh checkout, tests) :func:`load_artifacts` compiles
``p4src/checkmate.p4`` in-process with :func:`switch.compiler.compile_file`.  It also
recompiles when the source is newer than the build outputs, so a stale build never
programs a switch with an old P4Info (a stale p4c/BMv2 build is an error instead: the
embedded compiler cannot produce BMv2 JSON).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from p4.config.v1 import p4info_pb2

from checkmate.paths import BUILD, P4SRC

from .errors import ControllerError
from .p4info import P4InfoIndex, load_p4info

DEFAULT_PROGRAM = P4SRC / "checkmate.p4"


@dataclass(frozen=True)
class Artifacts:
    p4info: p4info_pb2.P4Info
    device_config: bytes
    source: str  # where they came from, for messages
    target: str  # "embedded" | "bmv2"

    @property
    def index(self) -> P4InfoIndex:
        return P4InfoIndex(self.p4info)


def _target_of(device_config: bytes) -> str:
    try:
        d = json.loads(device_config)
    except ValueError:
        return "unknown"
    if isinstance(d, dict) and "pipelines" in d and "header_types" in d:
        return "bmv2"
    return "embedded"


def compile_now(program: Path = DEFAULT_PROGRAM) -> Artifacts:
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


def load_artifacts(build_dir: Path | str = BUILD, program: Path | str = DEFAULT_PROGRAM,
                   name: str = "checkmate", allow_compile: bool = True) -> Artifacts:
    build_dir, program = Path(build_dir), Path(program)
    p4info_path = build_dir / f"{name}.p4info.txtpb"
    json_path = build_dir / f"{name}.json"
    have = p4info_path.is_file() and json_path.is_file()
    stale = have and program.is_file() and program.stat().st_mtime > min(
        p4info_path.stat().st_mtime, json_path.stat().st_mtime)
    if have:
        cfg = json_path.read_bytes()
        target = _target_of(cfg)
        if stale and target == "bmv2":
            raise ControllerError(f"{json_path} (p4c bmv2) is older than {program}; run `make build` again")
        if not (stale and allow_compile):
            return Artifacts(load_p4info(p4info_path), cfg, f"{p4info_path} + {json_path}", target)
    if not allow_compile:
        raise ControllerError(f"no build artifacts at {p4info_path} and {json_path}; run `make build`")
    return compile_now(program)
