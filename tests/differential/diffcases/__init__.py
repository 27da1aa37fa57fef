"""All differential cases, by category module.  ``KNOWN`` maps a case name to the reason it
still differs from BMv2 (listed in docs/CONFORMANCE.md; the test is a strict xfail, so a
fix makes it fail until the entry is removed)."""
from __future__ import annotations

import importlib

MODULES = ["expressions", "language", "parsers", "tables", "actions", "stacks", "externs", "replication", "frontend", "frontend2", "frontend3", "fetch5", "spec5", "fuzz_mutz", "fuzz_fuzzt", "fuzz_fuzzx", "fuzz_fuzzp", "open6", "lead6", "fuzz_fuzzs", "fuzz_fuzzh", "fuzz_fuzzm", "open7", "lead8", "open8", "lead10", "guide10", "fuzz9", "copyback11", "fuzz11", "fuzz12", "fuzz13", "fuzz14", "fuzz15", "fuzz16", "mutz18", "mutz19", "fuzz17", "mutz20", "fuzz18", "fuzz19", "mutz21", "fuzz20", "mutz22", "mutz23", "fuzz21", "corpus6", "fuzz22", "mutz24", "corpus7", "mutz25", "fuzz23", "mutz26", "fuzz24", "mutz27", "fuzz25", "lead40", "lead41", "corpus11", "mutz28", "fuzz26", "fuzz27", "mutz29", "errs13", "corpus12", "lead42", "corpus13", "fuzz28", "errs14", "mutz30", "errs15", "mutz31", "fuzz29", "corpus14", "mutz32", "corpus15", "errs16", "fuzz30", "corpus16", "corpus17", "errs17", "mutz33", "fuzz31", "regs", "corpus18", "errs18", "fuzz32", "corpus19", "mutz34", "corpus20", "mutz35", "opens", "fuzz33", "errs19", "hashinv", "opens2", "errs20", "fuzz34", "mutz36", "corpus21", "opens3", "opens4", "corpus22", "errs21", "mutz37", "fuzz35", "mutz38", "errs22", "corpus23", "opens5", "errs23", "fuzz36", "mutz39", "fuzz37", "errs24", "corpus24", "opens6", "errs25", "fuzz38", "mutz40", "mutz41", "fuzz39", "errs26", "corpus26", "mutz42", "fuzz40", "errs27", "mutz43", "p4rt38", "errs29", "corpus27", "mutz44", "fuzz41", "keys39", "fuzz42", "mutz46", "corpus28", "p4rt39", "recirc47", "copy48", "uvact49", "fuzz50", "mutz51", "corpus52", "errs54", "stale55", "cpp57", "fuzz58", "mutz59", "corpus60", "p4rt61", "errs62", "stale63", "ovl64", "lead58", "p4rt68", "errs69", "mutz67", "fuzz66", "lead59", "errs74", "fuzz71", "mutz72"]


def all_cases():
    out = []
    for m in MODULES:
        out += importlib.import_module(f"diffcases.{m}").CASES
    names = [c.name for c in out]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate case names: {sorted(dup)}"
    return out


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
