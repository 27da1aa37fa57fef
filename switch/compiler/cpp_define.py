"""cpp's reading of the directives that name a macro -- ``#define``'s name, parameter list and body,
``#undef``/``#ifdef``/``#ifndef``'s name -- with GNU cpp's errors (p4c runs ``cc -E`` and stops on
them), each at the column cpp names: a missing name at the line's end (after its blanks and comments:
so are the parameter list's errors at the line's end), a name that is no identifier, ``defined``
defined or undefined, a duplicate parameter, a parameter list that is not names separated by commas
(``...`` or ``name...`` last) or not closed on the line, and ``##`` at either end of a body (named at
the ``)`` of the parameter list, or at an object-like macro's name), and a variadic macro's
``__VA_OPT__`` not followed by ``(``, left open, inside another or with ``##`` at either end of its
parentheses (GCC 12's ``vaopt_state``: :func:`_va_opt_errors`).
Extra tokens after ``#undef NAME`` or ``#ifdef NAME`` only warn, as in cpp.
"""
from __future__ import annotations

import re

from .errors import Loc, P4CompileError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\.\.\.|\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*|"
                    r"\"(?:\\.|[^\"\\])*\"?|'(?:\\.|[^'\\])*'?|##|\S")
_BLANK = " \t\f\v"


def _fail(loc: Loc, col: int, message: str):
    raise P4CompileError(Loc(loc.file, loc.line, col), message)


def _skip(line: str, i: int) -> int:
    while i < len(line) and line[i] in _BLANK:
        i += 1
    return i


def macro_name(line: str, d: str, loc: Loc) -> tuple[str, int]:
    """The macro name that the directive ``#d`` on ``line`` gives and where it ends."""
    i = _skip(line, line.index("#") + 1)
    i = _skip(line, i + len(d))
    end = len(line.rstrip(_BLANK + "\n"))
    if i >= end:
        _fail(loc, len(line.rstrip("\n")) + 1, f"no macro name given in #{d} directive")
    tok = _TOKEN.match(line, i).group(0)
    if not _IDENT.fullmatch(tok):
        _fail(loc, i + 1, "macro names must be identifiers")
    if tok == "defined" and d in ("define", "undef"):
        _fail(loc, i + 1, '"defined" cannot be used as a macro name')
    return tok, i + len(tok)


def _parameters(line: str, i: int, loc: Loc) -> tuple[list[str], int]:
    """The parameter list that starts after the ``(`` at ``i - 1``: the names (``...`` / ``name...``
    for the variable arguments) and the index of its ``)``."""
    params: list[str] = []
    end = len(line.rstrip(_BLANK + "\n"))
    while True:
        i = _skip(line, i)
        if i >= end:
            _fail(loc, len(line.rstrip("\n")) + 1, "expected parameter name before end of line")
        tok = _TOKEN.match(line, i).group(0)
        if tok == ")" and not params and not line[:i].rstrip().endswith(","):
            return params, i
        if tok == "...":
            params.append("...")
        elif _IDENT.fullmatch(tok):
            if tok in params:
                _fail(loc, i + 1, f'duplicate macro parameter "{tok}"')
            params.append(tok)
        else:
            _fail(loc, i + 1, f'expected parameter name, found "{tok}"')
        i = _skip(line, i + len(tok))
        if params[-1] != "..." and line.startswith("...", i):
            params[-1] += "..."
            i = _skip(line, i + 3)
        if i >= end:
            _fail(loc, len(line.rstrip("\n")) + 1, 'expected \')\' after "..."' if params[-1].endswith("...") else
                  "expected ')' before end of line")
        tok = _TOKEN.match(line, i).group(0)
        if tok == ")":
            return params, i
        if params[-1].endswith("..."):
            _fail(loc, i + 1, 'expected \')\' after "..."')
        if tok != ",":
            _fail(loc, i + 1, f"expected ',' or ')', found \"{tok}\"")
        i += 1


def parse_define(line: str, loc: Loc) -> tuple[str, list[str] | None, str, int]:
    """``#define`` on ``line`` (at ``loc``): the macro's name, its parameters (None: object-like), its
    body and the column where the body starts (after the line's end for an empty body)."""
    name, i = macro_name(line, "define", loc)
    params, last = None, i - len(name)
    if line.startswith("(", i):
        params, last = _parameters(line, i + 1, loc)
        i = last + 1
    j = _skip(line, i)
    body = line[j:].strip()
    if body.startswith("##") or (body.endswith("##") and len(body) > 1):
        _fail(loc, last + 1, "'##' cannot appear at either end of a macro expansion")
    if params and params[-1].endswith("...") and "__VA_OPT__" in body:
        _va_opt_errors(body, j + 1, loc)
    return name, params, body, (j + 1 if body else len(line.rstrip()) + 1)


def _va_opt_errors(body: str, col: int, loc: Loc) -> None:
    """GCC 12's errors on the ``__VA_OPT__`` s of a variadic macro's ``body`` (at column ``col``), at its
    ``#define`` whether or not the macro is used: not followed by ``(`` and left open (both named at
    the ``__VA_OPT__``), one inside another (at the inner one), ``##`` first inside the parentheses
    (at it) or last (at the closing ``)``).  A macro that is not variadic only warns (p4c goes on)."""
    at, depth, first, prev = None, 0, False, None   # (at: the open __VA_OPT__'s column)
    for m in _TOKEN.finditer(body):
        tok, c = m.group(0), col + m.start()
        if tok == "__VA_OPT__":
            if at is not None:
                _fail(loc, c, "__VA_OPT__ may not appear in a __VA_OPT__")
            at, depth = c, 0
        elif at is not None and depth == 0:
            if tok != "(":
                _fail(loc, at, "__VA_OPT__ must be followed by an open parenthesis")
            depth, first = 1, True
        elif at is not None:
            if first and tok == "##":
                _fail(loc, c, "'##' cannot appear at either end of __VA_OPT__")
            first = False
            depth += (tok == "(") - (tok == ")")
            if depth == 0:
                if prev == "##":
                    _fail(loc, c, "'##' cannot appear at either end of __VA_OPT__")
                at = None
        prev = tok
    if at is not None:
        _fail(loc, at, "unterminated __VA_OPT__")
