"""Resuming from shadows that hold nothing fails clearly (issue #19, case 2).

``restore()`` against fresh or emptied shadows used to return iteration 0 with a WARNING, so
``ddp_train.py --resume`` silently trained from scratch and exited 0.  Now it raises
:class:`RestoreError` naming what each shard holds, unless a fresh start is explicitly allowed.
Real shadow nodes (in-process) and the real example script (a subprocess).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import shadowkit
import torch

import trainer_hooks
from shadow.node import ShadowConfig, ShadowNode
from shadow.protocol import Bootstrap, OptimizerSpec, ShardMap
from trainer_hooks.shadow_link import param_specs

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
JOB = 34


def start(tmp_path, shard, **kw):
    return ShadowNode(ShadowConfig(job_id=JOB, shard=shard, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                   ckpt_dir=tmp_path / "ckpt", **kw)).start()


def build():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Linear(6, 2))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


def addrs(nodes):
    return [("127.0.0.1", n.mgmt_address[1]) for n in nodes]


def test_restore_from_fresh_shadows_fails_unless_a_fresh_start_is_allowed(tmp_path):
    nodes = [start(tmp_path, k) for k in range(2)]
    try:
        model, opt = build()
        before = [p.detach().clone() for p in model.parameters()]
        with pytest.raises(trainer_hooks.RestoreError, match=r"hold no checkpoint at all .*shard 0: in memory \[\], "
                                                             r"on disk \[\].*allow_fresh=True"):
            trainer_hooks.restore(model, opt, shadows=addrs(nodes), job_id=JOB)
        assert trainer_hooks.restore(model, opt, shadows=addrs(nodes), job_id=JOB, allow_fresh=True) == 0
        assert all(torch.equal(a, b) for a, b in zip(before, model.parameters())) and not opt.state
    finally:
        for n in nodes:
            n.stop()


def test_restore_without_a_common_iteration_fails(tmp_path):
    """Shard 0 holds iteration 0, shard 1 was emptied (restarted without files)."""
    nodes = [start(tmp_path, k) for k in range(2)]
    try:
        model, opt = build()
        owner = trainer_hooks.shard_plan(model, 2)
        smap = ShardMap(JOB, 2, owner, [])
        params = list(model.parameters())
        nodes[0].bootstrap(Bootstrap(JOB, 0, 0, param_specs(model, opt), smap, OptimizerSpec.from_optimizer(opt),
                                     {pid: params[pid].detach().clone() for pid, s in owner.items() if s == 0}))
        with pytest.raises(trainer_hooks.RestoreError, match=r"no common iteration .*shard 0: in memory \[0\].*"
                                                             r"shard 1: in memory \[\]"):
            trainer_hooks.restore(model, opt, shadows=addrs(nodes), job_id=JOB)
    finally:
        for n in nodes:
            n.stop()


def test_example_resume_against_empty_shadows_exits_nonzero(tmp_path):
    nodes = [start(tmp_path, k) for k in range(2)]
    try:
        shadows = ",".join(f"127.0.0.1:{n.mgmt_address[1]}:{n.data_address[1]}" for n in nodes)
        metrics = tmp_path / "m.jsonl"
        argv = [sys.executable, str(ROOT / "examples" / "ddp_train.py"), "--rank", "0", "--world-size", "1",
                "--master", f"127.0.0.1:{shadowkit.free_port()}", "--udp-port", "0", "--bind-ip", "127.0.0.1", "--hidden", "16",
                "--mode", "host", "--shadows", shadows, "--job-id", str(JOB), "--iters", "3", "--metrics", str(metrics), "--resume"]
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
        p = subprocess.run(argv, capture_output=True, text=True, timeout=90, env=env)
        out = p.stdout + p.stderr
        assert p.returncode != 0, out
        assert "nothing to resume from: the shadows hold no checkpoint at all" in out, out
        assert "resumed at iteration" not in out and not metrics.exists()  # no training happened
        # the same with --allow-fresh: a first start, trains all 3 iterations
        p = subprocess.run(argv + ["--allow-fresh"], capture_output=True, text=True, timeout=90, env=env)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "resumed at iteration 0" in p.stdout
        assert len(metrics.read_text().splitlines()) == 3
    finally:
        for n in nodes:
            n.stop()
