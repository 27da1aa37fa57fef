"""``checkmate bench`` / ``make bench``: what checkpointing every iteration costs, next to the usual methods.

One run, one Mininet testbed (``topologies.runner.Testbed``: star, 3 trainers, 2 shadows, the embedded
P4 switch programmed by the runner's controller), the same model, data and transport as
``examples/ddp_train.py`` (the hook's UDP ring all-reduce crossing the switch).  The trainers
(``benchmarks/train_bench.py``, one process per rank for the whole run) go through a schedule of
segments -- ``none``, ``checkmate``, ``host``, and ``torch-save`` / ``checkfreq`` / ``dcp-async`` at
every k of ``--every`` -- rotated every round, so each method is compared with the no-checkpointing
segment *of the same round*.  Figures (``docs/BENCHMARKS.md`` says how to read them):

* overhead: iteration time / no-checkpointing iteration time of the same round - 1 (median over rounds);
* sustainable frequency within the ``--budget`` (3.5 %): from the measured per-checkpoint stall S and
  the no-checkpointing iteration time T, the smallest k with S / (k T) <= budget; frequency 1/k.
  Checkmate and host replication checkpoint every iteration or not at all: frequency 1 when their
  measured overhead is within the budget, else 0;
* bytes per iteration on training ports (switch <-> trainers) and shadow ports (switch -> shadows),
  from the kernel counters of the switch-side veths, read at every segment boundary;
* expected repeated work per failure: k/2 iterations at the sustainable k (0.5 for Checkmate).

Writes ``results/bench/<timestamp>/{bench.json,table.txt,plots/*.png,segments.jsonl,micro.json}`` and
``results/bench/summary.json`` (``stall_s``, ``iter_s``, ``checkmate_overhead`` for ``checkmate cost``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

from benchmarks import interference, placement, report, shadow_check
from benchmarks.plots import plots
from checkmate import paths
from topologies.lifecycle import Terminated, cannot_start, teardown_on_exit

METHODS = ("none", "checkmate", "host", "torch-save", "checkfreq", "dcp-async")
PERIODIC = ("torch-save", "checkfreq", "dcp-async")
BUDGET = 0.035
PROMISE_ROUNDS = 8  #: rounds of none / checkmate / host only, after the full rounds (train_bench.schedule)
CONFIDENCE = 0.9  #: the least coverage of the interval printed beside a median of per-round ratios
BENCH_ROOT = paths.RESULTS / "bench"
HOST_PORT_OFFSET = 100  # host-mode shadows listen on the shadow hosts' ports + 100


# ------------------------------------------------------------------------------------------------
# the figures (pure functions: tested on synthetic inputs)
# ------------------------------------------------------------------------------------------------

def sustainable_k(stall_s: float, iter_s: float, budget: float = BUDGET) -> int:
    """Smallest k >= 1 with stall_s / (k * iter_s) <= budget (a checkpoint every k iterations)."""
    if iter_s <= 0 or budget <= 0:
        raise ValueError("iter_s and budget must be > 0")
    if stall_s <= 0:
        return 1
    k = max(1, math.ceil(stall_s / (budget * iter_s) - 1e-12))
    while k > 1 and stall_s / ((k - 1) * iter_s) <= budget:  # guard against float rounding
        k -= 1
    while stall_s / (k * iter_s) > budget:
        k += 1
    return k


def median_interval(xs, confidence: float = CONFIDENCE) -> tuple[float, float, float] | None:
    """A distribution-free confidence interval of the median of ``xs``: ``(low, high, coverage)``.

    The order statistics ``x(k) <= median <= x(n+1-k)`` hold the true median with probability
    ``1 - 2 P(B <= k-1)``, ``B ~ Binomial(n, 1/2)``, whatever the distribution of the samples
    (independent draws of one); ``k`` is the largest that keeps that coverage at or above
    ``confidence`` (``coverage`` says how much it is).  ``None`` for fewer samples than any interval
    of that coverage needs (for 0.9: five).  The per-round ratios of a bench are such draws only
    as far as the rounds are independent: the interval says how far the median can move with
    the rounds' spread, not how the machine drifts across runs."""
    v = sorted(x for x in xs if x is not None)
    n = len(v)
    best = None
    cdf = 0.0  # P(B <= k - 1)
    for k in range(1, n // 2 + 1):
        cdf += math.comb(n, k - 1) / 2 ** n
        cover = 1.0 - 2.0 * cdf
        if cover < confidence:
            break
        best = (v[k - 1], v[n - k], cover)
    return best


def _median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def grouped_median(times, k: int):
    """Robust mean iteration time of a segment: the timed iterations cut into runs of k consecutive
    ones (each holding exactly one checkpoint of a method checkpointing every k), the median run time
    divided by k.  A burst of someone else's load spoils one run, not the figure."""
    if not times:
        return None
    k = max(1, int(k))
    groups = [sum(times[i:i + k]) for i in range(0, len(times) - k + 1, k)]
    return statistics.median(groups) / k if groups else None


def config_key(method: str, k: int) -> str:
    return method if method not in PERIODIC else f"{method}@k={k}"


def analyze(segments: list[dict], budget: float = BUDGET) -> dict:
    """Turn the ``end`` records of the segments (each with ``round``, ``method``, ``every``, ``iter_s``,
    ``stall_median_s``, ``checkpoints`` and optional ``bytes``) into the bench figures."""
    segments = sorted(segments, key=lambda s: (s.get("seq", 0), s["round"]))
    nones = [(i, s) for i, s in enumerate(segments) if s["method"] == "none"]
    if not nones:
        raise ValueError("no 'none' segment: nothing to compare with")
    base = {}
    for r in dict.fromkeys(s["round"] for _, s in nones):
        base[r] = statistics.median([s["iter_s"] for _, s in nones if s["round"] == r])
    iter_none = statistics.median(s["iter_s"] for _, s in nones)

    def control(i: int, seg: dict) -> float:
        """The no-checkpointing iteration time next to segment ``i``: mean of the nearest ``none``
        segment before and after it in time, else the round's median."""
        near = [s["iter_s"] for s in interference.near(nones, i)]
        return statistics.fmean(near) if near else base.get(seg["round"], iter_none)

    def cpu_control(i: int) -> float | None:
        """The trainers' CPU per iteration of the ``none`` segments next to segment ``i``."""
        return interference.control(nones, i, trainer_cpu_per_iter)

    # the noise floor: each inner none segment against the nones around it (median |ratio - 1|)
    idx = [j for j, _ in nones]
    noise = [abs(nones[n][1]["iter_s"] / statistics.fmean([nones[n - 1][1]["iter_s"], nones[n + 1][1]["iter_s"]]) - 1)
             for n in range(1, len(idx) - 1)]
    noise_floor = statistics.median(noise) if noise else None
    tc = [trainer_cpu_per_iter(s) for _, s in nones]
    cpu_noise = [abs(tc[n] / statistics.fmean([tc[n - 1], tc[n + 1]]) - 1) for n in range(1, len(tc) - 1)
                 if tc[n] and tc[n - 1] and tc[n + 1]]
    cpu_noise_floor = statistics.median(cpu_noise) if cpu_noise else None
    # the trainer-CPU ratio with the co-running processes' slowdown of the forward pass taken out
    adjusted = interference.per_segment(segments, nones, trainer_cpu_per_iter)
    by_part = interference.parts(segments, nones)
    configs: dict[str, dict] = {}
    for i, s in enumerate(segments):
        key = config_key(s["method"], s["every"])
        c = configs.setdefault(key, {"method": s["method"], "every": s["every"], "iter_s": [], "ratio": [],
                                     "stall_s": [], "bytes": [], "rounds": [], "control": []})
        c["iter_s"].append(s["iter_s"])
        c["rounds"].append(s["round"])
        ctl = s["iter_s"] if s["method"] == "none" else control(i, s)
        c["control"].append(ctl)
        c["ratio"].append(s["iter_s"] / ctl)
        rob = grouped_median(s.get("iter_times"), s["every"])
        if rob is not None:
            if s["method"] == "none":
                rctl = rob
            else:
                vals = [grouped_median(sg.get("iter_times"), s["every"]) for sg in interference.near(nones, i)]
                vals = [v for v in vals if v]
                rctl = statistics.fmean(vals) if vals else None
            if rctl:
                c.setdefault("robust", []).append((rob, rctl, rob / rctl))
        if s.get("trainer_cpu_own_s") is not None and s.get("trainer_cpu_s") is not None and s.get("iters"):
            c.setdefault("split", []).append((s["trainer_cpu_own_s"] / s["iters"],
                                              (s["trainer_cpu_s"] - s["trainer_cpu_own_s"]) / s["iters"]))
        if s.get("ring_retransmits") is not None and s.get("iters"):
            c.setdefault("retx", []).append(s["ring_retransmits"] / s["iters"])
        tc = trainer_cpu_per_iter(s)
        if tc is not None:
            tctl = tc if s["method"] == "none" else cpu_control(i)
            if tctl:
                c.setdefault("tcpu", []).append((tc, tctl, tc / tctl))
        if i in adjusted:
            c.setdefault("adjusted", []).append(adjusted[i])
        if i in by_part:
            c.setdefault("parts", []).append(by_part[i])
        if s.get("checkpoints"):
            c["stall_s"].append(s["stall_median_s"])
        if s.get("bytes"):
            c["bytes"].append(s["bytes"])
        if s.get("cpu_ms_per_iter"):
            c.setdefault("cpu", []).append(s["cpu_ms_per_iter"])
    table = {}
    for key, c in configs.items():
        ratio = _median(c["ratio"])
        row = {"method": c["method"], "every": c["every"], "samples": len(c["iter_s"]),
               "iter_s": _median(c["iter_s"]), "iter_s_all": c["iter_s"], "control_s_all": c["control"],
               "ratio_all": c["ratio"],
               "ratio": ratio, "overhead": None if ratio is None else ratio - 1.0,
               "stall_s": _median(c["stall_s"])}
        ci = median_interval(c["ratio"])
        if ci is not None and c["method"] != "none":
            row["overhead_ci"] = [ci[0] - 1.0, ci[1] - 1.0, ci[2]]
        if c.get("robust"):
            rr = _median([x[2] for x in c["robust"]])
            row.update(robust_s_all=[x[0] for x in c["robust"]], robust_control_s_all=[x[1] for x in c["robust"]],
                       ratio_robust_all=[x[2] for x in c["robust"]], ratio_robust=rr, overhead_robust=rr - 1.0)
        if c.get("retx"):
            row["ring_retx_per_iter"] = _median(c["retx"])
        if c.get("split"):  # rank 0 (it also sends the per-iteration manifests) vs the other ranks
            row["trainer_cpu_rank0_s"] = _median([x[0] for x in c["split"]])
            row["trainer_cpu_others_s"] = _median([x[1] for x in c["split"]])
        if c.get("tcpu"):
            tr = _median([x[2] for x in c["tcpu"]])
            ci = median_interval([x[2] for x in c["tcpu"]])
            if ci is not None:
                row["trainer_cpu_overhead_ci"] = [ci[0] - 1.0, ci[1] - 1.0, ci[2]]
            row.update(trainer_cpu_s=_median([x[0] for x in c["tcpu"]]),
                       trainer_cpu_s_all=[x[0] for x in c["tcpu"]], trainer_cpu_control_s_all=[x[1] for x in c["tcpu"]],
                       trainer_cpu_ratio_all=[x[2] for x in c["tcpu"]], trainer_cpu_ratio=tr,
                       trainer_cpu_overhead=tr - 1.0)
        if c.get("adjusted"):  # see benchmarks/interference.py: an estimate, printed beside the raw figure
            adj = [x[1] for x in c["adjusted"]]
            row.update(forward_cpu_overhead=_median([x[0] for x in c["adjusted"]]) - 1.0,
                       trainer_cpu_adjusted_all=adj, trainer_cpu_adjusted_overhead=_median(adj) - 1.0)
            ci = median_interval(adj)
            if ci is not None:
                row["trainer_cpu_adjusted_ci"] = [ci[0] - 1.0, ci[1] - 1.0, ci[2]]
        if c.get("parts"):
            row["trainer_cpu_part_overhead"] = {p: _median([x.get(p) for x in c["parts"] if x.get(p)]) - 1.0
                                                for p in interference.PARTS if any(x.get(p) for x in c["parts"])}
        if c.get("cpu"):
            row["cpu_ms_per_iter"] = {f: _median([x.get(f) for x in c["cpu"]]) for f in c["cpu"][0]}
        if c["bytes"]:
            row["bytes_per_iter"] = {f: _median([b.get(f) for b in c["bytes"]]) for f in c["bytes"][0]}
        table[key] = row
    # per method: stall, sustainable k within the budget, repeated work per failure
    methods = {}
    for m in dict.fromkeys(c["method"] for c in configs.values()):
        rows = [r for r in table.values() if r["method"] == m]
        out = {"configs": [config_key(m, r["every"]) for r in sorted(rows, key=lambda r: r["every"])]}
        if m in PERIODIC:
            # the per-checkpoint stall at the largest k measured: at small k an asynchronous method
            # also waits for the previous save (back-pressure), which the larger k does not pay
            by_k_stall = {c["every"]: _median(c["stall_s"]) for c in configs.values() if c["method"] == m}
            kmax = max((k for k, v in by_k_stall.items() if v is not None), default=None)
            stall = (by_k_stall[kmax] if kmax is not None else None) or 0.0
            out["stall_by_k"] = by_k_stall
            k = sustainable_k(stall, iter_none, budget)
            out.update(stall_s=stall, sustainable_k=k, frequency=1.0 / k, predicted_overhead_at_k=stall / (k * iter_none),
                       repeated_iters_per_failure=k / 2.0, repeated_s_per_failure=k / 2.0 * iter_none)
            out["measured_overhead_by_k"] = {r["every"]: r["overhead"] for r in rows}
            out["robust_overhead_by_k"] = {r["every"]: r.get("overhead_robust") for r in rows}
            out["stall_overhead_by_k"] = {r["every"]: stall / (r["every"] * iter_none) for r in rows}
        elif m in ("checkmate", "host"):
            out["trainer_cpu_overhead"] = _median([r.get("trainer_cpu_overhead") for r in rows])
            out["trainer_cpu_adjusted_overhead"] = _median([r.get("trainer_cpu_adjusted_overhead") for r in rows])
            ov = _median([r["overhead"] for r in rows])
            rob = _median([r.get("overhead_robust") for r in rows])
            # the budget test uses the robust overhead when the per-iteration times are there
            judge = rob if rob is not None else ov
            ok = judge is not None and judge <= budget
            out.update(stall_s=0.0 if m == "checkmate" else None, overhead=ov, overhead_robust=rob,
                       within_budget=ok,
                       sustainable_k=1 if ok else None, frequency=1.0 if ok else 0.0,
                       # it checkpoints every iteration whatever it costs: half an iteration lost on average
                       repeated_iters_per_failure=0.5, repeated_iters_per_failure_max=1.0,
                       repeated_s_per_failure=0.5 * iter_none)
        else:
            out.update(overhead=0.0, frequency=0.0, sustainable_k=None, repeated_iters_per_failure=None)
        methods[m] = out
    # the stall-based baseline for `checkmate cost`: the periodic method sustaining the highest frequency
    best = min((m for m in methods if m in PERIODIC), key=lambda m: (methods[m]["stall_s"], m), default=None)
    return {"budget": budget, "iter_none_s": iter_none, "noise": noise_floor, "trainer_cpu_noise": cpu_noise_floor,
            "iter_none_by_round": base, "configs": table,
            "methods": methods, "best_stall_method": best,
            "stall_s": methods[best]["stall_s"] if best else None}


def trainer_cpu_per_iter(seg: dict) -> float | None:
    """CPU seconds per timed iteration of all trainers together (every process, every thread), from
    the segment's ``trainer_cpu_s`` (``time.process_time`` over the timed iterations, summed over ranks)."""
    cpu, n = seg.get("trainer_cpu_s"), seg.get("iters")
    return cpu / n if cpu is not None and n else None


def bytes_figures(table: dict) -> dict:
    """Bytes per iteration, ratios to ``none``: what the trainers send and what the shadows get."""
    none = (table.get("none") or {}).get("bytes_per_iter")
    out = {}
    for key, r in table.items():
        b = r.get("bytes_per_iter")
        if not b:
            continue
        row = dict(b)
        if none and none.get("trainer_tx"):
            row["trainer_tx_ratio"] = b["trainer_tx"] / none["trainer_tx"]
            row["shadow_vs_training"] = b["shadow_rx"] / none["trainer_tx"] if none["trainer_tx"] else None
        out[key] = row
    return out


# ------------------------------------------------------------------------------------------------
# output: table, plots, files
# ------------------------------------------------------------------------------------------------

def persist_lines(res: dict) -> list[str]:
    """The shadows' CPU split: what persisting to disk took of it (methods with shadows)."""
    k = (res.get("testbed") or {}).get("persist_every")
    parts = []
    for key, r in res["analysis"]["configs"].items():
        cpu = r.get("cpu_ms_per_iter") or {}
        if r["method"] in ("checkmate", "host") and cpu.get("shadow_persist") is not None:
            parts.append(f"{key} {cpu['shadow_persist']:.2f} of {cpu.get('shadow', float('nan')):.2f}")
    if not parts:
        return []
    every = "never (only at exit)" if k == 0 else "every iteration" if k == 1 else \
        f"every {k}th iteration" if k else "(period not recorded)"
    return ["", f"of the shadows' CPU ms/it, persisting to disk {every} (checksummed file, fsync, rename: the "
                f"runner's --persist-every, the restore fallback): " + ", ".join(parts)]


def fmt_table(res: dict) -> str:
    a = res["analysis"]
    b = res.get("bytes", {})
    lines = [f"checkmate bench {res['run']}: {res['config']['trainers']} trainers, {res['config']['shadows']} shadows, "
             f"{res['config']['rounds']} round(s) x {res['config']['iters']} timed iterations per segment"
             + (f", then {res['config']['promise_rounds']} round(s) of none, checkmate and host only"
                if res["config"].get("promise_rounds") else ""), ""]
    lines += report.promise_lines(res)
    lines += [f"no checkpointing: {1e3 * a['iter_none_s']:.2f} ms/iteration (median over rounds); budget "
             f"{100 * a['budget']:.1f} %; noise floor (a none segment vs the nones around it, median): "
             + ("n/a" if a.get("noise") is None else f"{100 * a['noise']:.1f} %"), "",
             f"{'method':18s} {'ms/it':>7s} {'ratio':>6s} {'overhead':>9s} {'robust':>8s} {'stall ms':>9s} "
             f"{'train B/it':>11s} {'shadow B/it':>12s} {'CPU ms/it: trainers':>20s} {'switch':>7s} {'shadows':>8s}"]
    order = sorted(a["configs"], key=lambda k: (METHODS.index(a["configs"][k]["method"]), a["configs"][k]["every"]))
    for key in order:
        r = a["configs"][key]
        bb = b.get(key, {})
        cpu = r.get("cpu_ms_per_iter") or {}
        st = "" if r["stall_s"] is None else f"{1e3 * r['stall_s']:.2f}"
        rb = "" if r.get("overhead_robust") is None else f"{100 * r['overhead_robust']:+.1f}%"
        lines.append(f"{key:18s} {1e3 * r['iter_s']:7.2f} {r['ratio']:6.3f} {100 * r['overhead']:+8.1f}% "
                     f"{rb:>8s} {st:>9s} "
                     f"{bb.get('trainer_tx', float('nan')):11.0f} {bb.get('shadow_rx', float('nan')):12.0f} "
                     f"{1e3 * (r.get('trainer_cpu_s') or float('nan')):20.2f} "
                     f"{cpu.get('switch', float('nan')):7.2f} {cpu.get('shadow', float('nan')):8.2f}")
    lines += ["", f"{'method':12s} {'stall ms':>9s} {'k within budget':>16s} {'ckpt/iter':>10s} "
              f"{'repeated it/failure':>20s}"]
    for m, r in a["methods"].items():
        if m == "none":
            continue
        st = r.get("stall_s")
        k = r.get("sustainable_k")
        rep = r.get("repeated_iters_per_failure")
        extra = ""
        if m in ("checkmate", "host"):
            ov = r["overhead_robust"] if r.get("overhead_robust") is not None else r["overhead"]
            extra = f"  (measured overhead {100 * ov:+.1f} %" + (")" if r["within_budget"] else ": over budget)")
        st = "" if st is None else f"{1e3 * st:.2f}"
        ks = "-" if k is None else str(k)
        reps = "-" if rep is None else f"{rep:g}"
        lines.append(f"{m:12s} {st:>9s} {ks:>16s} {r['frequency']:10.3f} {reps:>20s}{extra}")
    lines += persist_lines(res)
    check = shadow_check.summary_lines(res.get("segments") or [])
    if check:
        lines += [""] + check
    if a.get("stall_s") is not None:  # None when no periodic baseline ran (e.g. --methods checkmate)
        lines += ["", f"for `checkmate cost`: stall_s = {a['stall_s']:.4f} ({a['best_stall_method']}), "
                  f"iter_s = {a['iter_none_s']:.4f}"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------
# the testbed run
# ------------------------------------------------------------------------------------------------

class BenchError(RuntimeError):
    pass


def _testbed_class():
    from topologies import generate
    from topologies.runner import Testbed

    class BenchTestbed(Testbed):
        """The runner's testbed; shadows for host mode next to the switch-fed ones, bench trainers."""

        host_job_id = None

        def start_shadows(self, phase: str) -> None:
            super().start_shadows(phase)
            for p in self.pollers.values():
                # Nothing in the bench reads the runner's status samples (the shadows are checked at each
                # segment's end, benchmarks/shadow_check.py): sample rarely, so the bench does not charge
                # the shadows a status request (~0.2 ms of their CPU) five times a second.
                p.interval = POLL_S
            from topologies.netns import in_netns
            import socket
            for name, h in generate.shadows_of(self.topo):
                argv = [str(x) for x in self.shadow_argv(name, phase + "-host")]
                ip = h["ip"].split("/")[0]
                argv[argv.index("--job-id") + 1] = str(self.host_job_id)
                argv[argv.index("--data") + 1] = f"{ip}:{h['udp_port'] + HOST_PORT_OFFSET}"
                argv[argv.index("--mgmt") + 1] = f"{ip}:{h['mgmt_port'] + HOST_PORT_OFFSET}"
                self.procs.spawn(f"shadow-{name}-host", argv, self.logs / f"{phase}-{name}-host.log",
                                 node=self.net.get(name), env=self._env(), kind="shadow", cwd=paths.ROOT)
            deadline = time.monotonic() + 90
            for name, h in generate.shadows_of(self.topo):
                ip, port = h["ip"].split("/")[0], h["mgmt_port"] + HOST_PORT_OFFSET
                while True:
                    proc = self.procs.procs[f"shadow-{name}-host"]
                    if proc.poll() is not None:
                        raise BenchError(f"host-mode shadow on {name} exited ({proc.poll()})")
                    with in_netns(self.net.get(name).pid):
                        try:
                            socket.create_connection((ip, port), timeout=0.5).close()
                            break
                        except OSError:
                            pass
                    if time.monotonic() > deadline:
                        raise BenchError(f"host-mode shadow on {name} not listening after 90 s")
                    time.sleep(0.2)

    return BenchTestbed


def _runner_args(a, out: Path, run: str):
    from topologies.runner import parse_args
    argv = ["--topo", "star", "--trainers", str(a.trainers), "--shadows", str(a.shadows), "--fail-at", "0",
            "--no-reference", "--quiet", "--out", str(out), "--run", run, "--mtu", str(a.mtu)]
    for t in a.train_arg:
        argv.append(f"--train-arg={t}")
    for t in a.switch_arg:
        argv.append(f"--switch-arg={t}")
    return parse_args(argv)


def run_testbed(a, outdir: Path, say) -> dict:
    """Bring the testbed up, run the bench trainers, read the port counters per segment, tear down."""
    from tqdm import tqdm
    from topologies import generate
    run = "bench-" + outdir.name
    tb = _testbed_class()(_runner_args(a, outdir / "testbed", run))
    tb.host_job_id = tb.job_id + 1
    seg_path = outdir / "segments.jsonl"
    seg_path.unlink(missing_ok=True)
    boundaries: list[dict] = []
    counters = None
    own_affinity = os.sched_getaffinity(0)

    def pin_all():
        """Pin the testbed's processes (and this one, which runs the controller) by the placement;
        again at every segment boundary, for threads started since."""
        procs = {p.pid: p.kind for p in list(tb.procs.procs.values()) if p.pid and p.kind}
        placement.apply(a.placement, procs | {os.getpid(): "controller"})

    def teardown():
        try:
            say("tearing down the testbed")
            tb.down()
        finally:
            os.sched_setaffinity(0, own_affinity)

    with teardown_on_exit(teardown):
        say("bringing up the testbed (Mininet, embedded P4 switch, controller)")
        tb.up()
        say("starting shadows (switch-fed and host-mode)")
        tb.start_shadows("bench")
        trainers = generate.trainers_of(tb.topo)
        shadows = generate.shadows_of(tb.topo)
        master_ip = trainers[0][1]["ip"].split("/")[0]
        sh = ",".join(f"{h['ip'].split('/')[0]}:{h['mgmt_port']}" for _, h in shadows)
        hsh = ",".join(f"{h['ip'].split('/')[0]}:{h['mgmt_port'] + HOST_PORT_OFFSET}:{h['udp_port'] + HOST_PORT_OFFSET}"
                       for _, h in shadows)
        names = {}
        for name, h in trainers:
            r = h["rank"]
            argv = [sys.executable, "-m", "benchmarks.train_bench", "--rank", r, "--world-size", len(trainers),
                    "--master", f"{master_ip}:29500", "--bind-ip", h["ip"].split("/")[0],
                    "--method", ",".join(a.methods), "--every", ",".join(map(str, a.every)),
                    "--iters", a.iters, "--warmup", a.warmup, "--rounds", a.rounds,
                    "--promise-rounds", a.promise_rounds, "--job-id", tb.job_id,
                    "--host-job-id", tb.host_job_id, "--off-job-id", tb.job_id + 2, "--shadows", sh,
                    "--host-shadows", hsh, "--mtu", a.mtu, "--out-dir", outdir / "ckpt",
                    "--segments", seg_path, "--manifest-batch", a.manifest_batch]
            for t in a.train_arg:
                argv.append(f"--train-arg={t}")
            tb.procs.spawn(f"trainer-{r}", [str(x) for x in argv], tb.logs / f"bench-{name}.log",
                           node=tb.net.get(name), env=tb._env(), kind="trainer", cwd=paths.ROOT)
            names[r] = f"trainer-{r}"
        pin_all()
        from benchmarks.train_bench import schedule
        total = len(schedule(a.methods, a.every, a.rounds, promise_rounds=a.promise_rounds))
        deadline = time.monotonic() + a.timeout
        pos, done = 0, 0
        bar = tqdm(total=total, desc="bench segments", unit="seg", file=sys.stderr, dynamic_ncols=True,
                   disable=a.no_progress)
        last_poll = 0.0
        try:
            while True:
                from topologies.runner import read_jsonl
                recs, pos = read_jsonl(seg_path, pos)
                for rec in recs:
                    if rec.get("event") in ("begin", "end"):
                        if rec.get("event") == "begin":
                            pin_all()
                        tb.sample_ports(force=True)
                        rec["port_seq"] = tb._port_seq
                        src: set = set()
                        rec["cpu_s"] = cpu_by_kind(tb.procs, src)
                        rec["cpu_source"] = ",".join(sorted(src))
                        boundaries.append(rec)
                    if rec.get("event") == "begin":
                        bar.set_postfix_str(f"round {rec['round']} {config_key(rec['method'], rec['every'])}")
                    if rec.get("event") == "end":
                        done += 1
                        bar.update(1)
                        if rec.get("method") in shadow_check.SHADOW_METHODS:
                            say(shadow_check.verdict(rec)[1])  # loud when the shadows fell behind
                if time.monotonic() - last_poll > 0.5 and tb.controller is not None:
                    last_poll = time.monotonic()
                    try:
                        tb.controller.poll()
                    except Exception:  # noqa: BLE001 -- heartbeats are not what we measure
                        pass
                states = {r: tb.procs.procs[n].poll() for r, n in names.items()}
                bad = {r: rc for r, rc in states.items() if rc not in (None, 0)}
                if bad:
                    from topologies.runner import _tail
                    raise BenchError(f"trainer(s) failed: {bad}\n"
                                     + "".join(_tail(tb.procs.procs[names[r]].log) for r in bad))
                if all(rc == 0 for rc in states.values()):
                    recs, pos = read_jsonl(seg_path, pos)
                    for rec in recs:
                        if rec.get("event") == "end":
                            boundaries.append(rec)
                    break
                if time.monotonic() > deadline:
                    raise BenchError(f"not finished after {a.timeout:.0f} s ({done}/{total} segments)")
                time.sleep(0.05)
        finally:
            bar.close()
        if tb.controller is not None:
            try:
                counters = tb.controller.counters()
            except Exception as e:  # noqa: BLE001
                counters = {"error": f"{type(e).__name__}: {e}"}
    return {"boundaries": boundaries, "ports": tb.port_samples, "switch_counters": counters,
            "topology": {"job_id": tb.job_id, "host_job_id": tb.host_job_id, "off_job_id": tb.job_id + 2,
                         "logs": str(tb.logs), "persist_every": tb.args.persist_every}}


#: seconds between the runner's status requests to each shadow during the bench (the runner: 0.2)
POLL_S = 2.0


def cpu_by_kind(procs, sources: set | None = None) -> dict:
    """CPU seconds so far of the testbed's processes, summed per kind (switch, shadow, trainer), each
    read from the kernel's nanosecond CPU clock of the process (:func:`topologies.procs.proc_cpu`; all
    threads, exited ones included).  ``sources`` collects how each was measured (``clock``, or
    ``ticks`` where the clock could not be read: 10 ms resolution).  ``shadow_persist`` is the part of
    the shadows' CPU spent by their persist threads (``shadowN-persist``: writing every K-th
    iteration to disk, the runner's ``--persist-every``), so the table can tell it from ingest and replay."""
    from topologies.procs import proc_cpu, thread_cpu_s
    out: dict[str, float] = {}
    for p in list(procs.procs.values()):
        if p.kind in ("switch", "shadow", "trainer") and p.pid:
            got = proc_cpu(p.pid)
            if got is None:
                continue  # gone: its time is no longer readable (the per-iteration figure says so)
            out[p.kind] = out.get(p.kind, 0.0) + got[0]
            if sources is not None:
                sources.add(got[1])
            if p.kind == "shadow" and (persist := thread_cpu_s(p.pid, "-persist")) is not None:
                out["shadow_persist"] = out.get("shadow_persist", 0.0) + persist
    return out


def measure(a, outdir: Path, say) -> tuple[list[dict], dict, dict]:
    """One testbed run with ``a``'s methods and lengths, and its figures: (segments with bytes,
    analysis, bytes figures) -- what ``--scale`` takes per model size."""
    tb = run_testbed(a, outdir, say)
    segs = attach_bytes(tb["boundaries"], tb["ports"])
    an = analyze(segs, a.budget)
    return segs, an, bytes_figures(an["configs"])


def attach_bytes(boundaries: list[dict], ports: list[dict]) -> list[dict]:
    """``end`` records with ``bytes`` per iteration between their ``begin`` and ``end`` port samples:
    trainer_tx = what the trainers sent into the switch, trainer_rx = what the switch sent to trainers,
    shadow_rx = what the switch sent to the shadows."""
    by_seq: dict[int, dict] = {}
    for p in ports:
        d = by_seq.setdefault(p["seq"], {"trainer_tx": 0, "trainer_rx": 0, "shadow_rx": 0})
        if p["role"] == "trainer":
            d["trainer_tx"] += p["rx_bytes"]  # switch-side rx = sent by the trainer
            d["trainer_rx"] += p["tx_bytes"]
        elif p["role"] == "shadow":
            d["shadow_rx"] += p["tx_bytes"]
    out, begin, cpu0 = [], {}, {}
    for b in boundaries:
        key = (b["round"], b["method"], b["every"])
        if b["event"] == "begin":
            begin[key] = b.get("port_seq")
            cpu0[key] = b.get("cpu_s")
            continue
        rec = dict(b)
        s0, s1 = begin.get(key), b.get("port_seq")
        n = b["iters"] + b["warmup"]
        if s0 in by_seq and s1 in by_seq:
            rec["bytes"] = {f: (by_seq[s1][f] - by_seq[s0][f]) / n for f in by_seq[s1]}
        c0, c1 = cpu0.get(key), b.get("cpu_s")
        if c0 and c1:  # CPU ms per iteration, per kind of process (the 2 cores are shared)
            rec["cpu_ms_per_iter"] = {k: 1e3 * (c1[k] - c0.get(k, 0.0)) / n for k in c1}
        out.append(rec)
    return out


# ------------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog="checkmate bench", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="few iterations, k=1 and 10, 2 rounds, no micro (~2 min)")
    p.add_argument("--methods", default=",".join(METHODS), help="comma list (none is always added)")
    p.add_argument("--every", default=None, help="k values for the periodic methods (default 1,5,20; quick 1,10)")
    p.add_argument("--iters", type=int, default=None, help="timed iterations per segment (default 60; quick 40)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=None, help="rounds (default 6; quick 2)")
    p.add_argument("--promise-rounds", type=int, default=None,
                   help="more rounds of none, checkmate and host only, for the promise figures (default 8; "
                        "quick and --scale 0)")
    p.add_argument("--trainers", type=int, default=3)
    p.add_argument("--shadows", type=int, default=2)
    p.add_argument("--mtu", type=int, default=1500, choices=(1500, 9000))
    p.add_argument("--budget", type=float, default=BUDGET, help="overhead budget (default 0.035)")
    p.add_argument("--train-arg", action="append", default=[], help="passed to examples/ddp_train's parser")
    p.add_argument("--switch-arg", action="append", default=[],
                   help="passed to the switch process (e.g. --switch-arg=--send-order=frame; docs/SWITCH.md)")
    p.add_argument("--micro", dest="micro", action="store_true", default=None, help="run benchmarks/micro.py too")
    p.add_argument("--no-micro", dest="micro", action="store_false")
    p.add_argument("--timeout", type=float, default=None, help="seconds for the training part (default 660; quick 150)")
    p.add_argument("--out", default=None, help="results folder (default results/bench/<timestamp>)")
    p.add_argument("--no-summary", action="store_true", help="do not update results/bench/summary.json")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--placement", default="auto", choices=placement.MODES,
                   help="CPU placement: split = trainers and switch+shadows on disjoint CPU sets "
                        f"(auto: split with >= {placement.MIN_SPLIT_CPUS} usable CPUs, else shared)")
    p.add_argument("--shadow-priority", default="normal", choices=("normal", "idle"),
                   help="idle: the shadow processes run under SCHED_IDLE (they stand for other machines; "
                        "on a small machine this keeps them off the trainers' critical path; not the default: "
                        "see docs/BENCHMARKS.md)")
    p.add_argument("--manifest-batch", type=int, default=1,
                   help="rank 0 sends the shadows N compact manifests per write (docs/SHADOW.md; default 1)")
    p.add_argument("--cpus", default=None, help="usable CPUs for the placement, e.g. 0-7 (default: own affinity)")
    p.add_argument("--scale", action="store_true",
                   help="none vs checkmate at three model sizes (benchmarks/scale.py; default 10 iters, 2 rounds)")
    p.add_argument("--with-scale", action="store_true", help="after the main run, the --scale run into <out>/scale")
    p.add_argument("--scale-hidden", default=None, help="--hidden values for --scale (default 128,1936,4160)")
    p.add_argument("--reanalyze", metavar="DIR", default=None,
                   help="recompute table, plots and summary from DIR/bench.json (no new measurement)")
    a = p.parse_args(argv)
    a.methods = ["none"] + [m for m in a.methods.split(",") if m and m != "none"]
    bad = [m for m in a.methods if m not in METHODS]
    if bad:
        p.error(f"unknown method(s) {bad}; choose from {METHODS}")
    a.every = [int(k) for k in (a.every or ("1,10" if a.quick else "1,5,20")).split(",") if k]
    a.iters = a.iters or (10 if a.scale else 40 if a.quick else 60)
    a.rounds = a.rounds or (2 if a.quick or a.scale else 6)
    if a.promise_rounds is None:
        a.promise_rounds = 0 if a.quick or a.scale else PROMISE_ROUNDS
    a.timeout = a.timeout or (150.0 if a.quick else 900.0 if a.scale else 660.0)
    try:
        from benchmarks.scale import parse_hidden
        a.scale_hidden = parse_hidden(a.scale_hidden)
    except ValueError as e:
        p.error(str(e))
    if a.micro is None:
        a.micro = not a.quick
    try:
        cpus = placement.parse_cpus(a.cpus) if a.cpus else placement.usable_cpus()
        a.placement = placement.plan(cpus, a.trainers, a.shadows, a.placement,
                                     shadows_idle=a.shadow_priority == "idle")
    except ValueError as e:
        p.error(str(e))
    return a


def _first(values):
    return next((v for v in values if v is not None), None)


def finish(res: dict, outdir: Path, a) -> int:
    """Figures, table, plots, bench.json and the summaries from the measured segments in ``res``."""
    res["analysis"] = analyze(res["segments"], a.budget)
    res["bytes"] = bytes_figures(res["analysis"]["configs"])
    missing = [m for m in a.methods if m not in res["analysis"]["methods"]]
    if missing:
        res["error"] = f"no segment for {missing}"
    failed = [t for ok, t in map(shadow_check.verdict, res["segments"]) if not ok]
    if failed:  # a figure of a run whose shadows did not checkpoint every iteration is not Checkmate's
        res["error"] = "; ".join(([res["error"]] if res.get("error") else []) + failed)
    res["plots"] = plots(res, outdir / "plots", METHODS)
    table = fmt_table(res)
    (outdir / "table.txt").write_text(table)
    (outdir / "bench.json").write_text(json.dumps(res, indent=1, default=str))
    an = res["analysis"]
    summary = {"run": res["run"], "results": str(outdir), "stall_s": an["stall_s"], "iter_s": an["iter_none_s"],
               "stall_method": an["best_stall_method"], "budget": an["budget"], "noise": an.get("noise"),
               # Checkmate's cost per iteration for `checkmate cost` (robust figure when there is one)
               "checkmate_overhead": _first((an["methods"].get("checkmate") or {}).get(k)
                                            for k in ("overhead_robust", "overhead")),
               "stall_by_method": {m: r.get("stall_s") for m, r in an["methods"].items() if m in PERIODIC},
               "overhead": {k: r["overhead"] for k, r in an["configs"].items()},
               "frequency": {m: r["frequency"] for m, r in an["methods"].items()},
               "sustainable_k": {m: r.get("sustainable_k") for m, r in an["methods"].items()},
               "repeated_iters_per_failure": {m: r.get("repeated_iters_per_failure") for m, r in an["methods"].items()},
               "trainer_cpu_overhead": {m: r.get("trainer_cpu_overhead") for m, r in an["methods"].items()
                                        if m in ("checkmate", "host")},
               # the same with the co-running processes' slowdown taken out (benchmarks/interference.py)
               "trainer_cpu_adjusted_overhead": {m: r.get("trainer_cpu_adjusted_overhead")
                                                 for m, r in an["methods"].items() if m in ("checkmate", "host")},
               "bytes_per_iter": res["bytes"], "quick": bool(res["config"].get("quick"))}
    (outdir / "summary.json").write_text(json.dumps(summary, indent=1))
    if not a.no_summary:
        BENCH_ROOT.mkdir(parents=True, exist_ok=True)
        (BENCH_ROOT / "summary.json").write_text(json.dumps(summary, indent=1))
    print(table, end="")
    if isinstance(res.get("micro"), dict) and "ratios" in res["micro"]:
        print("micro-benchmarks: " + ", ".join(f"{k} {v:.3g}" for k, v in res["micro"]["ratios"].items()
                                                if isinstance(v, (int, float))))
    print(f"results: {outdir}/ (bench.json, table.txt, plots/) in {res.get('elapsed_s', 0):.0f} s")
    return 1 if res.get("error") else 0


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.reanalyze:
        outdir = Path(a.reanalyze).resolve()
        res = json.loads((outdir / "bench.json").read_text())
        a.methods = res["config"].get("methods", a.methods)
        a.budget = res["config"].get("budget", a.budget) if "--budget" not in (argv or sys.argv) else a.budget
        return finish(res, outdir, a)
    why = cannot_start("checkmate bench")
    if why:
        print(why, file=sys.stderr)
        return 2
    t0 = time.monotonic()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = Path(a.out) if a.out else BENCH_ROOT / stamp
    outdir.mkdir(parents=True, exist_ok=True)

    def say(msg):
        from tqdm import tqdm
        tqdm.write(f"[{time.monotonic() - t0:6.1f}s] {msg}", file=sys.stderr)

    if a.scale:
        say(f"placement: {a.placement.describe()}")
        from benchmarks import scale
        try:
            return scale.run(a, outdir, say, measure)
        except (BenchError, KeyboardInterrupt, Terminated, Exception) as e:  # noqa: BLE001
            print(f"checkmate bench --scale: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
    res = {"run": outdir.name, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "config": {k: v for k, v in vars(a).items() if k != "placement"},
           "placement": a.placement.to_json()}
    say(f"placement: {a.placement.describe()}")
    try:
        tb = run_testbed(a, outdir, say)
    except (BenchError, KeyboardInterrupt, Terminated, Exception) as e:  # noqa: BLE001
        res["error"] = f"{type(e).__name__}: {e}"
        (outdir / "bench.json").write_text(json.dumps(res, indent=1, default=str))
        print(f"checkmate bench: {res['error']}", file=sys.stderr)
        return 1
    segments = attach_bytes(tb["boundaries"], tb["ports"])
    res.update(segments=segments, switch_counters=tb["switch_counters"], testbed=tb["topology"])
    if a.micro:
        say("micro-benchmarks (benchmarks/micro.py)")
        from benchmarks import micro
        try:
            res["micro"] = micro.run_all(outdir / "micro.json", quick=False, log=say)
        except Exception as e:  # noqa: BLE001
            res["micro"] = {"error": f"{type(e).__name__}: {e}"}
    if a.with_scale:
        from benchmarks import scale
        try:
            scale.run(a, outdir / "scale", say, measure)
        except (BenchError, Exception) as e:  # noqa: BLE001 -- the main figures stand without it
            res["scale_error"] = f"{type(e).__name__}: {e}"
    res["elapsed_s"] = round(time.monotonic() - t0, 1)
    rc = finish(res, outdir, a)
    cmd = " ".join(["checkmate", "bench", *(sys.argv[1:] if argv is None else argv)])
    print(f"docs section: {report.write(outdir, res, (outdir / 'table.txt').read_text(), cmd)}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
