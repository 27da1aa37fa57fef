"""Suite-wide collection rule: which non-root tests ``make test`` runs in the root shard's process.

tools/run_suite.py runs the suite as two pytest processes side by side: the ``root`` tests (network
rigs, one at a time) and the rest.  The root tests mostly wait on processes they started and end
in about a third of the time the rest take, after which one core sat idle while the other shard
went on alone.  The directories below hold self-contained tests that start no network rig (torch
DDP over loopback gloo, shadow nodes, benchmarks, the controller on its own gRPC port); they carry
the ``beside_root`` marker and run after or between the root tests in that first process, so the
two shards end closer together.  A root test inside them stays ``root`` only; which process a test
runs in changes nothing about what it checks.
"""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BESIDE_ROOT = ("hooks", "shadow", "bench", "controller")


@pytest.hookimpl(tryfirst=True)   # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            top = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
        except ValueError:
            continue
        if top in BESIDE_ROOT and item.get_closest_marker("root") is None:
            item.add_marker(pytest.mark.beside_root)
