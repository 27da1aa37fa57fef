"""The driver the random-program generators share: check one case against real p4c + BMv2, run
many seeds, write what disagrees.

A generator (``fuzz_gen_exprs.make_case``, ``fuzz_parsers_gen.generate``,
``fuzz_tables.generate``) turns a seed into a :class:`diff_harness.Case`; everything after that
is here, so the three generators judge their programs the same way:

* compile side -- p4c accepts and checkmate-p4c refuses (REJECT), p4c refuses and checkmate-p4c
  accepts (INVALID-ACCEPTED), checkmate-p4c raises something other than a compile error (CRASH);
  p4c's own internal error ("Compiler Bug") on a program we accept is P4C-BUG, not ours;
* P4INFO -- the canonical text of both P4Info protobufs (``switch.compiler.p4info``) differs;
* FRAMES -- p4c -> BMv2 against checkmate-p4c -> checkmate-switch: output frames per port,
  digests, counters (:func:`diff_session.compare`);
* JSONPATH -- p4c's JSON on checkmate-switch against BMv2 (BMv2-JSON loader and runtime bugs,
  apart from checkmate-p4c's);
* BMV2-FLAKY -- a FRAMES/JSONPATH difference run again on fresh BMv2 processes lies only where
  BMv2's runs differ among themselves (``diff_session.bmv2_reruns``): BMv2's inconsistency;
* LOAD-REFUSED -- checkmate-p4c's build carries a ``load_error`` (a program simple_switch refuses to
  load), simple_switch does refuse p4c's JSON and so does the BMv2-JSON loader: not compared
  (simple_switch_grpc answers the push OK and dies at the first packet; not a finding of ours);
* a switch that died or hung is CRASH when it is ours and BMV2-DIED when it is BMv2 (the
  reference could not run the program: nothing to compare, not a finding of ours).

``run`` uses one :class:`diff_session.Targets` for all seeds (p4c's output is cached by source
hash); each seed that disagrees is written to ``OUT/<seed>/`` (program.p4, frames.txt,
writes.txt, findings.txt) and p4c's refusals to ``OUT/rejected/``.  ``main`` is the CLI of
every generator module (``--seeds 0-500 --out DIR``, ``--print``, ``--no-switches``).
"""
from __future__ import annotations

import argparse
import difflib
import faulthandler
import json
import os
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case, TargetError, compile_checkmate, compile_p4c  # noqa: E402

#: outcomes that are not a disagreement of ours
NOT_OURS = {"BMV2-DIED", "P4C-BUG", "STALE-READ", "LOAD-REFUSED", "RANDOM",   # STALE-READ, RANDOM: fuzz_samples.judge
            "BMV2-FLAKY"}   # BMV2-FLAKY: BMv2's own runs of the case differ (_judged)


@dataclass
class Outcome:
    seed: int
    p4c_ok: bool = False
    ours_ok: bool = False
    findings: list = field(default_factory=list)     # [(KIND, text)]
    empty: bool = False                              # BMv2 produced nothing: the case compares little
    frames_out: int = 0                              # BMv2's output frames

    @property
    def ours(self) -> list:
        """The findings that are disagreements of ours."""
        return [(k, t) for k, t in self.findings if k not in NOT_OURS]


def _died(text: str) -> str:
    return "BMV2-DIED" if text.startswith("bmv2") else "CRASH"


def check_case(targets, case: Case, seed: int = 0) -> Outcome:
    """Every check above for one case; ``targets`` None: the compile side and P4Info only."""
    from diff_session import compare
    from switch.compiler import P4CompileError
    from switch.compiler.p4info import canonical_text

    out = Outcome(seed)
    ref = compile_p4c(case)
    out.p4c_ok = not isinstance(ref, str)
    if out.p4c_ok:   # p4c drops tables no path applies: no writes for those
        kept = {t.preamble.name for t in ref.p4info.tables}
        case.entries = [e for e in case.entries if e.table in kept]
        case.defaults = [e for e in case.defaults if e.table in kept]
    ours = None
    try:
        ours = compile_checkmate(case)
        out.ours_ok = True
    except P4CompileError as e:
        if out.p4c_ok:
            out.findings.append(("REJECT", f"checkmate-p4c: {e}"))
    except Exception:  # noqa: BLE001 -- our compiler dying is itself the finding
        out.findings.append(("CRASH", "checkmate-p4c: " + traceback.format_exc()[-3000:]))
        return out
    if not out.p4c_ok:
        if out.ours_ok:
            out.findings.append(("P4C-BUG" if "Compiler Bug" in ref else "INVALID-ACCEPTED", f"p4c:\n{ref[-3000:]}"))
        return out
    if ours is not None:
        a, b = canonical_text(ref.p4info), canonical_text(ours.p4info)
        if a != b:
            out.findings.append(("P4INFO", "\n".join(difflib.unified_diff(
                a.splitlines(), b.splitlines(), "p4c", "checkmate-p4c", lineterm="", n=2))[:6000]))
    if targets is None:
        return out
    refused = _load_refused(ours, ref) if ours is not None else None
    if refused is not None:   # simple_switch refuses the JSON; checkmate-switch refuses both builds
        out.findings.append(refused)
        return out
    runs = [("FRAMES", ours)] if ours is not None else []
    runs.append(("JSONPATH", ref))
    for kind, mine in runs:
        try:
            expected, diff, dead = compare(targets, case, ref, mine)
        except TargetError as e:
            out.findings.append((_died(str(e)), f"{kind}: {str(e)[:4000]}"))
            if str(e).startswith("bmv2"):
                break   # BMv2 cannot run p4c's JSON: nothing to compare against
            continue
        for d in dead:
            out.findings.append((_died(d), f"{kind}: {d[:4000]}"))
        if expected is None:
            break   # BMv2 died in the middle of the comparison (diff_session.compare): its death is recorded
        if diff:
            out.findings.append(_judged(targets, case, ref, mine, expected, kind, diff))
        out.empty = not (expected.ports or expected.digests or any(expected.counters.values()))
        out.frames_out = sum(len(v) for v in expected.ports.values())
    return out


def _judged(targets, case, ref, mine, expected, kind, diff):
    """A FRAMES/JSONPATH difference, run again on fresh BMv2 processes (diff_session.bmv2_reruns):
    BMV2-FLAKY when it lies only in parts BMv2 answers differently from run to run, else ``kind``
    with the differences where BMv2's runs agree (and the parts they do not)."""
    from diff_session import bmv2_reruns
    try:
        stable, flaky = bmv2_reruns(targets, case, ref, mine, expected)
    except TargetError as e:   # a switch died on the reruns: the first comparison stands
        return kind, "\n".join(diff) + f"\n(rerun: {str(e)[:300]})"
    if not flaky:
        return kind, "\n".join(diff)
    text = "\n".join(flaky)
    if not stable:
        return "BMV2-FLAKY", f"{kind}: BMv2's runs differ (checkmate-switch not judged there):\n{text}"
    return kind, "\n".join(stable) + f"\n(BMv2's runs differ elsewhere:\n{text})"


def _load_refused(ours, ref):
    """A build checkmate-p4c marks as one simple_switch refuses to load (its ``load_error``:
    switch/compiler/elab_load_refusals): simple_switch_grpc answers the config push OK and dies at
    the first packet (fuzz_mutants seed 1061, a bool hash base), checkmate-switch refuses the
    push -- nothing to compare.  LOAD-REFUSED when simple_switch does refuse p4c's JSON (started
    on it, it exits) and the BMv2-JSON loader refuses it too, JSONPATH when the loader takes it.
    None: the build has no load_error, or simple_switch loads the JSON (then the runs judge)."""
    import shutil
    import socket
    import subprocess
    import tempfile
    from switch.bmv2json import translate
    from switch.runtime import Pipeline
    try:
        err = json.loads(ours.device_config).get("load_error")
    except (ValueError, AttributeError):
        return None
    if not err or shutil.which("simple_switch") is None:
        return None
    with tempfile.TemporaryDirectory() as d, socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
        (Path(d) / "p.json").write_bytes(ref.device_config)
        try:
            subprocess.run(["simple_switch", "--thrift-port", str(port), "--device-id", str(port % 1000),
                            "--notifications-addr", f"ipc://{d}/n.ipc", str(Path(d) / "p.json")],
                           capture_output=True, timeout=4)
        except subprocess.TimeoutExpired:
            return None   # it loads the JSON
    try:
        Pipeline(translate(json.loads(ref.device_config), ref.p4info))
    except Exception:  # noqa: BLE001 -- any refusal of p4c's JSON agrees
        return ("LOAD-REFUSED", f"simple_switch refuses p4c's JSON: {err[:1000]}")
    return ("JSONPATH", f"checkmate-p4c's build is refused ({err[:1000]}), the BMv2-JSON loader takes p4c's JSON")


def _only_bmv2_died(o: Outcome) -> bool:
    kinds = {k for k, _ in o.findings}
    return "BMV2-DIED" in kinds and "CRASH" not in kinds


def assert_agrees(targets, case: Case, seed: int, cli: str) -> Outcome:
    """The check of a CI test's fixed seed: p4c accepts the program (else the seed is a
    generator matter) and nothing disagrees; ``cli`` names the generator module whose
    ``--seeds N --print`` shows the program."""
    from diff_session import redo_if_bmv2_died
    o = redo_if_bmv2_died(lambda: check_case(targets, case, seed), _only_bmv2_died)
    assert o.p4c_ok, f"seed {seed}: p4c rejects the generated program (pick another seed):\n{o.findings}"
    assert not o.findings, f"seed {seed} (python -m tests.differential.{cli} --seeds {seed} --print):\n" + \
        "\n".join(f"{k}: {t[:3000]}" for k, t in o.findings) + "\n--- program:\n" + case.source
    return o


def write_finding(root: Path, case: Case, outcome: Outcome) -> Path:
    d = root / str(outcome.seed)
    d.mkdir(parents=True, exist_ok=True)
    (d / "program.p4").write_text(case.source, encoding="utf-8")
    (d / "frames.txt").write_text("".join(f"{p} {f.hex()}\n" for p, f in case.frames), encoding="utf-8")
    (d / "writes.txt").write_text("".join(f"{e}\n" for e in case.entries + case.defaults)
                                  + f"mcast {case.mcast}\nmcast_changes {case.mcast_changes}\nclones {case.clones}\n"
                                  f"one_by_one {case.one_by_one}\n",
                                  encoding="utf-8")
    (d / "findings.txt").write_text("".join(f"== {k}\n{t}\n" for k, t in outcome.findings), encoding="utf-8")
    return d


def parse_seeds(spec: str) -> list[int]:
    """``0-500``, ``3,17,40-45``."""
    out = []
    for part in filter(None, spec.split(",")):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi) + 1) if hi else [int(lo)]
    return out


def run(generate: Callable[[int], Case], seeds, root: Path | None, switches: bool = True,
        seed_timeout: float = 300, log=sys.stderr) -> dict:
    """Check every seed; the counts, and the seeds with findings of ours."""
    from diff_session import Targets
    from diff_targets import bmv2_available

    targets = Targets() if switches and bmv2_available() is None else None
    counts, kinds, failing = Counter(), Counter(), []
    t0 = time.monotonic()
    try:
        for i, seed in enumerate(seeds):
            # a seed that hangs (a switch wedged past its own timeouts) ends the run with every
            # thread's stack instead of stalling it; rerun from the next seed
            faulthandler.dump_traceback_later(seed_timeout, exit=True)
            case = generate(seed)
            try:
                o = check_case(targets, case, seed)
            except Exception:  # noqa: BLE001
                o = Outcome(seed, findings=[("CRASH", "driver: " + traceback.format_exc()[-3000:])])
            faulthandler.cancel_dump_traceback_later()
            counts["seeds"] += 1
            counts["p4c_accepted"] += o.p4c_ok
            counts["empty"] += o.empty
            counts["bmv2_frames_out"] += o.frames_out
            found = sorted({k for k, _ in o.findings})
            kinds.update(found)
            if o.ours:
                failing.append(seed)
            if root is not None and o.findings:
                write_finding(root, case, o)
            if root is not None and not o.p4c_ok:
                rej = root / "rejected"
                rej.mkdir(parents=True, exist_ok=True)
                (rej / f"{seed}.p4").write_text(case.source, encoding="utf-8")
            print(f"[{i + 1}/{len(seeds)} {time.monotonic() - t0:.0f}s] seed {seed}: "
                  f"{'ok' if o.p4c_ok else 'p4c-rejects'} {' '.join(found) or '-'}", file=log, flush=True)
    finally:
        faulthandler.cancel_dump_traceback_later()
        if targets is not None:
            targets.stop()
    return {"counts": dict(counts), "kinds": dict(kinds), "failing": failing}


def main(generate: Callable[[int], Case], doc: str, default_out: str, argv=None) -> int:
    """The CLI of a generator module: ``python -m tests.differential.fuzz_X --seeds 0-500 --out DIR``."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the switches on a kill too
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-49", help="e.g. 0-500 or 3,17,40-45")
    ap.add_argument("--out", default=default_out, help="where disagreements are written (one folder per seed)")
    ap.add_argument("--print", action="store_true", help="print the seeds' programs and frames, run nothing")
    ap.add_argument("--no-switches", action="store_true", help="compile side and P4Info only")
    ap.add_argument("--seed-timeout", type=float, default=300,
                    help="seconds one seed may take before the run stops with a stack dump")
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    if a.print:
        for s in seeds:
            c = generate(s)
            print(f"// seed {s}\n{c.source}\n// frames:\n" + "".join(f"//   {p} {f.hex()}\n" for p, f in c.frames))
        return 0
    res = run(generate, seeds, Path(a.out), switches=not a.no_switches, seed_timeout=a.seed_timeout)
    c = res["counts"]
    print(json.dumps(res, indent=1))
    print(f"seeds {c.get('seeds', 0)}, p4c accepted {c.get('p4c_accepted', 0)}, findings {res['kinds']}")
    return 1 if res["failing"] else 0
