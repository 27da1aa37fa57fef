"""The testbed end to end, for real (needs root): ``checkmate testbed`` on the star and the leaf--spine,
a few iterations, one trainer SIGKILLed mid-run, resume from the shadows, and the final model and
optimizer state **bit-identical** to the failure-free reference run in the same network.

Everything is real: Mininet hosts in namespaces, ``checkmate-switch`` processes programmed over
P4Runtime by the controller, ``checkmate-shadow`` processes, and ``examples/ddp_train.py`` trainers
running torch DDP with the Checkmate hook.  Together both topologies take about three minutes on two
CPU cores.
"""
import json
import os
import shutil
from pathlib import Path

import pytest

from checkmate import paths

ROOT = paths.ROOT
pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                       reason="needs root and mnexec (apt package mininet)"),
]


def _missing():
    from topologies.runner import missing_components
    return missing_components()


# Until every component has replaced its placeholder the scenario cannot run; then this skip goes away.
pytestmark.append(pytest.mark.skipif(bool(_missing()), reason=f"not landed yet: {', '.join(_missing())}"))

#: a small, fast job: few iterations, the failure in the middle
ITERS, FAIL_AT = 6, 3


def _run(tmp_path, topo, trainers):
    from topologies.runner import main
    out = tmp_path / f"results-{topo}"
    rc = main(["--topo", topo, "--trainers", str(trainers), "--shadows", "2", "--iters", str(ITERS),
               "--fail-at", str(FAIL_AT), "--out", str(out), "--logs", str(tmp_path / "logs"),
               "--run", f"e2e-{topo}", "--quiet", "--phase-timeout", "120"])
    res = json.loads((out / "metrics.json").read_text())
    return rc, res, out


@pytest.mark.timeout(480)
@pytest.mark.parametrize("topo,trainers", [("star", 3), ("leafspine", 2)])
def test_failure_and_bit_identical_resume(tmp_path, topo, trainers):
    rc, res, out = _run(tmp_path, topo, trainers)
    summary = (out / "summary.txt").read_text()
    assert res["error"] is None, summary
    assert rc == 0 and res["verdict"] == "PASS", summary
    # the failure really happened and was detected, and the resume really resumed
    fail = res["phases"]["failure"]
    assert fail["killed_rank"] == trainers - 1 and fail["killed_after_iteration"] >= FAIL_AT
    assert fail["exit_status"] not in (0, None)
    assert fail["watchdog"].startswith("controller_watchdog"), fail
    resume = res["phases"]["resume"]
    # the kill follows the victim's metrics line (the injector polls its file), so the ranks may finish
    # one more iteration -- its reduced gradient reaching the shadows -- before SIGKILL lands: the job's
    # progress is the last iteration any rank logged or the shadows checkpointed (all of an iteration's
    # final chunks may cross the switch before any rank logs it: CI of eb2149a, leafspine-2, checkpoint 4
    # with both ranks' last line 3), and the resume starts right after the checkpoint
    progress = max([fail["killed_after_iteration"], fail["consistent_checkpoint"]]
                   + [v for v in fail["last_iteration"].values() if v is not None])
    assert progress <= fail["killed_after_iteration"] + 1, fail
    assert resume["first_iteration"] is not None and 1 < resume["first_iteration"] <= progress + 1
    # the checkpoint at the failure's end is a floor: shadows still draining copies under load may
    # complete newer iterations before the resume reads theirs (CI of 16744eda, leafspine-2: 2 seen, resumed at 5)
    assert resume["first_iteration"] >= fail["consistent_checkpoint"] + 1, (resume, fail)
    # every rank's final state was compared and equal
    ver = res["verification"]
    assert ver["identical"] and len(ver["ranks"]) == trainers
    assert all(c["tensors"] > 0 and c["n_mismatches"] == 0 for c in ver["ranks"].values())
    # the shadows got their copies through the switch's shadow ports
    last = {}
    for s in res["ports"]:
        last[(s["switch"], s["port"])] = s
    assert sum(s["tx_bytes"] for s in last.values() if s["role"] == "shadow") > 0
    assert res["heartbeats"], "no heartbeat digests reached the controller"
    for name in ("iteration_time", "checkpoint_age", "port_bytes", "heartbeats"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 1000
    # nothing left behind
    assert not list((tmp_path / "logs").glob("*/state.json"))
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{res['tag']}")]


@pytest.mark.timeout(120)
def test_ctrl_c_mid_run_tears_everything_down(tmp_path):
    """SIGINT to a running ``checkmate testbed`` (as Ctrl-C would): exit non-zero with verdict ERROR,
    every recorded process gone, no interface of the run left, the state file removed."""
    import signal
    import subprocess
    import sys
    import time
    from topologies.procs import alive
    logs = tmp_path / "logs"
    p = subprocess.Popen([sys.executable, "-m", "checkmate.cli", "testbed", "--iters", "400", "--fail-at", "0",
                          "--out", str(tmp_path / "res"), "--logs", str(logs), "--run", "ctrlc", "--quiet"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    state_file = logs / "ctrlc" / "state.json"
    seen = {}
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and p.poll() is None:  # wait until trainers are running
            if state_file.exists():
                try:
                    seen = json.loads(state_file.read_text())
                except ValueError:
                    pass
                if any(x["kind"] == "trainer" for x in seen.get("procs", [])):
                    break
            time.sleep(0.2)
        assert any(x["kind"] == "trainer" for x in seen.get("procs", [])), p.stdout.read().decode()[-3000:]
        time.sleep(1.0)
        os.kill(p.pid, signal.SIGINT)
        out = p.communicate(timeout=60)[0].decode()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode != 0 and "verdict: ERROR" in out, out[-3000:]
    assert not state_file.exists()
    assert [x["name"] for x in seen["procs"] if alive(x["pid"], x["starttime"])] == []
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{seen['tag']}")]
