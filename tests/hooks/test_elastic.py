"""``trainer_hooks.elastic``: torchrun's first start vs a restart, decided the same on every rank."""
from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from trainer_hooks.elastic import NotUnderTorchrun, restart_count, resume_decision

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("env,match", [({}, "not set"), ({"TORCHELASTIC_RESTART_COUNT": "x"}, "not an integer"),
                                       ({"TORCHELASTIC_RESTART_COUNT": "-1"}, "negative")])
def test_restart_count_outside_torchrun_is_a_clear_error(env, match):
    with pytest.raises(NotUnderTorchrun, match=match):
        restart_count(env)


@pytest.mark.parametrize("count,restore", [("0", False), ("1", True), ("3", True)])
def test_single_process_decision(count, restore):
    d = resume_decision({"TORCHELASTIC_RESTART_COUNT": count, "TORCHELASTIC_RUN_ID": "job"})
    assert d.restore is restore and d.fresh_start is (not restore) and d.run_id == "job"
    assert ("restoring" in d.describe()) is restore


RANK = r"""
import datetime, json, os, sys
import torch.distributed as dist
from trainer_hooks.elastic import resume_decision
rank, port, count = int(sys.argv[1]), sys.argv[2], sys.argv[3]
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=60))
d = resume_decision({"TORCHELASTIC_RESTART_COUNT": count})
print(json.dumps([d.restore, d.local_restarts, d.max_restarts_seen]), flush=True)
dist.destroy_process_group()
"""


def test_healthy_node_with_count_zero_restores_with_the_failed_one():
    """The agent of a healthy node restarts its workers without counting: counts 0 and 1 -> both restore."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, "-c", RANK, str(r), str(port), str(r)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
    outs = [p.communicate(timeout=90) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    got = [json.loads(o[0].strip().splitlines()[-1]) for o in outs]
    assert got == [[True, 0, 1], [True, 1, 1]]


def _example():
    spec = importlib.util.spec_from_file_location("ddp_train_example_elastic", ROOT / "examples" / "ddp_train.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("env,argv,match", [
    ({}, ["--shadows", "h:1"], "runs under torchrun"),
    ({"TORCHELASTIC_RESTART_COUNT": "0"}, [], "needs --shadows"),
    ({"TORCHELASTIC_RESTART_COUNT": "0"}, ["--shadows", "h:1", "--resume"], "excludes --resume"),
    ({"TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_USE_AGENT_STORE": "True"}, ["--shadows", "h:1"],
     "TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1"),
])
def test_resume_auto_flag_errors(monkeypatch, capsys, env, argv, match):
    ex = _example()
    for k in ("TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_USE_AGENT_STORE"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(SystemExit):
        ex.parse_args(["--iters", "3", "--resume-auto", *argv])
    assert match in capsys.readouterr().err


def test_resume_auto_accepted_under_torchrun_env(monkeypatch):
    monkeypatch.setenv("TORCHELASTIC_RESTART_COUNT", "1")
    monkeypatch.setenv("TORCHELASTIC_USE_AGENT_STORE", "False")
    a = _example().parse_args(["--iters", "3", "--resume-auto", "--shadows", "h:1"])
    assert a.resume_auto and not a.resume
