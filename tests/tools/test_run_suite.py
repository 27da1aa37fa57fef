"""tools/run_suite.py (``make test``): the root tests and the rest in two processes, every test in
exactly one of them, and a failure in either shard fails the run; the ``beside_root`` tests
(tests/conftest.py) run in the root process."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "tools" / "run_suite.py"

SUITE = '''
import pytest

@pytest.mark.root
def test_net_{tag}():
    assert {net_ok}

def test_cpu_{tag}():
    assert {cpu_ok}

@pytest.mark.beside_root
def test_side_{tag}():
    pass
'''


def _run(tmp_path, net_ok=True, cpu_ok=True, *extra):
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    root: network tests\n    beside_root: balance\n")
    (tmp_path / "test_s.py").write_text(SUITE.format(tag="a", net_ok=net_ok, cpu_ok=cpu_ok))
    r = subprocess.run([sys.executable, str(RUNNER), "-p", "no:cacheprovider", *extra], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout


def test_each_test_runs_once_in_its_shard(tmp_path):
    rc, out = _run(tmp_path)
    assert rc == 0, out
    assert "root | test_s.py::test_net_a PASSED" in out
    assert "root | test_s.py::test_side_a PASSED" in out
    lines = out.splitlines()
    assert any(ln.startswith("root | ") and " 2 passed, 1 deselected " in ln for ln in lines), out
    assert any(ln.startswith("rest | ") and " 1 passed, 2 deselected " in ln for ln in lines), out


def test_the_suites_conftest_sends_whole_directories_beside_root():
    """tests/conftest.py marks the non-root tests of its BESIDE_ROOT paths, and nothing else."""
    repo = RUNNER.parents[1]
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "-m", "beside_root", "tests/shadow", "tests/wire", "tests/differential/test_packet_io.py",
                        "tests/differential/test_diff_harness.py"],
                       cwd=repo, capture_output=True, text=True, timeout=300)
    ids = [ln for ln in r.stdout.splitlines() if "::" in ln]
    assert ids and all(i.startswith(("tests/shadow/", "tests/differential/test_packet_io.py")) for i in ids), \
        r.stdout[-2000:]
    assert any(i.startswith("tests/differential/test_packet_io.py") for i in ids), r.stdout[-2000:]


def test_a_failure_in_either_shard_fails_the_run(tmp_path):
    assert _run(tmp_path, net_ok=False)[0] == 1
    assert _run(tmp_path, cpu_ok=False)[0] == 1


def test_a_shard_with_nothing_selected_is_not_a_failure(tmp_path):
    rc, out = _run(tmp_path, True, True, "-m", "not root and not beside_root")
    assert rc == 0 and "root exited 5, rest exited 0 -> 0" in out, out
    rc, out = _run(tmp_path, True, True, "-m", "nothing_has_this")
    assert rc == 5, out


def test_the_log_ends_with_each_shards_verdict_and_what_failed(tmp_path):
    """CI shows the tail of the log: a shard that failed minutes before the other finished must be
    named there, with the failing test, after both summaries."""
    rc, out = _run(tmp_path, net_ok=False)
    assert rc == 1
    tail = out.splitlines()[-4:]
    assert tail[-1].startswith("run_suite: root exited 1, rest exited 0"), out
    assert any(ln.startswith("run_suite: root | FAILED test_s.py::test_net_a") for ln in tail), tail
    assert any(ln.startswith("run_suite: root | ") and "1 failed" in ln for ln in tail), tail
    assert any(ln.startswith("run_suite: rest | ") and "1 passed" in ln for ln in tail), tail
