"""p4c's BMv2 JSON that simple_switch 1.15.5 dies loading, on the switch/bmv2json loader (errs25's
open item, helper errs29): the loader refuses it with simple_switch's own words, as BMv2 does, where
it called it "malformed BMv2 JSON" (a Python KeyError/TypeError/AttributeError inside):

* ``hs[i].isValid()`` at a run-time index (a condition, a value, in an action, in a parser state):
  p4c writes the field ``[{"op": "dereference_header_stack", ..}, "$valid$"]`` and simple_switch's
  JSON reader throws "Json::LogicError: Type is not convertible to string" (model.Model.expr);
* a stack element given as a list or struct initializer: p4c writes the ``assign_header``'s
  source as a bare JSON list, and simple_switch throws "in Json::Value::find(begin, end): requires
  objectValue or nullValue" (actions._check_parameter_types).

Each program's JSON comes from real p4c; simple_switch, when installed, shows the same words."""
from __future__ import annotations

import json
import shutil

import pytest

from p4c_helpers import p4c_accepts, program, with_stack
from switch.bmv2json import translate
from switch.bmv2json.model import Bmv2JsonError
from switch.runtime import Pipeline
from test_load_refused import _simple_switch_verdict

_NOT_STRING = "Json::LogicError: Type is not convertible to string"
_NOT_OBJECT = "in Json::Value::find(begin, end): requires objectValue or nullValue"

PROGRAMS = {
    "is_valid_at_a_runtime_index_in_a_condition": (
        with_stack(program(body="        if (hdr.hs[hdr.h.a].isValid()) { hdr.h.c = 1; }")), _NOT_STRING),
    "is_valid_at_a_runtime_index_as_a_value": (
        with_stack(program(body="        bool b = hdr.hs[hdr.h.a].isValid();\n        hdr.h.c = (bit<8>)(bit<1>)b;")),
        _NOT_STRING),
    "is_valid_at_a_runtime_index_in_an_action": (
        with_stack(program(locals="    action a() { hdr.h.c = hdr.hs[hdr.h.a].isValid() ? 8w1 : 8w2; }",
                           body="        a();")), _NOT_STRING),
    "is_valid_at_a_runtime_index_in_a_parser_state": (
        with_stack(program().replace("pkt.extract(hdr.h); transition",
                                     "pkt.extract(hdr.h); hdr.h.c = hdr.hs[hdr.h.a].isValid() ? 8w1 : 8w2; transition")),
        _NOT_STRING),
    "stack_element_from_a_list": (
        program(body="        h_t[2] st = { { 1, 2, 3 }, hdr.h };\n        hdr.h.a = st[0].a;"), _NOT_OBJECT),
    "stack_element_from_a_struct_initializer": (
        program(body="        h_t[2] st = { { a = 1, b = 2, c = 3 }, hdr.h };\n        hdr.h.a = st[0].a;"), _NOT_OBJECT),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loader_refuses_with_bmv2s_words(name, tmp_path):
    text, words = PROGRAMS[name]
    if not p4c_accepts(text, tmp_path):
        pytest.skip("needs real p4c on PATH (and p4c must compile the program)")
    conf = json.loads((tmp_path / "prog.json").read_text())
    with pytest.raises(Bmv2JsonError) as ei:
        Pipeline(translate(conf))
    assert words in str(ei.value) and "malformed" not in str(ei.value), str(ei.value)
    if shutil.which("simple_switch"):
        verdict = _simple_switch_verdict(tmp_path / "prog.json")
        assert verdict is not None and words.split("Json::LogicError: ")[-1] in verdict, verdict
