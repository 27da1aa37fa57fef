"""``checkmate faults --quick`` on the real Mininet testbed (needs root + mnexec; ~2 min on 2 cores).

The quick suite: switch-injected 1 % loss on the shadow ports, a shadow killed and restarted mid-run,
and a trainer killed at a random iteration -- each followed by a trainer kill and a resume from the
shadows.  Asserts the table's verdicts: every resumed run bit-identical to the failure-free reference
(per-iteration losses bitwise, final model + optimizer tensor by tensor), every checkpoint the shadows
held after each kill equal to the reference's of that iteration, no torn file, a checkpoint found.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkmate.paths import ROOT

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                       reason="needs root and mnexec (apt package mininet)"),
]


# limits are hang guards with room for make test's other shard sharing the cores (tools/run_suite.py)
@pytest.mark.timeout(480)
def test_quick_fault_suite(tmp_path):
    out = tmp_path / "faults"
    doc_before = (ROOT / "docs" / "RELIABILITY.md").read_bytes()
    try:
        p = subprocess.run([sys.executable, "-m", "checkmate.cli", "faults", "--quick", "--no-doc", "--out", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=450)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"checkmate faults --quick did not finish in 450 s:\n{(e.stdout or '')[-3000:]}")
    log = (p.stdout or "")[-4000:] + (p.stderr or "")[-4000:]
    table_file = out / "faults.json"
    assert table_file.exists(), f"no table written (exit {p.returncode}):\n{log}"
    table = json.loads(table_file.read_text())
    rows = {r["kind"]: r for r in table["rows"]}
    assert {"loss", "shadow", "trainer"} <= set(rows), f"scenarios missing: {sorted(rows)}"
    for r in table["rows"]:
        assert r["verdict"] == "PASS" and r["identical"] == "yes", f"{r['scenario']}: {r['failed_checks']}\n{log}"
        assert r["resumed_iteration"] is not None and r["repeated"] is not None and r["repeated"] >= 0
        assert r["checks"]["published_checkpoints_correct"] and r["checks"]["no_torn_file"]
        assert r["audit"]["compared"] > 0, f"{r['scenario']}: no shadow checkpoint was compared with the reference"
        assert r["recovery_s"] is not None and r["recovery_s"] > 0
    assert rows["loss"]["lost"].split()[0] != "0", "1 % loss dropped nothing"
    assert p.returncode == 0, log
    assert table["passed"] is True
    assert (ROOT / "docs" / "RELIABILITY.md").read_bytes() == doc_before, "--no-doc must leave the doc alone"
    # the testbed cleaned up after itself
    state = list(Path(ROOT / "logs").glob(f"faults-*/state.json"))
    assert not [s for s in state if str(out) in s.read_text()], f"state left behind: {state}"
