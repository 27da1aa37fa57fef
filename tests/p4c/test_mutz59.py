"""Guards of helper mutz59's fixes (diffcases/mutz59.py): for fuzz_mutants seed 4648 a parser store whose
`?:` holds a division p4c's BMv2 back end cannot evaluate at run time stays refused where the store is
live: nothing overwrites it, or a read of the field comes before the overwrite; for seed 6376 a shift by
a bit<32> amount stays refused where the mid end's constants do not fold it (a case of a switch with two
cases, or a run-time operand).  With p4c on PATH its verdict is checked too."""
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
    "shift_folded_by_the_case_copies": program("        bit<8> v = 1;\n        switch (hdr.h.a) { 5: { v = 2; hdr.h.c = 7; } }\n"
                                               "        hdr.h.d = (bit<32>)v << (bit<32>)hdr.h.c;\n"),
}
SHIFT_LIVE = {
    "shift_after_two_cases": program("        bit<8> v = 1;\n        switch (hdr.h.a) { 5: { v = 2; hdr.h.c = 7; } 6: { v = 3; } }\n"
                                     "        hdr.h.d = (bit<32>)v << (bit<32>)hdr.h.c;\n"),
    "shift_by_a_field": program("        hdr.h.d = (bit<32>)hdr.h.b << (bit<32>)hdr.h.c;\n"),
}


@pytest.mark.parametrize("name", sorted(LIVE))
def test_live_division_store_refused(name):
    with pytest.raises(P4CompileError, match="divisor must be a compile-time power of two"):
        compile_source(LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(SHIFT_LIVE))
def test_live_wide_shift_refused(name):
    with pytest.raises(P4CompileError, match="shift amount limited to 8 bits"):
        compile_source(SHIFT_LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(DEAD))
def test_dead_division_store_compiles(name):
    compile_source(DEAD[name], f"{name}.p4")


@pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c")
def test_p4c_agrees():
    from test_mutants import p4c_wrong_verdicts
    assert p4c_wrong_verdicts({n: (s,) for n, s in {**LIVE, **SHIFT_LIVE}.items()}, DEAD) == []


_HASH_BOOL = "        bool hb; hash(hb, HashAlgorithm.crc16, 16w0, { hdr.h.d }, 32w2);\n        if (hb) { hdr.h.b = 0xb1; }\n"


@pytest.mark.parametrize("pre, refused", [("        return;\n", False), ("        { return; }\n", False),
                                          ("        if (hdr.h.a == 1) { return; }\n", True), ("", True)])
def test_load_refusal_past_a_return(pre, refused):
    """Seed 6505: a hash into a bool past a plain `return` is not in p4c's JSON (simple_switch loads it);
    past a conditional one it is (simple_switch dies loading it: the build's load_error)."""
    prog = compile_source(program(pre + _HASH_BOOL), "hash_bool.p4")
    assert bool(prog.device_config.get("load_error")) == refused
