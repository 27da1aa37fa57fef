"""Programs of helper corpus52 that p4c refuses in its preprocessor: GCC's ``__has_include`` /
``__has_include_next`` outside an ``#if`` (corpus28's open item), and a comment as a macro's argument.  cpp (``cc -E``, which p4c runs)
refuses it with '"__has_include" used outside of preprocessing directive' at the name -- or at the
macro of the source that brought it, or at the ``)`` of the call whose argument held it (arguments
are expanded when that call ends); checkmate-p4c passed it to the P4 parser, which refused it with
a P4 error.  Each position below is cpp's.
"""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import P4CompileError, compile_source

_TOP = "#define HI __has_include(<core.p4>)\n#define ID(x) x"

# (the statement's text, the marker whose line cpp names, cpp's column there, the operator named)
CASES = {
    "in_text": ("/*e*/ hdr.h.a = __has_include(<core.p4>);", "/*e*/", 25, "__has_include"),
    "next_in_text": ("/*e*/ hdr.h.a = (bit<8>)__has_include_next(\"x.p4\");", "/*e*/", 33, "__has_include_next"),
    "from_object_like_macro": ("/*e*/ hdr.h.a = (bit<8>)HI;", "/*e*/", 33, "__has_include"),
    "in_argument_over_lines": ("hdr.h.a = ID(1 +\n /*e*/ __has_include(<core.p4>));", "/*e*/", 32, "__has_include"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_has_include_outside_if_named_where_cpp_names_it(name, tmp_path):
    stmt, marker, col, op = CASES[name]
    src = program(top=_TOP, body="        " + stmt)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, _ = line_of(src, marker)
    assert str(ei.value) == f'prog.p4:{line}:{col}: "{op}" used outside of preprocessing directive', str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


def test_has_include_stringified_or_in_if_is_no_error(tmp_path):
    """`#x` of it is a string, and in `#if` (also brought by a macro) it is the operator."""
    src = program(top=_TOP + "\n#define S(x) #x\n#if HI\nconst bit<8> K = 3;\n#endif",
                  body='        log_msg(S(__has_include(<a.p4>)));\n        hdr.h.a = K;')
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_a_comment_is_an_argument(tmp_path):
    """cpp -C keeps a comment as a token: `F0(/* c */)` passes one argument to a macro that takes none
    (cpp's error at the `)`); checkmate-p4c blanked the comment and called F0 with none."""
    src = program(top="#define F0() 8w1", body="        hdr.h.a = F0(/* c */);")
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, col = line_of(src, "F0(/* c */)")
    assert str(ei.value) == f'prog.p4:{line}:{col + 10}: macro "F0" passed 1 arguments, but takes just 0', str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)
