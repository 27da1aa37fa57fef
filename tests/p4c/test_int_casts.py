"""``(int)x`` -- a cast to the arbitrary-precision integer type -- of a compile-time constant
is its value as its type reads it (``(int)4w5`` is 5, ``(int)(int<4>)-1`` is -1), as p4c folds
it.  Of a run-time value p4c 1.2.4.8 accepts it and its BMv2 back end masks the value to zero
bits (``(int)h.c + 1`` is 1): checkmate-p4c compiles it to the same 0, so a program p4c takes
runs as on BMv2 (the differential case open6_runtime_value_cast_to_int compares frames).  With
p4c on PATH each program is also checked against p4c's verdict."""
from __future__ import annotations

from p4c_helpers import p4c_accepts, program
from switch.compiler import compile_source
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


def test_runtime_value_cast_to_int(tmp_path):
    text = program(body="        hdr.h.a = (bit<8>)((int)hdr.h.c + 1);\n        hdr.h.b = hdr.h.b - (int)hdr.h.a;\n"
                        "        sm.egress_spec = 1;")
    prog = compile_source(text, "prog.p4")
    out = Pipeline(prog.device_config).process(0, bytes([9, 0, 7, 5]))
    assert out == [(1, bytes([1, 0, 7, 5]))]
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"
