"""Disagreements found by helper fuzz25 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_F1 = "bool f1(in bit<8> p) { if (p == 1) { return true; } }\n"

# p4c checks that a function returns a value on all paths only on the code its front end keeps:
# after it removed unused actions, unapplied sub-control instances and the branches its constant
# folding or strength reduction decides (fuzz_exprs seed 8697: the only call in an unused action
# of a sub-control).  checkmate-p4c refused the program at any call it elaborated.  A call that
# stays is p4c's error (INVALID below).
CASES.append(case("fuzz25_function_missing_return_called_only_where_p4c_removes_it", CAT, program("""
        sc.apply(hdr);
        if (8w1 == 2) { if (f1(hdr.h.b)) { hdr.h.c = 1; } }
        if (hdr.h.a * 0 == 1) { ia(); t.apply(); }
        hdr.h.d = 32w7;
""", top=_F1 + """control SC(inout headers_t hdr) {
    action c0() { if (f1(hdr.h.a)) { hdr.h.b = 1; } }
    apply { hdr.h.c = 16w3; if (4w1 != 1) { c0(); } }
}
control SU(inout headers_t hdr) {
    apply { if (f1(hdr.h.a)) { hdr.h.b = 2; } }
}
""", ingress_decls="""
    SC() sc;
    SU() su;
    action ia() { if (f1(hdr.h.a)) { hdr.h.b = 3; } }
    action ib() { hdr.h.b = f1(hdr.h.b) ? 8w4 : 8w5; }
    table t { key = { hdr.h.a: exact; } actions = { ib; NoAction; } default_action = NoAction; }
"""), frames=[(1, H(a)) for a in (0, 1)]))

_EN = "enum bit<8> En_t { A = 196, B = 218, C = 230 }\n"
_SCL = _EN + """control SL(inout headers_t hdr) {
    apply { tuple<bit<3>, bit<8>> tp = {3w1, 8w2}; hdr.h.b = tp[1]; }
}
"""

# A list of constants in a body p4c inlines at two places kills p4c (mutz24) -- unless one of the
# applies is in a case a constant switch does not select: p4c's front end drops those cases before
# it inlines (a switch on a serializable enum cast from a constant, `(En_t)(8w255 << 5)`, selects
# only its `default`: fuzz_exprs seed 8697; `switch (8w1) { 2: .. }`, `switch (x * 0)` likewise).
# checkmate-p4c counted the apply in the dropped case and refused the program.
CASES.append(case("fuzz25_constant_list_in_a_sub_control_applied_in_a_dropped_switch_case", CAT, program("""
        sl0.apply(hdr);
        switch ((En_t)(8w255 << 5)) { En_t.C: { sl1.apply(hdr); } En_t.A: { sl2.apply(hdr); } }
        switch (8w1) { 2: { sl1.apply(hdr); } default: { hdr.h.c = 5; } }
        switch (hdr.h.a * 0) { 3: { sl2.apply(hdr); } }
""", top=_SCL, ingress_decls="    SL() sl0;\n    SL() sl1;\n    SL() sl2;\n"), frames=[(1, H(a)) for a in (0, 1)]))

_SC = "control SC(inout headers_t hdr) {\n    action c0() { if (f1(hdr.h.a)) { hdr.h.b = 1; } }\n    apply { C0 }\n}\n"
INVALID = {
    "fuzz25_constant_list_in_a_sub_control_applied_in_a_selected_default_case": (program(
        "        sl0.apply(hdr);\n        switch ((En_t)(8w230)) { En_t.C: { hdr.h.a = 1; } default: { sl1.apply(hdr); } }\n",
        top=_SCL, ingress_decls="    SL() sl0;\n    SL() sl1;\n"), ("write set already set",)),
    "fuzz25_function_missing_return_in_an_applied_sub_control_action": (program(
        "        sc.apply(hdr);\n", top=_F1 + _SC.replace("C0", "c0();"), ingress_decls="    SC() sc;\n"),
        ("does not return a value on all paths",)),
    "fuzz25_function_missing_return_in_an_applied_table_action": (program(
        "        t.apply();\n", top=_F1, ingress_decls="""
    action ib() { hdr.h.b = f1(hdr.h.b) ? 8w4 : 8w5; }
    table t { key = { hdr.h.a: exact; } actions = { ib; NoAction; } default_action = NoAction; }
"""), ("does not return a value on all paths",)),
    "fuzz25_function_missing_return_after_exit": (program(
        "        exit;\n        if (f1(hdr.h.b)) { hdr.h.c = 1; }\n", top=_F1), ("does not return a value on all paths",)),
}


# p4c inlines a sub-control body at its apply before LocalCopyPropagation, so what a single-case
# switch leaves (`meta.m8 = hdr.h.b` in the case: read as hdr.h.b whatever the label) reaches into
# the body up to a write there of meta.m8 or hdr.h.b, and goes on after the apply when the body
# writes neither; into nested blocks and both branches of an `if` too (fuzz_exprs seed 8342,
# probed).  checkmate-p4c stopped at the apply (and at a block or `if` writing the path anywhere).
_SW = "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = hdr.h.b; } }\n"
_SUB = """control S1(inout headers_t hdr, inout meta_t meta) {
    apply { if (hdr.h.c == 0x1111) { hdr.h.c = (bit<16>)meta.m8; } }
}
control S2(inout headers_t hdr, inout meta_t meta) {
    apply { { hdr.h.c = hdr.h.c + (bit<16>)meta.m8; } hdr.h.b = 7; hdr.h.d = (bit<32>)meta.m8; }
}
control S3(inout headers_t hdr, inout meta_t meta) {
    apply { hdr.h.c = 16w1; meta.m16 = 2; }
}
"""
_FR = [(1, H(a, 9, c, 0x22222222)) for a in (5, 6) for c in (0x1111, 0x1112)]
CASES.append(case("fuzz25_single_case_switch_copies_into_a_sub_control_body", CAT, program(
    _SW + "        s1.apply(hdr, meta);\n", top=_SUB, ingress_decls="    S1() s1;\n"), frames=_FR))
CASES.append(case("fuzz25_single_case_switch_copies_killed_in_a_sub_control_body", CAT, program(
    _SW + "        s2.apply(hdr, meta);\n        hdr.h.a = meta.m8;\n", top=_SUB, ingress_decls="    S2() s2;\n"),
    frames=_FR))
CASES.append(case("fuzz25_single_case_switch_copies_past_a_sub_control_in_a_block_and_an_if", CAT, program(
    _SW + "        { s3.apply(hdr, meta); }\n        if (hdr.h.b == 9) { s3.apply(hdr, meta); }\n"
    "        hdr.h.d = (bit<32>)meta.m8;\n", top=_SUB, ingress_decls="    S3() s3;\n"), frames=_FR))
CASES.append(case("fuzz25_single_case_switch_copies_into_if_branches", CAT, program(
    _SW + "        if (meta.m8 == 9) { hdr.h.c = hdr.h.c + 1; }\n"
    "        { if (hdr.h.c == 0x1111) { hdr.h.d = (bit<32>)meta.m8; meta.m8 = 4; } else { hdr.h.d = (bit<32>)meta.m8 + 1; } }\n"
    "        hdr.h.b = meta.m8;\n"), frames=_FR))


# p4c 1.2.4.8's Predication wraps every assignment in an action's `if` as `c ? right : left`, also
# when the right-hand side is a `?:` itself: BMv2 keeps the field where the `if` is not taken
# (fuzz_exprs seed 9286: `hdr.outh.o3[61:14] = (bit<48>)((e1 < e1) ? i3 : o2)` under an `if`).
# checkmate-p4c's replay took such a right-hand side as the pass's own Mux and put the condition
# into it, so its else arm was written when the `if` was not taken.
_W = "header w_t { bit<48> o2; bit<64> o3; bit<64> o5; bit<64> e1; }\n"


def _w(o5: int, e1: int) -> bytes:
    from .base import eth
    return eth(0x1234) + (0x111111111111).to_bytes(6, "big") + (0x2222222222222222).to_bytes(8, "big") + \
        o5.to_bytes(8, "big") + e1.to_bytes(8, "big")


CASES.append(case("fuzz25_action_if_assigning_a_conditional_expression", CAT, program(
    "        a1();\n        a2();\n        a3();\n", headers=_W, fields="    w_t w;\n",
    parser="    state start { pkt.extract(hdr.eth); pkt.extract(hdr.w); transition accept; }",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.w);", ingress_decls="""
    action a1() { if (hdr.w.o5 + hdr.w.o5 < hdr.w.o5) { hdr.w.o3[61:14] = (hdr.w.e1 == 5) ? hdr.w.e1[47:0] : hdr.w.o2; } }
    action a2() { if (hdr.w.o5[63:63] == 1) { if (hdr.w.o5[0:0] == 0) { hdr.w.o2 = (hdr.w.e1 == 5) ? 48w1 : 48w2; } } }
    action a3() { if (hdr.w.o5[62:62] == 1) { hdr.w.e1 = 3; } else { hdr.w.e1 = (hdr.w.o5[0:0] == 1) ? 64w4 : hdr.w.o5; } }
"""), frames=[(1, _w(o5, e1)) for o5 in (1, 0x8000000000000002, 0x4000000000000001, 0xc000000000000000) for e1 in (5, 6)]))
