"""p4c_mutate's mutants run on both switches: the differential cases, each with ONE seeded mutation.

    python -m tests.differential.fuzz_mutants --seeds 0-300 [--kinds dead_store,fold_guard] [--out DIR]

``tools/p4c_mutate.py`` judges a mutant by the compilers only (verdict, P4Info, const entries);
most of the mutations p4c accepts -- a store p4c's def-use may drop (``p4c_mutate_defuse``), a
condition its front end folds (``p4c_mutate_fold``), an operator swapped (``p4c_mutate_ops``), a
const entry or value set changed (``p4c_mutate_entries``) -- change what the program does, which
only the switches show.  Here every seed makes one mutant of one differential case
(the cases of ``diffcases.MODULES`` up to ``BASES_UPTO``: its source, or its ``ref_source`` where p4c needs another spelling), which
keeps the case's frames, table writes, multicast groups and clone sessions, and
:func:`fuzz_run.check_case` judges it: the compilers' verdicts and P4Info, then the frames,
digests and counters of p4c -> BMv2 against checkmate-p4c -> checkmate-switch and p4c's JSON on
checkmate-switch.  The seed alone decides the case, the kind and the mutation (``random.Random(seed)``
and p4c_mutate's own mutators), so ``--print`` shows a seed's mutant again.  Default kinds: the
def-use, fold, operator and entry kinds (p4c accepts about half of them; the other kinds are
mostly compile errors, which p4c_mutate judges faster).

Paired kinds (:data:`PAIRED`, not among the defaults; helper mutz72) write the mutant twice: in a
form p4c 1.2.4.8 lacks, which checkmate-p4c accepts on purpose, as the case's ``source``, and in
p4c's spelling as its ``ref_source``.  ``compound_assign``: an assignment ``L = E;`` becomes
``L op= R;`` (``op`` one of ``+ - * & | ^ |+| |-| << >>``, ``R`` the value ``E``, a small
literal, or for a shift a small count) against ``L = L op (R);`` -- checkmate-p4c's lowering of
compound assignment (docs/P4C.md) against p4c's plain assignment, frame by frame.
"""
from __future__ import annotations

import copy
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from diff_harness import Case  # noqa: E402

DEFAULT_KINDS = ("dead_store,late_store,fold_guard,dead_wrap,sub_wrap,op_swap,unary_op,cmp_chain,"
                 "entry_key,entry_action,entry_order,value_set,select_key")
_KINDS = DEFAULT_KINDS.split(",")
_CASES: list[Case] = []
# The bases are the cases of diffcases.MODULES up to and including this module (MODULES only grows
# at its end), so a seed makes the same mutant after later rounds add cases: the CI seeds of
# test_fuzz_mutants and the seeds MUTATION.md reports stay reproducible.  A round that moves it on
# must pick the CI seeds again.
BASES_UPTO = "mutz32"


def _cases() -> list[Case]:
    if not _CASES:
        import importlib
        from diffcases import MODULES
        for m in MODULES[:MODULES.index(BASES_UPTO) + 1]:
            _CASES.extend(c for c in importlib.import_module(f"diffcases.{m}").CASES if c.frames)
    return _CASES


_COMPOUND_OPS = ["+", "-", "*", "&", "|", "^", "|+|", "|-|", "<<", ">>"]


def m_compound_assign(rng, t):
    """``L = E;`` (not a declaration, a constant or a ``#define``; the egress port only where there is
    nothing else) -> (``L op= R;`` text, ``L = L op (R);`` text, position, description), or None."""
    import re

    from tools.p4c_mutate_midend import _ASSIGN
    picks = [m for m in _ASSIGN.finditer(t)
             if not re.search(r"\b(?:bit|int|bool|varbit|const)\b|#|@", t[t.rfind("\n", 0, m.start()):m.start()])]
    # (not the skeletons' `sm.egress_spec = 1`, which would mostly drop the frames, where there is another)
    picks = [m for m in picks if not m.group(1).endswith("egress_spec")] or picks
    if not picks:
        return None
    m = rng.choice(picks)
    lhs, rhs = m.group(1), m.group(2).strip()
    op = rng.choice(_COMPOUND_OPS)
    r = rng.choice(["1", "3"]) if op in ("<<", ">>") else rng.choice([rhs, rhs, "1", "5", "0xff"])
    return (t[:m.start()] + f"{lhs} {op}= {r};" + t[m.end():], t[:m.start()] + f"{lhs} = {lhs} {op} ({r});" + t[m.end():],
            m.start(), f"{lhs} = {rhs[:30]} -> {lhs} {op}= {r[:30]}")


PAIRED = {"compound_assign": m_compound_assign}


def generate(seed: int, kinds: str | None = None) -> Case:
    """Seed -> one mutant of one case (the case unchanged when 50 tries mutate nothing); ``kinds``:
    comma-separated, as ``--kinds`` (default: the CLI's, else :data:`DEFAULT_KINDS`)."""
    from tools.p4c_mutate import MUTATORS
    rng = random.Random(seed)
    cases = _cases()
    pick = kinds.split(",") if kinds else _KINDS
    for _ in range(50):
        base = rng.choice(cases)
        kind = rng.choice(pick)
        text = base.ref_source or base.source
        if kind in PAIRED:
            got = PAIRED[kind](rng, text)
            if got is not None:
                out = copy.deepcopy(base)
                out.name, out.source, out.ref_source = f"mutant_{seed}", got[0], got[1]
                out.note = f"{base.name}: {kind} line {got[0].count(chr(10), 0, got[2]) + 1}: {got[3]}"
                return out
            continue
        mut = MUTATORS[kind](rng, text)
        if mut is not None and mut.text != text:
            out = copy.deepcopy(base)
            out.name, out.source, out.ref_source = f"mutant_{seed}", mut.text, None
            out.note = f"{base.name}: {kind} line {mut.line}: {mut.desc}"
            return out
    return copy.deepcopy(base)


if __name__ == "__main__":
    from fuzz_run import main
    argv = sys.argv[1:]
    if "--kinds" in argv:
        i = argv.index("--kinds")
        _KINDS[:] = argv[i + 1].split(",")
        del argv[i:i + 2]
    sys.exit(main(generate, __doc__, "/tmp/fuzz-mutants", argv))
