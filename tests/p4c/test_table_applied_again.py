"""A table applied twice on one path is p4c's error "a path from table T back to itself"; the
table named is the one whose second apply comes first in program order (p4c 1.2.4.8, measured:
``t2; t1; t2; t1`` names t2, ``t1; t3; t2; t2; t1`` names t2).  checkmate-p4c chose among the
offenders in set order, so the table it named changed with Python's hash seed (stratum's
complex_hits.p4, corpus11).  Each order is compiled under several hash seeds in subprocesses."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p4c_helpers import line_of, p4c_accepts, program

ROOT = Path(__file__).resolve().parents[2]
LOCALS = "\n".join(f"    table t{i} {{ key = {{ hdr.h.a: exact; }} actions = {{ NoAction; }} }}" for i in (1, 2, 3))
_RUN = """
import sys
from switch.compiler import P4CompileError, compile_file
try:
    compile_file(sys.argv[1])
except P4CompileError as e:
    print(e)
"""


@pytest.mark.parametrize("order,named", [("t2 t1 t2 t1", "t2"), ("t1 t2 t2 t1", "t2"),
                                         ("t3 t2 t3 t2", "t3"), ("t1 t3 t2 t2 t1", "t2"),
                                         ("t1 t2 t3 t1 t2", "t1")])
def test_the_table_applied_again_first_is_named(tmp_path, order, named):
    body = "        " + " ".join(f"{t}.apply();" for t in order.split())
    src = program(locals=LOCALS, body=body)
    path = tmp_path / "twice.p4"
    path.write_text(src)
    line, col = line_of(src, f"table {named} ")
    for seed in range(6):
        out = subprocess.run([sys.executable, "-c", _RUN, str(path)], capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}, timeout=120)
        assert f"twice.p4:{line}:{col + 6}: table I.{named} is applied more than once" in out.stdout, \
            (seed, out.stdout + out.stderr)
    assert p4c_accepts(src, tmp_path) in (False, None)
