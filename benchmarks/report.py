"""The ``docs/BENCHMARKS.md`` "Latest numbers" section of one ``checkmate bench`` run, as a Markdown file.

``checkmate bench`` writes ``<results>/BENCHMARKS-latest.md`` at the end of a run: the command that
produced it, the CPU placement, the table (the promise block first), the micro-benchmark ratios
(ring vs gloo per size and MTU, the replica's cost over a forward, ...) and, with ``--with-scale``,
the scale table -- every figure from that one run, ready to replace the section in the docs.
"""
from __future__ import annotations

from pathlib import Path


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
