"""Programs found by helper errs74 (issue #15): its probe sweep of programs of our own (kept in
/work/errs74, outside the repository: ``gen_a.py``-``gen_e.py``), each decided by real p4c 1.2.4.8
and simple_switch_grpc.  ``CASES``: programs p4c accepts that checkmate refused.  The rejections:
tests/p4c/test_errs74.py.
"""
from .base import VALUES, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# A generic function beside plain functions of its name (one argument: the generic `f<T>`, two: the
# plain one, three: a generic one again; a statement call with an inout argument too): p4c picks the
# declaration by the number of arguments; checkmate-p4c let the later declaration hide the earlier
# ("function f: no argument for parameter y"; elab_functions.resolve_function).
CASES.append(case("errs74_generic_and_plain_overloads", CAT, program(
    "        hdr.h.b = f(hdr.h.a);\n"
    "        hdr.h.c = (bit<16>)f(hdr.h.a, 8w3);\n"
    "        hdr.h.d = f(hdr.h.d, hdr.h.d, 32w0x100);\n"
    "        g(hdr.h.a, 8w1, 8w0x33);\n"
    "        g(meta.m8, hdr.h.b);\n"
    "        hdr.h2.a = meta.m8;\n",
    top="T f<T>(in T x) { return x; }\n"
        "bit<8> f(in bit<8> x, in bit<8> y) { return x + y; }\n"
        "T f<T>(in T x, in T y, in T z) { return z; }\n"
        "void g<T>(inout T x, in T y, in T z) { x = z; }\n"
        "void g(out bit<8> x, in bit<8> y) { x = y ^ 0x0f; }\n"),
    frames=VALUES))

# Two controls of one name that nothing instantiates (and two parsers): p4c compiles the program
# (only a use is its "multiple matching declarations"); checkmate-p4c refused the second declaration.
CASES.append(case("errs74_two_unused_controls_of_one_name", CAT, program(
    "        hdr.h.b = hdr.h.a + 1;\n",
    top="control Z(inout headers_t h) { apply { h.h.b = 1; } }\n"
        "control Z(inout headers_t h, in bit<8> x) { apply { h.h.b = x; } }\n"
        "parser Q(packet_in p) { state start { transition accept; } }\n"
        "parser Q(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }\n"),
    frames=VALUES))
