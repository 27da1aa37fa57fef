"""Guards of helper mutz59's fix for fuzz_mutants seed 4648 (diffcases/mutz59.py): a parser store whose
`?:` holds a division p4c's BMv2 back end cannot evaluate at run time stays refused where the store is
live: nothing overwrites it, or a read of the field comes before the overwrite.  With p4c on PATH its
verdict is checked too."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from switch.compiler import P4CompileError, compile_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from diffcases.base import program  # noqa: E402

_PARSER = """    state start {{
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[0].a = (hdr.s[0].a == 0) ? (hdr.h.b / 3) : hdr.s[0].a;
{rest}        transition accept;
    }}"""


def _prog(rest: str) -> str:
    return program("", fields="    h_t[2] s;\n", parser=_PARSER.format(rest=rest),
                   deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);")


LIVE = {
    "not_overwritten": _prog(""),
    "read_before_the_overwrite": _prog("        hdr.h.c = (bit<16>)hdr.s[0].a;\n        hdr.s[0].a = hdr.h.b;\n"),
}
DEAD = {
    "overwritten": _prog("        pkt.extract(hdr.h2);\n        hdr.s[0].a = hdr.h.b;\n"),
}


@pytest.mark.parametrize("name", sorted(LIVE))
def test_live_division_store_refused(name):
    with pytest.raises(P4CompileError, match="divisor must be a compile-time power of two"):
        compile_source(LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(DEAD))
def test_dead_division_store_compiles(name):
    compile_source(DEAD[name], f"{name}.p4")


@pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c")
def test_p4c_agrees():
    from test_mutants import p4c_wrong_verdicts
    assert p4c_wrong_verdicts({n: (s,) for n, s in LIVE.items()}, DEAD) == []
