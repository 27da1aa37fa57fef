"""The testbed on the real target (issue #14): ``checkmate testbed --switch bmv2`` and
``checkmate faults --quick --switch bmv2`` on real ``simple_switch_grpc``, programmed by the project's
own controller with real p4c's pipeline, and ``make build`` then ``make run`` with and without p4c.

Needs root, mnexec, and (for the BMv2 runs) p4c + simple_switch_grpc on PATH -- CI installs them from
``../shared/p4ref``; each test skips with the reason where they are missing.  Kept lean: a few
iterations per run (the BMv2 runs ~1 min each on two cores, the fault suite ~3 min).
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkmate import paths

ROOT = paths.ROOT
HAVE_BMV2 = shutil.which("simple_switch_grpc") is not None and shutil.which("p4c") is not None
NO_BMV2 = "needs real p4c and simple_switch_grpc on PATH (CI installs them from ../shared/p4ref/install.sh)"
pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                       reason="needs root and mnexec (apt package mininet)"),
]
needs_bmv2 = pytest.mark.skipif(not HAVE_BMV2, reason=NO_BMV2)

ITERS, FAIL_AT = 6, 3


@pytest.fixture(scope="module")
def bmv2_build(tmp_path_factory):
    """build/ as `make build` writes it with p4c on PATH (both pairs), for this module's runs."""
    d = tmp_path_factory.mktemp("build")
    subprocess.run([sys.executable, "-m", "controller.artifacts", "-o", str(d)], check=True, timeout=300)
    assert (d / "checkmate.bmv2.json").is_file() and (d / "checkmate.embedded.json").is_file()
    return d


@needs_bmv2
@pytest.mark.timeout(420)
@pytest.mark.parametrize("topo,trainers", [("star", 3), ("leafspine", 2)])
def test_testbed_on_bmv2(tmp_path, topo, trainers, bmv2_build, monkeypatch):
    from topologies import runner
    monkeypatch.setattr("controller.artifacts.BUILD", bmv2_build)
    out = tmp_path / "res"
    argv = ["--topo", topo, "--trainers", str(trainers), "--shadows", "2", "--iters", str(ITERS),
            "--fail-at", str(FAIL_AT), "--switch", "bmv2", "--out", str(out), "--logs", str(tmp_path / "logs"),
            "--run", f"bmv2-{topo}", "--quiet", "--phase-timeout", "150"]
    rc = runner.main(argv)
    res = json.loads((out / "metrics.json").read_text())
    summary = (out / "summary.txt").read_text()
    assert res["error"] is None and rc == 0 and res["verdict"] == "PASS", summary
    ctl = res["controller"]
    assert ctl["target"] == "bmv2" and ctl["pipeline"].endswith("checkmate.bmv2.json"), ctl
    # bit-identical resume
    ver = res["verification"]
    assert ver["identical"] and len(ver["ranks"]) == trainers
    assert all(c["tensors"] > 0 and c["n_mismatches"] == 0 for c in ver["ranks"].values())
    # both failure detections: the process exit and the controller's heartbeat watchdog
    fail = res["phases"]["failure"]
    assert fail["exit_status"] not in (0, None) and fail["exit_detect_s"] is not None
    assert fail["watchdog"].startswith("controller_watchdog") and fail["watchdog_detect_s"] is not None, fail
    # heartbeats read back over P4Runtime digests in every phase -- the failure phase starts over at
    # iteration 1 after the reference reached ITERS, and the resume goes back too: a restart is seen at once
    for ph in ("reference", "failure", "resume"):
        p = res["phases"][ph]
        t_end = p.get("t_end", p.get("t_kill", 1e9))
        beats = [h for h in res["heartbeats"] if p["t_start"] <= h["t"] <= t_end + 1.0]
        assert beats, f"no heartbeat digest during the {ph} phase"
    first_fail = min((h for h in res["heartbeats"] if h["t"] >= fail["t_start"]), key=lambda h: h["t"])
    assert first_fail["iteration"] <= FAIL_AT
    # bytes on the shadow ports, replica counters read over P4Runtime
    last = {}
    for s in res["ports"]:
        last[(s["switch"], s["port"])] = s
    assert sum(s["tx_bytes"] for s in last.values() if s["role"] == "shadow") > 0
    reps = [c.get("CheckmateEgress.shard_replicas", {}) for c in res["switch_counters"].values()]
    assert sum(r.get("packets", 0) for r in reps) > 0, res["switch_counters"]
    assert not list((tmp_path / "logs").glob("*/state.json"))
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{res['tag']}")]


@needs_bmv2
@pytest.mark.timeout(580)  # a hang guard with room for make test's other shard (tools/run_suite.py)
def test_quick_faults_on_bmv2(tmp_path):
    out = tmp_path / "faults"
    doc_before = (ROOT / "docs" / "RELIABILITY.md").read_bytes()
    p = subprocess.run([sys.executable, "-m", "checkmate.cli", "faults", "--quick", "--switch", "bmv2", "--no-doc",
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=550)
    log = (p.stdout or "")[-4000:] + (p.stderr or "")[-4000:]
    table = json.loads((out / "faults.json").read_text())
    rows = {r["kind"]: r for r in table["rows"]}
    assert {"trainer", "shadow", "switch", "loss"} <= set(rows), log
    for kind in ("trainer", "shadow", "switch"):
        r = rows[kind]
        assert r["verdict"] == "PASS" and r["identical"] == "yes", f"{r['scenario']}: {r['failed_checks']}\n{log}"
        assert r["audit"]["compared"] > 0 and r["recovery_s"] is not None
    assert rows["loss"]["verdict"] == "SKIP" and "traffic manager" in rows["loss"]["skip_reason"]
    assert p.returncode == 0 and table["passed"] and table["switch"] == "bmv2", log
    assert (ROOT / "docs" / "RELIABILITY.md").read_bytes() == doc_before


def _path_without_p4c() -> str:
    p4c = shutil.which("p4c")
    drop = {str(Path(p4c).parent)} if p4c else set()
    return os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep) if d not in drop)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("with_p4c", [False, pytest.param(True, marks=needs_bmv2)], ids=["no-p4c", "p4c"])
def test_make_build_then_make_run(tmp_path, with_p4c):
    """`make build` (with p4c on PATH: both pairs side by side) then what `make run` runs -- a short
    testbed on the embedded switch -- with no clean in between."""
    env = dict(os.environ, CHECKMATE_BUILD=str(tmp_path / "build"))
    if not with_p4c:
        env["PATH"] = _path_without_p4c()
    stamp = ".venv/.installed"
    # -o: never re-run `make setup` from a test (the venv is already set up)
    b = subprocess.run(["make", "-o", stamp, "build", f"BUILD_DIR={tmp_path / 'build'}", f"PY={sys.executable}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert b.returncode == 0, b.stdout + b.stderr
    built = sorted(p.name for p in (tmp_path / "build").iterdir())
    want = ["checkmate.embedded.json", "checkmate.embedded.p4info.txtpb"]
    if with_p4c:
        want = ["checkmate.bmv2.json", "checkmate.bmv2.p4info.txtpb"] + want
    assert built == want, b.stdout
    out = tmp_path / "res"
    r = subprocess.run([sys.executable, "-m", "checkmate.cli", "testbed", "--iters", "2", "--fail-at", "0",
                        "--no-reference", "--out", str(out), "--logs", str(tmp_path / "logs"), "--run", "mkrun",
                        "--quiet", "--phase-timeout", "120"], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=240)
    res = json.loads((out / "metrics.json").read_text())
    assert r.returncode == 0 and res["error"] is None, r.stdout[-3000:] + r.stderr[-3000:]
    assert res["controller"]["pipeline"].endswith("checkmate.embedded.json"), res["controller"]
    assert res["heartbeats"], "no heartbeat digests"
