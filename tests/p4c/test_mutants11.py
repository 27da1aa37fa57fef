"""More one-mistake programs and their valid neighbours (helper mutz36 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests


def _bound(default: str, entries: str = "") -> str:
    """Table t listing ``s(hdr.h.a)`` (an action with an ``inout`` parameter) with ``default`` as
    its default action and ``entries`` as its const entries."""
    return program(locals="    action s(inout bit<8> x, bit<8> y) { x = x + y; }\n"
                          f"    table t {{ key = {{ hdr.h.c: exact; }} actions = {{ s(hdr.h.a); }} "
                          f"default_action = {default};{entries} }}",
                   body="        t.apply();")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 434 (cast_slice on fuzz12_named_arguments_in_order_with_a_directional_parameter):
    # a default action's or const entry's argument for a directional parameter must be a left-value
    # (p4c's type checker, before it compares it with the one the actions list binds); a cast of the
    # bound field is not (checkmate-p4c compared their texts, and the cast's is the field's)
    **{f"{what}_argument_of_an_inout_parameter_cast": (
        _bound(default, entries), "table t", r"must be a left-value", _bound("s(hdr.h.a, 8w1)"))
       for what, default, entries in [
           ("default_action", "s(x = (bit<8>)(int<8>)(hdr.h.a), y = 8w1)", ""),
           ("default_action_positional", "s((bit<8>)hdr.h.a, 8w1)", ""),
           ("const_entry", "s(hdr.h.a, 8w1)", " const entries = { 1: s((bit<8>)hdr.h.a, 8w2); }")]},
}

VALID = {
    "const_entry_argument_of_an_inout_parameter_as_bound": _bound("s(hdr.h.a, 8w1)", " const entries = { 1: s(hdr.h.a, 8w2); }"),
}

test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
