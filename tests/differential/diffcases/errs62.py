"""Programs found by helper errs62 (issue #15): its probe sweep of programs of our own (kept in
/work/errs62, outside the repository: ``gen_a.py``-...), each decided by real p4c 1.2.4.8 and
simple_switch_grpc.  ``CASES``: programs p4c accepts that checkmate refused or got wrong.
The rejections: tests/p4c/test_errs62.py.
"""
from .base import VALUES, case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

# A table's action listed with a leading dot (`actions = { a1; .NoAction; }`, `.ga` for a top-level
# action): p4c's actionRef takes a prefixed name, the top-level declaration; checkmate-p4c's parser
# wanted an action name there (parser_tables; elab_tables looks `.x` up at the top level).
CASES.append(case("errs62_table_action_with_a_leading_dot", CAT, program(
    "        switch (t.apply().action_run) {\n            NoAction: { hdr.h.b = 0x55; }\n"
    "            default: { hdr.h.d = 7; }\n        }\n",
    top="action ga(bit<8> v) { }\n",
    ingress_decls="    action a1(bit<8> v) { hdr.h.b = v; }\n"
                  "    table t { key = { hdr.h.a: exact; } actions = { a1; .ga; .NoAction; }\n"
                  "              const entries = { 1: a1(9); 0xff: ga(3); } default_action = .NoAction(); }\n"),
    frames=VALUES))

# A register read in a parser state whose result p4c's mid-end removes (into `_`, into a local
# nothing reads, into a field overwritten before any read): p4c compiles it (a live one is "r.read:
# not supported in parser on this target": tests/p4c/test_errs62.py); the later store stands.
# checkmate-switch dropped every packet: the hidden local of `r.read(_, 0)` was written as a control
# local (`L.v..`), which a parser has none of (elab_calls.dontcare_local).
CASES.append(case("errs62_dead_register_reads_in_a_parser", CAT, program(
    "",
    ingress_decls="",
    parser="    register<bit<8>>(4) r;\n    bit<8> t;\n" + start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        r.read(_, 0); r.read(t, 1);
        bit<8> u; r.read(u, 2); u = 5; hdr.h.b = u; r.read(hdr.h.a, 3); hdr.h.a = 0x11;
        transition accept;
    }"""),
    frames=VALUES))

# `_` where p4c gives the argument a temporary: a direct meter's result (`dm.read(_)`), an inout
# parameter bound in a table's actions list (`a2(_)`), a sub-parser's out header (`sp.apply(pkt, _)`,
# which consumes the header's bytes); checkmate-p4c said "expression cannot be assigned to"
# (elab_object_calls, elab_tables, elab_calls.apply_subparser).
CASES.append(case("errs62_dont_care_temporaries", CAT, program(
    "        t.apply();\n",
    top="parser SP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }\n",
    ingress_decls="    direct_meter<bit<8>>(MeterType.packets) dm;\n"
                  "    action a1() { dm.read(_); hdr.h.b = 0x42; }\n"
                  "    action a2(inout bit<8> x) { x = x + 1; hdr.h.c = 0x77; }\n"
                  "    table t { key = { hdr.h.a: exact; } actions = { a1; a2(_); }\n"
                  "              const entries = { 1: a1(); 0xff: a1(); } meters = dm; }\n",
    parser="    SP() sp;\n" + start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { 0x10: skip; default: accept; }
    }
    state skip {
        sp.apply(pkt, _);
        transition accept;
    }"""),
    frames=VALUES))
