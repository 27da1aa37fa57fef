"""Programs of helper errs25's probe sweep that p4c 1.2.4.8 compiles and simple_switch 1.15.5
refuses or loads, against checkmate-switch's verdict on checkmate-p4c's build (the method and the
checks are test_load_refused.py's; /work/errs25 probes ss_*, sscheck.py on simple_switch_grpc):

* ``hs[i].isValid()`` with a run-time index -- a condition, a bool value, in an action or a parser
  state: p4c writes the field ``[{"op": "dereference_header_stack", ..}, "$valid$"]`` and
  simple_switch dies loading it ("Json::LogicError: Type is not convertible to string");
  checkmate-switch ran it (elab_load_refusals.isvalid_ir).  ``setValid()``/``setInvalid()`` of such an
  element and ``isValid()`` at a constant index load (the twins).
* a key ``@name("")``: p4c and simple_switch take the empty match field name; checkmate-switch
  refused the device config ("match field name '' has unsafe characters", ir_check).
* an extern instance ``@name("c c")``: its Python name kept the space ("not a safe Python
  identifier"; elab_blocks.declare_instance now makes it as elab_tables does).
"""
from __future__ import annotations


import test_load_refused as base
from p4c_helpers import program

_S = dict(top="header ha_t { bit<8> v; }")
_HS = "struct headers { h_t h; }"


def _stack(**kw) -> str:
    return program(**{**_S, **kw}).replace(_HS, "struct headers { h_t h; ha_t[3] s; }")


_WORDS = "Type is not convertible to string"

REFUSED = {
    "stack_element_at_a_runtime_index_is_valid_in_a_condition": (
        _stack(body="        if (hdr.s[hdr.h.a].isValid()) { hdr.h.c = 1; }"), "hdr.s[hdr.h.a].isValid", _WORDS),
    "stack_element_at_a_runtime_index_is_valid_as_a_value": (
        _stack(body="        bool b = hdr.s[hdr.h.a].isValid();\n        hdr.h.c = (bit<8>)(bit<1>)b;"),
        "hdr.s[hdr.h.a].isValid", _WORDS),
    "stack_element_at_a_runtime_index_is_valid_in_an_action": (
        _stack(locals="    action a() { hdr.h.c = hdr.s[hdr.h.a].isValid() ? 8w1 : 8w2; }", body="        a();"),
        "hdr.s[hdr.h.a].isValid", _WORDS),
}

LOADED = {
    "stack_element_at_a_runtime_index_set_valid": _stack(body="        hdr.s[hdr.h.a].setValid();"),
    "stack_element_at_a_runtime_index_set_invalid": _stack(body="        hdr.s[hdr.h.a].setInvalid();"),
    "stack_element_at_a_constant_index_is_valid": _stack(body="        if (hdr.s[1].isValid()) { hdr.h.c = 1; }"),
    "counter_named_with_a_space": program(
        locals="    @name(\"c c\") counter(32w4, CounterType.packets) c1;", body="        c1.count(0);"),
    "key_named_empty": program(
        locals="    table t { key = { hdr.h.a: exact @name(\"\"); } actions = { NoAction; } }", body="        t.apply();"),
}

DIES: dict = {}


globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
