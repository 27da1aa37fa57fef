"""Fixtures for controller tests: real ``checkmate-switch`` processes (switchproc.py),
the compiled pipeline, and an in-process fake P4Runtime server for unit tests (fake_p4rt.py)."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

from checkmate.paths import ROOT


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"checkmate_tests_{name}", Path(__file__).parent / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_ctl(*argv) -> tuple[int, object]:
    """``checkmate-ctl ARGV`` in this process: its exit code and stdout (parsed when ``--json``)."""
    from controller import cli
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli.main(list(argv))
    text = out.getvalue()
    return rc, (json.loads(text) if "--json" in argv and text.strip() else text)


@pytest.fixture
def ctl():
    """:func:`run_ctl`: the controller's CLI run in-process."""
    return run_ctl


switchproc = _load("switchproc")
start_fabric = switchproc.start_fabric


def _fabric(name: str, tmp_path):
    """Every switch of ``topologies/<name>.json`` as a process; closed when the test ends."""
    topo, path, procs = start_fabric(ROOT / "topologies" / f"{name}.json", tmp_path)
    try:
        yield topo, path, procs
    finally:
        for p in procs.values():
            p.close()


@pytest.fixture
def leafspine_fabric(tmp_path):
    yield from _fabric("leafspine", tmp_path)


@pytest.fixture
def star_fabric(tmp_path):
    yield from _fabric("star", tmp_path)


@pytest.fixture
def fake_switch():
    """An in-process fake P4Runtime server (unit tests only): yields (servicer, addr)."""
    server, fake, addr = _load("fake_p4rt").serve_fake(0)
    try:
        yield fake, addr
    finally:
        server.stop(0)


@pytest.fixture(scope="session")
def compiled_artifacts():
    from controller.artifacts import compile_now
    return compile_now()
