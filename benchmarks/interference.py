"""How much of the trainers' extra CPU is the design's own work, and how much the emulation's interference.

On a machine where the software switch and the shadows share the trainers' cores, everything a trainer
does runs slower while they run: every switch of process leaves the trainer's caches to the other
process, and the trainer refills them on its own CPU time.  So ``checkmate``'s trainer-CPU ratio against
``none`` mixes two things:

* the work the design adds to the trainers -- rank 0's gradient check and manifest, the FINAL tag --,
  which a deployment pays too, and
* the same work as ``none``, done slower because the emulated switch's copies and the shadows run on the
  same cores, which a deployment (a switch ASIC, the shadows on other machines) does not have.

**The probe.** The forward pass runs no Checkmate code at all (the comm hook runs in backward, the check
and the manifest at the step), and it is the same code under every method; its CPU (the training
thread's, ``time.thread_time``, summed over the ranks: ``phases[0]`` of each rank's
``thread_sched_per_iter``) against the neighbouring ``none`` segments is the interference alone.  The
trainer-CPU ratio divided by it estimates what the design itself costs the trainers -- under the
assumption that the co-running processes slow every part of a trainer by the factor they slow its
forward pass (an estimate: the ring's thread, mostly system calls, may be slowed more or less).  The
promise block prints it beside the raw figure, never in its place; on a machine that can pin the
trainers apart (``--placement split``) both should agree.

:func:`parts` splits the same ratio by where the time goes -- forward, backward, the ring's thread, rank
0's clip + step (where the gradient check and the manifest run) and the other ranks' --, each against
the same part of the neighbouring ``none`` segments: the design's own work shows as the part that grows
more than the others, the interference as what grows alike everywhere.

:func:`per_segment` and :func:`parts` are pure (tested on synthetic segments in
``tests/bench/test_suite.py``); ``suite.analyze`` turns their ratios into medians (and intervals) over
the rounds.
"""
from __future__ import annotations

import statistics


def near(nones: list[tuple[int, dict]], i: int) -> list[dict]:
    """The ``none`` segments next to segment ``i`` in time: the last before it and the first after it
    (``nones`` as ``(index, segment)`` in run order)."""
    return [s for j, s in nones if j < i][-1:] + [s for j, s in nones if j > i][:1]


def _phase(seg: dict, k: int, ranks=slice(None)) -> float | None:
    """Phase ``k`` of the training threads' CPU per iteration (``train_bench``: 0 forward, 1 backward,
    2 clip + step, 3 the rest), summed over ``ranks`` (ms); None when a rank's phases were not recorded."""
    try:
        vals = [float(r["phases"][k]) for r in (seg.get("thread_sched_per_iter") or [])[ranks]]
    except (TypeError, KeyError, IndexError, ValueError):
        return None
    return sum(vals) if vals and all(v > 0 for v in vals) else None


def forward_cpu(seg: dict) -> float | None:
    """The training threads' forward-pass CPU per iteration of a segment, all ranks together (ms)."""
    return _phase(seg, 0)


def ring_cpu(seg: dict) -> float | None:
    """The ring threads' CPU per iteration of a segment, all ranks together (ms)."""
    try:
        vals = [float(v[0]) for r in (seg.get("thread_sched_per_iter") or []) for name, v in r.items()
                if name.startswith("checkmate-ring")]
    except (TypeError, IndexError, ValueError, AttributeError):
        return None
    return sum(vals) if vals else None


#: the parts of a trainer's CPU that :func:`parts` compares, in the order the promise block prints them
PARTS = {"forward": forward_cpu,
         "backward": lambda s: _phase(s, 1),
         "ring thread": ring_cpu,
         "rank 0 clip+step": lambda s: _phase(s, 2, slice(0, 1)),
         "other ranks' clip+step": lambda s: _phase(s, 2, slice(1, None))}


def control(nones: list[tuple[int, dict]], i: int, f) -> float | None:
    """The mean of ``f`` over the ``none`` segments next to segment ``i`` (those with a figure)."""
    vals = [v for v in (f(s) for s in near(nones, i)) if v]
    return statistics.fmean(vals) if vals else None


def per_segment(segments: list[dict], nones: list[tuple[int, dict]], cpu_of) -> dict[int, tuple[float, float]]:
    """For every segment that is not ``none`` and has its neighbours' figures: ``(forward ratio, trainer
    CPU ratio / forward ratio)`` against the neighbouring ``none`` segments, by index.  ``cpu_of(seg)`` is
    the trainers' CPU per iteration (``suite.trainer_cpu_per_iter``)."""
    out = {}
    for i, s in enumerate(segments):
        if s["method"] == "none":
            continue
        fwd, cpu = forward_cpu(s), cpu_of(s)
        fctl, cctl = control(nones, i, forward_cpu), control(nones, i, cpu_of)
        if not (fwd and cpu and fctl and cctl):
            continue
        f = fwd / fctl
        out[i] = (f, (cpu / cctl) / f)
    return out


def parts(segments: list[dict], nones: list[tuple[int, dict]]) -> dict[int, dict[str, float]]:
    """For every segment that is not ``none``: each part's CPU (:data:`PARTS`) over the same part of the
    neighbouring ``none`` segments, by index (a part without figures is left out)."""
    out = {}
    for i, s in enumerate(segments):
        if s["method"] == "none":
            continue
        r = {}
        for name, f in PARTS.items():
            v, ctl = f(s), control(nones, i, f)
            if v and ctl:
                r[name] = v / ctl
        if r:
            out[i] = r
    return out
