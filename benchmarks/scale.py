"""``checkmate bench --scale``: no checkpointing vs Checkmate as the model grows.

The same testbed run as ``checkmate bench`` (``suite.measure``: Mininet, the embedded switch, the
shadows), once per model size -- ``examples/ddp_train.py``'s MLP at ``--hidden`` 128 (the default, 17 k
parameters), 1936 (about 2 M) and 4160 (about 9 M) unless ``--scale-hidden`` says otherwise -- with
only the ``none`` and ``checkmate`` methods.  Per size it reports, against the ``none`` segments of
the same run: the trainers' CPU per iteration (the promise), the bytes on the training and shadow
ports, the wall time, and the CPU of the switch and the shadows per iteration -- so the reader sees
which costs grow with the model and which stay with the trainers.

Writes ``<out>/scale.json`` and ``<out>/scale.txt`` (one testbed folder per size under ``<out>``).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

DEFAULT_HIDDEN = (128, 1936, 4160)


def param_count(hidden: int) -> int:
    """Parameters of ``examples/ddp_train.py``'s model at this ``--hidden`` (built, not guessed)."""
    from benchmarks.train_bench import load_example
    ex = load_example()
    args = ex.parse_args(["--iters", "1", "--hidden", str(hidden)])
    model, _opt, _sched = ex.build(args)
    return sum(p.numel() for p in model.parameters())


def parse_hidden(text: str | None) -> list[int]:
    if not text:
        return list(DEFAULT_HIDDEN)
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--scale-hidden: {text!r} is not a comma list of integers") from None
    if not out or min(out) < 2:
        raise ValueError("--scale-hidden needs sizes >= 2")
    return out


def size_row(hidden: int, params: int, analysis: dict, bytes_: dict) -> dict:
    """One row of the scale table from a size's analysis (pure: tested on synthetic input)."""
    c = analysis["configs"]
    none, cm = c.get("none", {}), c.get("checkmate", {})
    nb, cb = bytes_.get("none", {}), bytes_.get("checkmate", {})
    cpu_n, cpu_c = none.get("cpu_ms_per_iter") or {}, cm.get("cpu_ms_per_iter") or {}
    return {"hidden": hidden, "params": params,
            "none_ms": None if not none else 1e3 * none["iter_s"],
            "checkmate_ms": None if not cm else 1e3 * cm["iter_s"],
            "wall_overhead": cm.get("overhead"),
            "trainer_cpu_none_ms": None if none.get("trainer_cpu_s") is None else 1e3 * none["trainer_cpu_s"],
            "trainer_cpu_checkmate_ms": None if cm.get("trainer_cpu_s") is None else 1e3 * cm["trainer_cpu_s"],
            "trainer_cpu_overhead": cm.get("trainer_cpu_overhead"),
            # the same divided by the forward pass's slowdown (benchmarks/interference.py; an estimate)
            "trainer_cpu_adjusted_overhead": cm.get("trainer_cpu_adjusted_overhead"),
            "forward_cpu_overhead": cm.get("forward_cpu_overhead"),
            "train_bytes_none": nb.get("trainer_tx"), "train_bytes_checkmate": cb.get("trainer_tx"),
            "shadow_bytes_checkmate": cb.get("shadow_rx"),
            "switch_cpu_none_ms": cpu_n.get("switch"), "switch_cpu_checkmate_ms": cpu_c.get("switch"),
            "shadow_cpu_checkmate_ms": cpu_c.get("shadow"), "noise": analysis.get("noise")}


def fmt(rows: list[dict], placement: str = "") -> str:
    def f(x, spec):
        return "n/a" if x is None else format(x, spec)

    def pct(x):
        return "n/a" if x is None else f"{100 * x:+.1f}%"
    lines = ["checkmate bench --scale: none vs Checkmate per model size (ratios against the same run's none)"]
    if placement:
        lines.append(f"placement: {placement}")
    lines += ["", f"{'params':>10s} {'trainer CPU ms/it':>18s} {'vs none':>8s} {'/ fwd':>7s} {'train B/it':>11s} "
              f"{'shadow B/it':>12s} {'none ms/it':>11s} {'ckpt ms/it':>11s} {'wall':>8s} "
              f"{'switch CPU ms/it':>17s} {'shadow CPU':>11s}"]
    for r in rows:
        lines.append(f"{r['params']:>10,d} {f(r['trainer_cpu_checkmate_ms'], '.2f'):>18s} "
                     f"{pct(r['trainer_cpu_overhead']):>8s} {pct(r.get('trainer_cpu_adjusted_overhead')):>7s} "
                     f"{f(r['train_bytes_checkmate'], '.0f'):>11s} "
                     f"{f(r['shadow_bytes_checkmate'], '.0f'):>12s} {f(r['none_ms'], '.2f'):>11s} "
                     f"{f(r['checkmate_ms'], '.2f'):>11s} {pct(r['wall_overhead']):>8s} "
                     f"{f(r['switch_cpu_checkmate_ms'], '.2f'):>17s} {f(r['shadow_cpu_checkmate_ms'], '.2f'):>11s}")
    if any(r.get("trainer_cpu_adjusted_overhead") is not None for r in rows):
        lines.append("/ fwd: the trainer-CPU ratio divided by the forward pass's (no Checkmate code runs there: the "
                     "co-running switch and shadows' slowdown of the same work; benchmarks/interference.py)")
    return "\n".join(lines) + "\n"


def run(a, outdir: Path, say, measure) -> int:
    """The testbed once per size (``a`` is ``checkmate bench``'s parsed arguments).  ``measure(args,
    folder, say) -> (segments, analysis, bytes)`` is one testbed run of the bench and its figures
    (``suite.measure``: passed in, so this module does not import the suite that calls it)."""
    rows, t0 = [], time.monotonic()
    for hidden in a.scale_hidden:
        params = param_count(hidden)
        say(f"scale: hidden {hidden} ({params:,d} parameters)")
        sub = argparse.Namespace(**vars(a))
        sub.methods, sub.every, sub.promise_rounds = ["none", "checkmate"], [1], 0
        if not getattr(a, "scale", False):  # after a full run (--with-scale): the scale run's own lengths
            sub.iters, sub.rounds, sub.timeout = 10, 2, 900.0
        sub.train_arg = list(a.train_arg) + [f"--hidden={hidden}"]
        d = outdir / f"hidden-{hidden}"
        d.mkdir(parents=True, exist_ok=True)
        segs, an, b = measure(sub, d, say)
        (d / "bench.json").write_text(json.dumps({"segments": segs, "analysis": an, "bytes": b}, indent=1,
                                                 default=str))
        rows.append(size_row(hidden, params, an, b))
    text = fmt(rows, a.placement.describe())
    (outdir / "scale.txt").write_text(text)
    (outdir / "scale.json").write_text(json.dumps({"rows": rows, "placement": a.placement.to_json(),
                                                   "elapsed_s": round(time.monotonic() - t0, 1),
                                                   "config": {k: v for k, v in vars(a).items() if k != "placement"}},
                                                  indent=1, default=str))
    print(text, end="")
    print(f"results: {outdir}/ (scale.json, scale.txt)")
    return 0
