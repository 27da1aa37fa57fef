"""examples/ddp_train.py end to end: kill 3 trainers mid-run, restore from real shadows, and
check the resumed run ends bit-identical to an uninterrupted one."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from shadow.node import ShadowConfig, ShadowNode

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "ddp_train.py"
WORLD = 3


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(tmp: Path, tag: str, extra: list[str]) -> list[subprocess.Popen]:
    port = free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = []
    for r in range(WORLD):
        log = open(tmp / f"{tag}{r}.log", "w")
        procs.append(subprocess.Popen(
            [sys.executable, str(SCRIPT), "--rank", str(r), "--world-size", str(WORLD), "--master",
             f"127.0.0.1:{port}", "--udp-port", "0", "--bind-ip", "127.0.0.1", "--hidden", "32",
             "--bucket-cap-mb", "0.002", *extra], stdout=log, stderr=subprocess.STDOUT, env=env))
        log.close()
    return procs


def finish(procs, tmp: Path, tag: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)
    for r, p in enumerate(procs):
        if p.returncode != 0:
            pytest.fail(f"{tag} rank {r} exited {p.returncode}:\n{(tmp / f'{tag}{r}.log').read_text()[-3000:]}")


def last_iteration(path: Path) -> int:
    if not path.exists():
        return 0
    lines = [ln for ln in path.read_text().splitlines() if ln.endswith("}")]
    return json.loads(lines[-1])["iteration"] if lines else 0


def test_kill_restore_resume_is_bit_identical(tmp_path):
    nodes = [ShadowNode(ShadowConfig(job_id=21, shard=k, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                     ckpt_dir=tmp_path / "ckpt", loss_timeout=10.0)).start() for k in range(2)]
    try:
        shadows = ",".join(f"127.0.0.1:{n.mgmt_address[1]}:{n.data_address[1]}" for n in nodes)
        common = ["--job-id", "21", "--clip", "0.5"]
        # the same 20 iterations without interruption (same ring arithmetic, no shadows), in parallel
        ref = launch(tmp_path, "c", [*common, "--mode", "switch", "--iters", "20",
                                     "--save-final", str(tmp_path / "c.pt")])
        try:
            # 1. train "forever" in host mode, kill -9 every rank once a few iterations are done
            procs = launch(tmp_path, "a", [*common, "--mode", "host", "--shadows", shadows, "--iters", "100000",
                                           "--metrics", str(tmp_path / "a.jsonl")])
            try:
                deadline = time.monotonic() + 90
                while last_iteration(tmp_path / "a.jsonl") < 6:
                    assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "run 1 stalled"
                    time.sleep(0.05)
            finally:
                for p in procs:
                    p.kill()
                    p.wait(5)
            killed_at = last_iteration(tmp_path / "a.jsonl")
            # 2. resume from the shadows up to iteration 20
            procs = launch(tmp_path, "b", [*common, "--mode", "host", "--shadows", shadows, "--iters", "20",
                                           "--resume", "--save-final", str(tmp_path / "b.pt")])
            finish(procs, tmp_path, "b", timeout=90)
        finally:
            finish(ref, tmp_path, "c", timeout=90)
        resumed = int((tmp_path / "b0.log").read_text().split("resumed at iteration ")[1].split()[0])
        assert 1 <= resumed <= killed_at + 1
    finally:
        for n in nodes:
            n.stop()
    b = torch.load(tmp_path / "b.pt", weights_only=False)
    c = torch.load(tmp_path / "c.pt", weights_only=False)
    for k in c["model"]:
        assert torch.equal(b["model"][k], c["model"][k]), f"{k} differs after resume from iteration {resumed}"
    for i, st in c["optimizer"]["state"].items():
        for k, v in st.items():
            assert torch.equal(b["optimizer"]["state"][i][k], v), f"optimizer {k} of param {i} differs"
    assert b["optimizer"]["param_groups"] == c["optimizer"]["param_groups"]
