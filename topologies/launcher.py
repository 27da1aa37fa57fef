"""``checkmate testbed --launcher torchrun``: the failure is handled by torchrun's elastic agents.

With the default launcher the runner plays the job scheduler: it SIGKILLs the victim, stops the
other trainers and starts them all again with ``--resume``.  Here each trainer host runs one
``torchrun`` agent instead (``--nnodes N --nproc-per-node 1``, ``c10d`` rendezvous hosted on the
first trainer host, ``--max-restarts K``), every worker runs ``examples/ddp_train.py --resume-auto``,
and the runner only kills the victim *worker* (not its agent) once it has finished ``--fail-at``.
From then on nobody but torchrun acts: the victim's agent sees the worker die, the other agents see
the new rendezvous round, all workers start again, and the script restores the shadows' newest
consistent iteration by itself (``trainer_hooks.resume_decision``).  The phase ends when every agent
has exited; its final states are compared with the reference run's like any other phase.

The same command lines, outside Mininet, are the real-host deployment of docs/DEPLOY.md.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

from checkmate import paths

from . import generate
from .monitor import TRAIN_SCRIPT, IterationKiller, TestbedError, _tail, iteration_of, read_jsonl

RESUMED = re.compile(r"rank (\d+): resumed at iteration (\d+)")


def agent_argv(tb, phase: str, host: str, h: dict, rdzv: tuple[str, int], nnodes: int) -> list:
    """The torchrun agent of trainer host ``host`` (one node, one worker)."""
    ip = h["ip"].split("/")[0]
    return [sys.executable, "-m", "torch.distributed.run", "--nnodes", nnodes, "--nproc-per-node", 1,
            "--max-restarts", getattr(tb.args, "max_restarts", 1), "--monitor-interval", "0.5",
            "--rdzv-backend", "c10d", "--rdzv-endpoint", f"{rdzv[0]}:{rdzv[1]}",
            "--rdzv-id", f"checkmate-{tb.run}-{phase}", "--rdzv-conf", f"is_host={int(ip == rdzv[0])}",
            "--local-addr", ip, str(TRAIN_SCRIPT), *tb.train_args(phase, h), "--resume-auto"]


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        cur = todo.pop()
        try:
            tasks = list(Path(f"/proc/{cur}/task").iterdir())
        except OSError:
            continue
        for t in tasks:
            try:
                kids = [int(k) for k in (t / "children").read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def workers(agent_pids) -> list[int]:
    """The ddp_train.py worker processes under the agents (torchrun starts them in sessions of their own,
    so a signal to an agent's process group does not reach them)."""
    out = []
    for agent in agent_pids:
        for pid in descendants(agent):
            try:
                if b"ddp_train.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    out.append(pid)
            except OSError:
                continue
    return out


def worker_of_rank(agent_pids, rank: int) -> int | None:
    """The ddp_train.py worker with ``RANK=rank`` under any of the agents (ranks move between hosts
    from one rendezvous round to the next, so it is looked up, not remembered)."""
    want = f"RANK={rank}".encode()
    for agent in agent_pids:
        for pid in descendants(agent):
            try:
                env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"ddp_train.py" in cmd and want in env:
                return pid
    return None


class WorkerKiller(IterationKiller):
    """SIGKILLs the worker of rank ``rank`` (only the worker: its agent must live to restart it) once
    the rank's metrics say it finished ``fail_at``."""

    def __init__(self, metrics: Path, fail_at: int, rank: int, agent_pids):
        super().__init__("worker-killer", metrics, fail_at)
        self.rank, self.agent_pids = rank, list(agent_pids)
        self.pid = None

    def kill(self, reached: list[int]) -> bool:
        pid = worker_of_rank(self.agent_pids, self.rank)
        if pid is None:
            return False
        os.kill(pid, signal.SIGKILL)
        self.pid = pid
        self.killed(max(reached))
        return True


def torchrun_phase(tb, phase: str, rdzv_port: int, fail_at: int | None, fail_rank: int) -> dict:
    """One training phase under torchrun agents, with the victim worker killed at ``fail_at``."""
    if tb.controller is not None:
        tb.controller.reset_watchdog()
    trainers = generate.trainers_of(tb.topo)
    rdzv = (trainers[0][1]["ip"].split("/")[0], rdzv_port)
    env = {**tb._env(), "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"}  # a fresh store per rendezvous round
    names = {}
    for host, h in trainers:
        pname = f"agent-{host}"
        tb.procs.spawn(pname, agent_argv(tb, phase, host, h, rdzv, len(trainers)), tb.logs / f"{phase}-{host}.log",
                       node=tb.net.get(host), env=env, kind="trainer", cwd=paths.ROOT)
        names[host] = pname
    tb.event("torchrun_agents_started", phase=phase, rdzv=f"{rdzv[0]}:{rdzv[1]}", hosts=sorted(names))
    info: dict = {"phase": phase, "launcher": "torchrun", "t_start": round(time.monotonic() - tb.t0, 3)}
    metrics = {r: tb.out / "metrics" / phase / f"rank{r}.jsonl" for r in range(len(trainers))}
    pos = {r: 0 for r in metrics}
    seq: dict[int, list[int]] = {r: [] for r in metrics}
    killer = None
    if fail_at:
        killer = WorkerKiller(metrics[fail_rank], fail_at, fail_rank, [tb.procs.procs[n].pid for n in names.values()])
        killer.start()
    deadline = time.monotonic() + tb.args.phase_timeout
    adopted: set[int] = set()  # workers recorded in the process table: teardown and --stop reach them too
    next_adopt = 0.0
    after_kill: list[tuple[float, int]] = []  # (time seen, iteration) of records logged after the kill
    try:
        while True:
            for r in metrics:
                recs, pos[r] = read_jsonl(metrics[r], pos[r])
                for rec in recs:
                    it = iteration_of(rec)
                    if it is None:
                        continue
                    seq[r].append(it)
                    now = time.monotonic()
                    if killer is not None and killer.fired.is_set():
                        after_kill.append((now, it))
                    tb.iterations.append({"phase": phase, "rank": r, "t": round(now - tb.t0, 3), **rec})
            tb.sample_ports()
            if tb.controller is not None:
                tb.controller.poll()
            if time.monotonic() >= next_adopt:
                next_adopt = time.monotonic() + 1.0
                for pid in set(workers(tb.procs.procs[n].pid for n in names.values())) - adopted:
                    tb.procs.adopt(f"worker-{pid}", pid, kind="trainer")
                    adopted.add(pid)
            states = {host: tb.procs.procs[n].poll() for host, n in names.items()}
            bad = {host: rc for host, rc in states.items() if rc not in (None, 0)}
            if bad:
                raise TestbedError(f"{phase}: torchrun agent(s) failed: {bad}\n"
                                   + "".join(_tail(tb.procs.procs[names[h]].log) for h in bad))
            if all(rc == 0 for rc in states.values()):
                break
            if time.monotonic() > deadline:
                raise TestbedError(f"{phase}: torchrun agents not finished after {tb.args.phase_timeout:.0f}s\n"
                                   + "".join(_tail(tb.procs.procs[n].log) for n in names.values()))
            time.sleep(0.2)
    finally:
        if killer is not None:
            killer.stop()
    if killer is not None and not killer.fired.is_set():
        raise TestbedError(f"{phase}: the job finished before rank {fail_rank} reached iteration {fail_at}; "
                           "use a smaller --fail-at")
    logs = "".join(Path(tb.procs.procs[n].log).read_text(errors="replace") for n in names.values())
    resumed = sorted({int(m.group(2)) for m in RESUMED.finditer(logs)})
    for n in [*names.values(), *(f"worker-{pid}" for pid in adopted)]:
        tb.procs.forget(n)
    progress = None
    if killer is not None:
        # the job's progress before the restart: per rank, the last iteration before its sequence steps back
        ends = []
        for s in seq.values():
            back = next((i for i in range(1, len(s)) if s[i] <= s[i - 1]), None)
            ends.append(s[back - 1] if back is not None else (resumed[0] if resumed else s[-1] if s else 0))
        progress = max(ends)
        tb.event("trainer_killed", rank=fail_rank, iteration=killer.iteration, t=round(killer.t_kill - tb.t0, 3),
                 by="runner (worker only)", handled_by="torchrun --max-restarts")
    info.update(t_end=round(time.monotonic() - tb.t0, 3), last_iteration={r: (s[-1] if s else None)
                                                                           for r, s in seq.items()},
                first_iteration=min((s[0] for s in seq.values() if s), default=None),
                ranks_restarted=logs.count("torchrun restart"), resumed_iterations=resumed)
    if killer is not None:
        info.update(killed_rank=fail_rank, killed_after_iteration=killer.iteration, killed_pid=killer.pid,
                    job_progress=progress, resumed_iteration=resumed[0] if len(resumed) == 1 else None,
                    repeated=(progress - resumed[0]) if len(resumed) == 1 else None,
                    recovery_s=next((round(t - killer.t_kill, 3) for t, it in after_kill  # kill -> first resumed
                                     if len(resumed) == 1 and it == resumed[0] + 1), None),  # iteration logged
                    t_kill=round(killer.t_kill - tb.t0, 3))
        if len(resumed) != 1:
            raise TestbedError(f"{phase}: expected every rank to resume at one iteration after torchrun's restart, "
                               f"logs show {resumed or 'no resume'}")
    tb.sample_ports(force=True)
    tb.event("phase_done", phase=phase)
    return info

