"""Preprocessor differences helper macros65 found with the macro fuzzer (tests/differential/fuzz_macros.py)
against GNU cpp 12 as p4c runs it (``cc -E -C -undef -nostdinc -x assembler-with-cpp``); each failed on leadm.
"""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import P4CompileError, compile_source
from switch.compiler.preprocessor import Preprocessor


def _pp(text: str) -> str:
    return " ".join(" ".join(ln.text.split()) for ln in Preprocessor().run_text(text, "prog.p4") if ln.text.strip())


# (the text, cpp's output joined by single blanks)
_LITERALS = {
    # a string holding an escaped quote is one literal: the names after it are expanded (fuzz macros seed 41)
    "escaped_quote": ('#define F(a) [a]\nx "a\\"b" F(1)\n', 'x "a\\"b" [1]'),
    # ... also where the call's `(` is on the next line
    "escaped_quote_paren_on_next_line": ('#define F1(...)\n#define E "a\\"b" F1\nE F1\n(x)\n', '"a\\"b" F1'),
    # a character literal holding `"` is no string's start
    "char_holding_a_quote": ("#define F(a) [a]\nx 'a' F(1) '\"' F(2)\n", "x 'a' [1] '\"' [2]"),
    # a lone `'` (assembler-with-cpp lets it through) is a token to the line's end: no expansion after it
    "lone_apostrophe": ("#define F(a) [a]\nx ' F(1)\nF(3)\n", "x ' F(1) [3]"),
    # a string ending in an escaped backslash ends at its quote
    "escaped_backslash": ('#define F(a) [a]\n"a\\\\" F(3)\n', '"a\\\\" [3]'),
}


@pytest.mark.parametrize("name", sorted(_LITERALS))
def test_names_after_literals(name):
    """cpp reads the literals of a line from its start (``\\"`` inside a string, ``'"'``, a lone ``'``);
    checkmate-p4c counted the line's ``"`` and took the names after ``"a\\"b"`` for the inside of a
    string, leaving them unexpanded."""
    text, want = _LITERALS[name]
    assert _pp(text) == want


def test_escaped_quote_before_a_macro_in_p4(tmp_path):
    """An annotation string with an escaped quote, then a macro on the same line: p4c compiles it."""
    src = program(top='#define K 8w3\n#define F(x) x', body='        @name("q\\"") bit<8> w = K; hdr.h.a = F(w);')
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


# (the call, cpp's output)
_VA_COMMA = {
    "given_empty": ("F1(w, )", "[,]"),
    "left_out": ("F1(w)", "[ ]"),
    "given": ("F1(w, x)", "[, x]"),
    "named_param_given_empty": ("F3(w, )", "[w,]"),
    "named_param_left_out": ("F3(w)", "[w ]"),
    "expands_to_nothing": ("F3(w, E)", "[w, ]"),
    "only_variable_empty": ("F2()", "[ ]"),
    "only_variable_blank": ("F2( )", "[ ]"),
    "only_variable_given": ("F2(x)", "[,x]"),
    # the variable arguments go in as written, not expanded first: the inner F1 is painted (seed ifs 359)
    "not_expanded_first": ("F1(a, F1(b, c))", "[, F1(b, c)]"),
    "not_expanded_first_over_lines": ("F1 (\n> z, (F1 (\nw q z, y), z) x)", "[, (F1 ( w q z, y), z) x]"),
    # ... and keep the blank written before them where stringified later
    "stringified_blank": ("XS(F1(w, x)) XS(F1(w,x)) XS(F4(y)) XS(F1(w, )) XS(F4(  y  z))",
                          '"[, x]" "[,x]" "[x,y]" "[,]" "[x, y z]"'),
}


@pytest.mark.parametrize("name", sorted(_VA_COMMA))
def test_gnu_comma_paste_keeps_the_comma_of_given_empty_arguments(name):
    """GNU's ``, ## __VA_ARGS__`` drops the comma only where the variable arguments are left out
    (``F(w)``), or for a macro of variable arguments only where they are empty; ``F(w, )`` keeps it
    (gcc's macro.c; fuzz macros seed 150); where kept the arguments go in unexpanded, with the blank
    written before them.  checkmate-p4c dropped it wherever they were empty and expanded them first."""
    call, want = _VA_COMMA[name]
    top = ("#define F1(b, ...) [, ## __VA_ARGS__]\n#define F2(...) [, ## __VA_ARGS__]\n"
           "#define F3(b, ...) [b, ## __VA_ARGS__]\n#define E\n#define F4(...) [x, ## __VA_ARGS__]\n"
           "#define S(...) #__VA_ARGS__\n#define XS(...) S(__VA_ARGS__)\n")
    assert _pp(top + call + "\n") == want


def test_gnu_comma_paste_in_p4(tmp_path):
    """`f(L(8w1, ))` with L's `, ## __VA_ARGS__` keeps the comma: p4c's syntax error, where checkmate-p4c
    compiled `(8w1)`."""
    src = program(top="#define L(a, ...) (a , ## __VA_ARGS__)", body="        hdr.h.a = L(8w1, );")
    with pytest.raises(P4CompileError):
        compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, False)
    compile_source(program(top="#define L(a, ...) (a , ## __VA_ARGS__)", body="        hdr.h.a = L(8w1);"), "prog.p4")


def test_line_of_a_name_pasted_on_a_later_line():
    """A name of a body before ``##`` keeps the line of the call that brought it: `A ## x` with
    ``#define A __LINE__``, the call on a later line of a macro call's text, is that line (cpp's
    expansion point; fuzz ifs seed 103).  checkmate-p4c gave the first line of the text."""
    text = "#define ID(a) w\n#define A __LINE__\n#define F1(x) A ## x\nID (\n) __LINE__ F1(*) F1 (+\n)\n"
    assert _pp(text) == "w 5 5* 5 +"
    assert _pp("#define A __LINE__\n#define F1(x) A ## x\n#define ID(a) a\nID(1\n) F1(B) F1(*)\n") == "1 AB 5*"


# (the statements, how many lines further up p4c names the unknown name zz)
_BEHIND = {
    "after_a_call_over_lines": ("hdr.h.a = F(8w1\n        ); /* a\n b */ hdr.h.b = zz;", 1),
    "two_calls": ("hdr.h.a = F(8w1\n        ); /* a\n b */ hdr.h.c = F(8w2\n  ); /* c\n d */ hdr.h.b = zz;", 2),
    "call_on_the_comments_end_line": ("hdr.h.a = F(8w1\n        ); /* a\n b */ hdr.h.c = F(8w2\n  ); hdr.h.b = zz;", 2),
    "next_line_resynchronised": ("hdr.h.a = F(8w1\n        ); /* a\n b */ hdr.h.c = 1;\n hdr.h.b = zz;", 0),
    "splice_keeps_step": ("hdr.h.a = 8w1 + \\\n  8w2; /* a\n b */ hdr.h.b = zz;", 0),
    # a comment over lines in a call's arguments is printed where the body puts the argument, with its
    # newlines: in step when put once (fuzz comments seeds 47, 165), one line down per more use, none
    # left when the body drops it
    "comment_in_an_argument": ("hdr.h.a = F(8w1 /* a\n b */); hdr.h.b = zz;", 0),
    "comment_in_an_argument_put_twice": ("hdr.h.a = TW(8w1 /* a\n b */); hdr.h.b = zz;", -1),
    "comment_in_a_dropped_argument": ("hdr.h.a = DR(8w1 /* a\n b */, 8w2); hdr.h.b = zz;", 1),
}


@pytest.mark.parametrize("name", sorted(_BEHIND))
def test_lines_after_a_call_over_lines_ending_in_a_comment(name, tmp_path):
    """A macro call over several lines prints on one; where its last line opens a `/* */` comment, cpp
    writes no line marker before the comment's end, so the comment's later lines and the tokens after
    it are as many lines further up in what p4c reads (fuzz comments seeds 34, 85; corpus60's
    `ahead` the other way); a comment over lines inside the arguments moves them down again.  A `\\` splice there leaves them in step (cpp repeats the comment's first
    line).  checkmate-p4c named their source lines."""
    stmt, behind = _BEHIND[name]
    src = program(top="#define F(x) x\n#define TW(x) x + x\n#define DR(x, y) y", body="        " + stmt)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, col = line_of(src, "zz;")
    assert str(ei.value).startswith(f"prog.p4:{line - behind}:"), str(ei.value)
    assert _p4c_error_line(src, tmp_path) in (None, line - behind)


def _p4c_error_line(src: str, tmp_path) -> int | None:
    """The line of p4c's first error on ``src`` (None: p4c is not installed)."""
    import re

    from switch.bmv2json.p4c import P4cFailed, p4c_path, run_p4c
    if p4c_path() is None:
        return None
    (tmp_path / "prog.p4").write_text(src)
    with pytest.raises(P4cFailed) as ei:
        run_p4c(tmp_path / "prog.p4", tmp_path, timeout=120)
    return int(re.search(r"prog\.p4\((\d+)\)", ei.value.stderr + str(ei.value)).group(1))


# (the text, cpp's output as p4c reads it: a `#` line that is no directive is skipped by p4c's lexer)
_HASH_LINES = {
    # cpp expands a `#` line that is no directive as text: `# B` then `(1)` is a call, the next line taken
    # into the line p4c skips, the rest of that line with it (corpus60's open item)
    "call_over_the_next_line": ("#define B(x) [x]\n# B\n(1) z\ny\n", "y"),
    "call_from_an_object_like_macro": ("#define B(x) [x]\n#define K B\n#! K\n(1\n2) z\ny\n", "y"),
    # a comment there is a token (cpp -C): the name before it is no call
    "comment_before_the_paren": ("#define B(x) [x]\n# B /* c */\n(1) z\n", "(1) z"),
    # an empty macro before the name
    "after_an_empty_macro": ("#define B(x) [x]\n#define Q\n# Q B\n(1) z\ny\n", "y"),
}


@pytest.mark.parametrize("name", sorted(_HASH_LINES))
def test_macros_on_a_hash_line_that_is_no_directive(name):
    """checkmate-p4c passed such a line through blank, leaving the next line's `(1)` to the P4 text."""
    text, want = _HASH_LINES[name]
    assert _pp(text) == want


def test_hash_line_call_in_p4(tmp_path):
    """`# B` / `(hdr.h.b = 8w2);`: p4c compiles it (B's call takes the parenthesis into the skipped line,
    `;` stays), checkmate-p4c found a syntax error."""
    src = program(top="#define B(x) [x]", body="        hdr.h.a = 8w1;\n# B\n        (hdr.h.b = 8w2);")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_spliced_directive_among_arguments():
    """`#\\` / `undef P` among the arguments of a call opened by an object-like macro is a `#undef`: what
    precedes the call is expanded before it runs (`5`, fuzz ifs seed 88); checkmate-p4c looked for
    `#undef` before joining the splice and expanded P after it."""
    text = "#define F(x) [x]\n#define B F(\n#define P 5\nP B 1\n#\\\nundef P\n)\nP B P\n#\\\ndefine P 6\n)\n"
    assert _pp(text) == "5 [ 1] P [ 6]"


def test_a_line_starting_inside_a_comment_is_no_directive():
    """`a /* p` / `#endif` / `*/ b`: the `#endif` is inside the comment (fuzz ifs seed 1103); checkmate-p4c
    took the line for a directive's, joined the comment's end to it and printed the comment's hidden
    characters into the text."""
    assert _pp("a /* p\n#endif\n*/ b\n") == "a b"
    assert _pp("#if 1\na /* p\n#else\n*/ b\n#endif\n") == "a b"


def test_a_directive_spliced_after_its_comment_over_lines():
    """`#define AB /* x` / ` y */ \\` / `G () __LINE__`: the `\\` after the comment's end splices the next
    line into the directive (fuzz ifs seed 401); checkmate-p4c ended the #define at the comment."""
    assert _pp("#define AB /* x\n y */ \\\nG () __LINE__\nAB\n") == "G () 4"


def test_comment_over_lines_on_a_directive_whose_name_a_splice_cuts():
    """`#de\\` / `fine AB /* x` / ` y */ + 1` is a #define whose comment is blanked (fuzz ifs seed 2929: a
    `#` line that is no directive keeps its comments as tokens, and the name is read after the splice)."""
    assert _pp("#de\\\nfine AB  /* x\n y */ + 1\nAB\n#\\\n  undef AB /* c\n */\nAB\n") == "+ 1 AB"
