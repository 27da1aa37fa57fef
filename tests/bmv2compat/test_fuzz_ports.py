"""Random frames over veths (fuzz_ports.py), fixed seeds: checkmate-switch's port layer must
put out what BMv2 puts out, per port and in order, with the same counters.

Root + p4c + simple_switch_grpc, else skipped; create interfaces only under
``flock /tmp/checkmate-net.lock``.
"""
from __future__ import annotations

import pytest

from refrig import missing_tools

_why = missing_tools("p4c", "simple_switch_grpc")
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

SEEDS = (0, 1)
BURSTS = 12


def test_random_frames_over_veths_match_bmv2():
    import fuzz_ports

    report = fuzz_ports.run_all(fuzz_ports.repo_cases(), SEEDS, BURSTS, idle=0.25)
    bad = {k: r["diffs"] for k, r in report.items() if r["diffs"]}
    assert not bad, "\n".join(f"{k}: {t}: {d[:3]}" for k, v in bad.items() for t, d in v.items())
    # the frames exercised the port layer: something came out, and something could not be sent
    assert sum(r["out"] for r in report.values()) > 50
    assert sum(r["frames"] for r in report.values()) > 200
