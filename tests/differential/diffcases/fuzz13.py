"""Disagreements found by helper fuzz13 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

An ``if`` whose condition p4c's strength reduction and constant folding make constant is
no conditional execution: ``!(8w1 != (x - x))`` is ``false`` (``x - x`` is 0), so the
``else { return; }`` left is an unconditional return and the rest of the action -- a header
initializer, which p4c's BMv2 backend refuses under a condition -- is dead code (fuzz_exprs
seed 2682).  checkmate-p4c folded only ``x * 0`` and ``x & 0`` inside comparisons, not
``x - x``, ``x ^ x`` or identities, nor through ``!``, ``&&`` and ``||``, and refused the
program.

A sub-control instance that nothing applies (declared only, or applied only in a branch p4c
folds away, or inside such an instance) is removed by p4c's front end with its tables,
actions, counters, meters and registers: none is in the P4Info; and p4c's aliases are the
shortest unique suffixes among what its P4Info lists, so an unapplied table ``I.t`` (or the
removed ``I.c2.t``) does not make ``I.c1.t``'s alias ``c1.t``.  checkmate-p4c listed the
unapplied instances' contents and counted every declared name for the aliases (probe programs
of helper fuzz13).  The same holds for a sub-parser instance no reachable state applies: its
value sets are not in the P4Info.

BMv2 compares varbit fields by value alone: ``v1.opt == v2.opt`` holds for 0x0001 extracted
in 16 bits and 0x01 in 8 (and 0 bits against 8 zero bits), and so does ``hdr.v1 == hdr.v2``
(p4c compares headers field by field).  checkmate-switch compared the current lengths too.

A sub-control's ``out`` scalar argument that overlaps another out/inout argument
(``c.apply(hdr.h, hdr.h.c)``, ``c.apply(hdr.h.c, hdr.h.c[11:4])``) sends both through
temporaries, so an ``exit`` in the body writes neither back.  checkmate-switch left an ``out``
scalar out of its overlap check: the header went in place (the body's writes stayed) and the
scalar was copied back on the exit.

A table without ``default_action`` gets ``NoAction`` as named where the table is: a control's
own ``action NoAction()`` hides core.p4's, so that one is the default (and core.p4's is not in
the P4Info).  checkmate-p4c always took core.p4's.

A V1Switch block (control or parser) with constructor parameters given only constants and instantiations (or its
defaults) is specialized by p4c into a new control type ``<Name>_<n>``: its tables, actions and
externs (and a parser's value sets) are ``X_0.t``, ``Y_0.s``, ``P_0.vs`` in the P4Info, and an extern instantiated in the argument is
``X_0.c_0``; given an instance declared at the top level it keeps its name.  checkmate-p4c named
them ``X.t`` and ``X.c`` (probe programs).

``priority_delta = 0`` is accepted by p4c (only a negative one is refused): every entry after a
``priority=`` gets the same priority (p4c warns about the duplicates) and they match in the
order listed.  checkmate-p4c refused 0.

Constructor arguments may be named (``Sub(j = 1, k = 3) s;``, ``X(k = 8w1)`` in ``main``), in
any order, an omitted one taking its default (p4c's rules: all or none named, each once).
checkmate-p4c refused them ("unsupported expression named_arg")."""
from .base import DEFAULT_DEPARSER, DEFAULT_PARSER, SKELETON, H, case, eth, hdr, program  # noqa: F401

CAT = "front end (p4c-compatible)"

CASES = [
    case("fuzz13_folded_condition_makes_return_unconditional", CAT, program(
        "        a0();\n        a1();\n",
        ingress_decls="""
    action a0() {
        if (!(8w1 != (hdr.h.c[7:0] - hdr.h.c[7:0]))) { hdr.h.b = 1; } else { return; }
        hdr.h2 = {1, 2, 3, 4};
    }
    action a1() {
        if ((hdr.h.a ^ hdr.h.a) == 0 || hdr.h.b == 1) { return; }
        hdr.h2.setValid();
    }"""), json_path=True),
]

SUB = """
control C(inout h_t h) {
    action ax() { h.b = h.b + 1; }
    action s(bit<8> v) { h.c = (bit<16>)v; }
    table t { key = { h.a: exact; } actions = { s; NoAction; } const entries = { 1: s(7); } }
    counter(4, CounterType.packets) cnt;
    register<bit<8>>(4) r;
    apply { ax(); t.apply(); cnt.count(0); r.write(0, h.a); }
}
control Outer(inout h_t h) { C() inner; apply { inner.apply(h); } }
"""

CASES.append(case("fuzz13_unapplied_subcontrol_instances_out_of_p4info", CAT, program(
    "        c1.apply(hdr.h);\n        if (false) { c3.apply(hdr.h); }\n",
    top=SUB, ingress_decls="""
    C() c1; C() c2; C() c3; Outer() o;
    action s(bit<8> v) { hdr.h.d = (bit<32>)v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } }"""),
    frames=[(1, H(a, 5)) for a in range(3)], json_path=True))

VH = "header v_t { bit<8> tag; varbit<32> opt; }\n"


def _vframe(l1, l2, v1, v2):
    """h.b: v1's varbit length in bytes, h.c: v2's; then v1 and v2 (a tag byte each)."""
    return (1, eth(0x1234) + hdr(0, l1, l2) + bytes(v1) + bytes(v2) + bytes(6))


CASES.append(case("fuzz13_varbit_equality_by_value", CAT, program("""
        hdr.h.a = (hdr.v1 == hdr.v2 ? 8w1 : 8w0) | (hdr.v1.opt == hdr.v2.opt ? 8w2 : 8w0) |
                  (hdr.v1.opt != hdr.v2.opt ? 8w4 : 8w0);
""", headers=VH, fields="    v_t v1;\n    v_t v2;\n", parser="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h);
        pkt.extract(hdr.v1, (bit<32>)hdr.h.b * 8); pkt.extract(hdr.v2, (bit<32>)hdr.h.c * 8); transition accept; }""",
    deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.v1); pkt.emit(hdr.v2);"),
    frames=[_vframe(2, 1, [5, 0, 1], [5, 1]), _vframe(0, 1, [5], [5, 0]), _vframe(1, 1, [5, 3], [5, 3]),
            _vframe(4, 2, [9, 0, 0, 1, 2], [9, 1, 2]), _vframe(0, 0, [1], [1]), _vframe(2, 2, [1, 0, 7], [2, 0, 7]),
            _vframe(3, 0, [1, 0, 0, 0], [1])], json_path=True))

CASES.append(case("fuzz13_subcontrol_out_scalar_overlapping_an_argument_and_exit", CAT, program(
    "        c1.apply(hdr.h, hdr.h.c);\n        c2.apply(hdr.h.a, hdr.h.d, hdr.h.d[11:4]);\n",
    top="""
control C(inout h_t h, out bit<16> o) { apply { o = 7; h.b = 9; if (h.a == 2) { exit; } o = 8; } }
control Dw(in bit<8> k, inout bit<32> w, out bit<8> o) { apply { o = 7; w = 9; if (k == 3) { exit; } o = 5; } }""",
    ingress_decls="    C() c1; Dw() c2;\n"), frames=[(1, H(a, 1, 2, 0x1234)) for a in range(4)], json_path=True))

CASES.append(case("fuzz13_a_control_s_own_noaction_is_the_default", CAT, program(
    "        t.apply();\n        u.apply();\n",
    ingress_decls="""
    action NoAction() { hdr.h.b = 0x42; }
    action s(bit<8> x) { hdr.h.c = (bit<16>)x; }
    table t { key = { hdr.h.a: exact; } actions = { s; } const entries = { 1: s(5); } }
    table u { key = { hdr.h.a: exact; } actions = { s; NoAction; } }"""),
    frames=[(1, H(a)) for a in range(3)], json_path=True))

_SPECIALIZED = """control X(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> k, counter c) {
    action s(bit<8> x) { hdr.h.b = x + k; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } const entries = { 1: s(1); } }
    apply { sm.egress_spec = (bit<9>)k; t.apply(); c.count((bit<32>)hdr.h.a); }
}
control Y(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> k = 5) {
    action s(bit<8> x) { hdr.h.d = (bit<32>)(x + k); }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } const entries = { 2: s(1); } }
    apply { t.apply(); }
}
"""
_SPEC_PARSER = """    value_set<bit<8>>(4) vs;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { vs: accept; K: p2; default: accept; } }
    state p2 { pkt.extract(hdr.h2); transition accept; }"""
CASES.append(case("fuzz13_specialized_top_level_blocks_renamed", CAT, SKELETON.replace(
    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
    "V1Switch(P(), VC(), X(1, counter(4, CounterType.packets)), Y(), CC(), D()) main;").replace(
    "inout standard_metadata_t sm) {{\n{parser}", "inout standard_metadata_t sm)(bit<8> K = 3) {{\n{parser}").format(
    version="", headers="", fields="", meta="", top=_SPECIALIZED, parser=_SPEC_PARSER, verify="apply { }",
    compute="apply { }", ingress_decls="", ingress="", egress_decls="", egress="", deparser=DEFAULT_DEPARSER),
    frames=[(1, H(a)) for a in range(4)] + [(1, H(3) + bytes(8))], json_path=True))

CASES.append(case("fuzz13_priority_delta_zero", CAT, program(
    "        t.apply();\n",
    ingress_decls="""
    action s(bit<8> x) { hdr.h.b = x; }
    table t { key = { hdr.h.a: ternary; } actions = { s; NoAction; } priority_delta = 0;
        entries = { priority=5: 1 &&& 1: s(1); 2 &&& 2: s(2); 4 &&& 4: s(3); } }"""),
    frames=[(1, H(a)) for a in range(8)], json_path=True))

CASES.append(case("fuzz13_unapplied_subparser_instances_out_of_p4info", CAT, program(
    "        hdr.h.b = hdr.h.b + 1;\n",
    top="""
parser SubP(packet_in pkt, out h_t h) {
    value_set<bit<8>>(4) vs;
    state start { pkt.extract(h); transition select(h.a) { vs: accept; default: accept; } }
}""", parser="""
    SubP() sp; SubP() sp2; SubP() sp3;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { sp.apply(pkt, hdr.h); transition accept; }
    state dead { sp3.apply(pkt, hdr.h2); transition accept; }"""),
    frames=[(1, H(a)) for a in range(3)], json_path=True))

CASES.append(case("fuzz13_named_constructor_arguments", CAT, program(
    "        s1.apply(hdr.h);\n        s2.apply(hdr.h);\n",
    top="""
control Sub(inout h_t h)(bit<8> k, bit<16> j = 9) {
    action a() { h.c = h.c + (bit<16>)k + j; }
    table st { key = { h.a: exact; } actions = { a; NoAction; } const entries = { 1: a(); } }
    apply { st.apply(); h.b = h.b + k; } }""",
    ingress_decls="    Sub(j = 1, k = 3) s1;\n    Sub(k = 5) s2;\n"),
    frames=[(1, H(a)) for a in range(3)], json_path=True))
