"""The testbed's failure injectors (no root): real processes, a real metrics file.

:class:`topologies.monitor.FailureInjector` SIGKILLs the victim's process group once its metrics show
iteration ``fail_at`` and reports the newest iteration the victim had logged; :class:`topologies.launcher.
WorkerKiller` SIGKILLs only the ``RANK=r`` ``ddp_train.py`` worker under a torchrun agent and reports the
newest iteration it saw, leaving the agent alive.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from topologies.launcher import WorkerKiller, worker_of_rank
from topologies.monitor import FailureInjector

pytestmark = pytest.mark.timeout(60)


def write(path, *iterations):
    with open(path, "a") as f:
        for it in iterations:
            f.write(json.dumps({"iteration": it}) + "\n")


def test_failure_injector_kills_the_process_group_at_fail_at(tmp_path):
    metrics = tmp_path / "rank1.jsonl"
    write(metrics, 1, 2)
    victim = subprocess.Popen(["sleep", "60"], start_new_session=True)
    inj = FailureInjector(metrics, 3, victim.pid)
    inj.start()
    try:
        assert not inj.fired.wait(0.2)  # iterations 1, 2: below fail_at
        write(metrics, 3, 4)  # one poll sees both (a late poll on a loaded machine): it had finished 4
        assert inj.fired.wait(10)
        assert inj.iteration == 4 and inj.t_kill is not None
        assert victim.wait(10) == -signal.SIGKILL
    finally:
        inj.stop()
        if victim.poll() is None:
            victim.kill()
            victim.wait()


def test_worker_killer_kills_only_the_ranks_worker(tmp_path):
    metrics = tmp_path / "rank1.jsonl"
    worker = f'{sys.executable} -c "import time; time.sleep(60)" ddp_train.py'
    agent = subprocess.Popen(["sh", "-c", f"RANK=1 {worker}; sleep 60"])
    inj = WorkerKiller(metrics, 3, 1, [agent.pid])
    try:
        for _ in range(1000):  # the worker is exec'd (argv and RANK in place) before the metrics say 3
            if (worker_pid := worker_of_rank([agent.pid], 1)) is not None:
                break
            time.sleep(0.01)
        cmdline = open(f"/proc/{worker_pid}/cmdline", "rb").read()
        assert b"time.sleep(60)" in cmdline, cmdline
        inj.start()
        write(metrics, 3, 4, 5)
        assert inj.fired.wait(10)
        assert inj.iteration == 5 and inj.pid == worker_pid
        with pytest.raises(ProcessLookupError):
            for _ in range(1000):  # reaped by the agent's shell right after the kill
                os.kill(inj.pid, 0)
                time.sleep(0.01)
        assert agent.poll() is None  # the agent lives on to restart it
    finally:
        inj.stop()
        agent.kill()
        agent.wait()
