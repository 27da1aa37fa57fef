"""Helper errs29's probe sweep (/work/errs29 g_*, h_*, each decided by real p4c 1.2.4.8): a store to a
local in a checksum control.  p4c's copy propagation puts the value of one store to a local scalar or
struct field (a constant, a field) into the ``verify_checksum``/``update_checksum`` call and removes the
store, so the control holds only the calls p4c's BMv2 back end allows; checkmate-p4c refused every
assignment there ("only calls to update_checksum ... are allowed", checks._Checker._only_calls).  A
computed value is then the data's computation ("Computations are not supported", at the store that
computes it); a slice store keeps the local's initializing store (named at the declaration), and a
``?:`` or a store to a parameter still stay and are refused."""
from __future__ import annotations

import re

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source

_CC = "control CC(inout headers hdr, inout meta_t m) { apply { } }"
_VC = "control VC(inout headers hdr, inout meta_t m) { apply { } }"
_U = "update_checksum(true, { hdr.h.a, %s }, hdr.h.b, HashAlgorithm.csum16);"
_V = "verify_checksum(true, { hdr.h.a, %s }, hdr.h.b, HashAlgorithm.csum16);"


def _cc(body: str) -> str:
    return program(top="struct st_t { bit<8> f; }").replace(_CC, "control CC(inout headers hdr, inout meta_t m) {\n"
                                                            "    apply {\n        " + body + "\n    }\n}")


def _vc(body: str) -> str:
    return program(top="struct st_t { bit<8> f; }").replace(_VC, "control VC(inout headers hdr, inout meta_t m) {\n"
                                                            "    apply {\n        " + body + "\n    }\n}")


ACCEPTED = {
    "cc_scalar_constant": _cc("bit<8> v; v = 1; " + _U % "v"),
    "cc_scalar_field": _cc("bit<8> v; v = hdr.h.c; " + _U % "v"),
    "cc_scalar_unused": _cc("bit<8> v; v = hdr.h.c + 1; " + _U % "hdr.h.c"),
    "cc_struct_field": _cc("st_t v; v.f = hdr.h.c; " + _U % "v.f"),
    "cc_metadata_local_field": _cc("meta_t s; s.x = 1; " + _U % "s.x"),
    "cc_two_stores_of_fields": _cc("bit<8> v; v = hdr.h.a; v = hdr.h.c; " + _U % "v"),
    "vc_scalar_field": _vc("bit<8> v; v = hdr.h.c; " + _V % "v"),
    "vc_struct_field": _vc("st_t v; v.f = hdr.h.c; " + _V % "v.f"),
}

# name -> (program, the text p4c's error line holds, ours' words)
REJECTED = {
    "cc_computed_value_in_the_data": (_cc("bit<8> v;\n        v = hdr.h.c + 1;\n        " + _U % "v"), "v = hdr.h.c + 1",
                                      "computations are not supported"),
    # (propagated: `1 + hdr.h.c` is the data's computation, named at the second store)
    "cc_two_stores": (_cc("bit<8> v;\n        v = 1;\n        v = v + hdr.h.c;\n        " + _U % "v"), "v = v + hdr",
                      "computations are not supported"),
    # (the slice store keeps the local's initializing store, p4c's `v = 8w0`)
    "cc_slice_store": (_cc("bit<8> v = 0;\n        v[3:0] = hdr.h.c[3:0];\n        " + _U % "v"), "bit<8> v = 0",
                       "only calls to update_checksum"),
    "vc_parameter_store": (_vc("m.x = 1;\n        " + _V % "m.x"), "m.x = 1", "only calls to verify_checksum"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_store_to_a_local_compiles(name, tmp_path):
    compile_source(ACCEPTED[name], "prog.p4")
    assert p4c_accepts(ACCEPTED[name], tmp_path) in (True, None)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_on_p4cs_line(name, tmp_path):
    text, where, words = REJECTED[name]
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, _ = line_of(text, where)
    assert re.match(rf"prog\.p4:{line}:\d+: ", str(ei.value)) and words in str(ei.value), str(ei.value)
    assert p4c_accepts(text, tmp_path) in (False, None)
