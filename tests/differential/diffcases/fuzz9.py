"""Disagreements found by helper fuzz9's random differential runs (issue #15), each decided by
real p4c 1.2.4.8 / BMv2 1.15.5 and kept as a case.

A header assigned an initializer that reads the header itself (``h = {h.a, 5}``) is built by
p4c in a temporary it never makes valid, so on BMv2 ``h`` stays invalid
(``elab_statements.reads_header``).  A read that p4c's strength reduction removes first does
not count: ``h.a & 0``, ``h.a * 0``, ``h.a ^ h.a``, ``h.a - h.a``, ``0 << h.a``, ``h.a % 1``
are the constant 0, so the initializer reads nothing of ``h`` and ``h`` becomes valid
(fuzz_exprs seed 2109).

A function call inside an expression copies its ``out``/``inout`` header arguments back through
p4c's temporaries, so an argument that is invalid when the call returns keeps its fields on BMv2
(assign_header from an invalid header changes the validity only): the body's writes to it are
lost (fuzz_exprs seed 2198; checkmate-switch stored the callee's copy, fields and all).  The same
holds for a header inside a struct that p4c assigns member by member: a struct assignment, or
the copy-out of a function's or an action's ``inout`` struct argument (a sub-control's argument
is used in place: its writes stay)."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

_SELF_INIT = [
    "{hdr.h2.a & 0, 7, 3, 4}", "{hdr.h2.a ^ hdr.h2.a, 7, 3, 4}", "{8w0 << hdr.h2.b, 7, 3, 4}",
    "{hdr.h2.a * 0 + 1, 7, 3, 4}", "{(bit<8>)(hdr.h2.d - hdr.h2.d), 7, 3, 4}", "{hdr.h2.a % 1, 7, 3, 4}",
    "{hdr.h2.a | 0, 7, 3, 4}", "{hdr.h2.a ^ (hdr.h2.a + 0), 7, 3, 4}", "{1, 7, hdr.h2.c & 16w0xffff, 4}",
]

CASES = [
    # an initializer of h2 whose only reads of h2 vanish under p4c's strength reduction makes h2
    # valid (ours left it invalid as for a real self-read); `| 0` and `& 0xffff` keep the read
    case("fuzz9_self_initializer_read_removed_by_strength_reduction", CAT, program(
        "".join(f"        {'else ' if i else ''}if (hdr.h.b == {i + 1}) {{ hdr.h2 = {v}; }}\n"
                for i, v in enumerate(_SELF_INIT))
        + "        hdr.h.c = (bit<16>)(bit<1>)hdr.h2.isValid();\n"),
        frames=[(1, H(1, b, 9, 9)) for b in range(1, len(_SELF_INIT) + 1)]
        + [(2, H2(5, 6, 0x77, 8, b=b)) for b in range(1, len(_SELF_INIT) + 1)], json_path=True),
]

_OUT_FN = ("bool f_io(in h_t p0, inout h_t p1) { p1.b = 0; p1.c = p0.c; return p1.isValid(); }\n"
           "bool f_out(out h_t p1) { p1.b = 6; return true; }\n"
           "bool f_set(inout h_t p1) { p1.setValid(); p1.b = 5; return true; }\n")
_OUT_BODY = (
    "        if (hdr.h.b == 1) { hdr.h.d = f_io(hdr.h2, hdr.h2) ? 32w1 : 32w2; }\n"
    "        else if (hdr.h.b == 2) { hdr.h.d = f_io(hdr.h, hdr.h2) ? 32w1 : 32w2; }\n"
    "        else if (hdr.h.b == 3) { hdr.h.d = (bit<32>)(bit<1>)f_out(hdr.h2); }\n"
    "        else if (hdr.h.b == 4) { hdr.h.d = (bit<32>)(bit<1>)f_set(hdr.h2); }\n"
    "        else if (hdr.h.b == 5) { hdr.h.d = (bit<32>)(bit<1>)(f_io(hdr.h, hdr.h2) && f_io(hdr.h, hdr.h2)); }\n"
    "        else if (hdr.h.b == 6) { f_io(hdr.h2, hdr.h2); }\n"
    "        hdr.h.a = hdr.h2.b; hdr.h.c = hdr.h2.c;\n")
# h2 invalid with known fields first (BMv2 keeps a never-extracted header's old bytes)
_OUT_STALE = "        if (!hdr.h2.isValid()) { hdr.h2.setValid(); hdr.h2 = {1, 2, 3, 4}; hdr.h2.setInvalid(); }\n"

CASES.append(
    # an inout/out header argument of a function called inside an expression, invalid when the
    # call returns: its fields keep their values (ours took the body's writes); made valid in
    # the body, or valid throughout, it takes them
    case("fuzz9_function_in_expression_copies_back_an_invalid_header", CAT, program(
        _OUT_STALE + _OUT_BODY, top=_OUT_FN),
        frames=[(1, H(1, b, 9, 9)) for b in range(1, 7)]
        + [(2, H2(5, 6, 0x77, 8, b=b)) for b in range(1, 7)], json_path=True))

_STRUCT_TOP = ("bool g(inout headers_t hh) { hh.h2.b = 0; return true; }\n"
               "control C(inout headers_t hh) { apply { hh.h2.b = 0; } }\n")
_STRUCT_BODY = (
    "        if (hdr.h.b == 1) { headers_t t = hdr; t.h2.b = 0; hdr = t; }\n"
    "        else if (hdr.h.b == 2) { ac(hdr); }\n"
    "        else if (hdr.h.b == 3) { g(hdr); }\n"
    "        else if (hdr.h.b == 4) { hdr.h.d = g(hdr) ? 32w1 : 32w2; }\n"
    "        else if (hdr.h.b == 5) { c.apply(hdr); }\n"
    "        else if (hdr.h.b == 6) { headers_t t = hdr; t.h2.setValid(); t.h2.b = 0; hdr = t; }\n"
    "        hdr.h.a = hdr.h2.b; hdr.h.c = hdr.h2.c;\n")

CASES.append(
    # a struct holding an invalid header assigned, or copied back from a function or an action:
    # the destination header keeps its fields (ours took the copy's); a control works in place
    case("fuzz9_struct_copy_keeps_an_invalid_member_header", CAT, program(
        _OUT_STALE + _STRUCT_BODY, top=_STRUCT_TOP,
        ingress_decls="    action ac(inout headers_t hh) { hh.h2.b = 0; }\n    C() c;\n"),
        frames=[(1, H(1, b, 9, 9)) for b in range(1, 7)]
        + [(2, H2(5, 6, 0x77, 8, b=b)) for b in range(1, 7)], json_path=True))
