"""Programs found by helper errs69 (issue #15): its probe sweep of programs of our own (kept in
/work/errs69, outside the repository: ``gen_a.py``-``gen_e.py``, ``gen_dc.py``), each decided by
real p4c 1.2.4.8 and simple_switch_grpc.  ``CASES``: programs p4c accepts that checkmate refused.
The rejections: tests/p4c/test_errs69.py.
"""
from .base import VALUES, case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

# A named don't-care argument (`r.read(index = 1, result = _)`, `random(lo = .., hi = .., result = _)`,
# an action's and a function's out parameter, a sub-parser's out header, which consumes its bytes):
# p4c takes `name = _` as it takes `_`; checkmate-p4c's parser read `_` there as a name ("unknown
# name _"; parser_exprs.args).
CASES.append(case("errs69_named_dont_care_arguments", CAT, program(
    "        r.read(index = 1, result = _);\n"
    "        random(lo = 8w0, hi = 8w5, result = _);\n"
    "        a(x = _);\n"
    "        f(y = 8w0x42, x = _);\n"
    "        hdr.h.d = 0x1234;\n",
    top="void f(out bit<8> x, in bit<8> y) { x = y; }\n"
        "parser SP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }\n",
    ingress_decls="    register<bit<8>>(4) r;\n"
                  "    action a(out bit<8> x) { x = 1; hdr.h.b = 0x5a; }\n",
    parser="    SP() sp;\n" + start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { 0x10: skip; default: accept; }
    }
    state skip {
        sp.apply(p = pkt, x = _);
        transition accept;
    }"""),
    frames=VALUES))

# A member of an enum or of `error` named through a typedef (`typedef EN E2; E2.B`, `typedef PE P2;
# P2.Y`, `typedef error ER; ER.NoError`): p4c resolves the typedef; checkmate-p4c said "type E2 used
# as a value" (elab_expressions).
CASES.append(case("errs69_enum_and_error_members_through_a_typedef", CAT, program(
    "        hdr.h.b = (bit<8>)E2.B;\n"
    "        P2 p = P2.X;\n"
    "        if (hdr.h.a == 1) { p = P2.Y; }\n"
    "        if (p == P2.Y) { hdr.h.c = 0x0101; }\n"
    "        ER e = ER.NoError;\n"
    "        if (sm.parser_error == e) { hdr.h.d = 0x77; }\n"
    "        switch ((EN)hdr.h.a) { E2.A: { hdr.h.d = 0x11; } default: { } }\n",
    top="enum bit<8> EN { A = 0xff, B = 2 }\ntypedef EN E2;\nenum PE { X, Y }\ntypedef PE P2;\ntypedef error ER;\n"),
    frames=VALUES))
