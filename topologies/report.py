"""Plots and the text summary of one testbed run (``results/<run>/plots/*.png``, ``summary.txt``).

Input is the ``metrics.json`` dictionary the runner writes, so a run can be re-plotted later::

    python -m topologies.report results/<run>/metrics.json
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

PHASE_COLORS = {"reference": "tab:gray", "failure": "tab:red", "resume": "tab:blue"}


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _get(rec, *names):
    for n in names:
        if rec.get(n) is not None:
            return rec[n]
    return None


def _mark_events(ax, res, label=True):
    for ev in res.get("events", []):
        if ev["event"] == "trainer_killed":
            ax.axvline(ev["t"], color="black", ls="--", lw=1, label="trainer killed" if label else None)
            label = False
        if ev["event"] == "failure_detected":
            ax.axvline(ev["t"], color="tab:orange", ls=":", lw=1)


def _finish(plt, fig, axes, path: Path, out: list) -> None:
    """Grid and legend on every axis, then save ``fig`` to ``path`` and record it in ``out``."""
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    out.append(str(path))


def _timeline(ax, res: dict, ylabel: str, title: str) -> None:
    """Label a time-since-start axis and mark the run's events on it."""
    _mark_events(ax, res)
    ax.set(xlabel="time since start [s]", ylabel=ylabel, title=title)


def plots(res: dict, folder) -> list[str]:
    plt = _plt()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    its = [r for r in res.get("iterations", []) if r.get("rank") == 0]

    # 1. iteration time and loss per phase (rank 0)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for phase in ("reference", "failure", "resume"):
        rows = [r for r in its if r["phase"] == phase]
        if not rows:
            continue
        x = [_get(r, "iteration", "iter", "step") for r in rows]
        dt = [_get(r, "iter_time", "time", "dt") for r in rows]
        if any(v is not None for v in dt):
            ax1.plot(x, [1000 * (v or 0) for v in dt], "o-", ms=3, label=phase, color=PHASE_COLORS.get(phase))
        loss = [_get(r, "loss") for r in rows]
        if any(v is not None for v in loss):
            ax2.plot(x, loss, "o-" if phase != "reference" else "-", ms=3, label=phase,
                     color=PHASE_COLORS.get(phase), alpha=0.8)
    ax1.set(xlabel="iteration", ylabel="iteration time [ms]", title="iteration time (rank 0)")
    ax2.set(xlabel="iteration", ylabel="loss", title="training loss (rank 0)")
    _finish(plt, fig, (ax1, ax2), folder / "iteration_time.png", out)

    # 2. checkpoint age per shadow: trainer iteration (rank 0) minus the shadow's latest consistent one
    fig, ax = plt.subplots(figsize=(8, 4))
    trainer_at = defaultdict(list)  # phase -> [(t, iteration)], the shadows restart with each phase
    for r in its:
        trainer_at[r["phase"]].append((r["t"], _get(r, "iteration", "iter", "step")))
    for v in trainer_at.values():
        v.sort()
    by_shard = defaultdict(list)
    for s in res.get("shadow_status", []):
        by_shard[s["shard"]].append(s)
    for shard, rows in sorted(by_shard.items()):
        xs, ys = [], []
        for s in rows:
            if s.get("latest_iteration") is None:
                continue
            cur = None
            # the shadows of the failure phase also serve the resume
            phases = ("failure", "resume") if s.get("phase") == "failure" else (s.get("phase"),)
            seq = sorted(x for ph in phases for x in trainer_at.get(ph, []))
            for t, it in seq:
                if t <= s["t"]:
                    cur = it
                else:
                    break
            if cur is None:
                continue
            xs.append(s["t"])
            # A shadow cannot be ahead of the trainers: a negative difference only means the
            # trainer's metrics line for that iteration had not been read yet at time t.
            ys.append(max(0, cur - s["latest_iteration"]))
        if xs:
            ax.step(xs, ys, where="post", label=f"shadow shard {shard}")
    _timeline(ax, res, "checkpoint age [iterations]",
              "checkpoint age per shadow (trainer iteration - latest consistent)")
    _finish(plt, fig, (ax,), folder / "checkpoint_age.png", out)

    # 3. bytes on training vs shadow ports (switch egress = interface tx on the switch side)
    fig, ax = plt.subplots(figsize=(8, 4))
    per_seq = defaultdict(lambda: defaultdict(int))
    t_of = {}
    for s in res.get("ports", []):
        key = s.get("seq", s["t"])
        per_seq[key][s["role"]] += s["tx_bytes"]
        t_of[key] = s["t"]
    seqs = sorted(per_seq)
    ts = [t_of[k] for k in seqs]
    for role, color in (("trainer", "tab:blue"), ("shadow", "tab:green"), ("switch", "tab:purple")):
        ys = [per_seq[k].get(role, 0) / 1e6 for k in seqs]
        if ts and any(ys):
            ax.plot(ts, ys, label={"trainer": "to trainers", "shadow": "to shadows (copies)",
                                   "switch": "inter-switch"}[role], color=color)
    _timeline(ax, res, "switch egress [MB] (cumulative)", "bytes on training vs shadow ports")
    _finish(plt, fig, (ax,), folder / "port_bytes.png", out)

    # 4. heartbeats seen by the controller (digest per new iteration of a rank)
    fig, ax = plt.subplots(figsize=(8, 4))
    by_rank = defaultdict(list)
    for h in res.get("heartbeats", []):
        by_rank[h.get("rank")].append((h["t"], h.get("iteration")))
    for rank, pts in sorted(by_rank.items(), key=lambda kv: (kv[0] is None, kv[0])):
        pts.sort()
        ax.plot([t for t, _ in pts], [i for _, i in pts], ".", ms=4, label=f"rank {rank}")
    _timeline(ax, res, "iteration in heartbeat", "heartbeats (switch digests) seen by the controller")
    if not by_rank:
        ax.text(0.5, 0.5, "no heartbeat digests recorded", ha="center", va="center", transform=ax.transAxes)
    _finish(plt, fig, (ax,), folder / "heartbeats.png", out)
    return out


def _port_totals(res: dict) -> dict:
    last = {}
    for s in res.get("ports", []):
        last[(s["switch"], s["port"])] = s
    tot = defaultdict(int)
    for s in last.values():
        tot[s["role"]] += s["tx_bytes"]
    return dict(tot)


def _tm_by_role(res: dict) -> dict:
    """TM counters summed per port role (trainer / shadow / switch)."""
    from .generate import links
    topo = res.get("topology") or {}
    role = {}
    try:
        for na, pa, nb, pb, _ in links(topo):
            for n, p, far in ((na, pa, nb), (nb, pb, na)):
                if p is not None:
                    role[(n, str(p))] = ("switch" if far in topo["switches"]
                                         else topo["hosts"][far].get("role", "host"))
    except (KeyError, TypeError):
        return {}
    out: dict = {}
    for sw, ports in (res.get("tm_stats") or {}).items():
        if not isinstance(ports, dict):
            continue
        for port, st in ports.items():
            r = role.get((sw, str(port)))
            if r is None or not isinstance(st, dict):
                continue
            acc = out.setdefault(r, defaultdict(int))
            for k, v in st.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    acc[k] += v
    return {k: dict(v) for k, v in out.items()}


def summary(res: dict) -> str:
    L = []
    cfg = res.get("config", {})
    topo = res.get("topology", {})
    n_tr = sum(1 for h in topo.get("hosts", {}).values() if h.get("role") == "trainer")
    n_sh = sum(1 for h in topo.get("hosts", {}).values() if h.get("role") == "shadow")
    L.append(f"Checkmate testbed run {res.get('run')}")
    L.append(f"  topology {topo.get('kind', cfg.get('topo'))}: {n_tr} trainers, {n_sh} shadows, "
             f"{len(topo.get('switches', {}))} switch(es) [{res.get('switch')}], mtu {cfg.get('mtu')}, "
             f"{cfg.get('iters')} iterations, mode {cfg.get('mode')}")
    mi = res.get("model") or {}
    if mi:
        L.append(f"  model {mi.get('model')}: {mi.get('parameters', 0):,} parameters, "
                 f"{mi.get('buffers', 0):,} buffer elements")
    for name, ph in res.get("phases", {}).items():
        dur = (ph.get("t_end") or 0) - (ph.get("t_start") or 0)
        line = f"  {name:>9}: {dur:6.1f}s"
        if "killed_rank" in ph:
            line += (f", killed rank {ph['killed_rank']} after iteration {ph['killed_after_iteration']}; "
                     f"exit seen in {ph['exit_detect_s']:.2f}s; watchdog: {ph['watchdog']}"
                     + (f" in {ph['watchdog_detect_s']:.2f}s" if ph.get("watchdog_detect_s") is not None else "")
                     + f"; consistent checkpoint: iteration {ph.get('consistent_checkpoint')}")
        elif ph.get("first_iteration") is not None:
            line += f", iterations {ph['first_iteration']}..{max(v for v in ph['last_iteration'].values() if v is not None)}"
        L.append(line)
    fail, res_ph = res.get("phases", {}).get("failure", {}), res.get("phases", {}).get("resume", {})
    if "killed_after_iteration" in fail and res_ph.get("first_iteration") is not None:
        # the job's progress: the last iteration any rank logged (the victim may finish one more before
        # the kill lands, and the others log it) or the shadows completed -- an iteration whose final
        # chunks all crossed the switch before the kill is a checkpoint even when no rank got to log it
        # (a survivor's ring waits on the dead peer's ack after sending its last chunk)
        progress = max([fail["killed_after_iteration"]]
                       + [v for v in (fail.get("last_iteration") or {}).values() if v is not None]
                       + [c for c in [fail.get("consistent_checkpoint")] if isinstance(c, int)])
        lost = progress - (res_ph["first_iteration"] - 1)
        L.append(f"  resumed at iteration {res_ph['first_iteration']}: {lost} iteration(s) recomputed")
    tot = _port_totals(res)
    if tot:
        L.append("  switch egress: " + ", ".join(f"{k} ports {v / 1e6:.2f} MB" for k, v in sorted(tot.items())))
    tm = _tm_by_role(res)
    if tm:
        L.append("  switch TM: " + "; ".join(
            f"{role} ports sent {v.get('sent', 0)} pkts, drops {v.get('tail_drops', 0) + v.get('fault_drops', 0)}"
            f" (pause drops {v.get('pause_drops', 0)}), pauses {v.get('pauses', 0)}" for role, v in sorted(tm.items())))
    ver = res.get("verification") or {}
    for r, c in sorted((ver.get("ranks") or {}).items(), key=lambda kv: int(kv[0])):
        if c.get("error"):
            L.append(f"  rank {r}: {c['error']}")
        else:
            cats = ", ".join(f"{k} {v['compared']}" + (f" ({v['mismatches']} differ)" if v["mismatches"] else "")
                             for k, v in (c.get("categories") or {}).items() if v["compared"])
            L.append(f"  rank {r}: {c['tensors']} tensors / {c['elements']} elements compared, "
                     f"{c['n_mismatches']} mismatches" + (f" (first: {c['mismatches'][0]})" if c['mismatches'] else "")
                     + (f"; compared: {cats}" if cats else ""))
    for phase, tr in ((ver.get("trajectory") or {}).items()):
        if tr.get("iterations"):
            L.append(f"  {phase} losses vs reference: " + (f"first difference at {tr['first_difference']}"
                                                         if tr.get("first_difference") else
                                                         f"bit-identical over {tr['iterations']} iterations"))
    if res.get("error"):
        L.append(f"  error: {res['error']}")
    v = res.get("verdict")
    meaning = {"PASS": "resumed final model and optimizer state are bit-identical to the failure-free reference",
               "FAIL": "the resumed state is NOT bit-identical to the reference (see above)",
               "ERROR": "the scenario did not complete (see the error above and the logs)",
               "UNVERIFIED": "no reference run to compare with"}.get(v, "")
    L.append(f"verdict: {v} -- {meaning}")
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0])
    res = json.loads(path.read_text())
    print("\n".join(plots(res, path.parent / "plots")))
    print(summary(res), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
