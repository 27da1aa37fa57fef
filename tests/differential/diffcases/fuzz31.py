"""Disagreements found by helper fuzz31 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

CASES = []

# Local header unions (fuzz31's probe): p4c's CopyStructures writes a whole-union copy member by
# member before LocalCopyPropagation, which tracks each member's copy by name -- a write of a
# sibling (`r.x = hdr.h;`, invalidating `r.w` on BMv2) does not end `r.w`'s copy of `hdr.u.w`.  So
# `lu = hdr.u; r = lu; r.x = hdr.h; lv = r; hdr.u = lv;` is `..; lv.x = r.x; lv.w = hdr.u.w;
# hdr.u.x = r.x; hdr.u.w = lv.w;` for p4c: where u.w was parsed, `lv.w` takes it after `lv.x`, and
# BMv2 ends with u.w valid (h.c 1) where running the statements makes u.x valid (h.c 2).  The
# same through a function p4c inlines (`return r;`), a struct holding the union and a parser
# state; checkmate ran the statements (union_copies handled header copies into members only).
_F = [(1, H(a, b, 2, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)]
_V = "        hdr.h.c = (bit<16>)((bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid());\n"
for _name, _body, _kw in [
        ("in_a_control", "u_t lu; u_t lv; u_t r; lu = hdr.u; r = lu; if (hdr.h.b == 1) { r.x = hdr.h; } lv = r; hdr.u = lv;", {}),
        ("in_an_action", "a();", dict(ingress_decls="    action a() { u_t lu; u_t lv; u_t r; lu = hdr.u; r = lu; r.x = hdr.h; lv = r; hdr.u = lv; }\n")),
        ("returned_by_a_function", "u_t lu = hdr.u; hdr.u = g(lu, hdr.h);",
         dict(top="u_t g(in u_t q, in h_t h) { u_t r = q; if (h.b == 1) { r.x = h; } return r; }\n")),
        ("in_a_struct", "s_t s1; s_t s2; s1.u = hdr.u; s2 = s1; if (hdr.h.b == 1) { s2.u.x = hdr.h; } u_t lv = s2.u; hdr.u = lv;",
         dict(top="struct s_t { u_t u; bit<8> k; }\n")),]:
    CASES.append(case(f"fuzz31_local_union_copy_member_by_member_{_name}", CAT,
                      program("        " + _body + "\n" + _V, **dict(_U, **_kw)), frames=_F))

# The same in a parser state (p4c's LocalCopyPropagation runs on each state's statements; checkmate
# had no copy rules there): `lu.w = hdr.u.w; lu.x = hdr.h; hdr.u.w = lu.w;` is `hdr.u.w = hdr.u.w`
# for p4c, which drops it -- u.w stays as parsed (valid) where the statements copy the invalidated
# `lu.w`; and the whole-union copies above.
for _name, _pz in [
        ("member", "u_t lu; lu.w = hdr.u.w; lu.x = hdr.h; hdr.u.w = lu.w;"),
        ("member_x", "u_t lu; lu.x = hdr.u.x; lu.w = {1, 2}; hdr.u.x = lu.x;"),
        ("whole", "u_t lu; u_t lv; u_t r; lu = hdr.u; r = lu; r.x = hdr.h; lv = r; hdr.u = lv;"),]:
    CASES.append(case(f"fuzz31_local_union_copy_in_a_parser_state_{_name}", CAT, program(_V, **dict(_U, parser="""
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 3: pw; 4: px; default: accept; } }
    state pw { pkt.extract(hdr.u.w); transition pz; }
    state px { pkt.extract(hdr.u.x); transition pz; }
    state pz { %s transition accept; }""" % _pz)), frames=_F))

# p4c's LocalCopyPropagation also carries a member's copy past a table apply, and through the cases
# of a `switch` on its action as through an `if`'s branches, where the table's actions write
# neither header (`lu = hdr.u; t.apply(); lu.x = hdr.h; lv = lu;` gives `lv.w = hdr.u.w`);
# checkmate's walk stopped at both.  An action writing a sibling (`lu.x`) of the copied member does
# not end it (by name); guards: an action writing the member or `hdr.u`, a case writing the member.
_T = "    action a1() { hdr.h.b = hdr.h.b + 1; }\n    action a2() {%s }\n" \
     "    table t { key = { hdr.h.b: exact; } actions = { a1; a2; } default_action = a1(); }\n"
for _name, _body, _a2, _decl in [
        ("a_table_apply", "t.apply(); lu.x = hdr.h;", "", "u_t lu; "),
        ("a_switch_case", "switch (t.apply().action_run) { a1: { lu.x = hdr.h; } default: { } }", "", "u_t lu; "),
        ("an_action_writing_a_sibling", "switch (t.apply().action_run) { a1: { lu.x = hdr.h; } default: { } }",
         " lu.x.setValid(); lu.x = {1, 1, 1, 1};", ""),
        ("ended_by_an_action_writing_it", "switch (t.apply().action_run) { a1: { lu.x = hdr.h; } default: { } }",
         " lu.w = {3, 3};", ""),
        ("ended_by_an_action_writing_the_source", "t.apply(); lu.x = hdr.h;", " hdr.u.w.setInvalid();", "u_t lu; "),
        ("ended_by_a_case_writing_it", "switch (t.apply().action_run) { a1: { lu.x = hdr.h; } a2: { lu.w = {1, 2}; } }", "", "u_t lu; "),]:
    CASES.append(case(f"fuzz31_local_union_copy_past_{_name}", CAT, program(
        f"        {_decl}lu = hdr.u; {_body} u_t lv = lu; hdr.u = lv;\n" + _V,
        **dict(_U, ingress_decls=("" if _decl else "    u_t lu;\n") + _T % _a2)), frames=_F))

# An action's (a function's) `inout` header-union parameter: p4c's inliner copies the argument in
# (`q_0 = hdr.u;`, member by member), so after `q.x = hdr.h;` LocalCopyPropagation reads `q.w` as
# the argument's `hdr.u.w` -- valid on BMv2 (meta.mw valid, h.c bit 0) where the statements read
# the invalidated `q.w`; a whole copy back (`r = q; r.x = hdr.h; q = r;`) ends with `q.w =
# hdr.u.w`, re-validating it (u.w valid); a function's `return q.w;` the same.  Guards: the body
# writing the argument (`hdr.u.x.setInvalid()`), or the member itself, ends the copy.
_M = dict(_U, meta="    u16_t mw;\n")
_VM = "        hdr.h.c = (bit<16>)((bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)meta.mw.isValid());\n"
for _name, _body, _kw in [
        ("action_reads_a_member_after_a_sibling_write", "a(hdr.u);",
         dict(ingress_decls="    action a(inout u_t q) { q.x = hdr.h; meta.mw = q.w; }\n")),
        ("action_copies_it_back_whole", "u_t lu = hdr.u; a(lu); hdr.u = lu;",
         dict(ingress_decls="    action a(inout u_t q) { u_t r = q; r.x = hdr.h; q = r; }\n")),
        ("function_returns_a_member", "meta.mw = f(hdr.u, hdr.h);",
         dict(top="u16_t f(inout u_t q, in h_t h) { q.x = h; return q.w; }\n")),
        ("ended_by_a_write_of_the_argument", "a(hdr.u);",
         dict(ingress_decls="    action a(inout u_t q) { q.x = hdr.h; hdr.u.x.setInvalid(); meta.mw = q.w; }\n")),
        ("ended_by_a_write_of_the_member", "a(hdr.u);",
         dict(ingress_decls="    action a(inout u_t q) { q.w.setInvalid(); q.x = hdr.h; meta.mw = q.w; }\n")),]:
    CASES.append(case(f"fuzz31_inout_union_param_{_name}", CAT, program("        " + _body + "\n" + _VM, **dict(_M, **_kw)),
                      frames=_F))

# p4c's SimplifyParsers merges a state into the one that goes to it directly when that is its only
# predecessor, before LocalCopyPropagation: `pu.w = hdr.u.w; transition pz1; } state pz1 { pu.x =
# hdr.h; transition pz2; } state pz2 { hdr.u.w = pu.w; ..` (a parser-level union) is `hdr.u.w =
# hdr.u.w` for p4c, dropped -- u.w stays valid on BMv2; checkmate's walk stopped at the state's end.
# Guard: a state with two predecessors is not merged (the copy ends).
_PRE = """
    u_t pu;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 3: pw; 4: px; default: accept; } }"""
for _name, _states in [
        ("merged_states", """
    state pw { pkt.extract(hdr.u.w); transition pz; }
    state px { pkt.extract(hdr.u.x); transition pz; }
    state pz { pu.w = hdr.u.w; transition pz1; }
    state pz1 { pu.x = hdr.h; transition pz2; }
    state pz2 { hdr.u.w = pu.w; transition accept; }"""),
        ("whole_copy_in_merged_states", """
    state pw { pkt.extract(hdr.u.w); transition pz; }
    state px { pkt.extract(hdr.u.x); transition pz; }
    state pz { pu = hdr.u; pu.x = hdr.h; transition pz2; }
    state pz2 { u_t lv = pu; hdr.u = lv; transition accept; }"""),
        ("ended_by_a_state_with_two_predecessors", """
    state pw { pkt.extract(hdr.u.w); pu.w = hdr.u.w; pu.x = hdr.h; transition pz; }
    state px { pkt.extract(hdr.u.x); pu.w = hdr.u.w; pu.x = hdr.h; transition pz; }
    state pz { hdr.u.w = pu.w; transition accept; }"""),]:
    CASES.append(case(f"fuzz31_parser_union_copy_across_{_name}", CAT, program(_V, **dict(_U, parser=_PRE + _states)),
                      frames=_F))

# More of p4c's one forward walk over the member copies: a stack of unions is copied element by
# element (`vs = us;`), an `if` whose branch exits joins with the other path only (the copy goes
# on past it), and a whole-union read in a nested block or a branch gets the copy from before
# it -- transitively (`lv.w = hdr.u.w`, then ended by `hdr.u.x = ..`: `hdr.u.w = lv.w` stays),
# where checkmate walked each block on its own, inner blocks first.
for _name, _body in [
        ("a_stack_of_unions", "u_t[2] us; us[0] = hdr.u; u_t[2] vs = us; vs[0].x = hdr.h; u_t lv = vs[0]; hdr.u = lv;"),
        ("past_a_branch_that_exits", "u_t lu = hdr.u; u_t r = lu; r.x = hdr.h; if (hdr.h.b == 2) { exit; } u_t lv = r; hdr.u = lv;"),
        ("into_nested_blocks", "u_t lu = hdr.u; u_t r = lu; { r.x = hdr.h; { u_t lv = r; hdr.u = lv; } }"),
        ("into_a_branch", "u_t lu = hdr.u; u_t r = lu; r.x = hdr.h; if (hdr.h.b == 1) { u_t lv = r; hdr.u = lv; }"),]:
    CASES.append(case(f"fuzz31_local_union_copy_{_name}", CAT, program("        " + _body + "\n" + _V, **_U), frames=_F))

# fuzz_exprs seed 14771 (REJECT): a control whose body always exits (`if (4w0xf != 0) { exit; }`,
# folded), applied on the straight path and then again in a branch of an `if` (or a `switch`):
# p4c's def-use does not visit the `if` after the exit, so the second copy of the exit is no second
# definition and p4c compiles it (the second apply on the straight path, or in a plain block, is its
# "Overwriting definitions at <ExitStatement>", still refused); checkmate-p4c refused it.
for _name, _after in [("an_if", "if (hdr.h.a != 0) { s0.apply(meta); }"),
                      ("a_switch", "switch (hdr.h.a) { 1: { s0.apply(meta); } default: { } }")]:
    CASES.append(case(f"fuzz31_control_that_always_exits_applied_again_in_{_name}", CAT, program(
        f"        hdr.h.b = 7; s1.apply(meta); {_after} hdr.h.b = 9;\n        hdr.h.c = (bit<16>)meta.m8;\n",
        top="control S(inout meta_t m) { apply { m.m8 = m.m8 + 1; if (4w0xf != 0) { exit; } m.m8 = 5; } }\n",
        ingress_decls="    S() s0; S() s1;\n"), frames=[(1, H(a, 2)) for a in (0, 1, 3)]))

# Found with the case above: p4c's front end drops a store that a later assignment overwrites
# before it inlines sub-controls (exit_blind_stores, lead session 40) also where the sub-control
# that may exit is applied in a branch of an `if` or a `switch` between them (its apply is a call
# of its arguments there): `hdr.h.b = 7; if (c) { s1.apply(meta); } hdr.h.b = 9;` -- where s1
# exits, BMv2 sends b as parsed; checkmate let no apply through a branch.  Guard: an argument
# that reads the stored field keeps the store.
_SX = "control S(inout meta_t m, in bit<8> b) { apply { m.m8 = m.m8 + 1; if (m.m8 != 1) { exit; } m.m8 = 5; } }\n"
for _name, _body in [("an_if", "if (hdr.h.a != 0) { s1.apply(meta, 0); }"),
                     ("a_switch", "switch (hdr.h.a) { 1: { s1.apply(meta, 0); } default: { } }"),
                     ("kept_by_an_argument_reading_it", "if (hdr.h.a != 0) { s1.apply(meta, hdr.h.b); }")]:
    CASES.append(case(f"fuzz31_store_dropped_across_an_exiting_apply_in_{_name}", CAT, program(
        f"        meta.m8 = hdr.h.a;\n        hdr.h.b = 7; {_body} hdr.h.b = 9;\n        hdr.h.c = (bit<16>)meta.m8;\n",
        top=_SX, ingress_decls="    S() s1;\n"), frames=[(1, H(a, 2)) for a in (0, 1, 3)]))

# fuzz_headers seed 8548 (frames): p4c's def-use drops a union-member store that a later
# assignment overwrites (union_defuse) also across a call of an action none of whose arguments
# holds the member (`hdr.u.x = hdr.h; a0(hdr.h2); hdr.u.x = hdr.h2;`: p4c has inlined the call,
# the body and the copy-back of `hdr.h2` between): BMv2 keeps the parsed u.w valid; checkmate took
# every action call whose `out` argument is not the member as a read and kept the store.  Guard:
# an action reading the member keeps it.
_A0 = "    action a0(out h_t y) { meta.m8 = 1; }\n    action a1(out h_t y) { meta.m8 = hdr.u.x.a; }\n"
for _name, _body in [("", "hdr.u.x = hdr.h; a0(hdr.h2); hdr.u.x = hdr.h2;"),
                     ("_in_a_switch_case", "switch (hdr.h.b) { 1: { } default: { hdr.u.x = hdr.h; } } a0(hdr.h2); hdr.u.x = hdr.h2;"),
                     ("_kept_by_an_action_reading_it", "hdr.u.x = hdr.h; a1(hdr.h2); hdr.u.x = hdr.h2;")]:
    CASES.append(case(f"fuzz31_union_store_dead_across_an_action_call{_name}", CAT, program(
        "        " + _body + "\n" + _V, **dict(_U, ingress_decls=_A0)), frames=_F))

# fuzz_exprs seed 14908 (frames): after a single-case `switch` (switch_copies: p4c takes its case as
# always run), a copy the case leaves (`hdr.h.d = 1 | (bit<32>)hdr.h.c;`) goes on past an action
# call -- p4c has inlined it -- whose body and copy-backs write neither the path nor what the value
# reads (an inout parameter the body leaves alone comes back as `arg = arg`, which p4c drops);
# checkmate took every action call as a write.  Guard: an action writing what the value reads.
_SW1 = "        hdr.h.d = 32w5;\n        switch (hdr.h.a) { 7: { hdr.h.d = 32w1 | (bit<32>)hdr.h.c; } }\n"
_RD = "        hdr.h.c = (bit<16>)hdr.h.d + hdr.h.c;\n"
for _name, _call, _act in [
        ("", "b0(meta.m16, meta.m8);", "bit<15> l = (bit<15>)hdr.h.b; q1 = q1 + 1;"),
        ("_calling_a_function", "b0(meta.m16, meta.m8);", "bit<15> l = (bit<15>)hdr.h.b; tick(meta.m8);"),
        ("_with_an_inout_argument_it_reads", "b0(hdr.h.c, meta.m8);", "q1 = 1;"),
        ("_ended_by_an_action_writing_what_it_reads", "b0(meta.m16, meta.m8);", "hdr.h.c = 9;"),]:
    CASES.append(case(f"fuzz31_single_case_switch_copy_past_an_action_call{_name}", CAT, program(
        _SW1 + f"        {_call}\n" + _RD, top="bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\n",
        ingress_decls=f"    action b0(inout bit<16> q0, inout bit<8> q1) {{ {_act} }}\n"),
        frames=[(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]))
