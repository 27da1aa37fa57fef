"""Select keys that are lists, and enums compared across types, as p4c 1.2.4.8 takes them:
a list expression among a select's keys stands for its members (each case spreads a list of
values, or ``default``/``_`` for all of them, in that place); a keyset of another shape there is an error at
the keyset.  Two serializable enums over one type compare by value; over two widths they are
an error.  With p4c on PATH each verdict is checked against p4c's (the packet side is the
differential cases f5_select_nested_list_key and f5_serenum_cross_compare_and_arith)."""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source

SELECT = """    state start {{ pkt.extract(hdr.h); transition select(hdr.h.a, {{hdr.h.c, hdr.h.a}}) {{
        {case}: accept; default: accept; }} }}"""
ENUMS = "enum bit<8> E8 { x = 1 }\nenum bit<8> F8 { y = 1 }\nenum bit<16> G16 { z = 1 }\n"


def with_parser(case: str) -> str:
    return program().replace("    state start { pkt.extract(hdr.h); transition accept; }", SELECT.format(case=case))


@pytest.mark.parametrize("case", ["(1, {2, 3})", "(1, default)", "(_, {2, 3})", "(_, _)"])
def test_list_key_cases_p4c_accepts(case, tmp_path):
    text = with_parser(case)
    compile_source(text, "prog.p4")
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"


# inside the list only values: no default, _ or mask (p4c's grammar has expressions there)
@pytest.mark.parametrize("case,culprit", [("(1, 2)", "2)"), ("(1, {2, 3, 4})", "{2, 3, 4}"),
                                          ("(1, {2, _})", "_})"), ("(1, {default, 3})", "default, 3"),
                                          ("(1, {2, 3 &&& 3})", "&&&")])
def test_list_key_case_of_another_shape(case, culprit, tmp_path):
    text = with_parser(case)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, col = line_of(text, culprit)
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: "), str(ei.value)
    assert p4c_accepts(text, tmp_path) in (None, False), "p4c accepts it"


def test_enums_over_one_type_compare(tmp_path):
    text = program(top=ENUMS, body="        E8 a = (E8)hdr.h.a; F8 b = (F8)hdr.h.c;\n"
                                   "        if (a == b || a != F8.y) { hdr.h.a = (bit<8>)(E8)(a + 1); }")
    compile_source(text, "prog.p4")
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"


def test_enums_over_two_widths_do_not_compare(tmp_path):
    text = program(top=ENUMS, body="        E8 a = (E8)hdr.h.a; G16 b = (G16)hdr.h.b;\n        if (a == b) { hdr.h.a = 1; }")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, col = line_of(text, "== b")
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: cannot compare E8 and G16"), str(ei.value)
    assert p4c_accepts(text, tmp_path) in (None, False), "p4c accepts it"
