"""The switch's shard map and the trainers' (issue #19, case 3) through the real testbed: Mininet,
``checkmate-switch`` programmed over P4Runtime, real shadows and trainers in switch mode.

* A topology file's ``shard_map`` is used for the switch *and* given to the trainers: the run passes
  (and the bootstrap probe finds every parameter copied to its owner).
* The same switch with trainers forced onto another map (their own plan, ``--shard-map``): the
  bootstrap probe finds the mismatch and every trainer stops with "shard map mismatch" before the
  first gradient -- no silent loss-and-resync loop.
"""
import json
import os
import shutil
from pathlib import Path

import pytest

from topologies import generate

pytestmark = [pytest.mark.root, pytest.mark.timeout(300),
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                                 reason="needs root and mnexec (apt package mininet)")]
ROOT = Path(__file__).resolve().parents[2]
STAR_MAP = json.loads((ROOT / "topologies" / "star.json").read_text())["shard_map"]


def _run(tmp_path, tag, extra):
    from topologies.runner import main
    topo = generate.generate("star", 2, 2)
    topo["shard_map"] = STAR_MAP
    path = tmp_path / f"{tag}.json"
    path.write_text(json.dumps(topo))
    out = tmp_path / f"results-{tag}"
    rc = main(["--topo", str(path), "--iters", "4", "--fail-at", "0", "--out", str(out), "--logs",
               str(tmp_path / "logs"), "--run", tag, "--quiet", "--phase-timeout", "90", *extra])
    d = tmp_path / "logs" / tag
    logs = "\n".join(p.read_text(errors="replace") for p in sorted(d.glob("*.log"))) if d.is_dir() else ""
    return rc, out, logs


def test_a_topology_files_map_is_used_by_switch_and_trainers(tmp_path):
    rc, out, _ = _run(tmp_path, "filemap", [])
    res = json.loads((out / "metrics.json").read_text())
    assert rc == 0 and res["verdict"] == "PASS", (out / "summary.txt").read_text()
    topo = json.loads((out / "topology.json").read_text())
    assert topo["shard_map"] == {"0": [[0, 3]], "1": [[4, 5]]}  # the file's map, on the model's 6 params


def test_trainers_on_another_map_than_the_switch_stop_at_bootstrap(tmp_path):
    plan = json.dumps({"0": 1, "1": 0, "2": 0, "3": 1, "4": 0, "5": 1})  # not the file's map
    rc, out, logs = _run(tmp_path, "mismatch", [f"--train-arg=--shard-map={plan}"])
    assert rc != 0
    assert "shard map mismatch" in logs and "(probed at bootstrap)" in logs, logs[-3000:]
