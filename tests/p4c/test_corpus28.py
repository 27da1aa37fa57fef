"""Programs of helper corpus28 that p4c refuses in its preprocessor: a call of a function-like macro
with the wrong number of arguments.  cpp (``cc -E``, which p4c runs) names the last token it read
from the file when it counts them: the call's ``)`` -- on the last line of a call written over
several lines --, the ``)`` of the call whose argument held it (arguments are expanded when that call
ends), or the object-like macro whose expansion held the whole call (`#define HH FF(1)`); its words are
'macro "F" passed 3 arguments, but takes just 2' / 'requires 2 arguments, but only 1 given'.
checkmate-p4c named column 1 of the line the call started on.  Each position below is cpp's.
"""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import P4CompileError, compile_source

_TOP = ("#define FF(a, b) (a + b)\n#define II(x) x\n#define HH FF(1)\n#define JJ FF\n#define KK(x) x(1, 2, 3)\n"
        "#define VV(a, b, ...) (a + b)\n#define MM(a) a + FF")

# (the statement's text, the marker whose line cpp names, cpp's column there, cpp's words)
CASES = {
    "too_many_over_lines": ("hdr.h.a = FF(1,\n            2,\n     /*e*/  3);", "/*e*/", 14, "passed 3 arguments, but takes just 2"),
    "too_few_over_lines": ("hdr.h.a = FF(\n  1\n /*e*/ );", "/*e*/", 8, "requires 2 arguments, but only 1 given"),
    "too_few_one_line": ("/*e*/ hdr.h.a = FF(1);", "/*e*/", 29, "requires 2 arguments, but only 1 given"),
    "from_object_like_macro": ("/*e*/ hdr.h.a = HH;", "/*e*/", 25, "requires 2 arguments"),
    "name_from_object_like_macro": ("hdr.h.a = JJ(1,\n /*e*/ 2, 3);", "/*e*/", 12, "passed 3 arguments"),
    "name_from_function_like_macro": ("hdr.h.a = MM(1)(2,\n  3,\n /*e*/ 4);", "/*e*/", 9, "passed 3 arguments"),
    "call_in_function_like_body": ("/*e*/ hdr.h.a = KK(FF);", "/*e*/", 30, "passed 3 arguments"),
    "call_in_argument": ("hdr.h.a = II(FF(1, 2, 3)\n /*e*/ );", "/*e*/", 8, "passed 3 arguments"),
    "variadic_too_few": ("hdr.h.a = VV(\n /*e*/ 1);", "/*e*/", 9, "requires 3 arguments, but only 1 given"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_wrong_argument_count_named_where_cpp_last_read(name, tmp_path):
    stmt, marker, col, words = CASES[name]
    src = program(top=_TOP, body="        " + stmt)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, _ = line_of(src, marker)
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: ") and words in str(ei.value), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


def test_directive_among_arguments_keeps_the_definition_of_a_name_a_macro_brought(tmp_path):
    """`MM(1)` / `(2,` / `#define FF 5` / `3, 4)` (`#define MM(a) a + FF`): cpp has taken FF's call with FF's
    old definition (two parameters) before the `#define`, and fails on its three arguments;
    checkmate-p4c expanded the whole text after the directive, `1 + 5 (2, 3, 4)`, and went on."""
    src = program(top=_TOP, body="        hdr.h.a = MM(1)\n(2,\n#define FF 5\n 3, /*e*/ 4);")
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, col = line_of(src, "4);")
    assert str(ei.value).startswith(f"prog.p4:{line}:{col + 1}: ") and "passed 3 arguments" in str(ei.value), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


# directives naming a macro that cpp refuses (checkmate-p4c took all but the first two: a duplicate
# parameter, `(a` / `(a a` as an object-like body, `##` at a body's end, `#undef` alone, ...), each
# with cpp's words and column (cpp_define); `#line 5 foo` too
DIRECTIVES = {
    "define_no_name": ("#define", 8, "no macro name given in #define directive"),
    "define_number": ("#define 1X 2", 9, "macro names must be identifiers"),
    "define_defined": ("#define defined 1", 9, '"defined" cannot be used as a macro name'),
    "duplicate_parameter": ("#define F2(a, a) a", 15, 'duplicate macro parameter "a"'),
    "parameters_unclosed": ("#define F2(a", 13, "expected ')' before end of line"),
    "parameters_no_comma": ("#define F2(a a", 14, "expected ',' or ')', found \"a\""),
    "parameter_missing": ("#define F2(x,) 1", 14, 'expected parameter name, found ")"'),
    "named_variadic_not_last": ("#define F2(x..., y) 1", 16, 'expected \')\' after "..."'),
    "paste_at_body_start": ("#define F2(x) ## x", 13, "'##' cannot appear at either end of a macro expansion"),
    "paste_at_body_end": ("#define OB y ##", 9, "'##' cannot appear at either end of a macro expansion"),
    "undef_no_name": ("#undef", 7, "no macro name given in #undef directive"),
    "ifndef_number": ("#ifndef 3\n#endif", 9, "macro names must be identifiers"),
    "line_bad_file_name": ("#line 5 foo", 9, '"foo" is not a valid filename'),
    "endif_without_if": ("#endif", 2, "#endif without #if"),
}


@pytest.mark.parametrize("name", sorted(DIRECTIVES))
def test_bad_directive_named_where_cpp_names_it(name, tmp_path):
    text, col, words = DIRECTIVES[name]
    src = program(top=text)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, _ = line_of(src, text.split("\n")[0])
    assert str(ei.value) == f"prog.p4:{line}:{col}: {words}", str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


def test_line_zero_only_warns(tmp_path):
    """`#line 0` is a pedantic warning for cpp (p4c compiles the program); checkmate-p4c refused it."""
    src = program(top="#line 0\nconst bit<8> Z = __LINE__;", body="        hdr.h.a = Z;")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)
