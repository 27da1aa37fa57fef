"""Checksum data holding a struct expression (``(T){ f = .. }``), measured by helper opens2 (issue
#15; errs19's open item) on p4c 1.2.4.8 + simple_switch 1.15.5: p4c compiles one whose elements
are fields and constants; simple_switch dies loading the JSON (``Json::LogicError``: p4c writes the
struct as a list inside the field list) unless it is given bare and flat, which loads and runs
(frames: ``diffcases/opens2.py``).  checkmate-p4c refused every struct expression there as a
computation (checks._checksum_data); now the elaborator's load refusal decides
(elab_load_refusals.refuse_nested_struct_data).  A computation inside one stays p4c's error, and
the result field inside one is p4c's "Only calls to update_checksum ... allowed" (diffcases/opens2
INVALID).  The method and the checks are test_load_refused.py's; each REFUSED case failed before
(a compile error), as did the LOADED ones."""
from __future__ import annotations

import pytest

import test_load_refused as base
from p4c_helpers import program

_TOP = "struct i_t { bit<8> p; bit<8> q; }\nstruct o_t { i_t i; bit<16> z; }\nstruct f_t { bit<8> p; bit<16> z; }"
_CC = "control CC(inout headers hdr, inout meta_t m) { apply { } }"
_VC = "control VC(inout headers hdr, inout meta_t m) { apply { } }"
_DIES = "Json::LogicError"


def _update(data: str, fn: str = "update_checksum", cond: str = "true", algo: str = "csum16") -> str:
    return program(top=_TOP).replace(_CC, "control CC(inout headers hdr, inout meta_t m) { apply { "
                                          f"{fn}({cond}, {data}, hdr.h.b, HashAlgorithm.{algo}); }} }}")


def _verify(data: str) -> str:
    return program(top=_TOP).replace(_VC, "control VC(inout headers hdr, inout meta_t m) { apply { "
                                          f"verify_checksum(true, {data}, hdr.h.b, HashAlgorithm.csum16); }} }}")


# name -> (program, text where checkmate-switch's message points, BMv2's words)
REFUSED = {
    "update_checksum_nested_struct_expression": (_update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _DIES),
    "update_checksum_nested_struct_expression_of_constants": (_update("(o_t){ i = { 1, 2 }, z = 3 }"), "(o_t)", _DIES),
    "update_checksum_nested_struct_expression_under_a_condition": (
        _update("(o_t){ i = { hdr.h.a, hdr.h.c }, z = m.y }", cond="hdr.h.isValid()"), "(o_t)", _DIES),
    "update_checksum_nested_struct_expression_crc16": (_update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }", algo="crc16"),
                                                       "(o_t)", _DIES),
    "update_checksum_flat_struct_expression_in_list": (_update("{ (f_t){ p = hdr.h.a, z = 1 }, hdr.h.c }"), "(f_t)", _DIES),
    "update_checksum_nested_struct_expression_in_list": (_update("{ hdr.h.c, (o_t){ i = { hdr.h.a, 2 }, z = 1 } }"),
                                                         "(o_t)", _DIES),
    "update_checksum_with_payload_nested_struct_expression": (
        _update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }", fn="update_checksum_with_payload"), "(o_t)", _DIES),
    "verify_checksum_nested_struct_expression": (_verify("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _DIES),
}
LOADED = {
    "update_checksum_flat_struct_expression": _update("(f_t){ p = hdr.h.a, z = m.y }"),
    "verify_checksum_flat_struct_expression": _verify("(i_t){ p = hdr.h.a, q = hdr.h.c }"),
}
DIES: dict = {}


@pytest.fixture(autouse=True)
def _these_programs(monkeypatch):
    """test_load_refused's test functions, run on this module's programs."""
    monkeypatch.setattr(base, "REFUSED", REFUSED)
    monkeypatch.setattr(base, "LOADED", LOADED)
    monkeypatch.setattr(base, "DIES", DIES)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_compiled_and_the_build_refused(name):
    base.test_compiled_and_the_build_refused(name)


@pytest.mark.parametrize("name", sorted(LOADED))
def test_compiled_and_loaded(name):
    base.test_compiled_and_loaded(name)


@pytest.mark.parametrize("name", sorted(REFUSED) + sorted(LOADED))
def test_bmv2_decides(name, tmp_path):
    base.test_bmv2_decides(name, tmp_path)
