"""Programs p4c 1.2.4.8 compiles that simple_switch 1.15.5 refuses to load, found by helper errs54
(probes /work/errs54 ``gen_j.py``/``gen_k.py``; the method and the checks are test_load_refused.py's):

* ``u.isValid()`` of a whole header union that is not a field of the headers struct -- a local (in a
  control, an action, a parser state, a table key), a struct local's member, a function's or an
  action's parameter (p4c copies the argument into a local), an element of a stack of unions: p4c
  writes the union instance's name as a ``header`` operand and simple_switch refuses the JSON
  ("Invalid reference to object of type 'header' with name 'u_0'"); checkmate-switch loaded it
  (elab_load_refusals.refuse_local_union_isvalid).  ``hdr.u.isValid()`` (in a control, an action, a
  key, a parser, a sub-control given ``hdr.u``), ``hdr.s.u.isValid()``, ``u.a.isValid()`` and one in a
  branch p4c removes (``if (false)``) load;
* an element of a stack of header unions that is a local variable (``u_t[2] ls; ls[0].a = hdr.h;``):
  p4c keeps the local but writes no header_union_types entry (nor a header type used only there), and
  simple_switch refuses the JSON ("Invalid reference to object of type 'header type' with name
  'h2_t'", or std::out_of_range from unordered_map::at when the member types are used elsewhere);
  checkmate-switch loaded it (elab_load_refusals.refuse_local_union_stack; the BMv2 JSON loader
  already refused the unknown types).  A union stack in the headers, an unused local one, and a local one
  of a union type the headers or a plain local hold (p4c writes the type then) load.
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_U = "header h2_t { bit<16> w; } header_union u_t { h_t a; h2_t b; }"
_W = "Invalid reference to object of type 'header'"


def _hu(**kw) -> str:
    return program(top=_U + kw.pop("top", ""), **kw).replace("struct headers { h_t h; }",
                                                             "struct headers { h_t h; u_t u; u_t[2] us; }")


REFUSED = {
    "local_union_isvalid": (_hu(body="        u_t lu; lu.a = hdr.h; if (lu.isValid()) { hdr.h.c = 1; }"), "lu.isValid()", _W),
    "control_local_union_isvalid": (_hu(locals="    u_t lu;", body="        bool v = lu.isValid(); if (v) { hdr.h.c = 1; }"),
                                     "lu.isValid()", _W),
    "action_local_union_isvalid": (_hu(locals="    action a1() { u_t lu; if (lu.isValid()) { hdr.h.c = 1; } }",
                                       body="        a1();"), "lu.isValid()", _W),
    "struct_local_union_isvalid": (_hu(top=" struct su_t { u_t u; }", body="        su_t s; if (s.u.isValid()) { hdr.h.c = 1; }"),
                                   "s.u.isValid()", _W),
    "function_parameter_union_isvalid": (_hu(top=" bool f(in u_t pu) { return pu.isValid(); }",
                                             body="        if (f(hdr.u)) { hdr.h.c = 1; }"), "pu.isValid()", _W),
    "action_inout_union_isvalid": (_hu(locals="    action a1(inout u_t au) { if (au.isValid()) { hdr.h.c = 1; } }",
                                       body="        a1(hdr.u);"), "au.isValid()", _W),
    "union_stack_element_isvalid": (_hu(body="        if (hdr.us[0].isValid()) { hdr.h.c = 1; }"), "[0].isValid()", _W),
}

LOADED = {
    "headers_union_isvalid": _hu(body="        if (hdr.u.isValid()) { hdr.h.c = 1; }"),
    "headers_union_isvalid_in_an_action": _hu(locals="    action a1() { if (hdr.u.isValid()) { hdr.h.c = 1; } }", body="        a1();"),
    "headers_union_isvalid_in_a_subcontrol": _hu(
        top=" control Sub(inout u_t u, inout bit<8> x) { apply { if (u.isValid()) { x = 1; } } }",
        locals="    Sub() s;", body="        s.apply(hdr.u, hdr.h.c);"),
    "local_union_member_isvalid": _hu(body="        u_t lu; lu.a = hdr.h; if (lu.a.isValid()) { hdr.h.c = 1; }"),
    "local_union_isvalid_in_a_removed_branch": _hu(body="        u_t lu; if (false) { if (lu.isValid()) { hdr.h.c = 1; } }"),
}

REFUSED.update({
    "local_union_stack_element": (program(top=_U, body="        u_t[2] ls; ls[0].a = hdr.h; hdr.h.c = ls[0].a.c;"),
                                  "[0].a = hdr.h", "Invalid reference to object of type 'header type'"),
    "local_union_stack_element_member_types_used": (
        program(top=_U, body="        u_t[2] ls; ls[1].b.setValid(); ls[1].b.w = 3; hdr.h.b = ls[1].b.w;").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; h2_t x; }"), "[1].b.setValid", "std::out_of_range"),
})
LOADED.update({
    "headers_union_stack_element": _hu(body="        hdr.us[0].a = hdr.h; hdr.h.c = hdr.us[0].a.c;"),
    "unused_local_union_stack": program(top=_U, body="        u_t[2] ls;"),
    "local_union_stack_beside_a_plain_local_union": program(
        top=_U, body="        u_t u1; u1.a = hdr.h; u_t[2] ls; ls[0] = u1; hdr.h.c = ls[0].a.c;"),
    "local_union_stack_of_a_type_the_headers_hold": _hu(body="        u_t[2] ls; ls[1].b.setValid(); ls[1].b.w = 3; hdr.h.b = ls[1].b.w;"),
})

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))
