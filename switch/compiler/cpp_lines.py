"""The lines of a P4 source file as GNU cpp sees them before it expands macros: comments blanked
(newlines kept, so every line keeps its number; one on a line of text marked: cpp -C keeps it as a token), a ``//`` comment continued by a line ending in
``\\``, string literals written over several lines (their continuation lines are text to cpp, not
directives), and lines whose end lies inside a ``/* */`` comment (a directive goes on past them).

Used by :class:`~.preprocessor.Preprocessor` before it reads a file's directives and text.
"""
from __future__ import annotations

import re

from .cpp_tokens import hide_comment
from .errors import Loc, P4CompileError

#: the directives GNU cpp runs in p4c's mode (-x assembler-with-cpp); any other `#...` line is text
#: to cpp (its macros expanded) and passed through to p4c's lexer, which skips it
CPP_DIRECTIVES = frozenset({"define", "undef", "include", "include_next", "import", "if", "ifdef",
                            "ifndef", "elif", "elifdef", "elifndef", "else", "endif", "line", "error", "warning", "pragma",
                            "ident", "sccs", "assert", "unassert"})
_DIRECTIVE_NAME = re.compile(r"#[ \t]*([A-Za-z_][A-Za-z0-9_]*)")
_SPLICE = re.compile(r"\\[ \t\f\v]*\n")


def line_comment_end(text: str, i: int) -> int:
    """Where the ``//`` comment at ``i`` ends: the newline of its line -- or of a later one, as cpp
    splices a line ending in ``\\`` (blanks after it allowed) before it removes comments, so such a
    comment takes the next line in (``len(text)`` at the end of the text)."""
    while True:
        j = text.find("\n", i)
        if j < 0:
            return len(text)
        if not text[i:j].rstrip(" \t\f\v").endswith("\\"):
            return j
        i = j + 1


def _in_directive(text: str, i: int) -> bool:
    """Whether offset ``i`` is on a directive's line (its first character ``#``; the lines a backslash
    continues belong to the line they continue) -- not a `#` line that is no directive (``# B``, ``#! B``):
    cpp reads that as text, a comment there is a token (``# F /* c */ (1)`` is no call)."""
    start = text.rfind("\n", 0, i) + 1
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not text[prev:start - 1].rstrip(" \t\f\v").endswith("\\"):
            break
        start = prev
    rest = _SPLICE.sub("", text[start:i]).lstrip()   # (`#de\` / `fine X` is a #define)
    m = _DIRECTIVE_NAME.match(rest)   # (`#` then blanks only: the null directive, or a name after the comment)
    return rest.startswith("#") and (m.group(1) in CPP_DIRECTIVES if m else not rest[1:].strip())


def _blank(chunk: str, text: str, i: int, stale: dict[int, str] | None = None) -> str:
    """The comment ``chunk`` (at ``text[i]``) as blanks, newlines kept -- on a line of text one token
    that starts with :data:`~.cpp_tokens.COMMENT` and keeps its text (:func:`~.cpp_tokens.hide_comment`;
    cpp -C keeps the comment as a token: a function-like macro's name before it is no call,
    ``F /* c */ (1)`` stays, and ``#x`` of ``/* c */ 1`` is ``"/* c */ 1"``)."""
    if not _in_directive(text, i):
        return hide_comment(chunk, stale, text.count("\n", 0, i) if stale else 0)
    return "".join(ch if ch == "\n" else " " for ch in chunk)


def strip_comments(text: str, file: str, stale: dict[int, str] | None = None) -> str:
    """Replace // and /* */ comments by spaces, keeping newlines and string literals (which
    may span lines); a comment on a line of text leaves a :data:`~.cpp_tokens.COMMENT` (``_blank``), with
    the ``stale`` bytes cpp saves with it (:func:`comment_stale`)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            # p4c takes a string over several lines (its cpp keeps comments, -C, and its lexer
            # reads the string): `//` or `/*` inside one stays text
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = line_comment_end(text, i)
            out.append(_blank(text[i:j], text, i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line = text.count("\n", 0, i) + 1
                col = i - (text.rfind("\n", 0, i) + 1) + 1
                raise P4CompileError(Loc(file, line, col), "unterminated /* comment")
            out.append(_blank(text[i:j + 2], text, i, stale))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def lines_inside_string(text: str) -> set[int]:
    """The 0-based indices of the lines of ``text`` (comments already blanked) that begin inside a
    string literal: the continuation lines of a string written over several lines."""
    out, i, n = set(), 0, len(text)
    while i < n:
        j = text.find('"', i)
        if j < 0:
            break
        k = j + 1
        while k < n and text[k] != '"':
            k += 2 if text[k] == "\\" else 1
        line = text.count("\n", 0, j)
        out.update(range(line + 1, line + 1 + text.count("\n", j, k)))
        i = k + 1
    return out


def lines_ending_in_comment(text: str) -> set[int]:
    """The 0-based indices of the lines of ``text`` whose end lies inside a ``/* */`` comment."""
    out, i, n, line = set(), 0, len(text), 0
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j + 1)
            i = j + 1
        elif text.startswith("//", i):
            j = line_comment_end(text, i)
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            k = text.count("\n", i, j)
            out.update(range(line, line + k))
            line += k
            i = j
        else:
            i += 1
    return out


def directive_lines(lines: list[str]) -> set[int]:
    """The 0-based indices of the source ``lines`` that start a directive for cpp: `#` is the first
    character but blanks, also after lines of blanks that a `\\` at their end splices on (`  \\` then
    `#define X 1` is a ``#define``); a comment is a token to cpp -C (`/* c */ #define X` is no directive)."""
    out = set()
    for k, text in enumerate(lines):
        j = k
        while not text.strip(" \t\f\v\\") and text.rstrip(" \t\f\v").endswith("\\") and j + 1 < len(lines):
            j += 1
            text = lines[j]
        if text.lstrip().startswith("#"):
            out.add(k)
    return out


_LINE_END = re.compile(r"\r\n|\r|\n")


def comment_stale(text: str) -> dict[int, str]:
    """The stale bytes GNU cpp -C saves with a ``/* */`` comment that runs past a line end, by the 0-based
    index of the (last physical) line of each logical line where there are any.  cpp cleans each
    logical line in place (its `\\` splices and a ``\\r`` before its newline dropped, the rest moved
    to the left) and saves a comment as the bytes from its ``/*`` to its ``*/`` in that buffer -- taking
    with it the stale raw bytes between a cleaned line's newline and the next line's start: the last
    bytes (as many as were dropped) of the raw line it runs past, its raw newline last (GCC 12:
    `a\\` / `b /* x` / ` y */ zz` prints ``/* x`` / ``x`` / `` y */ zz``; every comment over lines of
    a file with ``\\r\\n`` ends gets a blank line).  cpp prints the comment's newlines as they are (no
    line marker before its end): the tokens after it are further down in what p4c reads, and a
    stringified argument holds them.  The bytes here are those before that last newline."""
    out, start, k = {}, 0, 0
    raw = text.removeprefix("\ufeff")
    while start < len(raw):
        first = k
        end, dropped = start, 0
        while True:   # (a logical line: physical lines a `\` before the newline splices on)
            m = _LINE_END.search(raw, end)
            if m is None:
                end = len(raw)
                break
            body = raw[end:m.start()]
            stripped = body.rstrip(" \t\f\v")
            end, k = m.end(), k + 1
            if stripped.endswith("\\") and end < len(raw):
                dropped += len(body) - len(stripped) + 1 + len(m.group(0))
                continue
            dropped += len(m.group(0)) - 1
            break
        stale = raw[start:end].encode("utf-8")[-dropped:] if dropped else b""
        if stale.endswith(b"\n"):
            out[max(first, k - 1)] = stale[:-1].decode("utf-8", "replace")
        start = end
    return out
