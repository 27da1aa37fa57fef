"""``checkmate cost``: what checkpointing costs a cluster, by the Young–Daly model.

A checkpointer that stalls training for ``stall_s`` seconds per checkpoint does best
at the Young–Daly interval ``tau = sqrt(2 * stall_s * MTBF)``, where MTBF is the
mean time between failures of the *whole* job (``1 / (gpus * per-GPU failure rate)``).
Per unit of time it then loses ``stall_s / tau`` to stalls, and each failure repeats
on average half an interval of work (plus the restart, which every method pays).

Checkmate checkpoints every iteration at zero stall: its interval is one iteration
``iter_s``, so each failure repeats on average half an iteration.

Everything is reported per day and per failure, in GPU-hours (wall seconds lost
times the GPUs that sit idle).  Defaults for ``--stall-s`` and ``--iter-s`` come from
the latest ``make bench`` results when present (``results/bench/summary.json``),
otherwise from the documented fallbacks below.
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
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class Scenario:
    gpus: int
    gpu_failure_rate: float  # failures per GPU-hour
    stall_s: float  # seconds of training stalled per checkpoint (stall-based method)
    iter_s: float  # seconds per training iteration
    restart_s: float = 0.0  # detection + restart, paid by every method per failure

    def __post_init__(self):
        for name in ("gpus", "gpu_failure_rate", "stall_s", "iter_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if self.restart_s < 0:
            raise ValueError(f"restart_s must be >= 0, got {self.restart_s!r}")

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
    """Per-iteration checkpointing at zero stall."""
    return _cost(s, "checkmate (every iteration)", s.iter_s, 0.0)


def compare(s: Scenario) -> dict:
    a, b = stall_based(s), checkmate(s)
    return {"scenario": asdict(s) | {"mtbf_s": s.mtbf_s, "failures_per_day": s.failures_per_day},
            "methods": [asdict(a), asdict(b)],
            "gpu_hours_saved_per_day": a.lost_gpu_hours_per_day - b.lost_gpu_hours_per_day,
            "ratio_lost_per_day": (a.lost_gpu_hours_per_day / b.lost_gpu_hours_per_day
                                   if b.lost_gpu_hours_per_day else math.inf)}


def measured_defaults(path: Path | None = None) -> tuple[float, float, str]:
    """(stall_s, iter_s, source) from the latest benchmark summary, else the fallbacks."""
    path = path or RESULTS / "bench" / "summary.json"
    try:
        data = json.loads(path.read_text())
        return float(data["stall_s"]), float(data["iter_s"]), str(path)
    except (OSError, KeyError, ValueError, TypeError):
        return FALLBACK_STALL_S, FALLBACK_ITER_S, "built-in fallbacks (run `make bench` for measured ones)"


def _plot(s: Scenario, out: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({max(1, int(round(10 ** (k / 4)))) for k in range(0, 4 * 5 + 1)} | {s.gpus})
    rows = [compare(Scenario(g, s.gpu_failure_rate, s.stall_s, s.iter_s, s.restart_s)) for g in sizes]
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
    stall_d, iter_d, source = measured_defaults()
    p = argparse.ArgumentParser(prog="checkmate cost", description=__doc__.splitlines()[0])
    p.add_argument("--gpus", type=int, default=16384)
    p.add_argument("--gpu-failure-rate", type=float, default=1.0 / 50000,
                   help="failures per GPU-hour (default 1/50000, i.e. a 50k-hour per-GPU MTBF)")
    p.add_argument("--stall-s", type=float, default=stall_d, help=f"checkpoint stall in seconds (default from {source})")
    p.add_argument("--iter-s", type=float, default=iter_d, help=f"iteration time in seconds (default from {source})")
    p.add_argument("--restart-s", type=float, default=0.0, help="detection + restart time per failure")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--out", type=Path, default=RESULTS / "cost", help="folder for cost.json and cost.png")
    p.add_argument("--no-plot", action="store_true")
    a = p.parse_args(argv)
    try:
        s = Scenario(a.gpus, a.gpu_failure_rate, a.stall_s, a.iter_s, a.restart_s)
    except ValueError as e:
        p.error(str(e))
    result = compare(s) | {"defaults_source": source}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "cost.json").write_text(json.dumps(result, indent=2))
    if not a.no_plot:
        result["plot"] = str(_plot(s, a.out / "cost.png"))
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{s.gpus} GPUs, {s.gpu_failure_rate:g} failures/GPU-hour -> job MTBF {s.mtbf_s / 60:.1f} min, "
          f"{s.failures_per_day:.1f} failures/day; stall {s.stall_s:g} s, iteration {s.iter_s:g} s ({source})")
    print(f"{'method':32} {'interval':>12} {'stall %':>8} {'lost/failure':>14} {'GPU-h/failure':>14} {'GPU-h/day':>11}")
    for m in result["methods"]:
        print(f"{m['method']:32} {m['interval_s']:9.1f} s  {100 * m['stall_fraction']:7.2f} "
              f"{m['lost_s_per_failure']:12.1f} s {m['lost_gpu_hours_per_failure']:14.1f} {m['lost_gpu_hours_per_day']:11.1f}")
    print(f"Checkmate saves {result['gpu_hours_saved_per_day']:.1f} GPU-hours/day "
          f"({result['ratio_lost_per_day']:.1f}x less lost); results in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
