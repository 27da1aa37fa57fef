"""Helper errs30's load verdicts on locals of the user metadata type declared in a function body
(the method and the checks are test_load_refused.py's; /work/errs30 probes, simple_switch on p4c's JSON).

p4c inlines a called function, and its local goes through LocalCopyPropagation like a control's:
where something still names it -- a field read before any write or after an ``if`` that stored it --
p4c keeps the local and simple_switch refuses the JSON ("No field 'userMetadata.x' can be found in
header type 'meta_t'").  A function nobody calls (or called only from an unused action) is removed
and loads; a read after a store in the function loads (switch/compiler/meta_locals.py, run on the
body of each called function once V1Switch has given the metadata type).
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program


def _x(f: str = "x") -> str:
    return f"No field 'userMetadata.{f}' can be found in header type 'meta_t'"


def _fn(fn: str, body: str = "f(hdr);", locals: str = "") -> str:
    """``fn`` declared after the headers struct, the ingress's apply ``body`` (and its ``locals``)."""
    h = "struct headers { h_t h; }"
    return program(locals=locals, body="        " + body).replace(h, h + "\n" + fn)


_UNSET = "void f(inout headers h) { meta_t s; h.h.c = s.x; }"
_COND = "void f(inout headers h) { meta_t s; if (h.h.a == 1) { s.x = 3; } h.h.c = s.x; }"
_SET = "void f(inout headers h) { meta_t s; s.x = 3; h.h.c = s.x; }"
_PARSER = ("state start { pkt.extract(hdr.h);", "state start { pkt.extract(hdr.h); f(hdr);")
_G = "void g(inout headers h) { meta_t s; h.h.c = (bit<8>)s.y; }\nvoid f(inout headers h) { g(h); }"

REFUSED = {
    "function_local_read_unset": (_fn(_UNSET), "meta_t s;", _x()),
    "function_local_stored_under_an_if": (_fn(_COND), "meta_t s;", _x()),
    "function_local_read_unset_called_twice": (_fn(_UNSET, "f(hdr); f(hdr);"), "meta_t s;", _x()),
    "function_local_read_unset_in_a_called_function": (_fn(_G), "meta_t s;", _x("y")),
    "function_local_read_unset_called_in_an_action": (_fn(_UNSET, "a();", "    action a() { f(hdr); }"), "meta_t s;", _x()),
    "function_local_unset_field_returned": (
        _fn("meta_t mk(in bit<8> v) { meta_t r; r.x = v; return r; }", "m = mk(hdr.h.a);"), "meta_t r;", _x()),
    "generic_function_local_read_unset": (
        _fn("void g<T>(in T v, inout headers h) { meta_t s; h.h.c = s.x; }", "g(hdr.h.a, hdr);"), "meta_t s;", _x()),
    "function_local_read_unset_called_in_the_parser": (_fn(_UNSET, "hdr.h.c = 1;").replace(*_PARSER), "meta_t s;", _x()),
    "function_local_read_unset_in_the_returned_value": (
        _fn("bit<8> v(in bit<8> a) { meta_t s; return s.x + a; }", "hdr.h.c = v(hdr.h.a);"), "meta_t s;", _x()),
    "function_local_half_set_copied_to_an_out_parameter": (
        _fn("void o(out meta_t q) { meta_t s; s.x = 1; q = s; }", "o(m);"), "meta_t s;", _x()),
}

LOADED = {
    "function_local_read_after_a_store": _fn(_SET),
    "function_local_read_after_a_store_called_twice": _fn(_SET, "f(hdr); f(hdr);"),
    "function_local_read_unset_never_called": _fn(_UNSET, "hdr.h.c = 1;"),
    "function_local_read_unset_called_in_an_unused_action": _fn(_UNSET, "hdr.h.c = 1;", "    action a() { f(hdr); }"),
    "function_local_every_field_returned": _fn("meta_t mk(in bit<8> v) { meta_t r; r.x = v; r.y = 0; return r; }",
                                               "m = mk(hdr.h.a);"),
    "function_local_read_after_a_return_is_dead": _fn("void f(inout headers h) { meta_t s; return; h.h.c = s.x; }"),
    "function_local_read_unset_called_after_an_exit": _fn(_UNSET, "exit; f(hdr);"),
    "function_local_store_nothing_reads": _fn("void f(inout headers h) { meta_t s; s.x = s.x + 1; }"),
    "function_local_set_in_the_returned_value": _fn("bit<8> v(in bit<8> a) { meta_t s; s.x = a; return s.x + 1; }",
                                                    "hdr.h.c = v(hdr.h.a);"),
    "function_local_stored_under_an_if_in_an_action": _fn(
        "void f(inout headers h) { meta_t s; s.x = 2; if (h.h.a == 1) { s.x = 3; } h.h.c = s.x; }", "a();",
        "    action a() { f(hdr); }"),
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))
