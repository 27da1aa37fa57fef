"""Constructs seen in public v1model programs not measured before (research prototypes, course
and p4pi examples fetched by helper corpus14 for issue #15), each written here as a small
program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

p4c runs cpp as ``-x assembler-with-cpp``: a ``#`` line that is no cpp directive (p4pi's
stateful firewall has a stray ``#4096`` after a ``#define``; also ``#foo``, ``#!x``) is passed
through and p4c's lexer skips it -- one of the form ``# N "file"`` renumbers the positions that
follow; ``#line N ["file"]`` renumbers for cpp too (``__LINE__``, ``__FILE__``).  checkmate-p4c
refused such lines as malformed or unknown directives and ignored ``#line``.

A function-like macro's arguments may span lines (``F(1,`` / ``2)``): cpp collects them and
leaves the expansion on the call's line; checkmate-p4c expanded line by line and refused the
call as unterminated; nor did it take a macro name at a line's end with ``(`` on the next line
for a call, and it split arguments at commas inside string literals.  ``#elif`` or ``#else`` after ``#else`` is cpp's error; checkmate-p4c took
them; ``#if (1, 0)`` (C's comma operator) and ``#if`` over a macro that expands to
``defined(X)`` are evaluated by cpp, checkmate-p4c refused both; a ``\\`` before \\r\\n continues a
``#define`` and a lone \\r ends a line (files written on Windows or old Macs), checkmate-p4c kept
the \\r; a block comment running past a directive's line continues it (cpp reads it as a
space), and a `#` after a comment on its line is no directive (p4c keeps comments, `-C`).
(Probes of 74 preprocessor constructs, p4c deciding; these were the differences.)

p4c's strength reduction runs before its BMv2 back end refuses a run-time division: ``e * 0``,
``e & 0``, ``0 / e``, ``0 % e``, ``e - e``, ``e ^ e`` (``e`` free of side effects) are 0, so
seclabBupt's heavy-hitter detector compiles ``count * (W/THETA + 1/EPSILON_INVERSE) / K`` (with
``#define``d integers: ``count * 0 / 10``); checkmate-p4c refused the division by 10.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the error
must contain)."""
from .base import H, case, program

CASES = []

# stray `#` lines p4c passes through, and `#line` renumbering __LINE__ (written into h.c / h.d)
CASES.append(case("corpus14_passthrough_hash_lines_and_line_directive", "language", program(
    top="#4096\n#foo bar baz\n#!/bin/sh\n# 900 \"other.p4\"\n#ident \"x\"\n#line 1000\n",
    ingress="        hdr.h.c = __LINE__;\n#line 70000 \"renamed.p4\"\n        hdr.h.d = __LINE__;\n"),
    frames=[(1, H(1, 2, 3, 4))]))

# a macro call over three lines, tokens after it on its last line, and __LINE__ after it
CASES.append(case("corpus14_macro_call_over_lines", "language", program(
    top="#define ADD3(a, b, c) ((a) + (b) + (c))\n#define PAIR(x, y) x = y\n#define PICK(s, v) v\n",
    ingress="""        hdr.h.c = ADD3(hdr.h.c,
                       16w1,
                       16w2); hdr.h.b = hdr.h.b + 1;
        PAIR(hdr.h.d,
             (bit<32>)__LINE__);
        hdr.h.a = PICK("x,(y", hdr.h.a + 1);
        hdr.h2.setValid();
        hdr.h2.a = ADD3
            (8w1, 8w2, 8w3);
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(5, 6, 0xfffe, 7))]))

# #if with C's comma operator and with `defined` that a macro's expansion brings (cpp: both
# evaluated; checkmate-p4c refused them)
CASES.append(case("corpus14_if_comma_and_expanded_defined", "language", program(
    top="""#define XDEF
#define HAS_X defined(XDEF)
#define HAS_Y defined YDEF
#if (1, 0)
#define V1 1
#else
#define V1 2
#endif
#if 0, 1
#define V2 3
#else
#define V2 4
#endif
#if HAS_X && !HAS_Y && (0, (2, 0)) == 0
#define V3 5
#else
#define V3 6
#endif
""",
    ingress="        hdr.h.a = V1; hdr.h.b = V2; hdr.h.c = V3;\n"), frames=[(1, H(9, 9, 9, 9))]))

# a file written on Windows: `\` before \r\n continues a #define, and a lone \r ends a line
# (cpp; checkmate-p4c kept the \r, so the `\` did not end the line: "unexpected character")
CASES.append(case("corpus14_crlf_and_cr_line_ends", "language", program(
    top="#define ADD(a, b) \\\r\n    ((a) + \\\r\n     (b))\r\n#define SUB(a, b) ((a) - (b))\r#define K 7\r\n",
    ingress="        hdr.h.c = ADD(hdr.h.c,\r\n 16w3);\r\n        hdr.h.a = SUB(hdr.h.a, K);\r\n"),
    frames=[(1, H(1, 2, 3, 4)), (1, H(0x10, 2, 0xffff, 4))]))

# a block comment that runs past a directive's line continues the directive (cpp reads it as a
# space): Z8 is `8w4 + 8w1`; checkmate-p4c ended the #define at the comment's first line
CASES.append(case("corpus14_comment_continues_directive", "language", program(
    top="#define Z8 8w4 /* first line\n   second line */ + 8w1\n#if 0 /* a\n b */ || 1\n#define Z9 8w9\n#endif\n",
    ingress="        hdr.h.a = Z8; hdr.h.b = Z9;\n"), frames=[(1, H(1, 2, 3, 4))]))

# divisions p4c's strength reduction makes 0 (results in h.c / h.d / h2)
CASES.append(case("corpus14_strength_reduced_divisions_are_zero", "expressions", program(
    top="#define W 3\n#define THETA 5\n#define EPS 10000\n",
    ingress="""        hdr.h.d = hdr.h.d * (W/THETA + 1/EPS) / 10;
        hdr.h.c = 0 / hdr.h.c + (hdr.h.c & 0) % 7;
        hdr.h.b = (hdr.h.a - hdr.h.a) / 3 + (hdr.h.b ^ hdr.h.b) % 5 + (bit<8>)(hdr.h.a * 0 / 6) + 1;
        hdr.h.a = (hdr.h.a * 0 - 1) / 10;
"""), frames=[(1, H(1, 2, 3, 4)), (2, H(0xff, 0x80, 0, 0xffffffff))]))

INVALID = {
    # cpp: '"x" after #line is not a positive integer'
    "corpus14_line_directive_not_a_number": (program(top="#line x\n"), ("#line", "positive integer")),
    # cpp: "#elif after #else", "#else after #else"
    "corpus14_elif_after_else": (program(top="#if 0\n#else\n#elif 1\n#endif\n"), ("#elif after #else",)),
    "corpus14_else_after_else": (program(top="#ifdef NOPE\n#else\n#else\n#endif\n"), ("#else after #else",)),
    # p4c keeps comments (cpp -C): a `#` after a comment is no directive, the lexer sees it
    "corpus14_comment_before_directive": (program(top="/* c */ #define Z 4\n"), ("#",)),
    # p4c: "0 / 0: Division by zero" once `h.c * 0` is reduced
    "corpus14_divisor_strength_reduced_to_zero": (program("        hdr.h.c = 0 / (hdr.h.c * 0);\n"), ("division by zero",)),
}
