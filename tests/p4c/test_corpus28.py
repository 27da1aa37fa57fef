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
