"""Shrink a random program that disagrees with BMv2 to a small one that still does.

Greedy line-level delta debugging: a *unit* is one statement line, or a line opening a
``{`` block together with everything up to its matching ``}`` (an ``} else {`` arm counts as
part of the block).  Units are tried for removal, largest first, then single lines; a removal
is kept when p4c still accepts the program and the same kind of disagreement remains.
Declarations the remaining code still needs make p4c reject the removal, so they stay.

    python -m tests.differential.fuzz_reduce /work/corpus/fuzz/fuzzx/17   # writes reduced.p4 there

The frames of ``frames.txt`` are reused; the kind is the first one of ``kinds.json``.
"""
from __future__ import annotations

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
        _, diff, dead = compare(targets, case, ref, ours if kind == "FRAMES" else ref)
    except TargetError:
        return False
    return bool(diff)


def _ours_accepts(case) -> bool:
    try:
        compile_checkmate(case)
        return True
    except Exception:
        return False


def reduce(targets, source: str, frames, kind: str, log=sys.stderr) -> str:
    lines = source.splitlines()
    n = 0

    def ok(cand):
        nonlocal n
        n += 1
        return still_fails(targets, Case(name=f"reduce_{n}", category="reduce", source="\n".join(cand) + "\n",
                                         frames=frames), kind)

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


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the switches on a kill too
    from diff_session import Targets
    d = Path((argv or sys.argv[1:])[0])
    kind = json.loads((d / "kinds.json").read_text())[0]
    frames = [(int(p), bytes.fromhex(h)) for p, h in (ln.split() for ln in (d / "frames.txt").read_text().splitlines())]
    targets = Targets()
    try:
        out = reduce(targets, (d / "program.p4").read_text(), frames, kind)
    finally:
        targets.stop()
    (d / "reduced.p4").write_text(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
