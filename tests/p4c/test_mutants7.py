"""More one-mistake programs and their valid neighbours (helper mutz28 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
# a branch p4c's front end removes before type checking: `hdr.h.b` is bit<16>, `hdr.h.a` bit<8>
_BAD = "{ hdr.h.b = hdr.h.a; }"
_S = "control S(inout bit<8> o) { apply { o = o / 3; } }\n"
_SV = "control S(in bit<8> v, out bit<8> o) { bit<8> t = 0; apply { t = v % 7; o = t; } }\n"
_SA = ("control S(in bit<8> v, inout bit<8> o) {{ action a() {{ o = v / 3; }} action b() {{ a(); }}{0} "
       "apply {{ {1} }} }}\n")
_SAT = " table t { key = { o: exact; } actions = { a; } }"
_G1 = "bit<8> g(out bit<8> p) { p = 9; return 0; }\n"
_G2 = "bit<8> g(in bit<8> p) { if (p == 1) { return 2; } return 2; }\n"
_ANON = ("    action s(bit<8> v) { hdr.h.a = v; }\n"
         "    table t2 { key = { hdr.h.c: exact; } actions = { s; NoAction; } implementation = action_profile(32w4); }\n")
_AL1 = "control M1(inout headers hh, inout h_t x) { apply { hh.h.a = (hh.h.a - 1) / 3; } }\n"
_AL2 = "control M1(inout h_t x, inout headers hh) { apply { x.a = (x.a - 1) / 3; } }\n"
_AL3 = "control M1(inout h_t hh, inout bit<8> x) { apply { hh.a = (hh.a - 1) / 3; } }\n"
_AL4 = "control M1(inout h_t y, inout h_t x) { apply { y.a = (y.a - 1) / 3; } }\n"


def _before_parser(ctl: str, apply: str, two: bool = True) -> str:
    """The template program with control ``ctl`` (naming the ``headers`` struct, given a second
    header ``h2`` where ``two``) before the parser, an instance ``m1`` of it, and ``apply``."""
    out = program(locals="    M1() m1;\n", body=f"        {apply}").replace("parser P(", ctl + "parser P(")
    return out.replace("struct headers { h_t h; }", "struct headers { h_t h; h_t h2; }") if two else out


_ST = _S + "control T(inout bit<8> p) { S() s; apply { s.apply(p); } }\n"



def _pstk(parser: str, body: str = "") -> str:
    """The template program with a stack ``hdr.s`` (2) and the start state's statements ``parser``."""
    return program(body=body).replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[2] s; }").replace(
        "state start { pkt.extract(hdr.h);", f"state start {{ pkt.extract(hdr.h); {parser}")


def _dep(body: str, top: str = "") -> str:
    """The template program with deparser ``body``."""
    return program(top=top).replace("control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }",
                                    f"control D(packet_out pkt, in headers hdr) {{ apply {{ {body} }} }}")


_FIN = "bit<8> f(in bit<8> v) {{ if ({0}) {{ v = 1; }} return v; }}\n"
_PS = "hdr.s[0].setValid(); hdr.s[0].a = 7; pkt.extract(hdr.s{0}); m.x = hdr.s[0].a / 3;"

# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 513 (dead_store): an `&&` / `||` whose left side folds from literals is folded
    # whatever its right side is -- but `!true || x` is `x`, typed as any other condition
    "type_error_in_a_branch_of_not_true_or": (
        program(body=f"        if (!true || hdr.h.a == 1) {_BAD}"), "hdr.h.b = hdr.h.a", r"type mismatch",
        program(body=f"        if (!true && hdr.h.a == 1) {_BAD}")),
    # mutz27's open item: p4c inlines each apply of a sub-control before its constant propagation,
    # so a division in the body folds at an apply whose arguments carry constants -- and is the
    # back end's error at one that does not, also beside an apply that folds it (checkmate-p4c
    # judged the body alone: refused every one)
    "sub_control_division_at_an_apply_of_a_run_time_argument": (
        program(top=_S, locals="    S() s;\n", body="        m.x = 9;\n        s.apply(m.x);\n        s.apply(hdr.h.a);"),
        "control S(inout bit<8> o)", _DIV,
        program(top=_S, locals="    S() s;\n", body="        m.x = 9;\n        s.apply(m.x);\n        hdr.h.a = 6;\n"
                                                    "        s.apply(hdr.h.a);")),
    "sub_control_local_division_at_an_apply_of_a_run_time_argument": (
        program(top=_SV, locals="    S() s;\n", body="        s.apply(hdr.h.c, hdr.h.a);"), "control S(in bit<8> v", _DIV,
        program(top=_SV, locals="    S() s;\n", body="        s.apply(8w10, hdr.h.a);")),
    "sub_control_division_two_levels_down_at_a_run_time_argument": (
        program(top=_ST, locals="    T() t;\n", body="        t.apply(hdr.h.a);"), "control S(inout bit<8> o)", _DIV,
        program(top=_ST, locals="    T() t;\n", body="        bit<8> v = 9;\n        t.apply(v);\n        hdr.h.a = v;")),
    # mutz27's open item: p4c's propagation keeps a stack element's constant past `extract(hs.next)`
    # (not past an extract of the element itself); checkmate-p4c forgot it there
    "stack_constant_forgotten_at_an_extract_of_the_element": (
        _pstk(_PS.format("[0]")), "m.x = hdr.s[0].a / 3", _DIV, _pstk(_PS.format(".next"))),
    # p4c_mutate seed 601 (dead_wrap): an `if` in a deparser is p4c's "IfStatement: not supported
    # within a deparser" only where its midend does not fold the condition (checkmate-p4c refused
    # every `if` there, a folded one too)
    "if_in_a_deparser_on_a_run_time_condition": (
        _dep("if (hdr.h.isValid()) { pkt.emit(hdr.h); }"), "control D(", r"if statement is not supported within a deparser",
        _dep("if (true) { pkt.emit(hdr.h); }")),
    # p4c_mutate seed 601's neighbours: an assignment to an `in` parameter or a constant in a branch p4c's
    # front end removes (a literal condition) is not checked; in one only its midend removes, it is
    "in_parameter_assigned_in_a_branch_strength_reduction_removes": (
        program(top=_FIN.format("v * 0 == 1"), body="        hdr.h.a = f(hdr.h.c);"), "bit<8> f(in", r"cannot assign to 'in' parameter",
        program(top=_FIN.format("1 == 2"), body="        hdr.h.a = f(hdr.h.c);")),
    # ... an action of the sub-control called directly is inlined with it (folded by the apply's
    # constants); one a table lists is folded only where the apply's argument of the `in` parameter
    # is itself a constant (p4c's inliner puts it in place), not a constant the caller propagates
    "sub_control_action_division_at_an_apply_of_a_run_time_argument": (
        program(top=_SA.format("", "b();"), locals="    S() s;\n", body="        s.apply(hdr.h.a, m.x);"), "action a() { o = v / 3; }", _DIV,
        program(top=_SA.format("", "b();"), locals="    S() s;\n", body="        s.apply(8w7, m.x);")),
    "sub_control_listed_action_division_by_a_propagated_constant": (
        program(top=_SA.format(_SAT, "t.apply();"), locals="    S() s;\n", body="        bit<8> v = 7;\n        s.apply(v, m.x);"),
        "action a() { o = v / 3; }", _DIV,
        program(top=_SA.format(_SAT, "t.apply();"), locals="    S() s;\n", body="        s.apply(8w7, m.x);")),
    # p4c_mutate seed 515 (late_store): a store of a function's result p4c inlines -- a function of
    # one `return` of a constant -- is a constant for the propagation (`hdr.h.b = g(..) + 1;` folds
    # `hdr.h.b / 7`); not with a run-time operand, nor of a function of two returns (RemoveReturns'
    # flag: "retval may be uninitialized", refused by p4c)
    "division_of_a_constant_function_result_plus_a_field": (
        program(top=_G1, body="        hdr.h.c = g(m.x) + hdr.h.c;\n        hdr.h.c = hdr.h.c / 7;"), "hdr.h.c = hdr.h.c / 7", _DIV,
        program(top=_G1, body="        hdr.h.c = g(m.x) + 1;\n        hdr.h.c = hdr.h.c / 7;")),
    "division_of_a_function_result_of_two_returns": (
        program(top=_G2, body="        hdr.h.c = g(hdr.h.a);\n        hdr.h.a = hdr.h.c / 7;"), "hdr.h.a = hdr.h.c / 7", _DIV,
        program(top=_G1, body="        hdr.h.c = g(m.x);\n        hdr.h.a = hdr.h.c / 7;")),
    # p4c_mutate seed 182's neighbour: an anonymous `implementation = action_profile(..)` is p4c's
    # P4Runtime serializer's error only for a table it keeps (checkmate-p4c refused it where declared)
    "anonymous_implementation_of_an_applied_table": (
        program(locals=_ANON, body="        t2.apply();"), "implementation = action_profile", r"anonymous table property",
        program(locals=_ANON, body="        if (false) { t2.apply(); }")),
    # p4c_mutate seed 515 (dead_store, mutz28's open item then): arguments that alias make p4c's
    # inliner copy each whole -- a store into a part of an earlier one that a later argument's
    # copy-out overwrites stays live (the earlier copy-out reads the whole temporary); an argument
    # the later one overwrites whole drops it (checkmate-p4c dropped both)
    "store_into_an_aliased_whole_argument_copied_out_before_its_part": (
        _before_parser(_AL1, "m1.apply(hdr, hdr.h);"), "hh.h.a = (hh.h.a - 1) / 3", _DIV,
        _before_parser(_AL2, "m1.apply(hdr.h, hdr);")),
    "store_into_an_aliased_header_argument_copied_out_before_its_field": (
        program(top=_AL3, locals="    M1() m1;\n", body="        m1.apply(hdr.h, hdr.h.a);"), "hh.a = (hh.a - 1) / 3", _DIV,
        program(top=_AL4, locals="    M1() m1;\n", body="        m1.apply(hdr.h, hdr.h);")),
}

VALID = {
    # ... so the dead branch of `!true && x`, `(1 == 2) && x`, `(true && false) && x`, `!K && x`
    # (K a constant true) is no type error (checkmate-p4c took only a literal or a name on the left)
    "type_error_in_the_branch_of_not_true_and": program(body=f"        if (!true && (hdr.h.a == 1)) {_BAD}"),
    "type_error_in_the_branch_of_a_literal_comparison_and": program(
        body=f"        if ((1 == 2) && (hdr.h.a == 1)) {_BAD}\n        if ((8w1 == 8w2) && (hdr.h.a == 1)) {_BAD}"),
    "type_error_in_the_branch_of_a_folded_conjunction_and": program(
        top="const bool K = true;\n",
        body=f"        if ((true && false) && (hdr.h.a == 1)) {_BAD}\n        if (!K && (hdr.h.a == 1)) {_BAD}\n"
             f"        if (!(!false) && (hdr.h.a == 1)) {_BAD}"),
    "type_error_in_the_else_of_not_false_or": program(
        body=f"        if (!false || (hdr.h.a == 1)) {{ hdr.h.a = 1; }} else {_BAD}"),
    # an `if` p4c folds in a deparser: its kept branch (an else too; nested; a constant; strength reduction)
    "folded_ifs_in_a_deparser": _dep("if (!true) { pkt.emit(hdr.h); } if (K) { pkt.emit(hdr.h); } else { pkt.emit(hdr.h); } "
                                     "if (hdr.h.a * 0 == 1) { pkt.emit(hdr.h); } if (true) { if (false) { pkt.emit(hdr.h); } }",
                                     top="const bool K = false;\n"),
    "assignments_p4c_never_checks_in_dead_branches": _dep("if (false) { hdr.h.a = 1; } pkt.emit(hdr.h);",
                                                         top="const bit<8> K = 1;\n" + _FIN.format("false")).replace(
        "apply {\n\n    }", "    action a(bit<8> v) { if (1 == 2) { v = 1; } hdr.h.a = v; }\n    apply {\n"
                              "        a(3);\n        hdr.h.c = f(hdr.h.c);\n        if (false) { K = 2; }\n    }"),
    # ... the later copy-out of `hdr.h` writes all of a `headers` holding only `h`: the store is dead
    "store_into_an_aliased_whole_argument_its_part_covers": _before_parser(_AL1, "m1.apply(hdr, hdr.h);", two=False),
    # a sub-control's division folded at each apply: two applies of one instance, the second with
    # the first's result; in a branch and a switch case of the caller; a directly invoked type
    "sub_control_division_folded_at_two_applies": program(
        top=_S, locals="    S() s;\n", body="        bit<8> v = 9;\n        s.apply(v);\n        s.apply(v);\n        hdr.h.a = v;"),
    "sub_control_division_folded_in_a_branch_and_a_case": program(
        top=_S, locals="    S() s;\n    S() s2;\n",
        body="        bit<8> v = 9;\n        bit<8> w = 12;\n        if (hdr.h.c == 1) { s.apply(v); }\n"
             "        switch (hdr.h.a) { 1: { s2.apply(w); } }\n        hdr.h.a = v + w;"),
    "sub_control_division_folded_in_a_directly_invoked_type": program(
        top=_S, body="        bit<8> v = 9;\n        S.apply(v);\n        hdr.h.a = v;"),
    "sub_control_division_in_a_condition_folded_by_an_in_argument": program(
        top="control S(in bit<8> v, inout bit<8> o) { apply { if (v / 3 == 2) { o = 1; } } }\n",
        locals="    S() s;\n", body="        s.apply(8w7, hdr.h.a);"),
    # a store whose division the caller overwrites unread is dropped (p4c's def-use after inlining)
    "sub_control_division_into_an_argument_overwritten": program(
        top=_S, locals="    S() s;\n", body="        bit<8> v = hdr.h.a;\n        s.apply(v);\n        v = 1;\n        hdr.h.a = v;"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)


def test_judge_reads_p4c_lines_of_a_cached_mutant_of_another_base(monkeypatch, tmp_path):
    """tools/p4c_mutate_judge: p4c's output is cached by the mutant's text, so a mutant two bases
    make alike names the other base's file (mutz28's `far` on tbl_lpm-dup_apply: p4c and
    checkmate-p4c both at line 49) -- its lines still count as p4c's (`p4cline`)."""
    import tools.p4c_mutate_judge as J
    f = tmp_path / "tbl_lpm-dup_apply-6457b7c1ba3d.p4"
    f.write_text("x")
    out = "/tmp/m/tbl_lpm_default_route-dup_apply-6457b7c1ba3d.p4(49): [--Werror=invalid] error: Program can not be implemented\n"
    monkeypatch.setattr(J, "run_p4c_cached", lambda path, cache: out)
    monkeypatch.setattr(J, "ours_verdict", lambda path: ("error", f"{f}:49:11: table I.t is applied more than once"))
    assert J.judge(f, 57, tmp_path)[0] == "agree-reject p4cline"
    monkeypatch.setattr(J, "ours_verdict", lambda path: ("error", f"{f}:30:11: table I.t is applied more than once"))
    assert J.judge(f, 57, tmp_path)[0] == "agree-reject far"
