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


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 513 (dead_store): an `&&` / `||` whose left side folds from literals is folded
    # whatever its right side is -- but `!true || x` is `x`, typed as any other condition
    "type_error_in_a_branch_of_not_true_or": (
        program(body=f"        if (!true || hdr.h.a == 1) {_BAD}"), "hdr.h.b = hdr.h.a", r"type mismatch",
        program(body=f"        if (!true && hdr.h.a == 1) {_BAD}")),
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
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
