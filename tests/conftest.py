"""Suite-wide collection rule: which non-root tests ``make test`` runs in the root shard's process.

tools/run_suite.py runs the suite as two pytest processes side by side: the ``root`` tests (network
rigs, one at a time) and the rest.  The root tests mostly wait on processes they started and end
in about a third of the time the rest take, after which one core sat idle while the other shard
went on alone.  The paths below (relative to tests/; a directory ends in ``/``, a file name may be a
prefix) hold self-contained tests that start no network rig (torch DDP over loopback gloo, shadow
nodes, benchmarks, the controller and switch processes on their own gRPC ports, BMv2 P4Runtime
probes on free ports); they carry the ``beside_root`` marker and run after or between the root
tests in that first process, so the two shards end closer together (CI: root 699 s, rest 1379 s
with the first four directories alone).  A root test inside them stays ``root`` only; which
process a test runs in changes nothing about what it checks.
"""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BESIDE_ROOT = ("hooks/", "shadow/", "bench/", "controller/", "switch_proc/",
               "differential/test_fuzz_p4rt.py", "differential/test_p4rt_", "differential/test_packet_io.py")


@pytest.hookimpl(tryfirst=True)   # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            rel = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
        except ValueError:
            continue
        if rel.startswith(BESIDE_ROOT) and item.get_closest_marker("root") is None:
            item.add_marker(pytest.mark.beside_root)
