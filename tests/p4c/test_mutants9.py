"""More one-mistake programs and their valid neighbours (helper mutz30 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
_STACK = "    h_t[2] st;\n"


def _tuple(items: str, index: int) -> str:
    """The template program storing element ``index`` of a tuple of ``items`` and dividing it by 7."""
    return program(body=f"        tuple<bit<8>, bit<16>> t = {{ {items} }};\n        hdr.h.b = (bit<16>)t[{index}];\n"
                        "        hdr.h.b = hdr.h.b / 7;")


def _stack(after: str, locals: str = "") -> str:
    """The template program dividing ``st[1].b`` of a local stack by 3, then running ``after``."""
    return program(locals=_STACK + locals, body="        st[1].setValid();\n        st[1].b = hdr.h.b;\n"
                                                "        st[1].b = st[1].b / 3;\n" + after)


_A0 = "    action a0() { hdr.h.c = 0x11; hdr.h.c = hdr.h.c / 7; }\n    action a1() { hdr.h.a = 1; }\n" \
      "    table t2 { actions = { a0; a1; NoAction; } default_action = a0(); }\n" \
      "    table t3 { actions = { a0; NoAction; } default_action = NoAction(); }\n"


def _after(switch: str, after: str = "        t2.apply();") -> str:
    """The template program with action ``a0`` (a division its own constants fold) listed by tables
    ``t2`` and ``t3``, running ``switch`` and then ``after``."""
    return program(locals=_A0, body=f"        {switch}\n{after}")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 522 (late_store): p4c's constant propagation follows a tuple's elements
    # (`t = { 7, 0x1234 }; hdr.h.b = t[1];` makes `hdr.h.b / 7` constant); a run-time element not
    "division_of_a_run_time_tuple_element": (
        _tuple("hdr.h.a, 0x1234", 0), "hdr.h.b / 7", _DIV, _tuple("hdr.h.a, 0x1234", 1)),
    "division_of_a_tuple_element_after_the_tuple_is_reassigned": (
        program(body="        tuple<bit<8>, bit<16>> t = { 3, 0x1234 };\n        t = { 4, hdr.h.b };\n"
                     "        hdr.h.b = t[1];\n        hdr.h.b = hdr.h.b / 7;"), "hdr.h.b / 7", _DIV,
        program(body="        tuple<bit<8>, bit<16>> t = { 3, hdr.h.b };\n        t = { 4, 0x1234 };\n"
                     "        hdr.h.b = t[1];\n        hdr.h.b = hdr.h.b / 7;")),
    # p4c_mutate seed 522 (late_store): a read of a stack element at a run-time index reads every
    # element for p4c's def-use, so a division stored into `st[1].b` before it stays (and is refused)
    # -- read directly, in an action, in a table's action; a write at a run-time index overwrites none
    "division_stored_into_a_stack_element_read_at_a_run_time_index": (
        _stack("        hdr.h.b = st[hdr.h.a[0:0]].b;"), "st[1].b / 3", _DIV,
        _stack("        st[1].b = 5;\n        hdr.h.b = st[hdr.h.a[0:0]].b;")),
    "division_stored_into_a_stack_element_an_action_reads_at_a_run_time_index": (
        _stack("        rd();", "    bit<1> i = 0;\n    action rd() { i = 1; hdr.h.b = st[i].b; }\n"), "st[1].b / 3", _DIV,
        _stack("        st[1].b = 4;\n        rd();", "    bit<1> i = 0;\n    action rd() { i = 1; hdr.h.b = st[i].b; }\n")),
    "division_stored_into_a_stack_element_a_tables_action_reads": (
        _stack("        t.apply();", "    bit<1> i = 0;\n    action rd() { hdr.h.b = st[i].b; }\n    action si() { i = 1; }\n"
                                     "    table t { key = { hdr.h.a: exact; } actions = { rd; si; } }\n"), "st[1].b / 3", _DIV,
        _stack("        st[1].b = 4;\n        t.apply();", "    bit<1> i = 0;\n    action rd() { hdr.h.b = st[i].b; }\n"
                                                         "    action si() { i = 1; }\n"
                                                         "    table t { key = { hdr.h.a: exact; } actions = { rd; si; } }\n")),
    "division_stored_into_a_stack_element_past_a_run_time_index_write": (
        _stack("        st[hdr.h.c[0:0]].b = 5;\n        hdr.h.b = st[1].b;"), "st[1].b / 3", _DIV,
        _stack("        st[1].b = 4;\n        hdr.h.b = st[0].b;")),
    # p4c_mutate seed 522 (late_store, fuzz22's base): past a `switch` on a value whose every case
    # ends (return, exit), p4c's LocalCopyPropagation has no path (it merges the cases, no path
    # where none matched): a table applied there (or an action called there) is not visited, so
    # the action's own constants fold nothing -- unless a reachable statement runs it too
    "division_in_an_action_only_a_table_past_a_returning_switch_applies": (
        _after("switch (hdr.h.b) { 5: { return; } }"), "hdr.h.c / 7", _DIV,
        _after("switch (hdr.h.b) { 5: { return; } 6: { hdr.h.a = 2; } }")),
    "division_in_an_action_only_a_table_past_an_exiting_switch_applies": (
        _after("switch (hdr.h.b) { 5: { hdr.h.a = 1; exit; } }", "        if (hdr.h.a == 2) { hdr.h.a = 3; }\n        t3.apply();"),
        "hdr.h.c / 7", _DIV, _after("switch (hdr.h.b) { 5: { exit; } 6: { } }", "        t2.apply();")),
    "division_in_an_action_a_table_past_an_exiting_switch_applies_beside_a_reachable_one": (
        _after("switch (hdr.h.b) { 5: { exit; } }", "        t3.apply();").replace("        switch", "        t2.apply();\n        switch"),
        "hdr.h.c / 7", _DIV,
        _after("switch (hdr.h.b) { 5: { return; } }", "        t3.apply();").replace("        switch", "        t2.apply();\n        switch")),
    "division_in_an_action_called_past_a_switch_whose_cases_all_end": (
        _after("switch (hdr.h.b) { 5: { exit; } 6: { if (hdr.h.a == 1) { exit; } else { return; } } }", "        a0();"),
        "hdr.h.c / 7", _DIV, _after("switch (hdr.h.b) { 5: { if (hdr.h.a == 1) { return; } } }", "        a0();")),
    "division_in_an_action_past_an_action_run_switch_whose_cases_all_end": (
        _after("switch (t2.apply().action_run) { a1: { exit; } a0: NoAction: { exit; } }", "        t3.apply();"),
        "hdr.h.c / 7", _DIV, _after("switch (t2.apply().action_run) { a1: { exit; } a0: { exit; } }", "        t3.apply();")),
    "division_in_an_action_past_an_if_whose_branches_end_with_a_switch": (
        _after("if (hdr.h.a == 1) { switch (hdr.h.b) { 5: { exit; } } } else { exit; }", "        t3.apply();"),
        "hdr.h.c / 7", _DIV, _after("if (hdr.h.a == 1) { switch (hdr.h.b) { 5: { exit; } } }", "        t3.apply();")),
    "division_in_the_body_past_an_exiting_switch": (
        _after("switch (hdr.h.b) { default: { exit; } }", "        hdr.h.b = 0x11;\n        hdr.h.b = hdr.h.b / 7;"),
        "hdr.h.b / 7", _DIV,
        _after("switch (hdr.h.b) { 5: { exit; } default: { } }", "        hdr.h.b = 0x11;\n        hdr.h.b = hdr.h.b / 7;")),
}

VALID = {
    # (with a return in the body, what follows such a switch is not visited at all: a reachable
    # apply of the table before it folds the action)
    "division_in_an_action_run_before_and_past_an_action_run_switch_returning": _after(
        "switch (t2.apply().action_run) { a1: { exit; } a0: NoAction: { return; } }", "        t3.apply();"),
    # (the front end removes what follows a plain exit, or an if that ends both ways: a0 unused)
    "division_in_an_action_only_a_table_after_an_exit_applies": _after("exit;"),
    "division_in_an_action_only_a_table_after_an_if_that_ends_applies":
        _after("if (hdr.h.a == 1) { return; } else { exit; }"),
    "division_past_an_exiting_switch_in_an_if": _after("if (hdr.h.a == 3) { switch (hdr.h.b) { 5: { exit; } } }"),
    "division_of_a_constant_tuple_element": _tuple("7, 0x1234", 1),
    "division_of_a_constant_tuple_element_in_an_action": program(
        locals="    action a() { tuple<bit<8>, bit<16>> t = { 3, 0x1234 }; hdr.h.b = t[1]; hdr.h.b = hdr.h.b / 7; }\n",
        body="        a();"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
