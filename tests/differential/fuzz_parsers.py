"""Random parser / deparser programs against real p4c + BMv2 (issue #15): the driver and CLI.

Each seed's program (:mod:`fuzz_parsers_gen`) is compiled by p4c and by checkmate-p4c, and
checked four ways, BMv2 deciding:

* compile side -- p4c accepts and checkmate-p4c rejects (REJECT), p4c rejects and
  checkmate-p4c accepts (INVALID-ACCEPTED), checkmate-p4c dies (CRASH);
* P4INFO -- checkmate-p4c's P4Info equals p4c's (the canonical text of test_p4info_equal);
* FRAMES -- p4c → BMv2 against checkmate-p4c → checkmate-switch, frame by frame;
* JSONPATH -- p4c's JSON on checkmate-switch against BMv2 (loader bugs).

One :class:`~diff_session.Targets` serves the whole run.  Every finding is written to
``OUT/<seed>/`` (program.p4, frames.txt, what each side did, the diff)::

    python -m tests.differential.fuzz_parsers --seeds 0-500 --out /work/corpus/fuzz/fuzzp

(from the repository root, ``PATH`` with p4c and simple_switch_grpc).  ``--show SEED`` prints a
seed's program and frames without running anything.
"""
from __future__ import annotations

import argparse
import faulthandler
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case, TargetError, compile_checkmate, compile_p4c  # noqa: E402
from fuzz_parsers_gen import generate  # noqa: E402


def check(targets, case: Case, stats: Counter | None = None) -> list[tuple[str, str]]:
    """The findings of one case: [(KIND, detail)] (empty: BMv2 and checkmate agree everywhere).
    ``targets`` may be None for the compile-side and P4Info checks only."""
    from switch.compiler import P4CompileError
    from switch.compiler.p4info import canonical_text
    from diff_session import compare

    stats = stats if stats is not None else Counter()
    ref = compile_p4c(case)
    ours, err = None, ""
    try:
        ours = compile_checkmate(case)
    except P4CompileError as e:
        err = str(e)
    except Exception as e:  # noqa: BLE001 -- any other exception is the compiler dying
        return [("CRASH", f"checkmate-p4c: {type(e).__name__}: {e}")]
    if isinstance(ref, str):
        stats["p4c_rejected"] += 1
        return [] if ours is None else [("INVALID-ACCEPTED", f"p4c rejects:\n{ref[-3000:]}")]
    stats["p4c_accepted"] += 1
    found = []
    if ours is None:
        found.append(("REJECT", f"checkmate-p4c: {err}"))
    elif canonical_text(ref.p4info) != canonical_text(ours.p4info):
        import difflib
        d = difflib.unified_diff(canonical_text(ref.p4info).splitlines(), canonical_text(ours.p4info).splitlines(),
                                 "p4c", "checkmate-p4c", lineterm="", n=2)
        found.append(("P4INFO", "\n".join(d)[:6000]))
    if targets is None:
        return found
    runs = [("FRAMES", ours)] if ours is not None else []
    runs.append(("JSONPATH", ref))
    for kind, compiled in runs:
        try:
            expected, diff, dead = compare(targets, case, ref, compiled)
        except TargetError as e:
            if str(e).startswith("bmv2:"):
                stats["bmv2_refused"] += 1
                found.append(("bmv2-refused", str(e)[:300]))   # not a finding (see main)
                return found           # BMv2 cannot run p4c's JSON: nothing to compare against
            found.append(("CRASH" if "exited" in str(e) else kind, str(e)[:4000]))
            continue
        if dead:
            found.append(("CRASH", "\n".join(dead)[:4000]))
        elif diff:
            found.append((kind, "\n".join(diff)))
            stats[f"{kind.lower()}_outputs"] += 1
        else:
            stats["bmv2_frames_out"] += sum(len(v) for v in expected.ports.values())
    return found


def write_finding(out: Path, seed: int, case: Case, found: list[tuple[str, str]]) -> None:
    d = out / str(seed)
    d.mkdir(parents=True, exist_ok=True)
    (d / "program.p4").write_text(case.source, encoding="utf-8")
    (d / "frames.txt").write_text("".join(f"{p} {f.hex()}\n" for p, f in case.frames), encoding="utf-8")
    (d / "findings.txt").write_text("".join(f"== {k}\n{t}\n" for k, t in found), encoding="utf-8")


def parse_seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-99", help="e.g. 0-500 or 3,7,10-20")
    ap.add_argument("--out", default="/tmp/fuzzp", help="directory for findings (one folder per seed)")
    ap.add_argument("--show", type=int, help="print one seed's program and frames, run nothing")
    ap.add_argument("--no-switch", action="store_true", help="compile side and P4Info only")
    ap.add_argument("--seed-timeout", type=float, default=300, help="seconds one seed may take before the run "
                    "is stopped with a stack dump")
    a = ap.parse_args(argv)
    if a.show is not None:
        c = generate(a.show)
        print(c.source)
        for p, f in c.frames:
            print(p, f.hex())
        return 0
    from diff_session import Targets
    targets = None if a.no_switch else Targets()
    out, stats, kinds = Path(a.out), Counter(), Counter()
    t0 = time.monotonic()
    try:
        seeds = parse_seeds(a.seeds)
        for k, seed in enumerate(seeds):
            # a seed that hangs (a switch wedged past its own timeouts) ends the run with every
            # thread's stack instead of stalling it; rerun from the next seed
            faulthandler.dump_traceback_later(a.seed_timeout, exit=True)
            case = generate(seed)
            found = check(targets, case, stats)
            faulthandler.cancel_dump_traceback_later()
            if any(kind != "bmv2-refused" for kind, _ in found):
                write_finding(out, seed, case, found)
                kinds.update(kind for kind, _ in found if kind != "bmv2-refused")
            print(f"[{k + 1}/{len(seeds)} {time.monotonic() - t0:.0f}s] seed {seed}: "
                  + (", ".join(kind for kind, _ in found) or "ok"), flush=True)
    finally:
        if targets is not None:
            targets.stop()
    acc = stats["p4c_accepted"]
    print(f"seeds {len(seeds)}, p4c accepted {acc} ({100 * acc / max(1, len(seeds)):.0f} %), "
          f"findings {dict(kinds)}, stats {dict(stats)}")
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
