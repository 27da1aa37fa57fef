"""Helper mutz43's programs (mutz42's open items), each decided by real p4c 1.2.4.8 / simple_switch:

* ``meters = direct_meter<T>(..)`` as a table property: p4c removes a table nothing applies before
  it looks at the property (it compiles, with an empty P4Info), and refuses it in a table it keeps
  ("expected a reference to a meter declaration"); checkmate-p4c refused both ("must name a
  direct_meter") -- now the table's ``target_error`` (elab_tables, ElabOutput.finish).
* A whole header element at a run-time index passed to a sub-control (the load refusals, the method
  and checks test_load_refused.py's): where it may alias another out/inout argument or its index
  reads one, or the instance is applied more than once (alike or not), p4c copies it through a temporary and writes an
  ``assign_header`` into a ``dereference_header_stack`` -- simple_switch refuses the JSON
  (elab_load_refusals.note_aliased_element_args, refuse_copied_element_args); alone, beside an
  ``in`` argument or an ``inout`` one its index does not read, it is passed in place and loads.
"""
from __future__ import annotations

import pytest

import test_load_refused as base
from p4c_helpers import assert_p4info_as_p4c, assert_refused_as_p4c, program, with_stack
from switch.compiler import compile_source

_DM = ("    action a() { }\n"
       "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } "
       "meters = direct_meter<bit<8>>(MeterType.packets); }\n")


def test_generic_direct_meter_property_of_an_applied_table_refused_as_p4c(tmp_path):
    assert_refused_as_p4c(program(locals=_DM, body="        t.apply();"), "meters = direct_meter<bit<8>>",
                          r"direct_meter<bit<8>>: expected a reference to a meter declaration", tmp_path)


@pytest.mark.parametrize("body", ["        hdr.h.c = 1;", "        return;\n        t.apply();"])
def test_generic_direct_meter_property_of_a_dropped_table_compiles_as_p4c(body, tmp_path):
    text = program(locals=_DM, body=body)
    assert_p4info_as_p4c(text, compile_source(text, "prog.p4").p4info, tmp_path)


_C = ("control C1(inout h_t x) { apply { x.a = x.a + 1; } }\n"
      "control C2(inout h_t x, inout h_t y) { apply { x.a = x.a + 1; y.c = 3; } }\n"
      "control C3(in h_t x, inout h_t y) { apply { y.c = x.a; } }\n"
      "control C5(inout bit<16> p, inout h_t y) { apply { p = p + 1; y.c = 3; } }\n"
      "control C6(inout bit<8> p, inout h_t y) { apply { p = p + 1; y.c = 3; } }\n"
      "control C7(inout h_t y, inout bit<8> p) { apply { p = p + 1; y.c = 3; } }\n")


def _sc(locals_: str, body: str) -> str:
    return with_stack(program(top=_C, locals=locals_, body=body))


_INVALID_TYPE = "Invalid 'type' in expression"
REFUSED = {
    "subcontrol_element_argument_whose_index_reads_another_header_argument": (
        _sc("    C2() c;", "        c.apply(hdr.h, hdr.hs[hdr.h.a & 1]);"), "[hdr.h.a & 1]);", _INVALID_TYPE),
    "subcontrol_element_argument_beside_an_element_of_its_stack": (
        _sc("    C2() c;", "        c.apply(hdr.hs[0], hdr.hs[hdr.h.a & 1]);"), "[hdr.h.a & 1]);", _INVALID_TYPE),
    "subcontrol_element_argument_whose_index_reads_an_earlier_field_argument": (
        _sc("    C6() c;", "        c.apply(hdr.h.a, hdr.hs[hdr.h.a & 1]);"), "[hdr.h.a & 1]);", _INVALID_TYPE),
    "subcontrol_element_argument_whose_index_reads_a_later_field_argument": (
        _sc("    C7() c;", "        c.apply(hdr.hs[hdr.h.a & 1], hdr.h.a);"), "[hdr.h.a & 1], ", _INVALID_TYPE),
    "subcontrol_element_argument_of_an_instance_whose_applies_differ": (
        _sc("    C1() c;", "        c.apply(hdr.hs[hdr.h.a & 1]);\n        c.apply(hdr.h);"), "[hdr.h.a & 1]);",
        _INVALID_TYPE),
    "subcontrol_element_argument_applied_twice_alike": (_sc(
        "    C1() c;", "        c.apply(hdr.hs[hdr.h.a & 1]);\n        c.apply(hdr.hs[hdr.h.a & 1]);"), "[hdr.h.a & 1]);",
        _INVALID_TYPE),
}
LOADED = {
    "subcontrol_element_argument_alone": _sc("    C1() c;", "        c.apply(hdr.hs[hdr.h.a & 1]);"),
    "subcontrol_element_argument_beside_an_in_argument_its_index_reads": _sc(
        "    C3() c;", "        c.apply(hdr.h, hdr.hs[hdr.h.a & 1]);"),
    "subcontrol_element_argument_beside_a_field_its_index_does_not_read": _sc(
        "    C5() c;", "        c.apply(hdr.h.b, hdr.hs[hdr.h.a & 1]);"),
    "subcontrol_element_argument_beside_a_header_its_index_does_not_read": _sc(
        "    C2() c;", "        m.x = hdr.h.a; c.apply(hdr.h, hdr.hs[m.x & 1]);"),
    "subcontrol_element_arguments_of_two_instances": _sc(
        "    C1() c; C1() d;", "        c.apply(hdr.hs[hdr.h.a & 1]);\n        d.apply(hdr.h);"),
}
LOADED["subcontrol_element_argument_at_a_propagated_constant_index_of_an_instance_whose_applies_differ"] = _sc(
    "    C1() c;", "        m.x = 1; c.apply(hdr.hs[m.x]);\n        c.apply(hdr.h);")
DIES: dict = {}

globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
