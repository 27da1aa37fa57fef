"""Disagreements found by helper fuzz26 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz25's open items (fuzz_exprs seed 8342's rule, subcontrol_copies.specialize_subcontrols): p4c
# inlines a sub-control body at each of its applies before LocalCopyPropagation, so a
# single-case switch's copies reach into each inlined body as they stand at that apply (here
# `meta.m8` reads `hdr.h.b` whatever `hdr.h.a` is, until `hdr.h.b` or `meta.m8` is written);
# checkmate-p4c left an instance applied at several places alone.  A copy whose value reads a
# local of the caller, or a field of a struct the sub-control is not given, reaches the body too
# (p4c has inlined it: the names are visible there); checkmate-p4c dropped such copies.
_SW = "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = hdr.h.b; } }\n"
_SUB = """control S1(inout headers_t hdr, inout meta_t meta) {
    apply { hdr.h.c = hdr.h.c + (bit<16>)meta.m8; }
}
control S2(inout headers_t hdr, inout meta_t meta) {
    apply { hdr.h.c = hdr.h.c + (bit<16>)meta.m8; meta.m8 = 1; }
}
control S3(inout headers_t hdr, inout meta_t meta) {
    apply { if (hdr.h.c == 0x1111) { hdr.h.d = hdr.h.d + (bit<32>)meta.m8; } }
}
control S4(inout meta_t meta) {
    apply { meta.m16 = (bit<16>)meta.m8 + 1; }
}
control S5(inout bit<8> x, inout meta_t meta) {
    apply { x = 1; meta.m16 = (bit<16>)meta.m8 + 1; }
}
"""
_FR = [(1, H(a, 9, c, 0x22222222)) for a in (5, 6) for c in (0x1111, 0x1112)]


def _sub(ingress: str, inst: str) -> str:
    return program(ingress, top=_SUB, ingress_decls=f"    {inst.upper()}() {inst};\n")


CASES.append(case("fuzz26_single_case_switch_copies_into_a_sub_control_applied_twice", CAT, _sub(
    _SW + "        s1.apply(hdr, meta);\n        hdr.h.b = hdr.h.b + 1;\n        s1.apply(hdr, meta);\n", "s1"),
    frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copies_into_both_applies", CAT, _sub(
    _SW + "        s3.apply(hdr, meta);\n        s3.apply(hdr, meta);\n        hdr.h.a = meta.m8;\n", "s3"),
    frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copies_killed_in_the_first_of_two_applies", CAT, _sub(
    _SW + "        s2.apply(hdr, meta);\n        s2.apply(hdr, meta);\n", "s2"), frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copy_of_a_caller_local_into_a_sub_control", CAT, _sub(
    "        bit<8> v = 3;\n        if (hdr.h.c == 0x1111) { v = hdr.h.b; }\n"
    "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = v; } }\n"
    "        hdr.h.b = 2;\n        s1.apply(hdr, meta);\n", "s1"), frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copy_of_a_field_the_sub_control_is_not_given", CAT, _sub(
    _SW + "        s4.apply(meta);\n        hdr.h.c = meta.m16;\n", "s4"), frames=_FR))
# (a guard, agreeing before: the body writes hdr.h.b through a scalar passed in place)
CASES.append(case("fuzz26_single_case_switch_copy_ended_by_a_scalar_argument_in_place", CAT, _sub(
    _SW + "        s5.apply(hdr.h.b, meta);\n        hdr.h.c = meta.m16;\n", "s5"), frames=_FR))

# p4c's front-end SimplifyDefUse drops a store to a local nothing reads later before the copies
# exist, so it ends none of them: `v = 7;` below is gone and `meta.m8` reads the old `v + 1` on
# every packet (measured); with a read of `v` after it the store stays and ends the copy (guard).
# checkmate-p4c ended the copy at the dead store.
_V = "        bit<8> v = 4;\n        if (hdr.h.c == 0x1111) { v = hdr.h.b; }\n" \
     "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = v + 1; } }\n"
CASES.append(case("fuzz26_single_case_switch_copy_past_a_dead_local_store", CAT, program(
    _V + "        v = 7;\n        hdr.h.d = (bit<32>)meta.m8;\n"), frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copy_ended_by_a_live_local_store", CAT, program(
    _V + "        v = 7;\n        hdr.h.b = v;\n        hdr.h.d = (bit<32>)meta.m8;\n"), frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copy_of_a_caller_local_into_two_applies_past_a_dead_store", CAT, _sub(
    _V + "        s3.apply(hdr, meta);\n        v = 7;\n        s3.apply(hdr, meta);\n", "s3"), frames=_FR))
_SUB3 = """control T1(inout headers_t hdr, inout meta_t meta) {
    apply { hdr.h.c = hdr.h.c + (bit<16>)meta.m8; }
}
control S6(inout headers_t hdr, inout meta_t meta) {
    T1() t1;
    apply { hdr.h.d = (bit<32>)meta.m8; t1.apply(hdr, meta); }
}
control S7(inout headers_t hdr, inout meta_t meta) {
    T1() t1;
    apply { t1.apply(hdr, meta); hdr.h.b = 1; t1.apply(hdr, meta); }
}
"""
# p4c inlines nested sub-controls too: the copies reach the body of one applied in the body of
# another (once, or twice with hdr.h.b written in between); checkmate-p4c stopped at the outer body.
CASES.append(case("fuzz26_single_case_switch_copies_into_a_nested_sub_control", CAT, program(
    _SW + "        s6.apply(hdr, meta);\n", top=_SUB3, ingress_decls="    S6() s6;\n"), frames=_FR))
CASES.append(case("fuzz26_single_case_switch_copies_into_a_nested_sub_control_applied_twice", CAT, program(
    _SW + "        s7.apply(hdr, meta);\n", top=_SUB3, ingress_decls="    S7() s7;\n"), frames=_FR))


# fuzz24's open item: what follows an `exit` in a control is unreachable for p4c's def-use, so a
# header initializer of an action called only there (`a1(hdr.h)`, whose copy-back is into another
# header than the one its body initializes after a conditional `return`) is a dead store, gone
# before p4c's BMv2 back end looks for conditional execution -- after a plain `exit`, one in a
# block, an `if` whose both branches exit, in a branch after it, in egress (measured).
# checkmate-p4c refused the program; a conditional `exit` before the call, or a conditional
# `setValid()` in an action after the exit (a call, no store), stays p4c's error (INVALID).
_A1 = "    action a1(inout h_t q) { q.a = 1; if (hdr.h.b == 0) { return; } hdr.h2 = {a = 1, b = hdr.h.a, c = 2, d = 3}; }\n"
CASES.append(case("fuzz26_conditional_header_initializer_in_an_action_called_after_exit", CAT, program("""
        a1(hdr.h2);
        if (hdr.h.c == 3) { exit; } else { { exit; } }
        a1(hdr.h);
        if (hdr.h.c == 2) { a1(hdr.h); }
""", egress="""
        hdr.h.d = 32w5;
        exit;
        a1(hdr.h);
""", ingress_decls=_A1, egress_decls=_A1), frames=[(1, H2(3, b=b, c=c)) for b in (0, 1) for c in (2, 3)]))

INVALID = {
    "fuzz26_conditional_header_initializer_in_an_action_called_after_a_conditional_exit": (program(
        "        a1(hdr.h2);\n        if (hdr.h.c == 3) { exit; }\n        a1(hdr.h);\n", ingress_decls=_A1),
        ("conditional execution",)),
    "fuzz26_conditional_setvalid_in_an_action_called_after_exit": (program(
        "        exit;\n        a5();\n", ingress_decls="    action a5() { if (hdr.h.b == 0) { hdr.h2.setValid(); } }\n"),
        ("conditional execution",)),
}


# fuzz_exprs seed 10236 (REJECT): p4c's front end folds a cast to bool of what its strength
# reduction makes a constant (`(bool)(((bit<1>)p) % 1w1)` is false), so the `exit` under it is
# gone before it inlines a sub-control applied at two places (an exit there is refused), and a
# table under it is not in the P4Info; checkmate-p4c folded casts to bit, int and enums only.
CASES.append(case("fuzz26_exit_under_a_folded_bool_cast_in_a_sub_control_applied_twice", CAT, program("""
        s0.apply(hdr, hdr.h.a);
        s1.apply(hdr, hdr.h.b);
""", top="""control SC(inout headers_t hdr, in bit<8> p) {
    apply { if ((bool)(((bit<1>)p) % 1w1)) { exit; } hdr.h.c = hdr.h.c + 1; }
}
""", ingress_decls="""    SC() s0;
    SC() s1;
"""), frames=[(1, H(a, 1, 2, 3)) for a in (0, 1)]))
CASES.append(case("fuzz26_table_under_a_folded_bool_cast_not_listed", CAT, program("""
        if ((bool)(((bit<1>)hdr.h.a) % 1w1)) { t.apply(); }
        if (!(bool)(hdr.h.c - hdr.h.c)[0:0]) { hdr.h.d = 32w1; } else { u.apply(); }
""", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.c: exact; } actions = { s; NoAction; } default_action = NoAction; }
    table u { key = { hdr.h.c: exact; } actions = { s; NoAction; } default_action = NoAction; }
"""), frames=[(1, H(a, 1, 2, 3)) for a in (0, 1)]))
# fuzz_exprs seed 10454 (frames, reduced): a header initializer element `c ? x : x` -- arms p4c's
# strength reduction makes the same (`false ? x : x`, `x & x`, `x | x`), under a cast too -- is x
# for p4c, and the condition's read of the header being initialized is gone with it: `hdr.h2 = {a =
# (hdr.h2 == hdr.h) ? hdr.h.b : (hdr.h.b & hdr.h.b), ..}` is no self-reading initializer (fuzz_exprs
# 2465's rule), BMv2 writes it.  checkmate-p4c took the reduced element for hoisted but still looked
# for reads in the condition, and left h2 invalid.  (`true ? hdr.h.b : hdr.h2.a` agreed: a guard.)
_PR = [(1, H2(a2, b2=1, c2=2, d2=3, b=5, c=6, d=7)) for a2 in (1, 0xee)]
for _n, _e in (("folded_arm_and_and", "(hdr.h2 == hdr.h) ? (false ? hdr.h.b : hdr.h.b) : (hdr.h.b & hdr.h.b)"),
               ("and", "(hdr.h2 == hdr.h) ? hdr.h.b : (hdr.h.b & hdr.h.b)"),
               ("folded_arm", "(hdr.h2 == hdr.h) ? (false ? hdr.h.b : hdr.h.b) : hdr.h.b"),
               ("or", "(hdr.h2 == hdr.h) ? hdr.h.b : (hdr.h.b | hdr.h.b)"),
               ("constant_condition", "true ? hdr.h.b : hdr.h2.a"),
               ("under_a_cast", "(bit<8>)((hdr.h2.a == 1) ? hdr.h.b : hdr.h.b)")):
    CASES.append(case("fuzz26_header_initializer_equal_arms_condition_reading_the_header_" + _n, CAT, program(
        "        hdr.h2 = {a = " + _e + ", b = 1, c = 2, d = 3};\n"), frames=_PR))


# fuzz_exprs seed 10417 (frames, reduced): lead40's rule (p4c's front-end SimplifyDefUse drops a
# store overwritten after a sub-control apply that may exit, blind to the exit) holds across an
# `if` that neither reads nor writes the path (an empty one in the reduced seed); checkmate-p4c kept the
# store there, so BMv2 sent the field as parsed where SC exited and checkmate-switch the store.
CASES.append(case("fuzz26_store_before_an_exiting_sub_control_dropped_across_an_if", CAT, program("""
        hdr.h.a = 7;
        sc.apply(hdr.h.b);
        if (hdr.h.c == 3) { } else { meta.m8 = 1; }
        hdr.h.a = 9;
""", top="control SC(inout bit<8> x) { apply { if (x != 0) { exit; } } }\n", ingress_decls="    SC() sc;"),
    frames=[(1, H(0x11, b, c, 0x44556677)) for b in (0, 5) for c in (3, 4)]))
