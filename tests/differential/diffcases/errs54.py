"""Programs found by helper errs54 (issue #15): its probe sweep of programs of our own (kept in
/work/errs54, outside the repository: ``gen_a.py``-...), each decided by real p4c 1.2.4.8 and
simple_switch_grpc.  ``CASES``: programs p4c accepts whose behaviour checkmate got wrong or refused.
The rejections: tests/p4c/test_errs54.py.
"""
from .base import VALUES, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# A local constant used as a width (`bit<(W)>`) under a top-level constant of the same name: p4c
# takes the local one (the innermost declaration); checkmate-p4c took the top-level W (a 4-bit z,
# so other values) -- and refused a local W with no top-level one ("a bit width must be a
# compile-time integer constant"; elab_types.const_int).
CASES.append(case("errs54_local_constant_width_shadows_a_global", CAT, program(
    "        const int W = 12;\n        bit<(W)> z = (bit<(W)>)hdr.h.c;\n        hdr.h.c = (bit<16>)(z + 1);\n"
    "        hdr.h.a = (bit<8>)(bit<(W)>)hdr.h.d;\n",
    top="const int W = 4;\n"), frames=VALUES))
CASES.append(case("errs54_action_local_constant_width", CAT, program(
    "        a();\n",
    ingress_decls="    action a() { const int N = 3; bit<(N)> z = (bit<(N)>)hdr.h.b; hdr.h.b = (bit<8>)z + 8w1; }\n"),
    frames=VALUES))

# `_` as the result of random (with typed bounds) and of register.read: p4c compiles it into a
# temporary nothing reads; checkmate-p4c said "expression cannot be assigned to"
# (elab_externs.out_lvalue, given the call's type; elab_object_calls).
CASES.append(case("errs54_dontcare_extern_results", CAT, program(
    "        random(_, 8w0, 8w7);\n        r.write(1, hdr.h.a);\n        r.read(_, 1);\n"
    "        r.read(hdr.h.b, 1);\n",
    ingress_decls="    register<bit<8>>(4) r;\n"), frames=VALUES))

# A `?:` whose arms are list expressions where a struct is wanted (a declaration's initializer, an
# assignment, a function's return, nested `?:`): p4c converts each arm; checkmate-p4c said "a tuple
# value cannot become p_t" (elab_values.make_value).
CASES.append(case("errs54_conditional_of_list_expressions_as_a_struct", CAT, program(
    "        p_t r = hdr.h.a == 1 ? { 8w1, 8w2 } : (hdr.h.a == 0x7f ? { hdr.h.b, 8w6 } : { 8w3, hdr.h.a });\n"
    "        hdr.h.b = r.a;\n        hdr.h.c = (bit<16>)r.b;\n        hdr.h.d = (bit<32>)g(hdr.h.b).b;\n",
    top="struct p_t { bit<8> a; bit<8> b; }\n"
        "p_t g(in bit<8> x) { return x == 3 ? { 8w1, 8w2 } : { 8w3, x }; }\n"), frames=VALUES))

# A header holding a struct with a bool field (`header sh_t { in_t f; }`, `struct in_t { bool a;
# bit<7> b; }`), extracted from the packet, read as a condition and written from a bool: p4c
# compiles it (the leaf is one bit); checkmate-p4c refused `x.f.a = true` ("expected bit<1>, got
# bool": elab_types.declare_struct now records the leaf as a bool header field).
CASES.append(case("errs54_bool_inside_a_struct_inside_a_header", CAT, program(
    "        if (hdr.s.isValid()) {\n            if (hdr.s.f.a) { hdr.h.b = 1; }\n"
    "            hdr.s.f.a = hdr.s.f.b == 7w3 || !hdr.s.f.a;\n            hdr.h.c = (bit<16>)hdr.s.f.b;\n        }\n",
    headers="struct in_t { bool a; bit<7> b; }\nheader sh_t { in_t f; }\n", fields="    sh_t s;\n",
    parser="    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s); transition accept; }",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"), frames=VALUES))
