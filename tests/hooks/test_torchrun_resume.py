"""torchrun's elastic agent restarts a SIGKILLed worker; ``--resume-auto`` restores from the shadows.

One ``torchrun --nnodes 1 --nproc-per-node 3 --max-restarts 1 --rdzv-backend c10d`` runs
``examples/ddp_train.py --resume-auto`` in host mode on loopback, two real shadow nodes take the
copies.  Once rank 2 has logged a few iterations it is SIGKILLed; nobody but torchrun reacts: the
agent stops the other workers, starts all three again (``TORCHELASTIC_RESTART_COUNT=1``), and the
script restores the newest consistent iteration from the shadows by itself.  The final state equals
an uninterrupted run bit for bit (computed in-process, see test_example_resume.py), and at most one
iteration is run twice.  The multi-node variant on network namespaces is
tests/deploy/test_deploy_netns.py.
"""
from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from shadow.node import ShadowConfig, ShadowNode

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "ddp_train.py"
pytestmark = pytest.mark.timeout(480)
#: what torch prints when a store could not listen on its port
PORT_TAKEN = re.compile(r"EADDRINUSE|[Aa]ddress already in use")
ITERS, KILL_AFTER = 60, 4
COMMON = ["--job-id", "23", "--clip", "0.5"]


def _helpers():
    spec = importlib.util.spec_from_file_location("checkmate_tests_example_resume", Path(__file__).with_name(
        "test_example_resume.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torchrun() -> list[str]:
    exe = Path(sys.executable).with_name("torchrun")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "torch.distributed.run"]


def worker_pid(agent_pid: int, rank: int) -> int | None:
    """The pid of torchrun's worker with ``RANK=rank`` (a child of the agent)."""
    for task in Path(f"/proc/{agent_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                env = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"RANK={rank}".encode() in env:
                return int(child)
    return None


def iterations(path: Path) -> list[int]:
    import json
    if not path.exists():
        return []
    return [json.loads(ln)["iteration"] for ln in path.read_text().splitlines() if ln.endswith("}")]


def progress_before_restart(seq: list[int], resumed: int) -> int:
    """Newest iteration of the first incarnation: the last value before the sequence steps back
    (no step back: the restart continued right after the first incarnation's last iteration).

    A gap is allowed in one place only: torchrun stops the surviving workers at any point, also
    after a rank's optimizer step but before its metrics line, so that rank never logs iterations
    the shadows published and the restart does not redo -- the gap must end exactly at
    ``resumed + 1``, and the job had then reached ``resumed``."""
    for i in range(1, len(seq)):
        if seq[i] <= seq[i - 1]:
            return seq[i - 1]
        if seq[i] != seq[i - 1] + 1:
            assert seq[i - 1] < resumed and seq[i] == resumed + 1, f"iterations missing: {seq}"
            return resumed
    assert seq == list(range(1, len(seq) + 1)), f"iterations missing: {seq}"
    return resumed


def _kill_and_restart(h, tmp: Path):
    """Run the job under torchrun in ``tmp``, SIGKILL rank 2 after ``KILL_AFTER`` iterations, let the
    agent restart it and finish; ``tmp`` then holds torchrun's log, the ranks' metrics and final states."""
    tmp.mkdir()
    nodes = [ShadowNode(ShadowConfig(job_id=23, shard=k, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                     ckpt_dir=tmp / "ckpt", loss_timeout=10.0)).start() for k in range(2)]
    log_path = tmp / "torchrun.log"
    try:
        shadows = ",".join(f"127.0.0.1:{n.mgmt_address[1]}:{n.data_address[1]}" for n in nodes)
        argv = [*torchrun(), "--nnodes", "1", "--nproc-per-node", "3", "--max-restarts", "1",
                "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{h.free_port()}", "--rdzv-id", "job23",
                "--monitor-interval", "0.2", str(SCRIPT), "--udp-port", "0", "--bind-ip", "127.0.0.1",
                *h.MODEL_FLAGS, *COMMON, "--mode", "host", "--shadows", shadows, "--resume-auto",
                "--iters", str(ITERS), "--metrics", str(tmp / "m{rank}.jsonl"),
                "--save-final", str(tmp / "final{rank}.pt")]
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT), TORCH_DISABLE_SHARE_RDZV_TCP_STORE="1")
        with open(log_path, "w") as log:
            agent = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        try:
            deadline = time.monotonic() + 120
            while (seen := iterations(tmp / "m2.jsonl")) == [] or seen[-1] < KILL_AFTER:
                if agent.poll() is not None and seen == [] and PORT_TAKEN.search(log_path.read_text()):
                    raise PortRace(PORT_TAKEN.search(log_path.read_text()).group(0))
                assert agent.poll() is None and time.monotonic() < deadline, \
                    f"torchrun ended or stalled before the kill:\n{log_path.read_text()[-3000:]}"
                time.sleep(0.01)
            victim = worker_pid(agent.pid, 2)
            assert victim is not None, "no worker with RANK=2 under the torchrun agent"
            os.kill(victim, signal.SIGKILL)
            assert agent.wait(timeout=180) == 0, f"torchrun failed:\n{log_path.read_text()[-4000:]}"
        finally:
            if agent.poll() is None:
                agent.kill()
                agent.wait(5)
    finally:
        for n in nodes:
            n.stop()


class PortRace(Exception):
    """The first incarnation could not bind a port torchrun had picked (it picks a free port, closes
    it and lets rank 0 bind it later: another process on a loaded machine may take it between)."""


def test_torchrun_restart_resumes_bit_identically(tmp_path):
    h = _helpers()
    run = tmp_path / "run"
    try:
        _kill_and_restart(h, run)
    except PortRace as race:   # the machine's doing, not the job's: once more, from scratch
        print(f"torchrun lost a port race, running again: {race}")
        run = tmp_path / "again"
        _kill_and_restart(h, run)
    log = (run / "torchrun.log").read_text()
    assert "torchrun first start" in log and "torchrun restart" in log, log[-3000:]
    resumed = sorted({int(m) for m in re.findall(r"resumed at iteration (\d+)", log)})
    assert len(resumed) == 1, f"the ranks resumed at different iterations: {resumed}"
    resumed = resumed[0]
    progress = max(progress_before_restart(iterations(run / f"m{r}.jsonl"), resumed) for r in range(3))
    assert KILL_AFTER <= progress < ITERS, "the kill happened mid-run"
    assert 0 <= progress - resumed <= 1, f"resumed at {resumed} after the job had reached {progress}"
    final = torch.load(run / "final0.pt", weights_only=False)
    want = h.uninterrupted(h.MODEL_FLAGS + COMMON, ITERS)
    for k in want["model"]:
        assert torch.equal(final["model"][k], want["model"][k]), f"{k} differs after the torchrun restart"
    for i, st in want["optimizer"]["state"].items():
        for k, v in st.items():
            assert torch.equal(final["optimizer"]["state"][i][k], v), f"optimizer {k} of param {i} differs"
