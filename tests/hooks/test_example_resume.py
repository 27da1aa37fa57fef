"""examples/ddp_train.py end to end: kill 3 trainers mid-run, restore from real shadows, and
check the resumed run ends bit-identical to an uninterrupted one.

The uninterrupted run is computed in this process by :func:`uninterrupted` -- the example's own
model, data and schedule, with the ring's exact arithmetic (each packet summed once, in ring
order from its segment's rank; that arithmetic is checked against the real ring in
test_transport.py).  That saves launching three more trainer processes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import importlib.util

import pytest
import torch

from checkmate import wire
from trainer_hooks.layout import plan_bucket

from shadow.node import ShadowConfig, ShadowNode

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "ddp_train.py"
pytestmark = pytest.mark.timeout(360)
WORLD = 3
MODEL_FLAGS = ["--hidden", "32", "--bucket-cap-mb", "0.002"]


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
             f"127.0.0.1:{port}", "--udp-port", "0", "--bind-ip", "127.0.0.1", *MODEL_FLAGS, *extra], stdout=log, stderr=subprocess.STDOUT, env=env))
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


def load_example():
    spec = importlib.util.spec_from_file_location("ddp_train_example", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def uninterrupted(flags: list[str], iters: int, world: int = WORLD) -> dict:
    """What ``world`` ranks of examples/ddp_train.py compute for ``iters`` iterations, bit for bit.

    With one intra-op thread, as the trainers run (``OMP_NUM_THREADS=1`` in :func:`launch`): on
    two threads torch splits the matrix products differently and the last bits differ, so the
    reference must not depend on what an earlier test in this process set."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _uninterrupted(flags, iters, world)
    finally:
        torch.set_num_threads(threads)


def _uninterrupted(flags: list[str], iters: int, world: int) -> dict:
    ex = load_example()
    args = ex.parse_args([*flags, "--iters", str(iters)])
    x_all, y_all = ex.load_data()
    model, opt, sched = ex.build(args)
    params = list(model.parameters())
    plan = plan_bucket([(i, p.numel()) for i, p in enumerate(params)], world, wire.max_elements(args.mtu))
    for it in range(1, iters + 1):
        flat = []
        for r in range(world):
            idx = ex.batch_indices(len(x_all), args.seed, it, r, world, args.batch)
            loss = torch.nn.functional.cross_entropy(model(x_all[idx]), y_all[idx])
            flat.append(torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, params)]) / world)
        avg = torch.empty_like(flat[0])
        for p in plan.packets:
            sl = slice(p.buf_offset, p.buf_offset + p.count)
            acc = flat[p.segment][sl]
            for j in range(1, world):
                acc = flat[(p.segment + j) % world][sl] + acc
            avg[sl] = acc
        for p, g in zip(params, avg.split([p.numel() for p in params])):
            p.grad = g.view_as(p).clone()
        if args.clip > 0:
            torch.nn.utils.clip_grad_norm_(params, args.clip)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
    return {"model": model.state_dict(), "optimizer": opt.state_dict()}


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
        resumed = int((tmp_path / "b0.log").read_text().split("resumed at iteration ")[1].split()[0])
        assert 1 <= resumed <= killed_at + 1
    finally:
        for n in nodes:
            n.stop()
    b = torch.load(tmp_path / "b.pt", weights_only=False)
    c = uninterrupted(MODEL_FLAGS + common, 20)
    for k in c["model"]:
        assert torch.equal(b["model"][k], c["model"][k]), f"{k} differs after resume from iteration {resumed}"
    for i, st in c["optimizer"]["state"].items():
        for k, v in st.items():
            assert torch.equal(b["optimizer"]["state"][i][k], v), f"optimizer {k} of param {i} differs"
    assert b["optimizer"]["param_groups"] == c["optimizer"]["param_groups"]
