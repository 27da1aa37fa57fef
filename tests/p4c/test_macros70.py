"""Preprocessor differences helper macros70 found with the macro fuzzer (tests/differential/fuzz_macros.py)
against GNU cpp 12 as p4c runs it (``cc -E -C -undef -nostdinc -x assembler-with-cpp``); each failed on leadm.
"""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import P4CompileError, compile_source
from switch.compiler.preprocessor import Preprocessor


def _pp(text: str) -> str:
    return " ".join(" ".join(ln.text.split()) for ln in Preprocessor().run_text(text, "prog.p4") if ln.text.strip())


# (the text, cpp's output joined by single blanks): the space cpp prints where an expansion's last token
# meets the next one
_AVOID_PASTE = {
    # assembler-with-cpp reads no digraphs: `%` then `>` from after the call is `% >` (fuzz macros seed 3126)
    "percent_greater": ("#define F1(x) w %\nF1(1)> G\n", "w % > G"),
    "percent_percent": ("#define P %\nP% P%=\n", "%% %%="),
    "less_colon_greater": ("#define P <:\nP> P:\n", "<: > <: :"),
    "colon_greater_equal": ("#define P :>\nP= P>\n", ":> = :> >"),
    "less_percent_equal": ("#define P <%\nP= P>\n", "<% = <% >"),
    # `<=` then `>` (C++'s `<=>`) gets one
    "less_equal_greater": ("#define P <=\nP> P>=\n", "<= > <= >="),
    # a name then a pp-number starting with `.` gets none, one starting with a digit does
    "name_dot_number": ("#define P a\n#define C(x) x\nP.5 C(a)5\n", "a.5 a 5"),
}


@pytest.mark.parametrize("name", sorted(_AVOID_PASTE))
def test_avoid_paste_without_digraphs(name):
    """cpp's ``cpp_avoid_paste`` on the tokens of assembler-with-cpp (no digraphs, no C++ ``::``, ``.*``,
    ``->*``): checkmate-p4c read `<:`, `:>`, `<%`, `%>`, `%:` as one token each, spaced `%` before `%`
    and not before `>`, a name before `.5`, and not `<=` before `>`.  p4c's lexer reads the same P4 tokens
    from both but for a join such as `:>=` (`>=` against `> =`), which no P4 program holds."""
    text, want = _AVOID_PASTE[name]
    assert _pp(text) == want


# (the #define, the column of cpp's error, its message)
_VA_OPT_ERRORS = {
    "unterminated": ("#define G(...) __VA_OPT__(,", 16, "unterminated __VA_OPT__"),
    "unterminated_nested_parens": ("#define G(...) x __VA_OPT__ ( (a)", 18, "unterminated __VA_OPT__"),
    "named_variable_arguments": ("#define G(a...) __VA_OPT__(,", 17, "unterminated __VA_OPT__"),
    "no_parenthesis": ("#define G(...) __VA_OPT__ x", 16, "__VA_OPT__ must be followed by an open parenthesis"),
    "nested": ("#define G(...) __VA_OPT__(__VA_OPT__(x))", 27, "__VA_OPT__ may not appear in a __VA_OPT__"),
    "paste_first": ("#define G(...) __VA_OPT__(## x)", 27, "'##' cannot appear at either end of __VA_OPT__"),
    "paste_last": ("#define G(...) __VA_OPT__(x ##)", 31, "'##' cannot appear at either end of __VA_OPT__"),
}


@pytest.mark.parametrize("name", sorted(_VA_OPT_ERRORS))
def test_va_opt_errors_at_the_define(name):
    """GCC 12 refuses a variadic macro's malformed ``__VA_OPT__`` at its ``#define``, used or not (fuzz ifs
    seed 4495: `#define G(a\\` / `, ...) ... __VA_OPT__(, x` never closed); checkmate-p4c took the
    definition.  (In a macro that is not variadic it only warns.)"""
    define, col, message = _VA_OPT_ERRORS[name]
    with pytest.raises(P4CompileError) as ei:
        Preprocessor().run_text(define + "\n", "prog.p4")
    assert (ei.value.loc.line, ei.value.loc.col, ei.value.message) == (1, col, message)
    assert _pp("#define G(x) __VA_OPT__(,\n#define H __VA_OPT__(\nG(1) H\n") == "__VA_OPT__(, __VA_OPT__("
    assert _pp("#define G(...) a ## __VA_OPT__(x) __VA_OPT__(y) ## b __VA_OPT__()\nG(1)\n") == "ax yb"


def test_va_opt_error_in_p4(tmp_path):
    """p4c stops at cpp's error on a `#define` nothing uses."""
    src = program(top="#define G(...) __VA_OPT__(,", body="        hdr.h.a = 8w1;")
    with pytest.raises(P4CompileError):
        compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, False)


# (the text, the line cpp's output has `zz` on): the stale bytes cpp -C saves with a comment past a line
# that a `\` splices or that ends in \r\n print more newlines (cpp_lines.comment_repeats)
_REPEATS = {
    "crlf": ("a /* x\r\n y */ zz\r\nqq\r\n", 3),
    "crlf_three_lines": ("c\r\nd /* p\r\n q\r\n r */ zz\r\n", 6),
    "one_splice": ("a\\\nb /* x\n y */ zz\nqq\n", 3),
    # two splices drop four bytes: `* x` and the newline, one line more, not two (fuzz ifs seed 3632's lines)
    "two_splices": ("a\\\nb\\\nccccc /* x\n y */ zz\nqq\n", 3),
    "splice_with_blanks": ("a \\  \nb /* x\n y */ zz\nqq\n", 3),
    # a call over lines whose first line is spliced: the comment is past a line with nothing dropped
    "call_over_a_spliced_line": ("#define F(x) x\nF(a\\\nb\n) /* c\nd */ zz\nqq\n", 3),
    # ... and the newline before the last line too where that line is short
    "short_last_line": ("a\\\nb\\\n/*\n*/ zz\n", 4),
}


@pytest.mark.parametrize("name", sorted(_REPEATS))
def test_lines_after_a_comment_with_stale_bytes(name):
    """GCC 12 saves a ``/* */`` comment with the bytes between the cleaned line's newline and the next
    raw line (as many as its splices and \\r\\n dropped, the raw newline among them) and prints its
    newlines without a line marker: the tokens after the comment are as many lines further down.
    checkmate-p4c kept a file's \\r\\n lines in step and counted one line per splice."""
    text, line = _REPEATS[name]
    got = [ln.line for ln in Preprocessor().run_text(text, "prog.p4") if "zz" in ln.text]
    assert got == [line]


def test_crlf_comment_error_line_in_p4(tmp_path):
    """A P4 file with \\r\\n ends: the name after a comment over three lines is two lines further down
    for p4c (``prog.p4(18)`` for line 16); the next line is in step again (cpp writes a line marker)."""
    src = program(body="        hdr.h.a = 8w1; /* one\n two\n three */ hdr.h.b = zz;\n        hdr.h.c = yy;")
    crlf = src.replace("\n", "\r\n")
    line, _ = line_of(src, "zz;")
    with pytest.raises(P4CompileError) as ei:
        compile_source(crlf, "prog.p4")
    assert str(ei.value).startswith(f"prog.p4:{line + 2}:"), str(ei.value)
    assert _p4c_error_line(crlf, tmp_path) in (None, line + 2)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src.replace("zz", "16w2").replace("yy", "zz").replace("\n", "\r\n"), "prog.p4")
    assert str(ei.value).startswith(f"prog.p4:{line + 1}:"), str(ei.value)


def _p4c_error_line(src: str, tmp_path) -> int | None:
    """The line of p4c's first error on ``src`` written as it is (None: p4c is not installed)."""
    import re

    from switch.bmv2json.p4c import P4cFailed, p4c_path, run_p4c
    if p4c_path() is None:
        return None
    (tmp_path / "prog.p4").write_bytes(src.encode())
    with pytest.raises(P4cFailed) as ei:
        run_p4c(tmp_path / "prog.p4", tmp_path, timeout=120)
    return int(re.search(r"prog\.p4\((\d+)\)", ei.value.stderr + str(ei.value)).group(1))


# (the call, cpp's output) of `#define F(x, ...) [x __VA_OPT__(, x)]`
_VA_OPT_EXPANDED = {
    "expands_to_nothing": ("F(a, E)", "[a ]"),
    "call_expanding_to_nothing": ("F(a, G(1, 2))", "[a ]"),
    "nothing_then_a_token": ("F(a, E b)", "[a , a]"),
    "a_comment": ("F(a, /* c */)", "[a , a]"),
    "empty": ("F(a,)", "[a ]"),
    "left_out": ("F(a)", "[a ]"),
}


@pytest.mark.parametrize("name", sorted(_VA_OPT_EXPANDED))
def test_va_opt_reads_the_expanded_variable_arguments(name):
    """GCC 12 keeps ``__VA_OPT__`` 's tokens where the variable arguments, expanded, have a token (its
    ``vaopt_state`` expands them; fuzz comments seeds 3056, 3792: a call of `#define G(x, b)` there);
    checkmate-p4c looked at them as written.  (cpp -C keeps a comment: a token.)"""
    call, want = _VA_OPT_EXPANDED[name]
    assert _pp(f"#define F(x, ...) [x __VA_OPT__(, x)]\n#define E\n#define G(x, b)\n{call}\n") == want


def test_va_opt_of_an_empty_expansion_in_p4(tmp_path):
    """`L(8w1, NONE)` with `#define NONE` is `(8w1)` for p4c; checkmate-p4c had `(8w1 + )`, a syntax error."""
    src = program(top="#define NONE\n#define L(a, ...) (a __VA_OPT__(+ __VA_ARGS__))",
                  body="        hdr.h.a = L(8w1, NONE); hdr.h.c = L(8w1, 8w2);")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


# (the directive, the column of cpp's error)
_LINE_END_ERRORS = {
    "define_blank": ("#define ", 9),
    "define_blanks": ("#define   ", 11),
    "define_comment": ("#define /* c */ ", 17),
    "undef_blank": ("#undef ", 8),
    "ifdef_blanks": ("#ifdef  ", 9),
    "indented": ("  #  define ", 13),
    "parameter_name": ("#define F(  ", 13),
    "parameter_after_comma": ("#define F(a,  ", 15),
    "close_paren": ("#define F(a  ", 14),
    "after_dots": ("#define F(a...  ", 17),
    "no_blank": ("#define F(a", 12),
}


@pytest.mark.parametrize("name", sorted(_LINE_END_ERRORS))
def test_errors_at_the_end_of_a_directive_line(name):
    """cpp names a missing macro name or parameter at the line's end, after its trailing blanks and
    comments (fuzz macros seed 3589 reduced to `#define `); checkmate-p4c named the last token's end."""
    text, col = _LINE_END_ERRORS[name]
    with pytest.raises(P4CompileError) as ei:
        Preprocessor().run_text(text + "\n", "prog.p4")
    assert (ei.value.loc.line, ei.value.loc.col) == (1, col)


def _lines(text: str) -> list[tuple[int, str]]:
    return [(ln.line, ln.text.strip()) for ln in Preprocessor().run_text(text, "prog.p4") if ln.text.strip()]


# (the text, cpp's output lines that hold tokens): the stale bytes inside the comment's text
_STALE_TEXT = {
    # a stringified argument holds them (`p` again: fuzz ifs seeds 3623, 3996)
    "stringified": ("#define S(a) #a\nS(x\\\ny /* p\n q */) zz\nw\n", [(2, '"xy /* p'), (3, "p"), (4, 'q */" zz'),
                                                                     (5, "w")]),
    # an argument's comment is printed where the body puts it, with them (fuzz ifs seeds 3148, 3164)
    "argument": ("#define F(a) a\nF(x\\\ny /* p\n q */) zz\nw\n", [(2, "xy"), (4, "zz"), (5, "w")]),
    "argument_after_a_spliced_line": ("#define GH(c) c\nGH (8 \\\n/*\n*/ -)\n", [(2, "8"), (4, "-")]),
    "crlf_argument": ("#define F(a) a\r\nF(x /* p\r\n q */) zz\r\nw\r\n", [(2, "x"), (4, "zz"), (4, "w")]),
}


@pytest.mark.parametrize("name", sorted(_STALE_TEXT))
def test_stale_bytes_in_a_comments_text(name):
    """The bytes cpp -C saves with a comment past a spliced or \\r\\n line are part of its text: in a string
    `#a` makes and in an argument the body puts elsewhere (checkmate-p4c kept the comment as written)."""
    text, want = _STALE_TEXT[name]
    assert _lines(text) == want


# (the text, cpp's output lines that hold tokens)
_LEADING_SPLICE = {
    "backslash_line": ("a\n\\\nq)\nb\n", [(1, "a"), (3, "q)"), (4, "b")]),
    "blanks_and_backslash": ("#if 1\n#endif\n  \\\n \\\n  q)\nb\n", [(5, "q)"), (6, "b")]),
    "then_a_comment_over_lines": ("x\n\\\nq /* a\nb */ zz\nw\n", [(1, "x"), (3, "q"), (5, "zz"), (5, "w")]),
    "then_a_call_over_lines": ("#define F(a,b) a+b\nx\n  \\\n\\\n  F(1,\n2) zz\nw\n", [(2, "x"), (5, "1 +2 zz"), (7, "w")]),
}


@pytest.mark.parametrize("name", sorted(_LEADING_SPLICE))
def test_a_line_is_at_its_first_token(name):
    """cpp prints a logical line at its first token's line: after blank lines a `\\` splices on, the line
    of the token (fuzz ifs seed 3922: `\\` / `q)` is `q)` on its own line); checkmate-p4c named the first."""
    text, want = _LEADING_SPLICE[name]
    assert _lines(text) == want


def test_leading_splice_error_line_in_p4(tmp_path):
    """p4c names `zz` after a line holding only `\\` at its own line."""
    src = program(body="        hdr.h.a = 8w1;\n\\\n        hdr.h.b = zz;")
    line, _ = line_of(src, "zz;")
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    assert str(ei.value).startswith(f"prog.p4:{line}:"), str(ei.value)
    assert _p4c_error_line(src, tmp_path) in (None, line)


# (the text, cpp's output as p4c reads it: the `#` lines that are no directive skipped)
_HASH_BANG = {
    "line_comment": ("#define H(b, ...)\n#! H //\n((__LINE__ x) )\n", "((3 x) )"),
    "block_comment": ("#define H(b, ...)\n#! H /* c */\n(z)\n", "(z)"),
    "line_comment_with_text": ("#define H(b, ...)\n#! H // c\n(x)\n", "(x)"),
    # a null directive's comment goes with it, and a name after the comment is the directive's
    "null_directive": ("# /* c */\nx\n# /* c */ define Q 5\nQ\n", "x 5"),
}


@pytest.mark.parametrize("name", sorted(_HASH_BANG))
def test_comment_on_a_hash_line_whose_hash_is_not_followed_by_a_name(name):
    """`#! H //` is text to cpp (p4c's lexer skips the line): the comment is a token, so H before it is no
    call and the next line stays (fuzz ifs seeds 2028, 1103); checkmate-p4c took a `#` followed by no name
    for a directive's, blanked the comment and called H with the next line."""
    text, want = _HASH_BANG[name]
    assert _pp(text) == want


def test_arguments_of_a_dropped_va_opt_are_expanded():
    """GCC 12 expands every argument the body names before it drops a `__VA_OPT__` (replace_args' first
    pass), so a call in one is cpp's error all the same (fuzz ifs seed 2074: `H(ID(x))` with `ID()` and
    x only inside H's `__VA_OPT__(, x)`); checkmate-p4c dropped it unexpanded."""
    text = "#define ID() y\n#define H(x, ...) [__VA_OPT__(, x)]\n#define F1(x) H(ID(x))\nF1(2)\n"
    with pytest.raises(P4CompileError) as ei:
        Preprocessor().run_text(text, "prog.p4")
    assert (ei.value.loc.line, ei.value.loc.col) == (4, 5)
    assert ei.value.message == 'macro "ID" passed 1 arguments, but takes just 0'
    assert _pp("#define ID() y\n#define H(x, ...) [__VA_OPT__(, x)]\nH(ID()) H(ID(), 1)\n") == "[] [, y]"
