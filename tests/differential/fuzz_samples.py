"""Real programs, random entries and frames: p4c -> BMv2 against checkmate-p4c -> checkmate-switch.

    python -m tests.differential.fuzz_samples PATHS... [--seeds 0-3] [--out DIR] [--no-switches] [--print]

PATHS are ``.p4`` files or folders of them (p4c's samples, the tutorials, the project's
conformance programs).  Each program is read once (:func:`fuzz_samples_gen.load`: local
``#include "..."`` files pasted in, p4c's JSON and P4Info, its STF frames), and every seed makes
one case of it (:func:`fuzz_samples_gen.generate`) judged by :func:`fuzz_run.check_case` -- P4Info,
frames/digests/counters on both switches, p4c's JSON on checkmate-switch -- in ONE
:class:`diff_session.Targets` for the whole run.  A program p4c rejects, or one whose output
depends on queue state, is skipped and listed with the reason.  A case that disagrees is written
to ``OUT/<program>-<seed>/`` (see :func:`fuzz_run.write_finding`).
"""
from __future__ import annotations

import argparse
import copy
import faulthandler
import json
import os
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_run import Outcome, check_case, parse_seeds, write_finding  # noqa: E402
from fuzz_samples_gen import Program, generate, load, without_cut_frames  # noqa: E402

DEFAULT_OUT = "/tmp/fuzz-samples"


def program_files(paths) -> list[Path]:
    """The ``.p4`` files named or under the folders named, sorted, v1model ones only."""
    out = []
    for p in map(Path, paths):
        files = sorted(p.rglob("*.p4")) if p.is_dir() else [p]
        out += [f for f in files if "V1Switch" in f.read_text(errors="replace")]
    return out


def judge(targets, case, seed: int, random: bool = False) -> Outcome:
    """:func:`fuzz_run.check_case`; a FRAMES/JSONPATH difference that goes away without the
    case's cut frames is relabelled STALE-READ (BMv2's undefined reads of invalid headers, see
    :func:`fuzz_samples_gen.without_cut_frames`), not a finding of ours.  ``random``: the program
    calls ``random()`` over a range (:func:`fuzz_samples_gen.draws_random`), each switch draws
    from its own generator, so its FRAMES/JSONPATH differences are RANDOM (conformance/test_random
    checks the range).  A difference BMv2's own fresh runs disagree on is BMV2-FLAKY already
    (``fuzz_run._judged``: a stale read that changes from run to run, hash_bits-163)."""
    o = check_case(targets, case, seed)
    if random:   # (check_case's reruns on fresh BMv2 processes call most of them BMV2-FLAKY)
        o.findings = [("RANDOM" if k in ("FRAMES", "JSONPATH", "BMV2-FLAKY") else k, t) for k, t in o.findings]
    if o.ours and targets is not None and (bare := without_cut_frames(case)) is not None:
        if not check_case(targets, bare, seed).ours:
            # each cut frame alone, right after a pipeline load: a difference there is no stale read
            for i in sorted(case.cut):
                alone = copy.copy(bare)
                alone.frames, alone.one_by_one = [case.frames[i]], True
                if check_case(targets, alone, seed).ours:
                    o.findings.append(("FRAMES", f"cut frame {i} alone differs: {case.frames[i][0]} "
                                                 f"{case.frames[i][1].hex()}"))
                    return o
            o.findings = [("STALE-READ" if k in ("FRAMES", "JSONPATH") else k, t) for k, t in o.findings]
    return o


def run(paths, seeds, root: Path | None, switches: bool = True, seed_timeout: float = 300,
        log=sys.stderr) -> dict:
    """Every (program, seed); the counts, the failing cases, the skipped programs."""
    from diff_session import Targets
    from diff_targets import bmv2_available

    targets = Targets() if switches and bmv2_available() is None else None
    counts, kinds, failing, skipped, not_ours = Counter(), Counter(), [], {}, []
    t0 = time.monotonic()
    files = program_files(paths)
    try:
        for i, path in enumerate(files):
            prog: Program = load(path)
            if prog.skip:
                skipped[str(path)] = prog.skip
                print(f"[{i + 1}/{len(files)}] {path}: skipped ({prog.skip})", file=log, flush=True)
                continue
            counts["programs"] += 1
            for seed in seeds:
                label = f"{path.parent.name}/{path.stem}-{seed}"
                faulthandler.dump_traceback_later(seed_timeout, exit=True)
                case = None
                try:
                    case = generate(prog, seed)
                    o = judge(targets, case, seed, random=prog.random)
                except Exception:  # noqa: BLE001
                    o = Outcome(seed, findings=[("CRASH", "driver: " + traceback.format_exc()[-3000:])])
                faulthandler.cancel_dump_traceback_later()
                counts["cases"] += 1
                counts["frames_in"] += len(case.frames) if case else 0
                counts["entries"] += len(case.entries) if case else 0
                counts["bmv2_frames_out"] += o.frames_out
                found = sorted({k for k, _ in o.findings})
                kinds.update(found)
                if o.ours:
                    failing.append(label)
                elif o.findings:
                    not_ours.append(label)
                else:
                    counts["agree"] += 1
                if root is not None and o.findings and case is not None:
                    o.seed = f"{path.parent.name}-{path.stem}-{seed}"
                    write_finding(root, case, o)
                print(f"[{i + 1}/{len(files)} {time.monotonic() - t0:.0f}s] {label}: {' '.join(found) or 'agree'} "
                      f"({len(case.frames) if case else 0} frames, {len(case.entries) if case else 0} entries, "
                      f"{o.frames_out} out)", file=log, flush=True)
    finally:
        faulthandler.cancel_dump_traceback_later()
        if targets is not None:
            targets.stop()
    return {"counts": dict(counts), "kinds": dict(kinds), "failing": failing, "not_ours": not_ours,
            "skipped": skipped}


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the switches on a kill too
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help=".p4 files or folders of them")
    ap.add_argument("--seeds", default="0-3", help="e.g. 0-3 or 3,17")
    ap.add_argument("--out", default=DEFAULT_OUT, help="where disagreements are written")
    ap.add_argument("--print", action="store_true", help="print the cases' frames and writes, run nothing")
    ap.add_argument("--no-switches", action="store_true", help="compile side and P4Info only")
    ap.add_argument("--seed-timeout", type=float, default=300)
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    if a.print:
        for path in program_files(a.paths):
            prog = load(path)
            if prog.skip:
                print(f"// {path}: skipped ({prog.skip})")
                continue
            for s in seeds:
                c = generate(prog, s)
                print(f"// {path} seed {s}\n" + "".join(f"//   frame {p} {f.hex()}\n" for p, f in c.frames)
                      + "".join(f"//   {e}\n" for e in c.entries + c.defaults)
                      + f"//   mcast {c.mcast} clones {c.clones}")
        return 0
    res = run(a.paths, seeds, Path(a.out), switches=not a.no_switches, seed_timeout=a.seed_timeout)
    c = res["counts"]
    print(json.dumps(res, indent=1))
    print(f"programs {c.get('programs', 0)} (skipped {len(res['skipped'])}), cases {c.get('cases', 0)}, "
          f"agree {c.get('agree', 0)}, findings {res['kinds']}")
    return 1 if res["failing"] else 0


if __name__ == "__main__":
    sys.exit(main())
