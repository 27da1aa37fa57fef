"""Guards of helper mutz67's fixes (diffcases/mutz67.py): for fuzz_mutants ``--kinds mux_expr`` seed 5256 an
``if`` whose condition compares match_kind members stays refused ("could not convert expression to Json")
where p4c keeps the ``if``: an arm's store is read after it, an arm applies a table, returns or exits.
With p4c on PATH its verdict is checked too."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from switch.compiler import P4CompileError, compile_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from diffcases.base import program  # noqa: E402

_T = """    action s(bit<8> v) { hdr.h.c = hdr.h.c + (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(1); }
"""
LIVE = {
    "store_read_after": program("        if (exact == lpm) { meta.m8 = 1; }\n        hdr.h.b = meta.m8;\n"),
    "one_arm_live": program("        if (exact == lpm) { meta.m8 = 1; } else { hdr.h.c = 2; }\n        meta.m8 = hdr.h.b;\n"),
    "store_read_in_between": program("        if (exact == lpm) { meta.m8 = 1; }\n        hdr.h.c = (bit<16>)meta.m8;\n"
                                     "        meta.m8 = hdr.h.b;\n"),
    "table_applied": program("        if (exact == lpm) { t.apply(); }\n        meta.m8 = hdr.h.b;\n", ingress_decls=_T),
    "returns": program("        if (exact != lpm) { meta.m8 = 1; return; }\n        meta.m8 = hdr.h.b;\n"),
    "exits": program("        if (exact != lpm) { exit; }\n        meta.m8 = hdr.h.b;\n"),
}
DEAD = {
    "store_overwritten": program("        if (exact == lpm) { meta.m8 = 1; }\n        meta.m8 = hdr.h.b;\n"),
    "empty": program("        if (exact == lpm) { }\n"),
}


@pytest.mark.parametrize("name", sorted(LIVE))
def test_match_kind_condition_of_a_kept_if_refused(name):
    with pytest.raises(P4CompileError, match="could not convert expression to Json"):
        compile_source(LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(DEAD))
def test_match_kind_condition_of_an_emptied_if_compiles(name):
    compile_source(DEAD[name], f"{name}.p4")


@pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c")
def test_p4c_agrees():
    from test_mutants import p4c_wrong_verdicts
    assert p4c_wrong_verdicts({n: (s,) for n, s in LIVE.items()}, DEAD) == []
