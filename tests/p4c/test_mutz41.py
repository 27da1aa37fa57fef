"""A whole header stored into a stack element at a run-time index inside a function's body, or as the
copy-back of a table's bound action argument (helper mutz41; opens6's open items; the method and
checks are test_load_refused.py's, simple_switch deciding each): p4c inlines the function (or the
action call with the table's argument) and writes an ``assign_header`` into a
``dereference_header_stack`` -- simple_switch refuses the JSON ("Invalid 'type' in expression: ''")
(elab_load_refusals.note_element_store)."""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program, with_stack

_INVALID_TYPE = "Invalid 'type' in expression"


def _fn(fn: str, locals_: str, body: str) -> str:
    return with_stack(program(locals=locals_, body=body)).replace("control I(", fn + "\ncontrol I(")


REFUSED = {
    "whole_element_store_at_a_runtime_index_in_a_function_body_of_a_stack": (
        _fn("void f(inout h_t[2] s, in bit<8> i, in h_t v) { s[i] = v; }", "",
            "        m.x = hdr.h.a & 1; f(hdr.hs, m.x, hdr.h);"), "s[i] = v;", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_a_function_body_of_the_headers": (
        _fn("void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }", "",
            "        m.x = hdr.h.a & 1; f(hdr, m.x);"), "q.hs[i] = q.h;", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_a_function_body_reading_a_field": (
        _fn("void f(inout headers q) { q.hs[q.h.a & 1] = q.h; }", "",
            "        f(hdr);"), "q.hs[q.h.a & 1] = q.h;", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_a_function_called_in_an_action": (
        _fn("void f(inout headers q) { q.hs[q.h.a & 1] = q.h; }", "    action a() { f(hdr); }",
            "        a();"), "q.hs[q.h.a & 1] = q.h;", _INVALID_TYPE),
    "whole_element_out_action_argument_bound_in_a_table": (
        with_stack(program(locals="    action a(out h_t q) { q = hdr.h; }\n"
                              "    table t { actions = { a(hdr.hs[m.x]); } default_action = a(hdr.hs[m.x]); }",
                       body="        m.x = hdr.h.a & 1; t.apply();")), "[m.x]); }", _INVALID_TYPE),
    "whole_element_inout_action_argument_bound_in_a_table": (
        with_stack(program(locals="    action a(inout h_t q) { q.a = 3; }\n"
                              "    table t { actions = { a(hdr.hs[m.x]); NoAction; } }",
                       body="        m.x = hdr.h.a & 1; t.apply();")), "[m.x]); NoAction", _INVALID_TYPE),
    "whole_element_out_action_argument_bound_in_a_table_after_a_constant_store": (
        with_stack(program(locals="    action a(out h_t q) { q = hdr.h; }\n"
                              "    table t { actions = { a(hdr.hs[m.x]); } default_action = a(hdr.hs[m.x]); }",
                       body="        m.x = 1; t.apply();")), "[m.x]); }", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_a_function_called_by_a_function": (
        _fn("void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }\nvoid f2(inout headers q, in bit<8> j) { f(q, j); }", "",
            "        m.x = hdr.h.a & 1; f2(hdr, m.x);"), "q.hs[i] = q.h;", _INVALID_TYPE),
}
LOADED: dict = {
    "whole_element_store_at_a_constant_index_in_a_function_called_by_a_function": _fn(
        "void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }\nvoid f2(inout headers q, in bit<8> j) { f(q, j); }", "",
        "        f2(hdr, 1);"),
    "whole_element_store_at_a_propagated_constant_index_in_a_function_body": _fn(
        "void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }", "", "        m.x = 1; f(hdr, m.x);"),
    "whole_element_store_at_a_constant_index_in_a_function_body_called_in_an_action": _fn(
        "void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }", "    action a() { f(hdr, 1); }", "        a();"),
    "whole_element_store_at_a_constant_index_in_a_function_body": _fn(
        "void f(inout headers q, in bit<8> i) { q.hs[i] = q.h; }", "", "        f(hdr, 1);"),
}
DIES: dict = {}

globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
