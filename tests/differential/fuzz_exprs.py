"""Run random expression/statement programs (:mod:`fuzz_gen_exprs`) on real BMv2 and on ours.

For each seed: real p4c and checkmate-p4c compile the program (one accepting what the other
rejects is a finding), their P4Info protobufs are compared, the frames go through p4c -> BMv2
and checkmate-p4c -> checkmate-switch, and then through p4c's JSON on checkmate-switch (which
separates compiler bugs from runtime ones).  Every disagreement is written to
``OUT/<seed>/`` (program, frames, both observations, the differences) and counted by kind:

    FRAMES  INVALID-ACCEPTED  REJECT  P4INFO  JSONPATH  CRASH
    (and, not ours, counted apart: BMV2-DIED, P4C-BUG -- p4c's internal error on a program we accept)

Usage (progress on stderr, a summary at the end)::

    python -m tests.differential.fuzz_exprs --seeds 0-500 --out /work/corpus/fuzz/fuzzx
    python -m tests.differential.fuzz_exprs --seeds 17 --print      # show one program

One :class:`diff_session.Targets` serves the whole run; p4c's output is cached by source hash
(``diff_harness.compile_p4c``).
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import TargetError, compile_checkmate, compile_p4c  # noqa: E402
from fuzz_gen_exprs import make_case  # noqa: E402


@dataclass
class Outcome:
    seed: int
    p4c_ok: bool = False
    ours_ok: bool = False
    findings: list = field(default_factory=list)     # [(KIND, text)]
    empty: bool = False                              # BMv2 emitted nothing (compares little)


def check_case(targets, case, seed: int) -> Outcome:
    """Compile both ways, compare P4Info, frames on both switches and p4c's JSON on ours."""
    from switch.compiler import P4CompileError
    from switch.compiler.p4info import canonical_text
    from diff_session import compare

    out = Outcome(seed)
    ref = compile_p4c(case)
    out.p4c_ok = not isinstance(ref, str)
    try:
        ours = compile_checkmate(case)
        out.ours_ok = True
    except P4CompileError as e:
        ours = None
        if out.p4c_ok:
            out.findings.append(("REJECT", str(e)))
    except Exception:
        ours = None
        out.findings.append(("CRASH", "checkmate-p4c: " + traceback.format_exc()[-3000:]))
    if not out.p4c_ok:
        if out.ours_ok:   # p4c crashing ("Compiler Bug") says nothing about the program
            out.findings.append(("P4C-BUG" if "Compiler Bug" in ref else "INVALID-ACCEPTED", f"p4c:\n{ref}"))
        return out
    if ours is not None:
        a, b = canonical_text(ref.p4info), canonical_text(ours.p4info)
        if a != b:
            out.findings.append(("P4INFO", "\n".join(difflib.unified_diff(
                a.splitlines(), b.splitlines(), "p4c", "checkmate-p4c", lineterm="", n=2))[:6000]))
    if targets is None:
        return out
    runs = [("FRAMES", ours)] if ours is not None else []
    runs.append(("JSONPATH", ref))
    for kind, mine in runs:
        try:
            expected, diff, dead = compare(targets, case, ref, mine)
        except TargetError as e:
            out.findings.append((_died(str(e)), f"{kind}: {e}"))
            continue
        for d in dead:
            out.findings.append((_died(d), f"{kind}: {d}"))
        if diff:
            out.findings.append((kind, "\n".join(diff)))
        if kind == "JSONPATH" or ours is None:
            out.empty = not expected.ports
    return out


def _died(text: str) -> str:
    """CRASH when our switch died or hung; BMV2-DIED (not a finding of ours: BMv2 is the
    reference, and a program it cannot run compares nothing) when BMv2 did."""
    return "BMV2-DIED" if text.startswith("bmv2") else "CRASH"


NOT_OURS = {"BMV2-DIED", "P4C-BUG"}


def write_finding(root: Path, case, outcome: Outcome) -> Path:
    d = root / str(outcome.seed)
    d.mkdir(parents=True, exist_ok=True)
    (d / "program.p4").write_text(case.source, encoding="utf-8")
    (d / "frames.txt").write_text("".join(f"{p} {f.hex()}\n" for p, f in case.frames), encoding="utf-8")
    (d / "findings.txt").write_text("".join(f"== {k}\n{t}\n" for k, t in outcome.findings), encoding="utf-8")
    (d / "kinds.json").write_text(json.dumps(sorted({k for k, _ in outcome.findings})), encoding="utf-8")
    return d


def parse_seeds(spec: str) -> list[int]:
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def run(seeds, root: Path | None, switches: bool = True, log=sys.stderr) -> dict:
    """Check every seed; returns the counts (and writes findings under ``root``)."""
    from diff_session import Targets
    from diff_targets import bmv2_available

    targets = Targets() if switches and bmv2_available() is None else None
    counts, kinds, failing = Counter(), Counter(), []
    t0 = time.monotonic()
    try:
        for i, seed in enumerate(seeds):
            case = make_case(seed)
            try:
                o = check_case(targets, case, seed)
            except Exception:
                o = Outcome(seed, findings=[("CRASH", "driver: " + traceback.format_exc()[-3000:])])
            counts["seeds"] += 1
            counts["p4c_accepted"] += o.p4c_ok
            counts["empty"] += o.empty
            for k in sorted({k for k, _ in o.findings}):
                kinds[k] += 1
            if {k for k, _ in o.findings} - NOT_OURS:
                failing.append(seed)
            if o.findings:
                where = write_finding(root, case, o) if root else ""
                print(f"[{i + 1}/{len(seeds)}] seed {seed}: {sorted({k for k, _ in o.findings})} {where}",
                      file=log, flush=True)
            elif (i + 1) % 10 == 0:
                print(f"[{i + 1}/{len(seeds)}] {time.monotonic() - t0:.0f}s, p4c accepted "
                      f"{counts['p4c_accepted']}/{counts['seeds']}, findings {dict(kinds)}", file=log, flush=True)
    finally:
        if targets is not None:
            targets.stop()
    return {"counts": dict(counts), "kinds": dict(kinds), "failing": failing}


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the switches on a kill too
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-49", help="e.g. 0-500 or 3,17,40-45")
    ap.add_argument("--out", default="/tmp/fuzzx-findings", help="where disagreements are written")
    ap.add_argument("--print", action="store_true", help="print the programs instead of running them")
    ap.add_argument("--no-switches", action="store_true", help="compile side only (p4c vs ours, P4Info)")
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    if a.print:
        for s in seeds:
            c = make_case(s)
            print(f"// seed {s}\n{c.source}\n// frames:\n" + "".join(f"//   {p} {f.hex()}\n" for p, f in c.frames))
        return 0
    res = run(seeds, Path(a.out), switches=not a.no_switches)
    print(json.dumps(res, indent=1))
    return 1 if res["failing"] else 0


if __name__ == "__main__":
    sys.exit(main())
