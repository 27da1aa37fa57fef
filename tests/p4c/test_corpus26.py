"""Programs of helper corpus26 that p4c refuses in its preprocessor: a function-like macro's call
whose argument list never closes is cpp's "unterminated argument list invoking macro" at the end of
the file (its last line), also where the `)` follows a string written over several lines as the
argument -- cpp ends each unterminated literal with its line, so that `)` is inside one
(corpus24's open item).  Before, checkmate-p4c read the argument as one P4 string and compiled
the first, and named the call's line for the second.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program

_LAST = "V1Switch(P(), VC(), I(), E(), CC(), D()) main;"
_TABLE = "    table t { key = { hdr.h.a : exact; } actions = { NoAction; } }"

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    "multiline_string_argument_closed_inside_its_literal": (
        program(top="#define RESTR(x) @entry_restriction(x)",
                locals='    RESTR("\n   hdr.h.a  ==  1;  \n  ")\n' + _TABLE, body="        t.apply();"),
        _LAST, r'unterminated argument list invoking macro "RESTR"'),
    "argument_list_left_open": (
        program(top="#define F(x) x", locals="    F(@a(1),\n  @b(2)\n" + _TABLE, body="        t.apply();"),
        _LAST, r'unterminated argument list invoking macro "F"'),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)
