"""More one-mistake programs and their valid neighbours (helper mutz31 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
_SC = "control SC(in bit<8> v) { apply { if (v != 0) { exit; } } }"


def _across(stores: str, between: str = "        sc.apply(hdr.h.a);", after: str = "        hdr.h.c = 9;") -> str:
    """The template program running ``stores``, then ``between`` (by default an apply of a
    sub-control that may exit), then ``after`` (by default an overwrite of ``hdr.h.c``)."""
    return program(top=_SC, locals="    SC() sc;", body=f"        {stores}\n{between}\n{after}")


_READ = "hdr.h.c = hdr.h.a + 1; hdr.h.c = hdr.h.c % 5;"
_READ_ONLY_BY_DROPPED = "hdr.h.c = (hdr.h.a + 1) % 5; hdr.h.c = hdr.h.c + 1;"

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
}

VALID = {
    "division_in_a_store_dropped_across_an_exiting_sub_control": _across(_READ),
    "division_in_a_store_read_only_by_one_dropped_across_an_exiting_sub_control": _across(_READ_ONLY_BY_DROPPED),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
