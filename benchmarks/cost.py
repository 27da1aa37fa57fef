"""``checkmate cost``: what checkpointing costs a cluster, by the Young–Daly model.

A checkpointer that stalls training for ``stall_s`` seconds per checkpoint does best
at the Young–Daly interval ``tau = sqrt(2 * stall_s * MTBF)``, where MTBF is the
mean time between failures of the *whole* job (``1 / (gpus * per-GPU failure rate)``).
Per unit of time it then loses ``stall_s / tau`` to stalls, and each failure repeats
on average half an interval of work (plus the restart, which every method pays).

Checkmate checkpoints every iteration: its interval is one iteration ``iter_s``, so
each failure repeats on average half an iteration; what it costs per iteration is its
measured overhead (``--checkmate-overhead``, a fraction of the iteration time), which
the model counts as a stall of ``overhead * iter_s`` per checkpoint.

Everything is reported per day and per failure, in GPU-hours (wall seconds lost
times the GPUs that sit idle).  Defaults for ``--stall-s``, ``--iter-s`` and
``--checkmate-overhead`` come from the latest ``make bench`` results when present
(``results/bench/summary.json``), otherwise from the documented fallbacks below; the
output lists every input with where it came from (:class:`Inputs`), because the bench
measures the testbed's toy model, not the job being priced.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from checkmate.paths import RESULTS

# Fallbacks when no benchmark result exists: a synchronous torch.save of a large
# model (tens of seconds) and a typical large-model iteration time.
FALLBACK_STALL_S = 30.0
FALLBACK_ITER_S = 2.0
DEFAULT_GPUS = 16384
DEFAULT_FAILURE_RATE = 1.0 / 50000
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class Scenario:
    gpus: int
    gpu_failure_rate: float  # failures per GPU-hour
    stall_s: float  # seconds of training stalled per checkpoint (stall-based method)
    iter_s: float  # seconds per training iteration
    restart_s: float = 0.0  # detection + restart, paid by every method per failure
    checkmate_overhead: float = 0.0  # Checkmate's extra iteration time, a fraction of iter_s

    def __post_init__(self):
        for name in ("gpus", "gpu_failure_rate", "stall_s", "iter_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("restart_s", "checkmate_overhead"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")

    @property
    def mtbf_s(self) -> float:
        """Mean time between failures of the whole job, in seconds."""
        return 3600.0 / (self.gpus * self.gpu_failure_rate)

    @property
    def failures_per_day(self) -> float:
        return SECONDS_PER_DAY / self.mtbf_s


@dataclass(frozen=True)
class MethodCost:
    method: str
    interval_s: float  # time between checkpoints
    interval_iters: float
    stall_fraction: float  # share of wall time stalled by checkpointing
    lost_s_per_failure: float  # repeated work + restart, wall seconds
    lost_gpu_hours_per_failure: float
    lost_gpu_hours_per_day: float  # stalls + failures


def young_daly_interval(stall_s: float, mtbf_s: float) -> float:
    """Optimal checkpoint interval (first-order Young–Daly): sqrt(2 * stall * MTBF)."""
    return math.sqrt(2.0 * stall_s * mtbf_s)


def _cost(s: Scenario, method: str, interval_s: float, stall_s: float) -> MethodCost:
    stall_fraction = stall_s / interval_s
    lost_per_failure = interval_s / 2.0 + s.restart_s
    per_day_s = SECONDS_PER_DAY * stall_fraction + s.failures_per_day * lost_per_failure
    return MethodCost(method=method, interval_s=interval_s, interval_iters=interval_s / s.iter_s,
                      stall_fraction=stall_fraction, lost_s_per_failure=lost_per_failure,
                      lost_gpu_hours_per_failure=lost_per_failure * s.gpus / 3600.0,
                      lost_gpu_hours_per_day=per_day_s * s.gpus / 3600.0)


def stall_based(s: Scenario) -> MethodCost:
    """A stall-based checkpointer at its optimal interval (never shorter than one iteration)."""
    tau = max(young_daly_interval(s.stall_s, s.mtbf_s), s.iter_s)
    return _cost(s, "stall-based @ Young-Daly", tau, s.stall_s)


def checkmate(s: Scenario) -> MethodCost:
    """Per-iteration checkpointing; its measured overhead is a stall of ``overhead * iter_s`` each iteration."""
    return _cost(s, "checkmate (every iteration)", s.iter_s, s.checkmate_overhead * s.iter_s)


def compare(s: Scenario) -> dict:
    a, b = stall_based(s), checkmate(s)
    return {"scenario": asdict(s) | {"mtbf_s": s.mtbf_s, "failures_per_day": s.failures_per_day},
            "methods": [asdict(a), asdict(b)],
            "gpu_hours_saved_per_day": a.lost_gpu_hours_per_day - b.lost_gpu_hours_per_day,
            "ratio_lost_per_day": (a.lost_gpu_hours_per_day / b.lost_gpu_hours_per_day
                                   if b.lost_gpu_hours_per_day else math.inf)}


@dataclass(frozen=True)
class Inputs:
    """The model's measured inputs and where each came from (a sentence per value)."""

    stall_s: float
    iter_s: float
    checkmate_overhead: float
    sources: dict  # field -> where the value came from
    bench: str | None = None  # the summary file, when the values are measured
    notes: tuple = ()


def _checkmate_overhead(data: dict) -> float | None:
    ov = data.get("checkmate_overhead")
    if ov is None:
        ov = (data.get("overhead") or {}).get("checkmate")
    return None if ov is None else float(ov)


def measured_defaults(path: Path | None = None) -> Inputs:
    """Stall, iteration time and Checkmate's overhead from the latest benchmark summary, else the fallbacks."""
    path = path or RESULTS / "bench" / "summary.json"
    try:
        data = json.loads(path.read_text())
        stall, it = float(data["stall_s"]), float(data["iter_s"])
    except (OSError, KeyError, ValueError, TypeError):
        fb = "built-in fallback (no `make bench` summary at " + str(path) + ")"
        return Inputs(FALLBACK_STALL_S, FALLBACK_ITER_S, 0.0,
                      {"stall_s": fb, "iter_s": fb, "checkmate_overhead": fb + "; Checkmate counted at zero cost"})
    run = data.get("run") or "?"
    bench = f"`make bench` run {run} ({path})"
    notes = ["stall and iteration time were measured on the testbed's toy model; scaled to a large job they "
             "say little -- give --stall-s and --iter-s of the job being priced"]
    if data.get("quick"):
        notes.append("that bench run was a --quick one (few rounds): its figures are noisy")
    ov = _checkmate_overhead(data)
    ov_src = f"measured: checkmate vs no checkpointing, {bench}"
    if ov is None:
        ov, ov_src = 0.0, f"not in {bench}; Checkmate counted at zero cost"
    elif ov < 0:
        notes.append(f"the measured Checkmate overhead {100 * ov:+.1f} % is below zero (noise): counted as 0")
        ov = 0.0
    return Inputs(stall, it, ov,
                  {"stall_s": f"measured: {data.get('stall_method') or 'the cheapest stall-based method'}'s stall "
                              f"per checkpoint, {bench}",
                   "iter_s": f"measured: iteration without checkpointing, {bench}",
                   "checkmate_overhead": ov_src}, str(path), tuple(notes))


def _plot(s: Scenario, out: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({max(1, int(round(10 ** (k / 4)))) for k in range(0, 4 * 5 + 1)} | {s.gpus})
    rows = [compare(Scenario(g, s.gpu_failure_rate, s.stall_s, s.iter_s, s.restart_s, s.checkmate_overhead))
            for g in sizes]
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, label in enumerate(("stall-based @ Young-Daly", "Checkmate (every iteration)")):
        ax.loglog(sizes, [r["methods"][i]["lost_gpu_hours_per_day"] for r in rows], marker="o", ms=3, label=label)
    ax.axvline(s.gpus, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel("lost GPU-hours per day")
    ax.set_title(f"stall {s.stall_s:g} s, iteration {s.iter_s:g} s, {s.gpu_failure_rate:g} failures/GPU-h")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--bench", type=Path, default=None)
    known, _ = pre.parse_known_args(argv)
    d = measured_defaults(known.bench)
    p = argparse.ArgumentParser(prog="checkmate cost", description=__doc__.splitlines()[0])
    p.add_argument("--bench", type=Path, default=None, metavar="SUMMARY.json",
                   help="the `make bench` summary the measured defaults come from (default results/bench/summary.json)")
    p.add_argument("--gpus", type=int, default=None, help=f"GPUs in the job (default {DEFAULT_GPUS})")
    p.add_argument("--gpu-failure-rate", type=float, default=None,
                   help="failures per GPU-hour (default 1/50000, i.e. a 50k-hour per-GPU MTBF)")
    p.add_argument("--stall-s", type=float, default=None, help=f"checkpoint stall in seconds (default {d.stall_s:g}: "
                   f"{d.sources['stall_s']})")
    p.add_argument("--iter-s", type=float, default=None, help=f"iteration time in seconds (default {d.iter_s:g}: "
                   f"{d.sources['iter_s']})")
    p.add_argument("--checkmate-overhead", type=float, default=None, metavar="FRACTION",
                   help=f"Checkmate's extra iteration time, e.g. 0.02 for +2 %% (default {d.checkmate_overhead:g}: "
                        f"{d.sources['checkmate_overhead']})")
    p.add_argument("--restart-s", type=float, default=None, help="detection + restart time per failure (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--out", type=Path, default=RESULTS / "cost", help="folder for cost.json and cost.png")
    p.add_argument("--no-plot", action="store_true")
    a = p.parse_args(argv)
    given = {"gpus": a.gpus, "gpu_failure_rate": a.gpu_failure_rate, "stall_s": a.stall_s, "iter_s": a.iter_s,
             "checkmate_overhead": a.checkmate_overhead, "restart_s": a.restart_s}
    defaults = {"gpus": (DEFAULT_GPUS, "default"), "gpu_failure_rate": (DEFAULT_FAILURE_RATE, "default"),
                "restart_s": (0.0, "default"), **{k: (getattr(d, k), d.sources[k]) for k in
                                                  ("stall_s", "iter_s", "checkmate_overhead")}}
    inputs = {k: {"value": v if v is not None else defaults[k][0],
                  "source": f"--{k.replace('_', '-')}" if v is not None else defaults[k][1]} for k, v in given.items()}
    notes = [n for n in d.notes if "toy model" not in n or a.stall_s is None or a.iter_s is None]
    try:
        s = Scenario(**{k: v["value"] for k, v in inputs.items()})
    except ValueError as e:
        p.error(str(e))
    source = {k: v["source"] for k, v in inputs.items()}
    result = compare(s) | {"inputs": inputs, "notes": notes, "defaults_source": d.bench or "built-in fallbacks"}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "cost.json").write_text(json.dumps(result, indent=2))
    if not a.no_plot:
        result["plot"] = str(_plot(s, a.out / "cost.png"))
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{s.gpus} GPUs, {s.gpu_failure_rate:g} failures/GPU-hour -> job MTBF {s.mtbf_s / 60:.1f} min, "
          f"{s.failures_per_day:.1f} failures/day")
    print("inputs:")
    shown = {"stall_s": f"{s.stall_s:g} s", "iter_s": f"{s.iter_s:g} s",
             "checkmate_overhead": f"{100 * s.checkmate_overhead:+.1f} %"}
    for k, label in (("stall_s", "stall per checkpoint"), ("iter_s", "iteration time"),
                     ("checkmate_overhead", "Checkmate overhead")):
        print(f"  {label:22} {shown[k]:>10}  {source[k]}")
    for n in notes:
        print(f"  note: {n}")
    print(f"{'method':32} {'interval':>12} {'stall %':>8} {'lost/failure':>14} {'GPU-h/failure':>14} {'GPU-h/day':>11}")
    for m in result["methods"]:
        print(f"{m['method']:32} {m['interval_s']:9.1f} s  {100 * m['stall_fraction']:7.2f} "
              f"{m['lost_s_per_failure']:12.1f} s {m['lost_gpu_hours_per_failure']:14.1f} {m['lost_gpu_hours_per_day']:11.1f}")
    saved = result["gpu_hours_saved_per_day"]
    if saved >= 0:
        print(f"Checkmate saves {saved:.1f} GPU-hours/day ({result['ratio_lost_per_day']:.1f}x less lost); "
              f"results in {a.out}")
    else:
        print(f"Checkmate loses {-saved:.1f} GPU-hours/day more than the stall-based method at these inputs "
              f"(its overhead outweighs the repeated work it saves); results in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
