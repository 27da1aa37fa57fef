"""Disagreements found by helper fuzz23 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program
from .fuzz14 import _UDEPARSER, _UNION, _UPARSER, _UVALID
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

CASES = []

# p4c's inliner starts a sub-control's `out` argument passed in place with `arg.setInvalid()`, so
# a union-member store before the apply is dead for its def-use pass also when the body writes the
# parameter (fuzz_headers 5783: `y = st[0]` in the body); with the store gone BMv2 keeps the parsed
# sibling `u.w` valid when what the body writes is invalid, or when it exits first.  checkmate kept
# the store (taken to be needed for the body's own sibling invalidation, which the tracked copy of
# the member makes anyway: b == 2) and invalidated `u.w`.
CASES.append(case("fuzz23_union_store_before_control_writing_its_out_parameter", CAT, program("""
        if (hdr.h.b == 0) { hdr.u.x = {1, 2, 3, 4}; sz.apply(hdr.u.x, hdr.h2); }
        else if (hdr.h.b == 1) { hdr.u.x = {1, 2, 3, 4}; se.apply(hdr.u.x, hdr.h.c[7:0]); }
        else { hdr.u.x = {1, 2, 3, 4}; sv.apply(hdr.u.x, hdr.h.c[7:0]); }
""" + _UVALID, headers=_UNION, fields="    u_t u;\n", parser=_UPARSER, deparser=_UDEPARSER,
    top="control SZ(out h_t y, in h_t z) { apply { y = z; } }\n"
        "control SE(out h_t y, in bit<8> c) { apply { if (c == 1) { exit; } y.setValid(); y.a = c; } }\n"
        "control SV(out h_t y, in bit<8> c) { apply { y.setValid(); y.b = c; if (c == 1) { y.setInvalid(); } } }\n",
    ingress_decls="    SZ() sz;\n    SE() se;\n    SV() sv;\n"),
    frames=[(1, H(3, b, c, payload=bytes([1, 0x6c, 0xf3]))) for b in range(3) for c in (0, 1)], json_path=True))


# A tuple local with a constant initializer in a function called twice (or a sub-control applied
# twice) makes p4c 1.2.4.8's def-use pass die only when something names the local: p4c's front end
# removes an unused declaration before it inlines (fuzz_exprs 6918, 6919).  checkmate-p4c refused
# the program (`inlined_lists`; `tp[0]` read: still refused, tests/p4c/test_mutants3.py).
CASES.append(case("fuzz23_unread_constant_tuple_in_function_inlined_twice", CAT, program("""
        hdr.h.c[0:0] = (bit<1>)f(hdr.h.a == 1);
        f(hdr.h.b == 1);
        s1.apply(hdr.h.d);
        s2.apply(hdr.h.d);
""", top="bool f(in bool p) { tuple<bit<6>, bool> tp = {6w0, true}; if (p) { tuple<bit<6>> t2 = {1}; } return !p; }\n"
        "control S(inout bit<32> d) { tuple<bit<8>> tq = {8w7}; apply { d = d + 1; } }\n",
    ingress_decls="    S() s1;\n    S() s2;\n"), frames=[(1, H(a)) for a in (0, 1)]))


# fuzz22's single-case switch copies (`fuzz22_single_case_switch_copies_fields_and_expressions`):
# p4c splits a tuple local into its elements, so an element the case copies into a field is a
# value of its own (`tp = {hdr.h.b ++ 8w1, 7}; hdr.h.c = tp[0];` makes later reads of hdr.h.c
# `hdr.h.b ++ 8w1` whatever hdr.h.a is), and a function call in between writes only its out/inout
# arguments (p4c has inlined it: the copy goes on past `f(hdr.h2)`, fuzz_exprs seed 6209).
# checkmate took the element for a read of the case's local and every call for a write.
CASES.append(case("fuzz23_single_case_switch_copies_tuple_elements_past_function_calls", CAT, program("""
        switch (hdr.h.a) { 5: { tuple<bit<16>, bit<32>> tp = {hdr.h.b ++ 8w1, 32w7}; hdr.h.c = tp[0]; hdr.h2.d = tp[1]; } }
        f(hdr.h2, hdr.h.c == 3);
        hdr.h.d = (bit<32>)hdr.h.c;
        if (g(hdr.h.b) == 2) { hdr.m = 1; }
        hdr.h.d = hdr.h.d + (bit<32>)hdr.h.c;
        hdr.h.b = 1;
        hdr.h.d = hdr.h.d + (bit<32>)hdr.h.c + hdr.h2.d;
""".replace("hdr.m = 1", "meta.m8 = 1"),
    top="void f(inout h_t x, in bool c) { if (c) { x.a = 9; } }\nbit<8> g(in bit<8> v) { return v + 1; }\n"),
    frames=[(1, H(a, 3, 9)) for a in (4, 5)] + [(1, H2(1, b=3, c=9)), (1, H2(5, b=3, c=9))]))


# A header initializer that reads its own header leaves it invalid on BMv2 (p4c builds it in a
# temporary it never makes valid, `header_init`); a `?:` element is hoisted first and reads nothing
# there -- unless p4c's strength reduction makes it one arm: `c ? x : x` is x, also when an arm is
# such a `?:` itself (fuzz_exprs seed 6512: `(c ? h.e0 : (p ? h.e0 : h.e0))` is `h.e0`, a read).
# checkmate-p4c folded only the outer level and made hdr.h2 valid with the values.
CASES.append(case("fuzz23_self_init_nested_conditional_with_equal_arms_reads_header", CAT, program("""
        bool p = hdr.h.b == 1;
        hdr.h2 = {a = (hdr.h2.b < 5 ? hdr.h2.a : (p ? hdr.h2.a : hdr.h2.a)), b = 1, c = 2, d = 3};
        hdr.h.d = hdr.h2.isValid() ? 32w1 : 32w0;
"""), frames=[(1, H2(a2, b2, b=b)) for a2 in (1, 9) for b2 in (2, 7) for b in (0, 1)]))


# fuzz22's open item: p4c's LocalCopyPropagation has no join at the end of a plain block, so a
# single case's copies (`fuzz21_single_case_switch_taken_as_always_run`) go on after the blocks
# around the switch (`v = 2` in the case: `hdr.h.b = v` and `hdr.h.d = v + hdr.h.c` after the
# blocks read 2 and 7 whatever hdr.h.a is); an `if` around them is a join that ends them.
# checkmate stopped them at the end of the switch's own block.
CASES.append(case("fuzz23_single_case_switch_copies_past_enclosing_blocks", CAT, program("""
        bit<8> v = 1;
        { { switch (hdr.h.a) { 5: { v = 2; hdr.h.c = 7; } } } hdr.h.b = v; }
        hdr.h.d = (bit<32>)v + (bit<32>)hdr.h.c;
        if (hdr.h.b == 9) { { switch (hdr.h.a) { 6: { v = 3; hdr.h.c = 8; } } } }
        hdr.h2.setValid();
        hdr.h2.d = (bit<32>)v + (bit<32>)hdr.h.c;
"""), frames=[(1, H(a, b, 9)) for a in (4, 5, 6) for b in (1, 9)]))


# fuzz20's strict xfail `fuzz20_union_local_copy_propagated_past_sibling_write` (now passing:
# `union_copies`) is one direction of p4c's name-based copies; the other is sound: a value that
# reads a union member uses its siblings for p4c (exprUses), so after `t = hdr.u.x;` a write or
# setValid of `hdr.u.w` ends the copy and `hdr.h2 = t;` copies the valid t (a first version of
# the fix propagated these too and failed here).
CASES.append(case("fuzz23_header_copy_from_union_member_propagated_past_sibling_write", CAT, program("""
        if (hdr.h.b == 1) { h_t t = hdr.u.x; hdr.u.w.setValid(); hdr.h2 = t; }
        else if (hdr.h.b == 2) { h_t t2; t2 = hdr.u.x; hdr.u.w = {1, 2}; hdr.h2 = t2; }
        else { h_t t3 = hdr.u.x; hdr.u.w = {1, 2}; hdr.u.x = t3; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.h2.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", **_U), frames=[(1, H(a, b, 2, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2, 3)]))


# p4c propagates the values available before a single-case switch into the case too, and records
# no copy whose value then reads its own destination: `meta.m8 = hdr.h.b + 1;` (straight-line, or
# in a sub-control body applied before: p4c has inlined it) makes the case's `hdr.h.b = meta.m8 +
# 5` a value of hdr.h.b itself, so later reads of hdr.h.b stay reads (fuzz_exprs seed 7116: a
# `return` under a condition on the field).  checkmate propagated `meta.m8 + 5`.
CASES.append(case("fuzz23_single_case_switch_copy_reading_itself_through_an_earlier_value", CAT, program("""
        if (hdr.h.c == 1) {
            meta.m8 = hdr.h.b + 1;
            switch (hdr.h.a) { 5: { hdr.h.b = meta.m8 + 5; } }
            hdr.h.d = (bit<32>)hdr.h.b;
        } else if (hdr.h.c == 2) {
            s.apply(hdr, meta);
            switch (hdr.h.a) { 5: { hdr.h.b = meta.m8 + 5; } }
            hdr.h.d = (bit<32>)hdr.h.b;
        } else if (hdr.h.c == 3) {
            bit<8> m = hdr.h.b + 1;
            switch (hdr.h.a) { 5: { hdr.h.b = m + 5; } }
            hdr.h.d = (bit<32>)hdr.h.b;
        } else {
            meta.m8 = hdr.h.a + 1;
            switch (hdr.h.a) { 5: { hdr.h.b = meta.m8 + 5; } }
            hdr.h.d = (bit<32>)hdr.h.b;
        }
""", top="control S(inout headers_t h, inout meta_t m) { apply { m.m8 = h.h.b + 1; if (h.h.a == 9) { h.h.c = 1; } } }\n",
    ingress_decls="    S() s;\n"), frames=[(1, H(a, 3, c)) for a in (4, 5) for c in (1, 2, 3, 4)]))


# p4c 1.2.4.8 removes a branch its early constant folding decides before it checks types, so a
# member of a value that has none there (`l.e2` on an int<32>, fuzz_exprs seed 7319: a local of
# the loop body shadowing a header local of the same name) is no error; checkmate-p4c refused it
# (`dead_branch`: the type checker's "has no member" joins "has no field").
CASES.append(case("fuzz23_member_of_a_scalar_in_a_literal_dead_branch", CAT, program("""
        int<32> l = 5;
        if (false) { hdr.h.a = (bit<8>)l.e2; }
        if (8w1 == 8w2) { l.e0 = 1; } else { hdr.h.b = (bit<8>)(bit<32>)l; }
"""), frames=[(1, H(1))]))


_T0 = """
    action a1() { hdr.h.b = 1; }
    table t0 { key = { hdr.h.a: exact; } actions = { a1; NoAction; } default_action = NoAction(); }
"""

# Programs p4c refuses (tests/differential/test_invalid.py).  A table applied both as a statement
# and in a switch on its action_run has two kinds of successors for p4c's BMv2 back end ("table
# I.t0 has multiple successors", fuzz_headers seed 6354), also when every case is empty; so do two
# switches on it whose cases go on differently, and the same with `if (t0.apply().hit)`.
# checkmate-p4c left tables in a switch or a hit condition unchecked.
# (Two switches whose cases all go on after them compile: p4 of the probes, helper fuzz23.)
INVALID = {
    "fuzz23_table_applied_plain_and_in_a_switch": (program("""
        if (hdr.h.c == 1) { t0.apply(); } else { switch (t0.apply().action_run) { a1: { } NoAction: { } } }
""", ingress_decls=_T0), ("multiple successors",)),
    "fuzz23_table_applied_plain_and_as_a_hit_condition": (program("""
        if (hdr.h.c == 1) { t0.apply(); } else { if (t0.apply().hit) { } }
""", ingress_decls=_T0), ("multiple successors",)),
    "fuzz23_table_hit_conditions_going_on_differently": (program("""
        if (hdr.h.c == 1) { if (t0.apply().hit) { hdr.h.d = 1; } } else { if (t0.apply().hit) { hdr.h.d = 1; } }
""", ingress_decls=_T0), ("multiple successors",)),
    "fuzz23_table_in_two_switches_going_on_differently": (program("""
        if (hdr.h.c == 1) { switch (t0.apply().action_run) { a1: { hdr.h.d = 1; } } }
        else { switch (t0.apply().action_run) { a1: { hdr.h.d = 1; } } }
""", ingress_decls=_T0), ("multiple successors",)),
}

CASES.append(case("fuzz23_table_in_two_switches_going_on_alike", CAT, program("""
        if (hdr.h.c == 1) { switch (t0.apply().action_run) { a1: { } } } else { switch (t0.apply().action_run) { NoAction: { } } }
        if (hdr.h.c == 2) { if (t1.apply().miss) { } } else { if (t1.apply().hit) { } }
""", ingress_decls=_T0 + "    table t1 { key = { hdr.h.b: exact; } actions = { a1; NoAction; } default_action = a1(); }\n"), frames=[(1, H(a, 0, c)) for a in (1, 2) for c in (1, 2)]))
