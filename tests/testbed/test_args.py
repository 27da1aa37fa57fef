"""``checkmate testbed`` argument errors: exit status 2 with the usage line and a sentence naming the
culprit, and nothing left behind -- no results or log folder, no process, no interface.

The in-process cases call ``runner.main`` with ``--out``/``--logs`` in a temporary folder; one case runs
the real ``checkmate`` command in a private network namespace (``unshare --net``) so that any interface
it created would still be listed there, without other tests' networks in the picture.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from checkmate.paths import ROOT
from topologies import runner

STAR = ROOT / "topologies" / "star.json"


def _run(capsys, tmp_path, *argv):
    out, logs = tmp_path / "results", tmp_path / "logs"
    with pytest.raises(SystemExit) as e:
        runner.main([*argv, "--out", str(out), "--logs", str(logs), "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert "usage: checkmate testbed" in err, err
    assert not out.exists() and not logs.exists(), "an argument error left a results/log folder"
    return err


def _file(tmp_path, mutate=None):
    d = json.loads(STAR.read_text())
    if mutate:
        mutate(d)
    p = tmp_path / "mytopo.json"
    p.write_text(json.dumps(d))
    return p


def test_fail_at_beyond_iters_is_a_usage_error(capsys, tmp_path):
    err = _run(capsys, tmp_path, "--fail-at", "80", "--iters", "50")
    assert "--fail-at 80 must be within 1..49 (below --iters 50; 0 = no failure)" in err
    assert "verdict" not in err


def test_unknown_topology_lists_the_builtins(capsys, tmp_path):
    err = _run(capsys, tmp_path, "--topo", "starr")
    assert "--topo 'starr' is neither a built-in topology (star, leafspine) nor a topology file" in err
    assert "did you mean 'star'?" in err


def test_trainers_with_a_topology_file_is_refused(capsys, tmp_path):
    f = _file(tmp_path)
    err = _run(capsys, tmp_path, "--topo", str(f), "--trainers", "5")
    assert f"--trainers 5 does not apply to a topology file: {f} has 3 (h1, h2, h3)" in err
    err = _run(capsys, tmp_path, "--topo", str(f), "--shadows", "3")
    assert f"--shadows 3 does not apply to a topology file: {f} has 2 (sh1, sh2)" in err


@pytest.mark.parametrize("mutate,culprit", [
    (lambda d: d["hosts"]["h1"].update(role="trainr"), "hosts.h1.role: 'trainr' is not a role (allowed: trainer, "
                                                       "shadow, host)"),
    (lambda d: d["hosts"]["sh1"].update(mgmt_prot=1), "hosts.sh1.mgmt_prot: unknown key"),
    (lambda d: d["hosts"]["h2"].update(mac="08:00:00:00:00:zz"), "hosts.h2.mac: '08:00:00:00:00:zz' is not a MAC"),
])
def test_bad_topology_file_is_refused_before_anything_starts(capsys, tmp_path, mutate, culprit):
    f = _file(tmp_path, mutate)
    err = _run(capsys, tmp_path, "--topo", str(f))
    assert f"topology {f}: " in err and culprit in err


def test_fail_rank_and_ranges(capsys, tmp_path):
    assert "--fail-rank 7 is not a rank of this topology (0..2)" in _run(capsys, tmp_path, "--fail-rank", "7")
    assert "--shadow-loss 1.5: must be a drop probability 0..1" in _run(capsys, tmp_path, "--shadow-loss", "1.5")
    assert "at least 2 trainers" in _run(capsys, tmp_path, "--trainers", "1")


def test_good_arguments_are_resolved_once():
    a = runner.parse_args(["--topo", "leafspine"])
    assert (a.trainers, a.shadows) == (4, 2)
    a = runner.parse_args(["--topo", str(STAR), "--trainers", "3"])
    assert (a.trainers, a.shadows) == (3, 2)


def _can_unshare_net() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip") or not shutil.which("setsid"):
        return False
    return subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=10).returncode == 0


@pytest.mark.skipif(not _can_unshare_net(), reason="needs root, unshare --net (CAP_SYS_ADMIN), setsid and ip(8)")
def test_cli_exit_status_and_nothing_left_behind(tmp_path):
    """The real command, in its own network namespace and session: status 2, usage, and afterwards no
    interface but lo in that namespace and no process of that session."""
    out, logs = tmp_path / "results", tmp_path / "logs"
    script = (f"{sys.executable} -m checkmate.cli testbed --fail-at 80 --iters 50 --out {out} --logs {logs}; "
              "echo rc=$?; ip -o link | cut -d: -f2; ps -o pid= -s $$ | wc -l")
    p = subprocess.run(["unshare", "--net", "setsid", "sh", "-c", script], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = p.stdout.split()
    assert "rc=2" in lines, (p.stdout, p.stderr)
    assert "usage: checkmate testbed" in p.stderr and "--fail-at 80" in p.stderr
    assert lines[lines.index("rc=2") + 1:-1] == ["lo"], p.stdout
    assert int(lines[-1]) <= 3, p.stdout  # sh, ps and wc: nothing of the testbed survived
    assert not out.exists() and not logs.exists()
