"""examples/ddp_train.py and the hooks when the set-up is wrong: one line naming the culprit and the exit
status, never a traceback -- no rendezvous, --mode switch with one rank, shadows that cannot be reached
(at attach, and at restore with --resume, one rank and two)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import shadowkit
import torch

from shadow.client import ShadowClient, ShadowUnreachable
from trainer_hooks import RestoreError, restore

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "ddp_train.py"
pytestmark = pytest.mark.timeout(180)


def closed_port() -> int:
    """A loopback TCP port nobody listens on (connection refused)."""
    return shadowkit.free_port()


def run(*args, env_extra=None, world=1):
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")}
    env.update(OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT), **(env_extra or {}))
    base = [sys.executable, str(SCRIPT), "--iters", "3", "--hidden", "8", "--udp-port", "0", "--bind-ip", "127.0.0.1"]
    if world == 1:
        return [subprocess.run([*base, *map(str, args)], capture_output=True, text=True, env=env, timeout=120)]
    procs = [subprocess.Popen([*base, "--rank", str(r), "--world-size", str(world), *map(str, args)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for r in range(world)]
    out = []
    for p in procs:
        o, e = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, o, e))
    return out


def test_alone_says_what_is_missing():
    (r,) = run()
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "no rendezvous: give --master ADDR:PORT" in r.stderr


def test_switch_mode_with_one_rank_says_what_switch_mode_needs():
    (r,) = run(env_extra={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(shadowkit.free_port())})
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "--mode switch (the default) needs --world-size 2 or more" in r.stderr
    assert "--mode host --shadows" in r.stderr and "--mode off" in r.stderr
    (r,) = run("--master", f"127.0.0.1:{shadowkit.free_port()}", "--world-size", "2", "--rank", "0", "--mode", "host")
    assert r.returncode == 2 and "--mode host needs --shadows" in r.stderr, r.stderr


def test_switch_mode_without_shadows_warns_that_nothing_is_checkpointed():
    """A reference run (the ring, no shadows) is legitimate, but it must say that it checkpoints nothing."""
    import importlib.util

    from checkmate.paths import ROOT
    spec = importlib.util.spec_from_file_location("ddp_train_mod", ROOT / "examples" / "ddp_train.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    args = mod.parse_args(["--iters", "1", "--world-size", "2", "--master", "127.0.0.1:1"])
    assert mod.launch_problem(args) is None
    assert "no checkpoint is taken" in mod.launch_warning(args)
    args = mod.parse_args(["--iters", "1", "--world-size", "2", "--master", "127.0.0.1:1", "--shadows", "h:1"])
    assert mod.launch_warning(args) is None


@pytest.mark.parametrize("resume", [False, True])
def test_unreachable_shadow_is_one_line_naming_it(resume):
    port = closed_port()
    (r,) = run("--master", f"127.0.0.1:{shadowkit.free_port()}", "--mode", "host", "--shadows", f"127.0.0.1:{port}",
               *(["--resume"] if resume else []))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "ddp_train.py" in ln]
    assert len(lines) == 1, r.stderr
    what = "restore: shard 0" if resume else "shadows: bootstrapping the shadows failed on rank 0: shard 0"
    assert what in lines[0], lines[0]
    assert f"shadow at 127.0.0.1:{port} is unreachable (Connection refused)" in lines[0]
    assert f"checkmate-shadow runs there (--mgmt 127.0.0.1:{port})" in lines[0]


def test_unreachable_shadow_on_resume_with_two_ranks():
    port = closed_port()
    rs = run("--master", f"127.0.0.1:{shadowkit.free_port()}", "--mode", "host", "--shadows",
             f"127.0.0.1:{port}", "--resume", world=2)
    for rank, r in enumerate(rs):
        assert r.returncode == 1 and "Traceback" not in r.stderr, (rank, r.stderr)
        assert f"ddp_train.py rank {rank}: restore: " in r.stderr
        assert f"shard 0: shadow at 127.0.0.1:{port} is unreachable" in r.stderr, r.stderr


def test_client_and_restore_errors_name_the_address():
    port = closed_port()
    with pytest.raises(ShadowUnreachable, match=rf"shadow at 127.0.0.1:{port} is unreachable") as e:
        ShadowClient("127.0.0.1", port, timeout=2).status()
    assert isinstance(e.value, ConnectionError)  # callers that retry on ConnectionError keep working
    m = torch.nn.Linear(2, 2)
    with pytest.raises(RestoreError, match=rf"^shard 0: shadow at 127.0.0.1:{port} is unreachable"):
        restore(m, torch.optim.AdamW(m.parameters()), shadows=[f"127.0.0.1:{port}"], job_id=1, timeout=2)
