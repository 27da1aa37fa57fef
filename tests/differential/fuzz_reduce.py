"""Shrink a random program that disagrees with BMv2 to a small one that still does.

Greedy line-level delta debugging: a *unit* is one statement line, or a line opening a
``{`` block together with everything up to its matching ``}`` (an ``} else {`` arm counts as
part of the block).  Units are tried for removal, largest first, then single lines; a removal
is kept when p4c still accepts the program and the same kind of disagreement remains.
Declarations the remaining code still needs make p4c reject the removal, so they stay.

    python -m tests.differential.fuzz_reduce /work/corpus/fuzz/fuzzx/17   # writes reduced.p4 there
    python -m tests.differential.fuzz_reduce --gen fuzz_pre --seed 17 [--kind FRAMES] [--out DIR]

From a finding's folder the program and the frames of ``frames.txt`` are reused (the kind is the
first one of ``kinds.json``, else of ``findings.txt``).  With ``--gen MODULE --seed N`` the
generator (``tests.differential.MODULE``) rebuilds the whole :class:`Case` -- table entries, default
actions, multicast groups and their changes between frames, clone sessions, one-by-one mode -- and
only its source is shrunk (``dataclasses.replace``), so a finding that needs its writes keeps them;
a removal that leaves a write pointing at nothing fails to program and is not kept.  A case with a
``ref_source`` (fuzz_exprs from seed 5000: loops and compound assignments spelled out for p4c) is
shrunk as p4c's spelling alone when both compilers show the disagreement on it, else through the
generator's ``make_template`` (its program text, both spellings built from each candidate;
``reduced.ref.p4`` is p4c's).  The kind is the
first one ``check_case`` reports unless given.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case, TargetError, compile_checkmate, compile_p4c  # noqa: E402


def units(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges that can be removed as a whole (end exclusive)."""
    out = []
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or s.startswith(("#", "//", "header ", "struct ", "parser ", "control ", "state ", "V1Switch")):
            continue
        if s.endswith("{") and not s.startswith("}"):
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                j += 1
                if depth == 0:
                    break
            if s.startswith(("apply", "action", "bit<", "int<", "bool ")) and "(" in s and s.endswith(") {") \
                    or s.startswith("apply"):
                if not s.startswith("apply"):
                    out.append((i, j))     # a whole function / action
                continue
            out.append((i, j))
        elif s.endswith(";") and not s.startswith(("pkt.", "transition", "sm.egress_spec")):
            out.append((i, i + 1))
    return out


def still_fails(targets, case: Case, kind: str) -> bool:
    from switch.compiler import P4CompileError
    from diff_session import compare
    ref = compile_p4c(case)
    if isinstance(ref, str):
        return kind == "INVALID-ACCEPTED" and _ours_accepts(case)
    if kind == "INVALID-ACCEPTED":
        return False
    try:
        ours = compile_checkmate(case)
    except P4CompileError:
        return kind == "REJECT"
    except Exception:
        return kind == "CRASH"
    if kind in ("REJECT", "CRASH"):
        return False
    if kind == "P4INFO":
        from switch.compiler.p4info import canonical_text
        return canonical_text(ref.p4info) != canonical_text(ours.p4info)
    try:
        expected, diff, dead = compare(targets, case, ref, ours if kind == "FRAMES" else ref)
    except TargetError:
        return False
    return expected is not None and bool(diff)   # (None: BMv2 died in the middle)


def _ours_accepts(case) -> bool:
    try:
        compile_checkmate(case)
        return True
    except Exception:
        return False


def reduce(targets, case: Case, kind: str, log=sys.stderr, template=None) -> str:
    """The smallest source found (line units removed greedily) for which ``case`` -- everything but
    its source unchanged -- still shows a disagreement of ``kind``.  With ``template`` -- ``(text,
    resolve)``, a generator's program text with placeholders and ``resolve(text, ref)`` that spells
    it for checkmate-p4c (False) or for p4c (True, the case's ``ref_source``) -- the text is what
    shrinks, both spellings built from each candidate; the shrunk text is returned."""
    lines = (template[0] if template else case.source).splitlines()
    n = 0

    def ok(cand):
        nonlocal n
        n += 1
        text = "\n".join(cand) + "\n"
        src, ref = (template[1](text, False), template[1](text, True)) if template else (text, None)
        return still_fails(targets, dataclasses.replace(case, name=f"reduce_{n}", category="reduce", source=src,
                                                        ref_source=ref if ref != src else None), kind)

    changed = True
    while changed:   # passes from the bottom up: a removal does not move the units above it
        changed = False
        for a, b in sorted(units(lines), key=lambda u: (-u[0], u[0] - u[1])):
            if b > len(lines) or a >= len(lines):
                continue
            cand = lines[:a] + lines[b:]
            if ok(cand):
                lines, changed = cand, True
                print(f"  {len(lines)} lines ({n} tries)", file=log, flush=True)
    return "\n".join(lines) + "\n"


def _finding_kind(d: Path) -> str:
    if (d / "kinds.json").exists():
        return json.loads((d / "kinds.json").read_text())[0]
    for ln in (d / "findings.txt").read_text().splitlines():   # fuzz_run.write_finding's "== KIND"
        if ln.startswith("== "):
            return ln[3:].split()[0]
    raise SystemExit(f"{d}: no kinds.json or findings.txt to take the kind from (give --kind)")


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the switches on a kill too
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("finding", nargs="?", help="a finding's folder (program.p4, frames.txt)")
    ap.add_argument("--gen", help="generator module under tests.differential (e.g. fuzz_pre)")
    ap.add_argument("--seed", type=int, help="with --gen: the seed to rebuild")
    ap.add_argument("--kind", help="the disagreement to keep (FRAMES, P4INFO, REJECT, ...)")
    ap.add_argument("--out", type=Path, help="where reduced.p4 goes (default: the finding's folder, or .)")
    a = ap.parse_args(argv)
    if (a.gen is None) == (a.finding is None) or (a.gen is not None and a.seed is None):
        ap.error("give a finding's folder, or --gen MODULE --seed N")
    from diff_session import Targets
    targets = Targets()
    try:
        template = None
        if a.gen is not None:
            mod = importlib.import_module(f"tests.differential.{a.gen}")
            case = (getattr(mod, "generate", None) or mod.make_case)(a.seed)
            kind = a.kind
            if kind is None:
                from fuzz_run import check_case
                found = check_case(targets, case, a.seed).findings
                if not found:
                    raise SystemExit(f"{a.gen} seed {a.seed}: no disagreement to reduce")
                kind = found[0][0]
            if case.ref_source:
                case, template = _with_ref_source(targets, case, kind, getattr(mod, "make_template", None), a.seed)
            out_dir = a.out or Path(".")
        else:
            d = Path(a.finding)
            frames = [(int(p), bytes.fromhex(h))
                      for p, h in (ln.split() for ln in (d / "frames.txt").read_text().splitlines())]
            case = Case(name="finding", category="reduce", source=(d / "program.p4").read_text(), frames=frames)
            kind = a.kind or _finding_kind(d)
            out_dir = a.out or d
        print(f"reducing a {kind} disagreement ({len(case.source.splitlines())} lines)", file=sys.stderr)
        out = reduce(targets, case, kind, template=template)
    finally:
        targets.stop()
    out_dir.mkdir(parents=True, exist_ok=True)
    if template is not None:   # the shrunk text in both spellings
        out, ref = template[1](out, False), template[1](out, True)
        if ref != out:
            (out_dir / "reduced.ref.p4").write_text(ref)
    (out_dir / "reduced.p4").write_text(out)
    print(out)
    return 0


def _with_ref_source(targets, case: Case, kind: str, make_template, seed: int):
    """A case whose p4c program is its ``ref_source`` (p4c's spelling of constructs it lacks):
    when p4c's spelling compiled by both shows the disagreement too, that plain program is what
    shrinks (``(case, None)``); otherwise the generator's program text (``make_template(seed)``),
    both spellings built from each candidate; without one, the source alone shrinks (the
    reference stays whole)."""
    plain = dataclasses.replace(case, name="reduce_plain", category="reduce", source=case.ref_source, ref_source=None)
    if still_fails(targets, plain, kind):
        print("p4c's spelling shows it on both compilers: shrinking that", file=sys.stderr)
        return plain, None
    template = make_template(seed) if make_template else None
    if template is None:
        print("warning: the reference source is not shrunk (no template from the generator)", file=sys.stderr)
    return case, template


if __name__ == "__main__":
    sys.exit(main())
