"""The user metadata as an argument of a function or action called in an action (helper opens6;
the method and checks are test_load_refused.py's, simple_switch deciding each): p4c's BMv2 back end
predicates an action's ``if``s, so a callee's conditional assignments to its copy of the metadata
are Muxes the copy propagation follows, and simple_switch loads the JSON where the call itself is
not under an ``if`` of the action (checkmate-p4c refused these as the apply-level ones); a call
under an ``if`` of the action predicates the copy-in (``m.x = c ? meta.x : m.x``), the copy survives
and simple_switch refuses p4c's JSON ("No field 'userMetadata.x'"), for an ``in`` parameter and a
callee without an ``if`` too (checkmate-p4c loaded these).  simple_switch_grpc takes such a JSON over
P4Runtime and dies (SIGSEGV) on the first packet that runs the action
(elab_load_refusals.refuse_metadata_param_copy).  And a whole header stored into a stack element
at a run-time index (below)."""
from __future__ import annotations


import test_load_refused as base
from p4c_helpers import program, with_stack

_NO_FIELD = "No field 'userMetadata."
_DU = "if (mm.x != 1) { mm.x = mm.x + 1; } else if (mm.x != 3) { mm.x = 3; }"
_META = "struct meta_t { bit<8> x; bit<16> y; }"


def _with(fn: str, locals_: str, body: str) -> str:
    return program(locals=locals_, body=body).replace(_META, _META + "\n" + fn)


REFUSED = {
    "function_with_a_double_update_called_under_an_if_in_an_action": (
        _with(f"void f(inout meta_t mm) {{ {_DU} }}", "    action a() { if (hdr.h.a == 1) { f(m); } }",
              "        a(); hdr.h.c = m.x;"), "(m); }", _NO_FIELD),
    "straight_function_called_under_an_if_in_an_action": (
        _with("void f(inout meta_t mm) { mm.x = mm.x + 1; }", "    action a() { if (hdr.h.a == 1) { f(m); } }",
              "        a(); hdr.h.c = m.x;"), "(m); }", _NO_FIELD),
    "in_parameter_read_under_an_if_in_an_action": (
        _with("void f(in meta_t mm, inout bit<8> o) { o = mm.x; }", "    action a() { if (hdr.h.a == 1) { f(m, hdr.h.c); } }",
              "        a();"), "(m, hdr.h.c); }", _NO_FIELD),
    "action_called_under_an_if_in_an_action": (
        program(locals=f"    action a2(inout meta_t mm) {{ {_DU} }}\n    action a() {{ if (hdr.h.a == 1) {{ a2(m); }} }}",
                body="        a(); hdr.h.c = m.x;"), "(m); }", _NO_FIELD),
}

LOADED = {
    "function_with_a_double_update_called_in_an_action": _with(
        f"void f(inout meta_t mm) {{ {_DU} }}", "    action a() { f(m); }", "        a(); hdr.h.c = m.x;"),
    "action_with_a_double_update_called_in_an_action": program(
        locals=f"    action a2(inout meta_t mm) {{ {_DU} }}\n    action a() {{ a2(m); }}", body="        a(); hdr.h.c = m.x;"),
    "action_with_a_double_update_called_in_the_control": program(
        locals=f"    action a2(inout meta_t mm) {{ {_DU} }}", body="        a2(m); hdr.h.c = m.x;"),
}

# a whole header stored into a stack element at a run-time index (an assignment, or an out/inout
# argument's copy-back): p4c's assign_header into a dereference_header_stack -- simple_switch refuses it
# ("Invalid 'type' in expression: ''"), simple_switch_grpc dies (SIGSEGV) on the first packet; p4c's
# constant propagation into the index, a read, an initializer and a sub-control's argument load
# (elab_load_refusals.note_element_store)
_INVALID_TYPE = "Invalid 'type' in expression"


_DUQ = "if (q.a != 1) { q.a = q.a + 1; } else if (q.a != 3) { q.a = 3; }"
REFUSED.update({
    "whole_element_store_at_a_runtime_index": (
        with_stack(program(body="        m.x = hdr.h.a & 1; hdr.hs[m.x] = hdr.h;")), "hdr.hs[m.x] = hdr.h;", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_an_action": (
        with_stack(program(locals="    action a() { m.x = hdr.h.a & 1; hdr.hs[m.x] = hdr.h; }", body="        a();")),
        "hdr.hs[m.x] = hdr.h; }", _INVALID_TYPE),
    "whole_element_inout_function_argument_at_a_runtime_index": (
        with_stack(_with(f"void f(inout h_t q) {{ {_DUQ} }}", "", "        m.x = hdr.h.a & 1; f(hdr.hs[m.x]);")),
        "[m.x]);", _INVALID_TYPE),
    "whole_element_out_action_argument_at_a_runtime_index": (
        with_stack(program(locals="    action a(out h_t q) { q = hdr.h; }", body="        m.x = hdr.h.a & 1; a(hdr.hs[m.x]);")),
        "[m.x]);", _INVALID_TYPE),
    "whole_element_store_at_a_runtime_index_in_a_parser": (
        with_stack(program(body="        hdr.h.a = 1;")).replace(
            "pkt.extract(hdr.h); transition accept;", "pkt.extract(hdr.h); m.x = hdr.h.a & 1; hdr.hs[m.x] = hdr.h; transition accept;"),
        "hdr.hs[m.x] = hdr.h; transition", _INVALID_TYPE),
})
LOADED.update({
    "whole_element_store_at_a_propagated_constant_index_in_a_parser": with_stack(program(body="        hdr.h.a = 1;")).replace(
        "pkt.extract(hdr.h); transition accept;", "pkt.extract(hdr.h); m.x = 1; hdr.hs[m.x] = hdr.h; transition accept;"),
    "whole_element_store_at_a_propagated_constant_index": with_stack(program(
        body="        m.x = 1; hdr.hs[m.x] = hdr.h;")),
    "whole_element_store_at_a_propagated_constant_index_in_an_action": with_stack(program(
        locals="    action a() { m.x = 1; hdr.hs[m.x] = hdr.h; }", body="        a();")),
    "whole_element_read_at_a_runtime_index": with_stack(program(
        body="        m.x = hdr.h.a & 1; hdr.hs[0] = hdr.hs[m.x];")),
    "whole_element_initializer_at_a_runtime_index": with_stack(program(
        body="        m.x = hdr.h.a & 1; hdr.hs[m.x] = { 1, 2, 3 };")),
    "whole_element_in_function_argument_at_a_runtime_index": with_stack(_with(
        "void f(in h_t q, out bit<8> v) { v = q.a; }", "", "        m.x = hdr.h.a & 1; f(hdr.hs[m.x], hdr.h.c);")),
    "whole_element_subcontrol_argument_at_a_runtime_index": with_stack(_with(
        "control C(inout h_t q) { apply { q.a = 5; } }", "    C() c;", "        m.x = hdr.h.a & 1; c.apply(hdr.hs[m.x]);")),
    "whole_element_store_in_an_unused_action": with_stack(program(
        locals="    action a() { hdr.hs[m.x] = hdr.h; }", body="        hdr.h.a = 1;")),
})

DIES: dict = {}


globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
