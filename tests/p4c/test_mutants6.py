"""More one-mistake programs and their valid neighbours (helper mutz27 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
_MK = r"could not convert expression to Json"
_F = "bit<8> f(in bit<8> v) { return v + 1; }\n"
_FD = "bit<8> g(in bit<8> v) { return v / 3; }\n"
_FIO = "bit<8> h(inout bit<8> v) { v = v + 1; return v; }\n"
_AT = "    table t { key = { hdr.h.a: exact; } actions = { a; } }\n"
_AH = "    action a1(h_t z) { hdr.h.c = 1; }\n"
_AS = "    action a1(meta_t z) { hdr.h.c = 1; }\n"


def _sw(label: str, locals_: str = _AH) -> str:
    """A switch p4c folds (`8w0 >> hdr.h.a` is 0) whose case ``label`` calls a1 without its header argument."""
    return program(locals=locals_, body=f"        switch (8w0 >> hdr.h.a) {{ {label}: {{ a1(); }} default: {{ hdr.h.c = 3; }} }}")



def _stk(body: str, **kw) -> str:
    """The template program with two header stacks, ``hdr.s`` (3) and ``hdr.t`` (2), and ``body``."""
    return program(body=body, **kw).replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[3] s; h_t[2] t; }")


_SX = "control S(inout h_t x, out bit<8> o) {{ apply {{ o = 3; if (x.a == 1) {{ {0} }} {1} }} }}\n"
_SU = ("control S(inout h_t x, out bit<8> o) { apply { o = 3; if (x.a == 1) { o = 4; } } }\n"
       "control S3(inout bit<8> v) { apply { v = v + 2; } }\n"
       "control S4(out bit<8> o, inout bit<8> p) { apply { o = 4; p = 5; } }\n"
       "control S5(inout h_t hh, in bit<8> v) { apply { hh.a = v; } }\n")
_SL = "    S() s; S3() s3; S4() s4; S5() s5;\n"


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 506 (dead_store): a store whose value calls a function is judged as any
    # other store -- p4c inlines the call into statements before it and drops the store when
    # nothing reads it (checkmate-p4c kept every store with a call in its value); kept where read
    "division_of_a_function_result_read_later": (
        program(top=_F, body="        hdr.h.a = f(hdr.h.c) / 8w6;\n        hdr.h.b = (bit<16>)hdr.h.a;"),
        "hdr.h.a = f(hdr.h.c) / 8w6", _DIV,
        program(top=_F, body="        hdr.h.a = f(hdr.h.c) / 8w6;\n        hdr.h.a = f(hdr.h.c);\n"
                             "        hdr.h.b = (bit<16>)hdr.h.a;")),
    "division_of_an_inout_function_result_kept": (
        program(top=_FIO, body="        hdr.h.a = h(hdr.h.c) / 8w6;"), "hdr.h.a = h(hdr.h.c) / 8w6", _DIV,
        program(top=_FIO, body="        hdr.h.a = h(hdr.h.c) / 8w6;\n        hdr.h.a = 1;")),
    "division_over_is_valid_kept": (
        program(body="        hdr.h.a = (hdr.h.isValid() ? hdr.h.c : 8w2) / 8w6;"), "hdr.h.a = (hdr.h.isValid()", _DIV,
        program(body="        hdr.h.a = (hdr.h.isValid() ? hdr.h.c : 8w2) / 8w6;\n        hdr.h.a = 1;")),
    "match_kind_beside_a_function_call_read": (
        program(top=_F, body="        bool b = f(hdr.h.a) == 2 && (exact == lpm);\n        if (b) { hdr.h.c = 3; }"),
        "bool b = f(hdr.h.a)", _MK,
        program(top=_F, body="        bool b = f(hdr.h.a) == 2 && (exact == lpm);\n        b = true;\n"
                             "        if (b) { hdr.h.c = 3; }")),
    "division_in_a_listed_action_over_a_function_result": (
        program(top=_F, locals="    action a(bit<8> v) { hdr.h.a = f(v) / 8w6; }\n" + _AT, body="        t.apply();"),
        "hdr.h.a = f(v) / 8w6", _DIV,
        program(top=_F, locals="    action a(bit<8> v) { hdr.h.a = f(v) / 8w6; hdr.h.a = 1; }\n" + _AT, body="        t.apply();")),
    # a division in the function's body over its parameter, inlined into a store: dropped with it
    "division_in_function_body_reaching_a_kept_store": (
        program(top=_FD, body="        hdr.h.a = g(hdr.h.c) + 1;"), "bit<8> g(in bit<8> v)", _DIV,
        program(top=_FD, body="        hdr.h.a = g(hdr.h.c) + 1;\n        hdr.h.a = 1;")),
    # p4c_mutate seed 174 (action_param): a direct call leaving out a directionless header or struct
    # argument is p4c's "must be bound" only in the case of a constant switch its midend keeps
    # (checkmate-p4c raised it in any case: no zero stands in for a header)
    "unbound_header_argument_in_the_case_a_constant_switch_keeps": (_sw("0"), "switch (8w0", r"no argument for parameter z",
                                                                    _sw("7")),
    "unbound_struct_argument_in_the_case_a_constant_switch_keeps": (_sw("0", _AS), "switch (8w0",
                                                                    r"no argument for parameter z", _sw("7", _AS)),
    # mutz26's open item (p4c_mutate seeds 503/504): p4c's constant propagation follows a field of
    # a stack element of a constant index -- into a run-time index it proves out of range, into a
    # division it folds -- until something writes the element (a run-time index into the stack, a
    # whole-element store, setValid, push_front/pop_front)
    "stack_element_constant_as_another_stacks_index": (
        _stk("        hdr.s[1].a = 7;\n        hdr.t[hdr.s[1].a].c = 1;"), "hdr.t[hdr.s[1].a]", r"Array index 8w7 larger",
        _stk("        hdr.s[1].a = 1;\n        hdr.t[hdr.s[1].a].c = 1;")),
    "stack_element_constant_forgotten_at_a_run_time_index_store": (
        _stk("        hdr.s[0].a = 5;\n        hdr.s[hdr.h.a].a = 2;\n        hdr.s[2].a = hdr.s[0].a / 7;"),
        "hdr.s[2].a = hdr.s[0].a / 7", _DIV,
        _stk("        hdr.s[0].a = 5;\n        hdr.s[1].a = 2;\n        hdr.s[2].a = hdr.s[0].a / 7;")),
    "stack_element_constant_forgotten_at_set_valid": (
        _stk("        hdr.s[0].a = 5;\n        hdr.s[0].setValid();\n        hdr.s[2].a = hdr.s[0].a / 7;"),
        "hdr.s[2].a = hdr.s[0].a / 7", _DIV,
        _stk("        hdr.s[0].a = 5;\n        hdr.s[1].setValid();\n        hdr.s[2].a = hdr.s[0].a / 7;")),
    # mutz26's open item (p4c_mutate seed 501): a store before an initializer that reads its own
    # header, to a field it does not read, is dropped by p4c's def-use even when the store's value
    # reads the header (the division with it); kept where the initializer reads the field
    "division_store_read_by_a_self_reading_header_initializer": (
        program(body="        hdr.h.c = hdr.h.c % 3;\n        hdr.h = { hdr.h.a + 1, hdr.h.b, hdr.h.c };"),
        "hdr.h.c = hdr.h.c % 3", _DIV,
        program(body="        hdr.h.c = hdr.h.c % 3;\n        hdr.h = { hdr.h.a + 1, hdr.h.b, 8w3 };")),
    # mutz26's open item (p4c_mutate seed 503): p4c inlines a sub-control before its propagation --
    # a constant flows in through an `in`/`inout` argument and out of the body's end through the
    # `out`/`inout` ones (into a division it folds, a run-time index it proves out of range); not
    # where a branch leaves another value (an `exit` path ends the caller too)
    "division_of_a_sub_control_out_argument_not_constant": (
        program(top=_SX.format("o = 4;", ""), locals="    S() s;\n", body="        bit<8> o = 9;\n        s.apply(hdr.h, o);\n        hdr.h.a = o / 7;"),
        "hdr.h.a = o / 7", _DIV,
        program(top=_SX.format("exit;", "o = 4;"), locals="    S() s;\n", body="        bit<8> o = 9;\n        s.apply(hdr.h, o);\n        hdr.h.a = o / 7;")),
    "sub_control_inout_constant_as_a_stack_index": (
        _stk("        m.x = 1;\n        s3.apply(m.x);\n        hdr.s[m.x].a = 1;", top=_SU, locals=_SL), "hdr.s[m.x]",
        r"Array index 8w3 larger", _stk("        m.x = 0;\n        s3.apply(m.x);\n        hdr.s[m.x].a = 1;", top=_SU, locals=_SL)),
    "header_initializer_constant_as_a_stack_index": (
        _stk("        hdr.s[1] = { 1, 2, 3 };\n        hdr.t[hdr.s[1].a + 1].c = 1;"), "hdr.t[hdr.s[1].a + 1]",
        r"Array index 8w2 larger", _stk("        hdr.s[1] = { 0, 2, 3 };\n        hdr.t[hdr.s[1].a + 1].c = 1;")),
    # p4c_mutate seed 509 (late_store): p4c's BMv2 back end predicates an action's `if` (`x = c ? v :
    # x`) before the propagation that folds divisions -- a constant stored in the branch, or after
    # a conditional return, is none (a constant from before the `if` still folds one in it)
    "division_of_a_constant_stored_in_an_actions_branch": (
        program(locals="    action a() { if (hdr.h.a == 7) { m.x = 3; m.x = m.x / 7; } }\n", body="        a();"),
        "m.x = m.x / 7", _DIV,
        program(locals="    action a() { m.x = 3; if (hdr.h.a == 7) { m.x = m.x / 7; } }\n", body="        a();")),
    "division_of_a_constant_stored_after_a_conditional_return": (
        program(locals="    action a() { if (hdr.h.a == 7) { return; } m.x = 3; hdr.h.c = m.x / 7; }\n", body="        a();"),
        "hdr.h.c = m.x / 7", _DIV,
        program(locals="    action a() { if (hdr.h.a == 7) { hdr.h.b = 1; } m.x = 3; hdr.h.c = m.x / 7; }\n", body="        a();")),
    # p4c_mutate seed 511 (dead_store): a store to a tuple element read by the next store to it
    # (`t[0] = (t[0] + 1) / 3; t[0] = t[0] + 1;`) is live -- the def-use view did not see a tuple
    # element's read (the twin overwrites it unread)
    "division_store_to_a_tuple_element_read_by_the_next": (
        program(body="        tuple<bit<8>, bit<8>> t = { hdr.h.a, hdr.h.c };\n        t[0] = (t[0] + 1) / 3;\n"
                     "        t[0] = t[0] + 1;\n        hdr.h.c = t[0] + t[1];"), "t[0] = (t[0] + 1) / 3", _DIV,
        program(body="        tuple<bit<8>, bit<8>> t = { hdr.h.a, hdr.h.c };\n        t[0] = (t[0] + 1) / 3;\n"
                     "        t[0] = t[1] + 1;\n        hdr.h.c = t[0] + t[1];")),
    # p4c_mutate seed 181 (div): after a switch of one case p4c's LocalCopyPropagation goes on with
    # the case's state (switch_copies) -- `v = 2` there folds `v / 3` after it; two cases are joined
    "division_after_a_switch_of_two_cases": (
        program(body="        bit<8> v = 1;\n        switch (hdr.h.a) { 5: { v = 2; } 6: { v = 3; } }\n        hdr.h.c = v / 3;"),
        "hdr.h.c = v / 3", _DIV,
        program(body="        bit<8> v = 1;\n        switch (hdr.h.a) { 5: { v = 2; } }\n        hdr.h.c = v / 3;")),
}

VALID = {
    "division_of_a_function_result_into_an_unread_local": program(top=_F, body="        bit<8> q = f(hdr.h.c) / 8w6;"),
    "division_of_function_argument_overwritten": program(top=_F, body="        hdr.h.a = f(hdr.h.c / 3) / 8w6;\n        hdr.h.a = 1;"),
    "division_in_function_body_into_an_unread_local": program(top=_FD, body="        bit<8> q = g(hdr.h.c);"),
    "unbound_header_argument_in_a_literal_switch_case_dropped": program(
        locals=_AH, body="        switch (8w0) { 7: { a1(); } default: { hdr.h.c = 3; } }"),
    "stack_element_constant_folds_a_division": _stk("        hdr.s[0].b = 0x7777;\n        hdr.s[0].b = hdr.s[0].b / 7;"),
    "stack_element_constant_kept_past_another_elements_store": _stk(
        "        hdr.s[0].a = 5;\n        hdr.s[1] = hdr.s[2];\n        hdr.s[2].a = hdr.s[0].a / 7;"),
    # ... but not into the index of a store into its own stack (p4c takes the stack as written first)
    "stack_element_constant_in_the_index_of_a_store_into_its_stack": _stk(
        "        hdr.s[1].a = 7;\n        hdr.s[hdr.s[1].a].c = 1;"),
    # a header initializer's constant fields flow as a struct's do (the header valid after it)
    "header_initializer_constant_folds_a_division": program(body="        hdr.h = { 9, 2, 3 };\n        m.x = hdr.h.a / 3;"),
    # ... the division kept its IR where those copies rebuilt the statement (a `default` alone too)
    "division_after_a_single_case_switch_writing_another_field": program(
        body="        bit<8> v = 1;\n        switch (hdr.h.a) { 5: { hdr.h.b = 1; } }\n        hdr.h.c = v / 3 + (bit<8>)hdr.h.b;"),
    "division_after_a_default_only_switch": program(
        body="        bit<8> v = 1;\n        switch (hdr.h.a) { default: { v = 2; } }\n        hdr.h.c = v / 3;"),
    "sub_control_constant_in_and_out_twice": program(
        top=_SU, locals=_SL, body="        m.x = 3;\n        s3.apply(m.x);\n        s3.apply(m.x);\n        hdr.h.a = m.x / 7;"),
    "sub_control_aliased_arguments_copied_out_in_order": program(
        top=_SU, locals=_SL, body="        s4.apply(m.x, m.x);\n        hdr.h.a = m.x / 7;"),
    "sub_control_constant_argument_through_a_header": program(
        top=_SU, locals=_SL, body="        s5.apply(hdr.h, 8w4);\n        hdr.h.c = hdr.h.a / 7;"),
    # a checksum control's sub-control `in` parameter in the data: a field, a cast of a field to its
    # own type (p4c drops it), a constant expression are fine (a computation is not: test_invalid)
    "checksum_sub_control_arguments_that_compute_nothing": program(
        top="control U(inout h_t x, in bit<8> k, in bit<8> j, in bit<8> i) {\n    apply { update_checksum(x.isValid(), "
            "{ x.a, k, j, i }, x.b, HashAlgorithm.csum16); } }\n").replace(
        "control CC(inout headers hdr, inout meta_t m) { apply { } }",
        "control CC(inout headers hdr, inout meta_t m) { U() u; apply { u.apply(hdr.h, hdr.h.c, (bit<8>)hdr.h.a, 8w3 + 8w4); } }"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)


def test_judge_reads_error_lines_not_a_file_name_saying_error(monkeypatch, tmp_path):
    """tools/p4c_mutate_judge: p4c's first error line is a line that says error after its position --
    not a warning, nor a bare position, of a file whose name holds "error" (mutz26's `far` verdict
    on fe_error_key_and_const_entry, p4c_mutate seed 171)."""
    import tools.p4c_mutate_judge as J
    out = ("fe_error_x.p4(45): [--Wwarn=shadow] warning: 'headers_t' shadows 'struct headers_t'\n"
           "fe_error_x.p4(7)\nfe_error_x.p4(50): [--Werror=type-error] error: Cannot extract field apply\n")
    monkeypatch.setattr(J, "run_p4c_cached", lambda path, cache: out)
    f = tmp_path / "fe_error_x.p4"
    f.write_text("x")
    assert J.p4c_verdict(f, tmp_path).startswith("fe_error_x.p4(50): [--Werror=type-error] error")


def test_judge_reads_the_position_an_error_originates_from(monkeypatch, tmp_path):
    """p4c_mutate seed 181: p4c's error names the select (line 21) and, after "Originating from:",
    the keyset (line 22) checkmate-p4c names -- that line counts as p4c's (`p4cline`, not `far`)."""
    import tools.p4c_mutate_judge as J
    f = tmp_path / "m.p4"
    f.write_text("x")
    out = (f"{f}(21): [--Werror=type-error] error: 'SelectExpression'\n    state ph {{\n  ---- Actual error:\n"
           f"  Cannot cast implicitly type 'bit<8>' to type 'bit<9>'\n  ---- Originating from:\n"
           f"  {f}(22): 'match' case label '3 &&& 0' has type 'bit<8>'\n")
    monkeypatch.setattr(J, "run_p4c_cached", lambda path, cache: out)
    monkeypatch.setattr(J, "ours_verdict", lambda path: ("error", f"{f}:22:30: type mismatch"))
    assert J.judge(f, 5, tmp_path)[0] == "agree-reject p4cline"
