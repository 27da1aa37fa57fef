"""``(int)x`` -- a cast to the arbitrary-precision integer type -- of a compile-time constant
is its value as its type reads it (``(int)4w5`` is 5, ``(int)(int<4>)-1`` is -1), as p4c folds
it.  Of a run-time value it is an error at the cast: p4c 1.2.4.8 accepts that and its BMv2
back end masks the value to zero bits (``(int)h.c + 1`` is 1), which no program means, so
checkmate-p4c refuses it (docs/CONFORMANCE.md).  With p4c on PATH the valid program is also
checked against p4c's verdict."""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source
from switch.runtime import Pipeline

TOP = """const bit<4> A4 = 0b0101;
const int IB = (int)A4;
const int<4> D4 = -1;
const int IE = (int)D4;
const bit<8> SUM = (bit<8>)(IB + IE + (int)8s3);
"""


def test_constant_cast_to_int(tmp_path):
    text = program(top=TOP, body="        hdr.h.a = SUM;\n        hdr.h.c = (bit<8>)(bit<7>)IE;\n        sm.egress_spec = 1;")
    prog = compile_source(text, "prog.p4")
    out = Pipeline(prog.device_config).process(0, bytes([9, 0, 0, 0]))
    assert out == [(1, bytes([5 - 1 + 3, 0, 0, 127]))]
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"


def test_runtime_value_cast_to_int():
    text = program(body="        hdr.h.a = (bit<8>)((int)hdr.h.c + 1);")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, col = line_of(text, "(int)hdr")
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: only a compile-time constant"), str(ei.value)
