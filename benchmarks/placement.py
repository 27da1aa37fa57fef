"""CPU placement of a bench run: keep the trainers apart from the emulation when the machine allows it.

In a deployment the copies are made by a switch ASIC and the shadows are other machines; on the
testbed the embedded software switch and the shadow processes run on the same host as the trainers.
When the host has enough CPUs, ``split`` placement pins the trainers to one CPU set and everything
that emulates the rest of the deployment (switch, shadows, the bench's own controller process) to a
disjoint one, so the trainers' wall time approaches the deployment's.  On a small machine (fewer than
:data:`MIN_SPLIT_CPUS` usable CPUs) ``auto`` keeps the ``shared`` placement: nothing is pinned, and
the report says so -- wall time then includes the emulation's CPU.

The plan is a pure function of the usable CPU list (:func:`plan`); :func:`apply` pins live processes
(every thread of each, via ``sched_setaffinity`` on ``/proc/PID/task/*``; threads created later inherit
the affinity of their creator).  Affinity is used rather than cgroup cpusets: it needs no cgroup
delegation and is undone when the processes exit.

**Shadow priority.**  Independently of the CPU sets, ``shadows_idle`` runs every thread of the shadow
processes under ``SCHED_IDLE``: they get a CPU only when nothing else wants it.  The shadows stand
for other machines; on a machine too small to give them CPUs of their own this keeps their replay
off the trainers' and the switch's critical path, at the price of the shadows lagging behind under
load (their reassembly ring buffers iterations; the bench reports their CPU either way).  The
placement line says which was used.  It is not the default, on any machine: in A/B pairs on the
2-core testbed machine the shadows kept up under it, but the wall time was no better and the
trainers' CPU worse (``docs/BENCHMARKS.md``); and every segment's shadows are checked either way
(``benchmarks/shadow_check.py``).
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, replace

MIN_SPLIT_CPUS = 4
MODES = ("auto", "shared", "split")
TRAINER_KINDS = ("trainer",)
INFRA_KINDS = ("switch", "shadow", "controller")


@dataclass(frozen=True)
class Placement:
    """Which CPUs the trainers and the emulated infrastructure (switch + shadows) may use."""

    mode: str  # "shared" (nothing pinned) or "split" (disjoint sets)
    cpus: tuple[int, ...]  # every usable CPU
    trainers: tuple[int, ...]  # empty when shared
    infra: tuple[int, ...]  # empty when shared
    reason: str
    shadows_idle: bool = False  # shadow processes under SCHED_IDLE

    def cpus_for(self, kind: str) -> tuple[int, ...] | None:
        """The CPU set of a process kind, or None when it is not pinned."""
        if self.mode != "split":
            return None
        if kind in TRAINER_KINDS:
            return self.trainers
        if kind in INFRA_KINDS:
            return self.infra
        return None

    def describe(self) -> str:
        if self.mode == "split":
            text = (f"split: trainers on CPUs {_ranges(self.trainers)}, switch + shadows + controller on "
                    f"{_ranges(self.infra)} ({self.reason})")
        else:
            text = f"shared: {len(self.cpus)} CPU(s) {_ranges(self.cpus)} shared by all processes ({self.reason})"
        if self.shadows_idle:
            text += "; shadows at idle CPU priority (SCHED_IDLE)"
        return text

    def to_json(self) -> dict:
        return asdict(self) | {"describe": self.describe()}


def _ranges(cpus) -> str:
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out) or "-"


def parse_cpus(text: str) -> tuple[int, ...]:
    """``"0-3,8"`` -> (0, 1, 2, 3, 8); a clear error for anything else."""
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ValueError(f"--cpus: {part!r} is not a CPU number or range (e.g. 0-3,8)") from None
        if a < 0 or b < a:
            raise ValueError(f"--cpus: bad range {part!r}")
        out.update(range(a, b + 1))
    if not out:
        raise ValueError("--cpus: no CPU given")
    return tuple(sorted(out))


def usable_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (its affinity mask, which honours cgroup cpusets)."""
    return tuple(sorted(os.sched_getaffinity(0)))


def plan(cpus, trainers: int, shadows: int, mode: str = "auto", shadows_idle: bool = False) -> Placement:
    """Place ``trainers`` trainer processes and the switch + ``shadows`` shadows on ``cpus``.

    ``split`` gives the infrastructure a share of the CPUs proportional to its process count
    (switch + shadows against trainers), at least one CPU each side, the trainers the lowest CPUs.
    ``auto`` splits only with at least :data:`MIN_SPLIT_CPUS` CPUs.  ``shadows_idle``: see the module
    docstring."""
    p = _plan(cpus, trainers, shadows, mode)
    return replace(p, shadows_idle=True) if shadows_idle else p


def _plan(cpus, trainers: int, shadows: int, mode: str) -> Placement:
    cpus = tuple(sorted(set(int(c) for c in cpus)))
    if mode not in MODES:
        raise ValueError(f"placement {mode!r}: choose from {MODES}")
    if trainers < 1 or shadows < 0:
        raise ValueError("need at least one trainer and a non-negative shadow count")
    if not cpus:
        raise ValueError("no usable CPU")
    if mode == "shared":
        return Placement("shared", cpus, (), (), "requested")
    if len(cpus) < 2 or (mode == "auto" and len(cpus) < MIN_SPLIT_CPUS):
        if mode == "split":
            raise ValueError(f"split placement needs at least 2 CPUs, have {len(cpus)}")
        return Placement("shared", cpus, (), (), f"fewer than {MIN_SPLIT_CPUS} CPUs: cannot isolate")
    infra_w = shadows + 1
    n_infra = math.ceil(len(cpus) * infra_w / (infra_w + trainers))
    n_infra = min(max(n_infra, 1), len(cpus) - 1)
    return Placement("split", cpus, cpus[:len(cpus) - n_infra], cpus[len(cpus) - n_infra:],
                     "requested" if mode == "split" else f"{len(cpus)} CPUs")


def _each_thread(pid: int, fn) -> int:
    """``fn(tid)`` for every thread of ``pid``; how many it was applied to (0 if the process is gone)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (FileNotFoundError, ProcessLookupError):
        return 0
    n = 0
    for tid in tids:
        try:
            fn(tid)
            n += 1
        except (ProcessLookupError, FileNotFoundError):
            pass  # the thread ended meanwhile
    return n


def pin(pid: int, cpus) -> int:
    """Pin every thread of ``pid`` to ``cpus``; returns how many threads were pinned (0 if it is gone)."""
    cpus = set(cpus)
    return _each_thread(pid, lambda tid: os.sched_setaffinity(tid, cpus))


def idle(pid: int) -> int:
    """Every thread of ``pid`` under ``SCHED_IDLE`` (threads it creates later inherit it)."""
    return _each_thread(pid, lambda tid: os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0)))


def apply(placement: Placement, procs: dict[int, str]) -> dict[int, int]:
    """Pin each ``pid -> kind`` of ``procs`` by the placement; returns ``pid -> threads pinned``.
    Nothing is pinned under ``shared`` placement; shadows go to ``SCHED_IDLE`` when the placement
    says so, under either."""
    out = {}
    for pid, kind in procs.items():
        if kind == "shadow" and placement.shadows_idle:
            idle(pid)
        cpus = placement.cpus_for(kind)
        if cpus:
            out[pid] = pin(pid, cpus)
    return out
