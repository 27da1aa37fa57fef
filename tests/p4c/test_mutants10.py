"""More one-mistake programs and their valid neighbours (helper mutz31 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

import pytest
from p4c_helpers import assert_p4info_as_p4c, program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
_SC = "control SC(in bit<8> v) { apply { if (v != 0) { exit; } } }"


def _across(stores: str, between: str = "        sc.apply(hdr.h.a);", after: str = "        hdr.h.c = 9;") -> str:
    """The template program running ``stores``, then ``between`` (by default an apply of a
    sub-control that may exit), then ``after`` (by default an overwrite of ``hdr.h.c``)."""
    return program(top=_SC, locals="    SC() sc;", body=f"        {stores}\n{between}\n{after}")


_READ = "hdr.h.c = hdr.h.a + 1; hdr.h.c = hdr.h.c % 5;"
_READ_ONLY_BY_DROPPED = "hdr.h.c = (hdr.h.a + 1) % 5; hdr.h.c = hdr.h.c + 1;"



def _nested(inner_id: str, outer_id: str = "", body: str = "") -> str:
    """The template program with action ``inner`` (annotated ``inner_id``) called only from action
    ``outer`` (``outer_id``), which the body calls (then ``body``)."""
    return program(locals=f"    {inner_id} action inner(inout bit<8> x, bit<8> v) {{ x = x ^ v; }}\n"
                          f"    {outer_id} action outer(inout bit<8> x) {{ inner(x, 0x0f); x = x + 1; }}",
                   body="        outer(hdr.h.a);" + body)


_INNER_TOO = "\n        inner(hdr.h.c, 1);"


def _enum_field(store: str) -> str:
    """A header variable whose field is declared of a serializable enum, stored by ``store``."""
    return program(top="enum bit<8> E1 { e1 = 0, e2 = 1, e3 = 2 }\nheader eh_t { E1 v; }",
                   body=f"        eh_t l;\n        l.setValid();\n        {store}\n        hdr.h.c = (bit<8>)l.v;")
def _after_exit(stmt: str) -> str:
    """``stmt``, then an ``if`` p4c's midend folds (a local's known value) applying table t twice in
    the branch it removes."""
    return program(locals="    action ax() { exit; }\n    action a(bit<8> v) { hdr.h.c = hdr.h.c + v; }\n"
                          "    table t { key = { hdr.h.a: exact; } actions = { a; } }",
                   body=f"        {stmt}\n        bit<16> v = 2;\n"
                        "        if (v <= 5) { hdr.h.c = 0x11; } else { t.apply(); t.apply(); }")


def _keyless(props: str, apply: str = "        t3.apply();") -> str:
    """Table t3 with the table properties ``props`` (an action selector ``sel`` and an action profile
    ``prof`` declared), applied by ``apply``."""
    return program(locals="    action s3() { hdr.h.c = hdr.h.a; }\n"
                          "    action_selector(HashAlgorithm.crc16, 32w16, 32w64) sel;\n    action_profile(32w64) prof;\n"
                          f"    table t3 {{ {props} actions = {{ s3; }} default_action = s3(); }}",
                   body=apply)


_BAD_IDS = ["@id(4294967296)", "@id(0x02000005)", "@id(5)"]
_ID_MSG = r"@id should be an unsigned integer|@id has the wrong 8-bit prefix|@id 5 is assigned to both"

# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 524 (late_store): p4c's def-use is blind to a sub-control's exit, so a store
    # overwritten after the apply goes, its division with it (VALID) -- not where the exit is the
    # control's own, the store is read before the overwrite, or nothing overwrites it
    "division_stored_before_an_exit_of_the_control_itself": (
        _across(_READ, "        if (hdr.h.a != 0) { exit; }"), "% 5", _DIV, _across(_READ)),
    "division_stored_before_an_exiting_sub_control_read_before_the_overwrite": (
        _across(_READ, "        sc.apply(hdr.h.a);\n        hdr.h.b = (bit<16>)hdr.h.c;"), "% 5", _DIV, _across(_READ)),
    "division_read_only_by_a_store_before_an_exiting_sub_control_never_overwritten": (
        _across(_READ_ONLY_BY_DROPPED, after="        hdr.h.b = 9;"), "% 5", _DIV, _across(_READ_ONLY_BY_DROPPED)),
    # p4c_mutate seed 325 (id_anno): p4c's P4Runtime serializer checks the @id of the actions in the
    # P4Info only -- one only other actions call is not there: only its syntax is checked (VALID)
    **{f"action_id_{i}_of_an_action_the_body_calls_too": (
        _nested(bad, "@id(5)" if i == 2 else "", _INNER_TOO), "action outer" if i == 2 else "action inner", _ID_MSG, _nested(bad, "@id(5)" if i == 2 else ""))
       for i, bad in enumerate(_BAD_IDS)},
    "action_id_of_an_action_only_another_calls_is_one_integer_literal": (
        _nested("@id(-1)"), "action inner", r"@id takes one integer literal", _nested("@id(7)")),
    # fuzz_mutants seed 455 (dead_store on errs13's enum header field): a header field declared of a
    # serializable enum takes that enum's values only in an assignment too -- a dead store as well
    # (p4c: "values of type 'bit<8>' cannot be implicitly cast to type 'E1'")
    **{f"{name}_assigned_to_a_header_field_of_a_serializable_enum": (
        _enum_field(f"l.v = {v};"), f"l.v = {v}", r"cannot be implicitly cast to type E1", _enum_field("l.v = (E1)hdr.h.a;"))
       for name, v in [("bits", "hdr.h.a"), ("an_int_literal", "1"), ("a_dead_store_of_bits", "(bit<8>)((E1)hdr.h.a) / 3; l.v = (E1)hdr.h.a")]},
    # fuzz_mutants seed 2049 (exit_stmt, a new kind, on mutz19_tables_applied_twice_in_midend_folded_branches):
    # after a statement that always exits (front end: `exit;`, `{ exit; }`, `if (true) { exit; }`, both
    # arms), p4c's midend folds no `if` on a local's or field's known value, so a table applied twice
    # in the branch it would remove is "a path from table I.t back to itself" -- not after a `return`,
    # a conditional exit or an action call that exits (VALID)
    **{f"table_applied_twice_in_a_midend_folded_branch_after_{name}": (
        _after_exit(stmt), "table t ", r"applied more than once on one execution path", _after_exit(""))
       for name, stmt in [("an_exit", "exit;"), ("a_block_exiting", "{ exit; }"), ("if_true_exit", "if (true) { exit; }"),
                          ("an_if_whose_arms_exit", "if (hdr.h.a == 1) { exit; } else { exit; }")]},
    # p4c_mutate seed 338 (table_extern, a new kind): an applied table with an action_selector and no
    # key (none, or `key = { }`) -- p4c 1.2.4.8 dies on it without a message (exit 245); an
    # action_profile there, a key, or the table not applied compile (VALID)
    **{f"action_selector_on_an_applied_table_with_{name}": (
        _keyless(f"{key}implementation = sel;"), "table t3", r"action_selector on a table without a key",
        _keyless("key = { hdr.h.a: exact; } implementation = sel;"))
       for name, key in [("no_key", ""), ("an_empty_key", "key = { } ")]},
}

VALID = {
    "action_profile_on_an_applied_table_with_no_key": _keyless("implementation = prof;"),
    "action_selector_on_an_unapplied_table_with_no_key": _keyless("implementation = sel;", apply=""),
    "action_selector_on_an_applied_table_with_a_selector_key_only": _keyless("key = { hdr.h.b: selector; } implementation = sel;"),
    **{f"table_applied_twice_in_a_midend_folded_branch_after_{name}": _after_exit(stmt)
       for name, stmt in [("a_return", "return;"), ("a_conditional_exit", "if (hdr.h.a == 1) { exit; }"),
                          ("an_exiting_action_call", "ax();")]},
    "division_in_a_store_dropped_across_an_exiting_sub_control": _across(_READ),
    "division_in_a_store_read_only_by_one_dropped_across_an_exiting_sub_control": _across(_READ_ONLY_BY_DROPPED),
    **{f"action_id_{i}_of_an_action_only_another_calls": _nested(bad, "@id(5)" if i == 2 else "")
       for i, bad in enumerate(_BAD_IDS)},
}


@pytest.mark.parametrize("i", range(len(_BAD_IDS)))
def test_p4info_of_an_action_only_another_calls(i, tmp_path):
    """Its @id is not read: p4c's P4Info lists the outer action alone, with its own id."""
    from switch.compiler import compile_source
    text = VALID[f"action_id_{i}_of_an_action_only_another_calls"]
    assert_p4info_as_p4c(text, compile_source(text, "ok.p4").p4info, tmp_path)


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
