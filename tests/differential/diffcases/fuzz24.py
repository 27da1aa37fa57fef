"""Disagreements found by helper fuzz24 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_EN = "enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"

# fuzz21's `fuzz21_enum_cast_comparison_not_folded` with the enum cast from a constant expression
# rather than a literal (fuzz_exprs seed 7804: `(En_t)(9w29)[8:1] == En_t.C`): p4c's constant
# folding makes the operand a constant first, the cast stays, and the comparison is not folded,
# so the tables after `return` stay in the P4Info.  checkmate-p4c marked only a cast of a literal
# and folded the rest (t1, t2 missing from its P4Info).
CASES.append(case("fuzz24_enum_cast_of_a_constant_expression_not_folded", CAT, program("""
        if (hdr.h.a == 1) {
            if ((En_t)(8w0x5c)[7:4] != En_t.C) { return; }
            t1.apply();
        } else if (hdr.h.a == 2) {
            if ((En_t)(4w2 + 4w4) != En_t.C) { return; }
            t2.apply();
        } else if (hdr.h.a == 3) {
            if ((En_t)(bit<4>)8w0x15 == En_t.B) { return; }
            t3.apply();
        } else if (hdr.h.a == 4) {
            if (En_t.C != (En_t)(4w4 |+| 4w7) && hdr.h.b != 0) { return; }
            t4.apply();
        }
""", top=_EN, ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t1 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(1); }
    table t2 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(2); }
    table t3 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(3); }
    table t4 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(4); }
"""), frames=[(1, H(a, b, 3)) for a in (1, 2, 3, 4, 5) for b in (0, 1)]))


# A header initializer after a conditional `return` (or in a branch) of an action is a
# conditional setValid for p4c's BMv2 back end -- unless every call copies an out/inout argument
# back into that same header and the body only ever assigns it whole: p4c inlines the call, its
# def-use pass drops the initializer as a dead store (the copy-back overwrites it) and nothing is
# left to refuse (fuzz_exprs seed 8015: `hdr.stk[0] = {...}` after a conditional return in
# `a1(inout el_t q0)`, called as `a1(hdr.stk[0])` from the control).  fuzz_exprs 5470 had the rule
# for an initializer unconditional in the callee and a call under a condition in another action;
# checkmate-p4c refused this one at the initializer.  A call with another argument, or a table
# listing the action, keeps the store: p4c's target error (INVALID below).
CASES.append(case("fuzz24_conditional_header_initializer_overwritten_by_copy_back", CAT, program("""
        a1(hdr.h2);
        if (hdr.h.c == 7) { a1(hdr.h2); }
        a2();
        hdr.s[0] = {7, 7, 7, 7};
        a3(hdr.s[0]);
        hdr.h.d = hdr.h2.a ++ hdr.h2.b ++ hdr.s[0].b ++ hdr.s[0].a;
        if (hdr.h.c == 7) { a4(hdr.h2); }   // (h2 invalid after it: not read)
""", fields="    h_t[2] s;\n", ingress_decls="""
    action a1(inout h_t q) { q.a = q.a + 1; if (hdr.h.b == 0) { return; } hdr.h2 = {a = 1, b = hdr.h.a, c = 2, d = 3}; }
    action a2() { a1(hdr.h2); }
    action a3(inout h_t q) { q.b = 4; if (hdr.h.b == 1) { return; } hdr.s[0] = {1, 2, 3, 4}; }
    action a4(out h_t q) { if (hdr.h.b == 2) { q.b = 5; } else { hdr.h2 = {9, 9, 9, 9}; } }
"""), frames=[(1, H2(3, b=b, c=c)) for b in (0, 1, 2, 3) for c in (0, 7)]))
# (no frame without h2: a1 would read the invalid h2's fields, whose value on BMv2 is whatever an
# earlier packet left in its PHV -- the fresh-clone CI of the merge saw 06 once, 00 alone)

_A1 = "    action a1(inout h_t q) { q.a = 1; if (hdr.h.b == 0) { return; } hdr.h2 = {a = 1, b = hdr.h.a, c = 2, d = 3}; }\n"
INVALID = {
    "fuzz24_conditional_header_initializer_with_another_argument": (program(
        "        a1(hdr.h2);\n        a1(hdr.h);\n", ingress_decls=_A1), ("conditional execution",)),
    "fuzz24_conditional_header_initializer_via_an_action_with_another_argument": (program(
        "        a2();\n", ingress_decls=_A1 + "    action a2() { a1(hdr.h); }\n"), ("conditional execution",)),
    "fuzz24_conditional_header_initializer_in_a_table_bound_action": (program(
        "        t.apply();\n", ingress_decls=_A1 + "    table t { actions = { a1(hdr.h2); } default_action = a1(hdr.h2); }\n"),
        ("conditional execution",)),
}


# p4c's def-use takes a self-reading header initializer (`h = {h.a, ...}`: on BMv2 it writes no
# field and leaves `h` invalid, fuzz_exprs 2465) as a definition of every field, and drops a store
# to a field it does not read also inside the branches of an `if` or `switch` before it (its mid
# end shows `if (c) { h.c = 5; } else { h.b = h.c; }` gone; a store read later in its own branch
# stays).  fuzz_exprs seed 8114: `switch (..) { 0: { hdr.opt.e3 = hdr.opt.e3 >> ..; } }` before
# `hdr.opt = {.., e3 = 0, epad = hdr.opt.epad}`; a later `hdr.stk[2].e3 = hdr.opt.e3` reads the
# parsed value on BMv2.  checkmate-switch ran the stores in the branches.
CASES.append(case("fuzz24_stores_in_branches_before_self_init_dropped", CAT, program("""
        if (hdr.h.b == 1) { hdr.h2.c = 5; } else { hdr.h2.b = hdr.h2.a; }
        switch (hdr.h.c) {
            1: { hdr.h2.d = 6; hdr.h.d = hdr.h2.d; }
            2: { hdr.h2.b = 7; { hdr.h2.d = 8; } }
        }
        if (hdr.h.b == 2) { hdr.h2.c = 9; if (hdr.h.c == 3) { hdr.h2.d = 1; } }
        switch (hdr.h.b) { 4: { hdr.h2.b = hdr.h2.b + 1; } }
        hdr.h2 = {hdr.h2.a, 1, hdr.h2.c, 3};
        hdr.h.c = hdr.h2.c;
        hdr.h.d = hdr.h.d ^ hdr.h2.d ^ (hdr.h2.b ++ 24w0);
"""), frames=[(1, H2(3, 0x40, 0x1111, 0x22222222, b=b, c=c, d=0x100)) for b in (1, 2, 4) for c in (1, 2, 3)]))

# The walk above took an `if` between the store and the initializer for reading none of the
# header's fields, so `h.b = 8; if (h.b == x) {..}` lost the store the `if` reads (p4c keeps it).
CASES.append(case("fuzz24_store_read_by_an_if_before_self_init_kept", CAT, program("""
        hdr.h2.b = 8;
        if (hdr.h2.b == hdr.h.b) { hdr.h.c = 1; }
        hdr.h2.d = 9;
        switch (hdr.h.b) { 3: { hdr.h.c = 2; } 4: { hdr.h.d = hdr.h2.d; } }
        hdr.h2 = {hdr.h2.a, 1, 2, 3};
"""), frames=[(1, H2(3, 0x40, 0x1111, 0x22222222, b=b)) for b in (3, 4, 8)]))


# mutz24's rule (a list of constants in a body p4c inlines twice: p4c dies) skips a list in a
# branch p4c's front end folds away before its def-use and inlining: `if (true) {..} else {..}`,
# `if (4w1 == 0)`, and what its strength reduction decides (`x * 0 == 1`).  fuzz_exprs seed 8298:
# `tuple<bit<2>> tp6 = {2w3}; l4[4:3] = tp6[0];` in the else of an `if (true)` in a function
# called five times; checkmate-p4c refused the program.
CASES.append(case("fuzz24_constant_list_in_a_folded_branch_of_a_function_inlined_twice", CAT, program("""
        hdr.h.b = f(hdr.h.a);
        hdr.h.c = (bit<16>)f(hdr.h.b);
""", top="""bit<8> f(in bit<8> x) {
    bit<8> r = x;
    if (true) { r = r + 1; } else { tuple<bit<2>> tp = {2w3}; r[4:3] = tp[0]; }
    if (4w1 == 0) { tuple<bit<2>> tq = {2w1}; r[1:0] = tq[0]; }
    if (x * 0 == 1) { tuple<bit<8>> tz = {8w9}; r = tz[0]; }
    return r;
}
"""), frames=[(1, H(a)) for a in (0, 7)]))


# p4c's constant folding makes a slice of a constant a constant before its strength reduction, so
# `(23w1)[19:4] >> x` is `0 >> x`, 0, and the switch on it constant: only `default` stays, and an
# action called only in another case is not in the P4Info (fuzz_exprs seed 8175).  checkmate's
# strength reduction knew literals and operations on them, not slices (a1 listed).
CASES.append(case("fuzz24_shift_of_a_constant_slice_folded", CAT, program("""
        switch ((23w1)[19:4] >> hdr.h.a) {
            7: { a1(); }
            default: { hdr.h.b = 3; }
        }
        if ((((8w0x0f)[7:4] ++ 4w0) & hdr.h.b) != 0) { t.apply(); }
""", ingress_decls="""
    action a1() { hdr.h.b = 1; }
    action s(bit<8> v) { hdr.h.c = (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { s; } default_action = s(1); }
"""), frames=[(1, H(a)) for a in (0, 7)]))
