"""Positions of helper corpus60 (cpp57's open item): a macro call whose expansion prints more lines
than the call took -- a stringified argument holding a `/* */` comment written over lines, put into the
body twice -- puts cpp's output ahead of the source.  cpp writes a line marker before the next line,
but not inside a comment: when the call's last line ends inside a `/* */` comment, the comment's
later lines, and the tokens after its end, are as many lines further down in what p4c reads (p4c
1.2.4.8 names them so); checkmate-p4c named their source lines.
"""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import P4CompileError, compile_source

_TOP = "#define SS(x) #x #x"

# (the statement with the unknown name zz, how many lines further down p4c names it)
CASES = {
    "after_the_comment": ("@a(SS(c /* p\n q */ d)) bit<8> w = 1; /* long\n more\n end */ hdr.h.a = zz;", 1),
    "two_calls": ("@a(SS(c /* p\n q */ d) SS(e /* r\n s */ f)) bit<8> w = 1; /* long\n end */ hdr.h.a = zz;", 2),
    "call_inside_the_comments_end_line": ("@a(SS(c /* p\n q */ d)) bit<8> w = 1; /* long\n end */ @b(SS(g /* t\n u */ h)) "
                                          "bit<8> v = 1; /*\n */ hdr.h.a = zz;", 2),
    "next_line_resynchronised": ("@a(SS(c /* p\n q */ d)) bit<8> w = 1; /* long\n end */ bit<8> v = 1;\n hdr.h.a = zz;", 0),
    "no_comment_after": ("@a(SS(c /* p\n q */ d)) bit<8> w = 1;\n hdr.h.a = zz;", 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lines_after_a_call_that_printed_more_lines(name, tmp_path):
    stmt, ahead = CASES[name]
    src = program(top=_TOP, body="        " + stmt)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, col = line_of(src, "zz;")
    assert str(ei.value).startswith(f"prog.p4:{line + ahead}:{col}: "), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


def test_defined_without_a_name_is_an_error(tmp_path):
    """`#if defined` (nothing after it) or `defined(1)` is cpp's 'operator "defined" requires an identifier'
    (fuzz gen4 seed 16965); checkmate-p4c read `defined` as a name, 0."""
    for cond in ("defined", "defined(1) || 1"):
        src = program(top=f"#if {cond}\n#endif", body="        hdr.h.a = 1;")
        with pytest.raises(P4CompileError) as ei:
            compile_source(src, "prog.p4")
        assert 'operator "defined" requires an identifier' in str(ei.value), str(ei.value)
        assert p4c_accepts(src, tmp_path) in (None, False)


# (the statement, the text whose last character is the `)` cpp names)
_OPEN_IN_ARGUMENT = {
    "object_like_in_argument": ("hdr.h.a = ID(K 1) 8w2);", "hdr.h.a = ID(K 1)"),
    "over_lines": ("hdr.h.a = ID(\n   K\n   ) 8w1);", "   )"),
    "own_name_past_its_expansion": ("hdr.h.a = G\n   G\n   );", "   )"),
}


@pytest.mark.parametrize("name", sorted(_OPEN_IN_ARGUMENT))
def test_a_call_left_open_in_an_argument_is_an_error(name, tmp_path):
    """cpp expands an argument on its own: a call whose `(` it opens and whose `)` lies past the argument's
    end (`ID(K 1)` with K -> `F(`; `G G )` with G -> `F ( ,`, F's own argument G reopening F) is cpp's
    'unterminated argument list invoking macro' at the outer call's `)` (fuzz gen4 seed 14657);
    checkmate-p4c went on reading the following lines into the call."""
    stmt, end = _OPEN_IN_ARGUMENT[name]
    src = program(top="#define ID(x) (x)\n#define F(p, ...) (__VA_ARGS__)\n#define K F(\n#define G F ( ,",
                  body="        " + stmt + "\n#define G 8w1")
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, col = line_of(src, end)
    assert str(ei.value) == f'prog.p4:{line}:{col + len(end) - 1}: unterminated argument list invoking macro "F"', \
        str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)
