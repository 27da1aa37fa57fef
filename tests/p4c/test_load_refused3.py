"""More programs p4c 1.2.4.8 compiles whose BMv2 JSON simple_switch 1.15.5 refuses to load (helper
corpus23; the method and the checks are test_load_refused.py's): a function or action with an
``out``/``inout`` parameter of the user metadata's type, called with it, whose body writes that
parameter where p4c's copy propagation loses its value -- a field as an extern call's result
(``r.read(mm.x, 1)``, ``hash``, ``random``) or an assignment under an ``if``.  p4c's inliner copies
the argument into a local of the metadata type that survives its mid end, and names that local's
fields ``userMetadata.x`` in a header of type ``meta_t`` whose fields are ``x``: "No field
'userMetadata.x' can be found in header type 'meta_t'" (netx-ulx/dataplaneChangeDetection's
kary.p4, ``UpdateRow(0, meta)``; elab_load_refusals.refuse_metadata_param_copy) -- and a local copy
of the metadata an extern writes (``meta_t m2 = m; r.read(m2.x, 1);``, refuse_metadata_local_copies).
checkmate-switch loaded the build before.  Straight-line assignments, reads, a field argument and a struct of
another type load (the twins)."""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_META = "struct meta_t { bit<8> x; bit<16> y; }"
_NO_FIELD = "No field 'userMetadata."


def _with_fn(fn: str, body: str) -> str:
    """The test program with function ``fn`` declared after meta_t and ``body`` in ingress."""
    return program(top="register<bit<8>>(4) r;", body=body).replace(_META, _META + "\n" + fn)


REFUSED = {
    "function_register_read_into_metadata_copy": (
        _with_fn("void f(inout meta_t mm) { r.read(mm.x, 1); }", "        f(m); hdr.h.c = m.x;"),
        "(m);", _NO_FIELD),
    "function_hash_into_metadata_copy": (
        _with_fn("void f(inout meta_t mm) { hash(mm.x, HashAlgorithm.crc16, 8w0, { mm.y }, 8w16); }",
                 "        f(m); hdr.h.c = m.x;"), "(m);", _NO_FIELD),
    "function_random_into_metadata_copy": (
        _with_fn("void f(inout meta_t mm) { random(mm.x, 8w0, 8w7); }", "        f(m); hdr.h.c = m.x;"),
        "(m);", _NO_FIELD),
    "function_conditional_write_of_metadata_copy": (
        _with_fn("void f(inout meta_t mm) { if (mm.y == 1) { mm.x = 4; } }", "        f(m); hdr.h.c = m.x;"),
        "(m);", _NO_FIELD),
    "function_int_parameter_register_read_into_metadata_copy": (
        _with_fn("void f(int n, inout meta_t mm) { r.read(mm.x, n); }", "        f(2, m); hdr.h.c = m.x;"),
        "(2, m);", _NO_FIELD),
    # a local copy of the user metadata written by an extern (refuse_metadata_local_copies): named at the local
    "local_metadata_copy_register_read": (
        program(top="register<bit<8>>(4) r;", body="        meta_t m2 = m;\n        r.read(m2.x, 1);\n        m = m2; hdr.h.c = m.x;"),
        "meta_t m2 = m;", _NO_FIELD),
    "action_register_read_into_metadata_copy": (
        program(top="register<bit<8>>(4) r;", locals="    action a(inout meta_t mm) { r.read(mm.x, 1); }",
                body="        a(m); hdr.h.c = m.x;"), "(m);", _NO_FIELD),
}

LOADED = {
    "local_metadata_copy_straight_line": program(
        top="register<bit<8>>(4) r;", body="        meta_t m2 = m;\n        m2.x = m2.x + 1;\n        r.write(1, m2.x);\n"
                                            "        m = m2; hdr.h.c = m.x;"),
    "function_straight_line_metadata_copy": _with_fn("void f(inout meta_t mm) { mm.x = mm.x + 1; mm.y = 1; }",
                                                     "        f(m); hdr.h.c = m.x;"),
    "function_register_write_from_metadata_copy": _with_fn("void f(inout meta_t mm) { r.write(1, mm.x); }",
                                                           "        f(m); hdr.h.c = m.x;"),
    "function_register_read_into_field_argument": _with_fn("void f(inout bit<8> v) { r.read(v, 1); }",
                                                           "        f(m.x); hdr.h.c = m.x;"),
    "function_register_read_into_other_struct": _with_fn(
        "struct s_t { bit<8> q; }\nvoid f(inout s_t s) { r.read(s.q, 1); }",
        "        s_t l = { hdr.h.a }; f(l); hdr.h.c = l.q;"),
    "function_conditional_write_of_in_metadata": _with_fn(
        "bit<8> f(in meta_t mm) { bit<8> v = 0; if (mm.y == 1) { v = mm.x; } return v; }",
        "        hdr.h.c = f(m);"),
}

DIES: dict = {}


globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
