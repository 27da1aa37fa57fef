"""Presentation of a ``checkmate bench`` run: the promise block, and the docs' "Latest numbers" section.

:func:`promise_lines` is the block that opens the table (the trainers' side of the cost).

``checkmate bench`` writes ``<results>/BENCHMARKS-latest.md`` at the end of a run: the command that
produced it, the CPU placement, the table (the promise block first), the micro-benchmark ratios
(ring vs gloo per size and MTU, the replica's cost over a forward, ...) and, with ``--with-scale``,
the scale table -- every figure from that one run, ready to replace the section in the docs
(docs/BENCHMARKS.md opens with the promise block and its reading, *The answer to the paper's claim*,
and keeps the whole run under *Latest numbers*).
"""
from __future__ import annotations

from pathlib import Path


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:+.1f}%"


def promise_lines(res: dict) -> list[str]:
    """The figure that answers the paper's claim, first: what checkpointing costs the *trainers*
    (their CPU, all processes and threads, and the bytes they put on the training ports) per
    iteration, against no checkpointing of the same run.  The switch's copies and the shadows run
    elsewhere in a deployment (an ASIC, other machines); host replication pays on the trainers."""
    a, b = res["analysis"], res.get("bytes", {})
    noise = a.get("trainer_cpu_noise")
    lines = ["the promise -- cost on the trainers' side, per iteration, all trainers together "
             "(trainer CPU noise floor " + ("n/a" if noise is None else f"{100 * noise:.1f} %") + "):",
             f"{'method':18s} {'trainer CPU ms/it':>18s} {'vs none':>8s} {'train B/it':>11s} {'vs none':>8s} "
             f"{'shadow B/it':>12s} {'wall ms/it':>11s} {'vs none':>8s} {'ring retx/it':>13s}"]
    for key in [k for k in ("none", "checkmate", "host") if k in a["configs"]]:
        r, bb = a["configs"][key], b.get(key, {})
        cpu = r.get("trainer_cpu_s")
        tx = bb.get("trainer_tx")
        lines.append(f"{key:18s} {'n/a' if cpu is None else f'{1e3 * cpu:.2f}':>18s} "
                     f"{_pct(r.get('trainer_cpu_overhead')):>8s} {float('nan') if tx is None else tx:11.0f} "
                     f"{_pct(None if bb.get('trainer_tx_ratio') is None else bb['trainer_tx_ratio'] - 1):>8s} "
                     f"{bb.get('shadow_rx', float('nan')):12.0f} {1e3 * r['iter_s']:11.2f} {_pct(r['overhead']):>8s} "
                     f"{r.get('ring_retx_per_iter', float('nan')):13.2f}")
    lines += interval_lines(a["configs"]) + adjusted_lines(a["configs"])
    split = [(k, a["configs"][k]) for k in ("none", "checkmate", "host") if k in a["configs"]]
    if all(r.get("trainer_cpu_rank0_s") is not None for _, r in split) and split:
        lines.append("trainer CPU ms/it, rank 0 (it also sends the shadows' manifests) / the other ranks: "
                     + ", ".join(f"{k} {1e3 * r['trainer_cpu_rank0_s']:.2f} / {1e3 * r['trainer_cpu_others_s']:.2f}"
                                 for k, r in split))
    pl = res.get("placement")
    if pl:
        lines.append(f"placement: {pl.get('describe', pl)}")
    switch_args = (res.get("config") or {}).get("switch_arg") or []
    if switch_args:
        lines.append(f"switch arguments: {' '.join(switch_args)}")
    if isinstance(pl, dict) and pl.get("mode") == "split":
        lines.append("wall time includes the emulation: every chunk of the ring crosses the software switch's one "
                     "data-plane thread, which also makes the copies (its CPU is kept off the trainers' CPUs; "
                     "see the switch column below)")
    else:
        lines.append("wall time includes the emulation: the software switch's copies and the shadows share the "
                     "machine's cores with the trainers (see the CPU columns below)")
    return lines + [""]


def interval_lines(configs: dict) -> list[str]:
    """How far the promise's medians can move with the spread of the rounds: the order-statistics
    interval of each median (``suite.median_interval``), trainer CPU and wall, per method."""
    parts, cover, n = [], None, None
    for key in [k for k in ("checkmate", "host") if k in configs]:
        r = configs[key]
        for what, ci in (("trainer CPU", r.get("trainer_cpu_overhead_ci")), ("wall", r.get("overhead_ci"))):
            if ci:
                parts.append(f"{what} {key} {100 * ci[0]:+.1f} .. {100 * ci[1]:+.1f} %")
                cover = ci[2] if cover is None else min(cover, ci[2])
        n = n or len(r.get("trainer_cpu_ratio_all") or r.get("ratio_all") or [])
    if not parts:
        return []
    return [f"medians of {n} per-round ratios; interval holding the median with >= {100 * cover:.0f} % "
            "(order statistics, any distribution): " + ", ".join(parts)]


def adjusted_lines(configs: dict) -> list[str]:
    """The trainer-CPU figure with the emulation's interference taken out (``benchmarks/interference.py``:
    the forward pass, where no Checkmate code runs, as the probe of how much the co-running switch and
    shadows slow the trainers) -- an estimate of the design's own cost, printed under the raw figure."""
    parts = []
    for key in [k for k in ("checkmate", "host") if k in configs]:
        r = configs[key]
        if r.get("trainer_cpu_adjusted_overhead") is None:
            continue
        ci = r.get("trainer_cpu_adjusted_ci")
        parts.append(f"{key} {_pct(r['trainer_cpu_adjusted_overhead'])}"
                     + (f" ({100 * ci[0]:+.1f} .. {100 * ci[1]:+.1f} %)" if ci else "")
                     + f", its forward pass {_pct(r.get('forward_cpu_overhead'))}")
    split = [(k, configs[k]["trainer_cpu_part_overhead"]) for k in ("checkmate", "host")
             if configs.get(k, {}).get("trainer_cpu_part_overhead")]
    lines = ["trainer CPU by part, vs the same part of none: " + "; ".join(
        f"{k} " + ", ".join(f"{p} {_pct(v)}" for p, v in d.items()) for k, d in split)] if split else []
    if not parts:
        return lines
    return lines + ["trainer CPU over none divided by the forward pass's (no Checkmate code runs there: the slowdown "
            "of the same work by the co-running switch and shadows, which a deployment does not have; an "
            "estimate of the design's own cost): " + "; ".join(parts)]


def fragment(res: dict, table: str, command: str, scale_text: str | None = None) -> str:
    """The section's Markdown (pure: tested on synthetic input)."""
    pl = (res.get("placement") or {}).get("describe", "not recorded")
    lines = ["## Latest numbers", "",
             f"`{command}`, run `{res.get('run', '?')}` (started {res.get('started', '?')}, "
             f"{res.get('elapsed_s', 0):.0f} s). CPU placement: {pl}.", "", "```", table.rstrip("\n"), "```", ""]
    micro = res.get("micro")
    if isinstance(micro, dict) and micro.get("ratios"):
        lines += ["Micro-benchmarks of the same run (`benchmarks/micro.py`, ratios against a same-run baseline):", "",
                  "| benchmark | ratio |", "|---|---|"]
        lines += [f"| {k} | {v:.3g} |" for k, v in micro["ratios"].items() if isinstance(v, (int, float))]
        lines.append("")
    elif isinstance(micro, dict) and micro.get("error"):
        lines += [f"Micro-benchmarks failed: {micro['error']}", ""]
    if scale_text:
        lines += ["Model sizes (`--with-scale`, the same run):", "", "```", scale_text.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def write(outdir: Path, res: dict, table: str, command: str) -> Path:
    scale = outdir / "scale" / "scale.txt"
    text = fragment(res, table, command, scale.read_text() if scale.exists() else None)
    path = outdir / "BENCHMARKS-latest.md"
    path.write_text(text)
    return path
