"""A character no P4 token starts with (' ` $ \\) is taken inside a free-form annotation body
(as p4c's grammar takes its lexer's UNEXPECTED_TOKEN there) and nowhere else: elsewhere it is
an error at its own file:line:col.  With p4c on PATH each program's verdict is checked
against p4c's too (the P4Info side is the differential case f5_annotation_stray_chars)."""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source

# (locals, body, the text whose first character is the culprit)
BAD = {
    "in_a_statement": ("", "        hdr.h.a = 1; ' ", "' "),
    "after_the_body": ("    @why(fine) ` action a() { }\n", "", "` action"),
    "structured_body": ('    @why[k = $x] action a() { }\n', "", "$x"),
    # a stray character between an annotation's name and its body
    "before_the_body": ("    @why ' (x) action a() { }\n", "", "' (x)"),
}
GOOD = {
    "one_line": ("    @why(it's $5 `now` \\ then) action a() { }\n", ""),
    "nested_parens": ("    @why((don't) 'x' (y)) action a() { }\n", ""),
    "several_lines": ("    @why(it's\n      still ` the body)\n    action a() { }\n", ""),
    # the body may start on the next line (p4c reads it as the body too)
    "body_on_next_line": ("    @why\n    (it's) action a() { }\n", ""),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_stray_character_outside_an_annotation_body(name, tmp_path):
    locals_, body, culprit = BAD[name]
    text = program(locals=locals_, body=body)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, col = line_of(text, culprit)
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: unexpected character"), str(ei.value)
    assert p4c_accepts(text, tmp_path) in (None, False), "p4c accepts it"


@pytest.mark.parametrize("name", sorted(GOOD))
def test_stray_character_inside_an_annotation_body(name, tmp_path):
    text = program(locals=GOOD[name][0], body=GOOD[name][1])
    compile_source(text, "prog.p4")
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"
