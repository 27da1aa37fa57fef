"""``checkmate testbed --launcher torchrun`` for real (needs root): one torchrun agent per trainer host of
the Mininet star, a worker SIGKILLed mid-run, the restart done by torchrun (``--max-restarts``), the
resume by ``ddp_train.py --resume-auto`` -- and the final state bit-identical to the reference run.
"""
import json
import os
import shutil

import pytest

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                       reason="needs root and mnexec (apt package mininet)"),
]

ITERS, FAIL_AT = 10, 4


@pytest.mark.timeout(480)
def test_torchrun_launcher_restart_is_bit_identical(tmp_path):
    from topologies.runner import main, missing_components
    if missing_components():
        pytest.skip(f"not landed yet: {', '.join(missing_components())}")
    out = tmp_path / "results"
    rc = main(["--topo", "star", "--trainers", "2", "--shadows", "2", "--iters", str(ITERS), "--fail-at", str(FAIL_AT),
               "--launcher", "torchrun", "--max-restarts", "2", "--out", str(out), "--logs", str(tmp_path / "logs"),
               "--run", "launcher", "--quiet", "--phase-timeout", "240"])
    res = json.loads((out / "metrics.json").read_text())
    summary = (out / "summary.txt").read_text()
    assert res["error"] is None, summary
    assert rc == 0 and res["verdict"] == "PASS", summary
    fail = res["phases"]["failure"]
    assert "resume" not in res["phases"], "the runner must not relaunch anything itself"
    assert fail["launcher"] == "torchrun" and fail["killed_after_iteration"] >= FAIL_AT, fail
    assert fail["ranks_restarted"] == 2, fail  # every rank restarted by torchrun, none by the runner
    assert fail["recovery_s"] is not None, fail
    assert fail["resumed_iteration"] is not None and 0 <= fail["repeated"] <= 1, fail
    assert max(fail["last_iteration"].values()) == ITERS, fail
    ver = res["verification"]
    assert ver["identical"] and len(ver["ranks"]) == 2
    assert not list((tmp_path / "logs").glob("*/state.json"))
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{res['tag']}")]
