"""Keep real p4c's output for the conformance programs in tests/bmv2compat/p4c_out/.

``python tests/bmv2compat/freeze.py`` (with p4c installed, PYTHONPATH=repo root) rewrites
``p4c_out/<program>.json`` (the BMv2 JSON without ``source_info``, compact) and
``p4c_out/<program>.p4info.txtpb`` for every program of tests/conformance/programs (and
``p4c_out/pipeline/...`` for tests/pipeline/programs, ``p4c_out/bmv2compat/...`` for this
directory's programs) that p4c accepts, so the BMv2 JSON loader is exercised in CI even where p4c is not installed
(``CHECKMATE_P4C_FROZEN=1``, see test_json_path.py).  test_json_path.py checks that the
frozen files still equal what p4c writes, whenever p4c is there.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from switch.bmv2json.p4c import P4cFailed, run_p4c, strip_source_info

HERE = Path(__file__).resolve().parent
OUT = HERE / "p4c_out"
PROGRAMS = HERE.parent / "conformance" / "programs"
#: (program directory, where its frozen output goes)
SETS = [(PROGRAMS, OUT), (HERE.parent / "pipeline" / "programs", OUT / "pipeline"),
        (HERE / "programs", OUT / "bmv2compat")]


def frozen_pair(src):
    """The current p4c output of ``src`` as (json text, p4info text); P4cFailed if rejected."""
    src = Path(src)
    with tempfile.TemporaryDirectory() as d:
        json_path, p4info_path = run_p4c(src, d)   # (raw: a JSON simple_switch refuses is frozen too)
        j = strip_source_info(json.loads(json_path.read_text()))
        j.pop("program", None)
        return json.dumps(j, separators=(",", ":"), sort_keys=True) + "\n", p4info_path.read_text()


def main() -> int:
    for programs, out in SETS:
        out.mkdir(exist_ok=True)
        for src in sorted(programs.glob("*.p4")):
            try:
                jtext, ptext = frozen_pair(src)
            except P4cFailed as e:
                print(f"skip {src.name}: {e}")
                continue
            (out / f"{src.stem}.json").write_text(jtext)
            (out / f"{src.stem}.p4info.txtpb").write_text(ptext)
            print(f"froze {src.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
