"""More one-mistake programs and their valid neighbours (helper mutz29 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_ACT = "    action s(bit<8> v) { hdr.h.c = v; }\n"
_DIV = r"the divisor must be a compile-time power of two"
_WIDEN = "bit<16> widen(in bit<8> v) { return (bit<16>)v; }\n"


def _entries(kind: str, entry: str) -> str:
    """The template program with a table of one ``kind`` key on ``hdr.h.a`` and one const entry."""
    return program(locals=_ACT + f"    table t {{ key = {{ hdr.h.a: {kind}; }} actions = {{ s; NoAction; }} "
                                 f"const entries = {{ {entry}: s(1); }} }}\n", body="        t.apply();")


def _hidden(anno: str) -> str:
    """The template program with a table listing a ``@hidden`` action whose parameter has ``anno``."""
    return program(locals=f"    @hidden action s({anno} bit<8> v) {{ hdr.h.c = v; }}\n"
                          "    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } }\n", body="        t.apply();")


def _vset(size: str, used: bool) -> str:
    """The template program with a value set of ``size`` in the parser, used in a select or not."""
    sel = "transition select(hdr.h.a) { vs: accept; default: accept; }" if used else "transition accept;"
    return program().replace("    state start { pkt.extract(hdr.h); transition accept; }",
                             f"    value_set<bit<8>>({size}) vs;\n    state start {{ pkt.extract(hdr.h); {sel} }}")


def _typed(entry: str, kind: str = "exact") -> str:
    """The template program with a table keyed by a `type` ``pt_t`` field and one const entry."""
    return program(top="type bit<9> pt_t;\n", locals=_ACT + "    pt_t p = (pt_t)(bit<9>)hdr.h.a;\n"
                   f"    table t {{ key = {{ p: {kind}; }} actions = {{ s; NoAction; }} const entries = {{ {entry}: s(1); }} }}\n",
                   body="        t.apply();")


def _sub_action(body: str) -> str:
    """The template program with a sub-control whose apply calls action ``a`` (``body``) through
    action ``b``, applied with the constant ``8w100`` for its ``in`` parameter ``v``."""
    return program(top=f"control S(in bit<8> v, inout bit<8> o) {{ action a() {{ {body} }} action b() {{ a(); }} "
                       "apply { b(); } }\n", locals="    S() s;\n", body="        s.apply(8w100, hdr.h.a);")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 701 (entry_key): a range of one value (`2 .. 2`, `0x1ff .. 0xff` on a bit<8>)
    # is that value on a key of any match kind, a mask covering the key's width the value on an
    # exact key; any other range or mask is still "invalid key expression"
    "range_of_two_values_on_an_exact_key": (
        _entries("exact", "2 .. 3"), "2 .. 3", r"a range on a exact key", _entries("exact", "2 .. 2")),
    "range_of_two_values_on_a_ternary_key": (
        _entries("ternary", "0 .. 255"), "0 .. 255", r"a range on a ternary key", _entries("ternary", "0x1ff .. 0xff")),
    "range_of_two_values_on_an_lpm_key": (
        _entries("lpm", "16 .. 31"), "16 .. 31", r"a range on a lpm key", _entries("lpm", "(bit<8>)2 .. 2")),
    "range_of_two_values_on_an_optional_key": (
        _entries("optional", "2 .. 3"), "2 .. 3", r"a range on a optional key", _entries("optional", "7 .. 7")),
    "partial_mask_on_an_exact_key": (
        _entries("exact", "2 &&& 0x0f"), "2 &&& 0x0f", r"a mask on a exact key", _entries("exact", "0x102 &&& 0x1ff")),
    # p4c_mutate seed 321 (id_anno): a @hidden action is not in the P4Info, so the @id of its
    # parameters is only parsed (one integer literal; 0 is fine there)
    "id_of_a_hidden_actions_parameter_not_a_literal": (
        _hidden("@id(-1)"), "@id(-1)", r"@id takes one integer literal", _hidden("@id(0)")),
    # p4c_mutate seed 701 (value_set): a negative value set size is refused only where a select
    # uses the value set (p4c drops an unused one first)
    "negative_size_of_a_used_value_set": (
        _vset("-1", True), "value_set", r"@size should be a positive integer", _vset("-1", False)),
    # p4c_mutate seed 703 (entry_key): `..` and `&&&` take bit / int operands, not a `type`'s
    # values -- a type error in an entry and in a select (checkmate-p4c accepted a one-value range,
    # and any mask or range on a key not exact)
    "range_of_a_types_values_in_a_const_entry": (
        _typed("(pt_t)9w9 .. (pt_t)9w9"), "(pt_t)9w9 ..", r"\.\.: cannot be applied to expression", _typed("(pt_t)9w9")),
    "mask_of_a_types_values_in_a_const_entry": (
        _typed("(pt_t)9w9 &&& 0x1ff", "ternary"), "&&&", r"&&&: cannot be applied to expression",
        _typed("_", "ternary")),
    # p4c_mutate seed 195 (div): p4c's constant folding still sees a branch its type checker
    # never does -- a division of two constants by zero there is its error, after an unknown
    # member too; one of a run-time value by zero is no error there (not folded)
    "division_of_literals_by_zero_after_a_bad_member_in_a_dead_branch": (
        program(body="        if (8w1 == 8w2) { hdr.h.a = hdr.h.zz; hdr.h.b = 16w7 % 0; }"), "16w7 % 0",
        r"division by zero", program(body="        if (8w1 == 8w2) { hdr.h.a = hdr.h.zz; hdr.h.b = hdr.h.b % 0; }")),
    "division_of_literals_by_zero_in_a_dead_operand": (
        program(body="        if (false && (hdr.h.zz == 1 || 8w3 % 8w0 == 1)) { hdr.h.a = 1; }"), "8w3 % 8w0",
        r"division by zero", program(body="        if (false && (hdr.h.zz == 1 || hdr.h.a % 8w0 == 1)) { hdr.h.a = 1; }")),
    # p4c_mutate seed 520 (late_store): an action a sub-control calls directly is inlined where its
    # stores are constants for the propagation (`o = v / 3; o = o / 7;` with `v` a constant `in`
    # argument folds); one after a conditional return is none (p4c predicates it)
    "sub_control_action_division_after_a_conditional_return": (
        _sub_action("if (o == 1) { return; } o = 14; o = o / 7;"), "action a()", r"compile-time power of two",
        _sub_action("o = v / 3; o = o / 7;")),
    # p4c_mutate seed 521 (late_store): what follows an unconditional `exit` (in an action or a
    # control's body) is removed by p4c before its back end looks at divisions; a function whose
    # body is one `return` of an expression of its parameters is a constant where its arguments
    # are (`widen(7)`, a default argument: p4c inlines it)
    "division_after_a_conditional_exit": (
        program(body="        if (hdr.h.a == 1) { exit; }\n        hdr.h.b = hdr.h.b / 3;"), "hdr.h.b / 3", _DIV,
        program(body="        exit;\n        hdr.h.b = hdr.h.b / 3;")),
    "division_in_an_action_not_after_an_exit": (
        program(locals="    action a() { if (hdr.h.a == 1) { hdr.h.c = 1; } hdr.h.b = hdr.h.b / 3; }\n", body="        a();"),
        "hdr.h.b / 3", _DIV,
        program(locals="    action a() { exit; hdr.h.b = hdr.h.b / 3; }\n", body="        a();")),
    "division_of_a_function_of_a_run_time_argument": (
        program(top=_WIDEN, body="        hdr.h.b = widen(hdr.h.a);\n        hdr.h.b = hdr.h.b % 5;"), "hdr.h.b % 5", _DIV,
        program(top=_WIDEN, body="        hdr.h.b = widen(7);\n        hdr.h.b = hdr.h.b % 5;")),
}

VALID = {
    "division_of_a_function_with_a_local_of_a_constant_argument": program(
        top="bit<16> widen(in bit<8> v) { bit<16> t = (bit<16>)v; t = t + (bit<16>)v; return t; }\n",
        body="        hdr.h.b = widen(9);\n        hdr.h.b = hdr.h.b % 5;"),
    "division_of_a_function_of_a_default_argument": program(
        top="bit<16> widen(in bit<8> v = 7) { return (bit<16>)v << 4; }\n",
        body="        hdr.h.b = widen();\n        hdr.h.b = hdr.h.b % 5;"),
    "division_of_a_field_by_zero_in_a_dead_branch": program(body="        if (8w1 == 8w2) { hdr.h.b = hdr.h.b / 0; }"),
    "division_of_a_field_by_zero_in_a_dead_operand": program(
        body="        if (false && hdr.h.a % 8w0 == 1) { hdr.h.a = 1; }"),
    "hidden_actions_parameters_sharing_an_id_of_zero": _hidden("@id(0)").replace(
        "s(@id(0) bit<8> v)", "s(@id(0) bit<8> v, @id(0) bit<8> w)"),
    "value_set_of_size_zero_used": _vset("0", True),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
