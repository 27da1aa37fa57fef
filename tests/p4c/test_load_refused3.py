"""Hash and checksum data p4c 1.2.4.8 writes with a JSON list inside the field list, and
negative select labels, which simple_switch 1.15.5 dies loading (helper errs19, /work/e19 t3, t4, t8): the
method and the checks are test_load_refused.py's.  Each refused case failed before: checkmate-switch
loaded the build (elab_load_refusals.refuse_nested_struct_data,
elab_parsers.negative_select_label)."""
from __future__ import annotations

import pytest

import test_load_refused as base
from p4c_helpers import program

_TOP = "struct i_t { bit<8> p; bit<8> q; }\nstruct o_t { i_t i; bit<16> z; }\nstruct f_t { bit<8> p; bit<16> z; }"


def _nested_meta(src: str) -> str:
    return src.replace("struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; o_t o; f_t f; }")


_H = "        hash(hdr.h.b, HashAlgorithm.crc16, 16w0, %s, 16w100);"
_CC = ("control CC(inout headers hdr, inout meta_t m) { apply { } }",
       "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, %s, hdr.h.b, HashAlgorithm.csum16); } }")
_DIES = "Json::LogicError"


def _hash(data: str, pre: str = "") -> str:
    return _nested_meta(program(top=_TOP, body=pre + _H % data))


def _select(labels: str, key: str = "(int<8>)hdr.h.a") -> str:
    return program().replace("state start { pkt.extract(hdr.h); transition accept; }",
                             f"state start {{ pkt.extract(hdr.h); transition select({key}) {{ {labels} default: accept; }} }}")


# name -> (program, text where checkmate-switch's message points, BMv2's words)
REFUSED = {
    # bare: a struct member of a parameter with a struct field, a struct expression with one
    "hash_data_nested_struct_member": (_hash("m.o"), "m.o, 16w100", _DIES),
    "hash_data_nested_struct_expression": (_hash("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _DIES),
    # in a data list: any struct expression, a struct local with a struct field
    "hash_data_struct_expression_in_list": (_hash("{ (f_t){ p = hdr.h.a, z = 1 }, hdr.h.c }"), "(f_t)", _DIES),
    "hash_data_nested_struct_local_in_list": (_hash("{ l, hdr.h.a }", "        o_t l = m.o;\n"), "l, hdr.h.a", _DIES),
    "update_checksum_nested_struct_member": (_nested_meta(program(top=_TOP).replace(_CC[0], _CC[1] % "m.o")),
                                             "m.o, hdr", _DIES),
    # a negative label of a select on one signed key: p4c writes "-0x03" (helper errs19, pc c_t_mask_signed)
    "select_negative_label": (_select("-3: reject;"), "-3: reject", "Assertion `hexstring[idx] != '-'' failed"),
    "select_negative_masked_label": (_select("-1 &&& 0x0f: reject;"), "-1 &&& 0x0f", "Assertion `hexstring[idx] != '-'' failed"),
}
LOADED = {
    # flat ones, the parameters themselves and struct locals given bare
    "hash_data_flat_struct_member": _hash("m.f"),
    "hash_data_inner_struct_member": _hash("m.o.i"),
    "hash_data_metadata_with_a_nested_struct": _hash("m"),
    "hash_data_nested_struct_local": _hash("l", "        o_t l = m.o;\n"),
    "hash_data_flat_struct_expression": _hash("(f_t){ p = hdr.h.a, z = 1 }"),
    "hash_data_flat_struct_local_alone_in_list": _hash("{ l }", "        f_t l = m.f;\n"),
    # a mask of all ones is dropped; a tuple's keys are concatenated as bits
    "select_negative_mask_all_ones": _select("5 &&& -1: reject;"),
    "select_negative_label_in_a_tuple": _select("(1, -3): reject;", "hdr.h.c, (int<8>)hdr.h.a"),
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
