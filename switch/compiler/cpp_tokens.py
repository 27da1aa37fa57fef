"""cpp's token-level rules that the text-based :mod:`preprocessor` needs where P4 sees the spelling:
macro bodies with their parameters replaced, ``#param``, the spaces cpp prints between tokens,
and the line each token of a macro call written over several lines comes from.

p4c runs GNU cpp (``cc -E -C -undef -nostdinc -x assembler-with-cpp``) and lexes its output.  cpp
works on tokens, :class:`~.preprocessor.Preprocessor` on text; three markers keep what the text
would lose:

* ``MARK`` (``\\x02``) brackets each expansion (a macro's body, an argument put into a body) -- cpp's
  padding tokens.  :func:`unmark` removes the marks, printing a space at one where cpp's
  ``cpp_avoid_paste`` does (``0x86DD +1`` for ``MYM+1``, ``abc x`` for ``F(NM)x``): tokens that
  met at a boundary never merge (``NM1`` stays two tokens), and inside a string written over
  several lines (:func:`cpp_respace`) the text is cpp's.
* a pin (``\\x01N\\x01`` after a macro name or ``__LINE__``) is the line ``N`` the name was written
  on, for the later lines of a macro call (cpp's ``__LINE__`` is the line of the token, or, inside
  a macro's body, of the macro's name: ``M(`` / `` L)`` gives the argument ``L``'s line and the
  body's ``L`` the call's line); :data:`PIN` is stripped from the output.
* a context (``\x04N.M\x05`` after a macro name in a body) names the macros whose expansion the
  name came from (it is never expanded inside its own), an end (``\x04!N\x05`` after an expansion)
  where macro ``N``'s expansion stops: a call whose arguments run past it (``f(2)(9)`` with
  ``#define f(a) a*g``) is expanded outside that macro's context, as cpp pops it.
* the lines of such a call are joined with ``\\n`` (:func:`join_segment` normalises each): a ``"``
  or ``'`` that does not close on its line is, for cpp, one token running to the end of the line
  (``-x assembler-with-cpp``), so a string written over several lines as a macro's argument is
  those lines' tokens one space apart, and a ``)`` after the closing ``"`` is inside it.
"""
from __future__ import annotations

import re

MARK = "\x02"
PIN = re.compile(r"\x01(\d+)\x01")
#: the macros whose expansion a name came from (numbers of Preprocessor.context_id), after its pin
CONTEXT = re.compile(r"\x04([\d.]*)\x05")
#: where a macro's expansion ends (its number after the ``!``): a call whose arguments run past it
#: is outside that macro's context (cpp pops it while it collects them)
END = re.compile(r"\x04!(\d+)\x05")
#: a :data:`CONTEXT` or an :data:`END`
TAGS = re.compile(r"\x04[\d.!]*\x05")
#: a comment of a text line (:func:`~.cpp_lines.strip_comments`; a directive's comments are deleted with it):
#: cpp -C keeps it as a token, so a function-like macro's name before it is no call (``F /* c */ (1)``,
#: ``F // c`` / ``(1)`` stay as written, also where the ``(`` comes from an expansion), it is an argument
#: (``F(/* c */)`` has one) and the last or first token of one beside ``##`` (``a /* c */ ## b`` is
#: ``a b``); :func:`unmark` prints it as blanks, :func:`stringify` as its text (:func:`hide_comment`)
COMMENT = "\x07"
#: a comment's characters after its first are moved this far, into Unicode's private planes 15-16 (no
#: blank, name, quote, comma or parenthesis there): the line keeps its length and the comment its text
_HIDE = 0xF0000
_HIDDEN = "\U000F0000-\U0010FFFF"
#: ... characters from U+1FF00 on (unassigned up to U+1FFFF; then planes 2-16) take the places of
#: U+1FF00-U+1FFFD in the order met, kept here (the character -> its place)
_WIDE_FROM, _WIDE_ROOM = 0x1FF00, 0xFE
_WIDE: dict[str, int] = {}
#: a comment as :func:`hide_comment` leaves it (the later lines of a ``/* */`` one after their newlines)
#: a newline of a comment in a macro call's expansion (:func:`comment_newlines`), which :func:`unmark` keeps
COMMENT_NEWLINE = "\x0e"
#: a newline of the stale bytes cpp -C saves with a ``/* */`` comment past a line end (:func:`hide_comment`)
STALE_NEWLINE = COMMENT_NEWLINE + COMMENT
_COMMENT_TOKEN = re.compile(f"\x07[{_HIDDEN}]*(?:(?:{STALE_NEWLINE}[{_HIDDEN}]*)*\n+[{_HIDDEN}]+)*")
#: the characters of a comment (its first, or from a line's start: a ``/* */`` one's later lines), which
#: :func:`unmark` blanks -- not a character of those planes that a string holds (:func:`comment_text`)
_COMMENT_CHARS = re.compile(f"(?:\x07|^)[{_HIDDEN}]*", re.M)
#: a newline of a ``/* */`` comment that :func:`stringify` put into a string, kept hidden by :func:`unmark`
#: (a rescan of the body reads the string as one literal); the preprocessor's output line ends there
NEWLINE_IN_STRING = chr(_HIDE + 10)
#: blanks, marks, pins and contexts between a function-like macro's name and its ``(`` (not a COMMENT)
SKIP_TO_PAREN = re.compile(r"(?:[ \t\n]|\x02|\x01\d+\x01|\x04[\d.!]*\x05)*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VA_OPT = re.compile(r"__VA_OPT__[ \t]*\(")
_PARAM_STRING = re.compile(r"#\s*([A-Za-z_][A-Za-z0-9_]*)")
PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*")
_PASTE_AFTER = re.compile(r"(?:\x01\d+\x01)?(?:\x04[\d.]*\x05)?[ \t\x02]*##")
#: an empty argument beside ``##``: what it pastes to is the other operand, and the blanks on the
#: empty one's far side stay (`x ## EMPTY y` is `x y`, not `xy`)
_PLACEMARKER = "\x06"
_PASTE = re.compile(r"(?:\x01\d+\x01|\x04[\d.!]*\x05|[\x02 \t\n])*##(?:\x04[\d.!]*\x05|[\x02 \t\n])*")
_PUNCT = sorted("... <<= >>= ## -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^=".split(),
                key=len, reverse=True)
_EQ_PASTE = frozenset(["=", "!", ">", "<", "+", "-", "*", "/", "%", "&", "|", "^", ">>", "<<"])
_NEXT_PASTE = {">": ">", "<": "<%:", "+": "+", "-": "->", "/": "/*", "%": ":>", "&": "&", "|": "|",
               ":": ":>", "->": "*", "#": "#%", "<=": ">"}


def literal_end(text: str, i: int) -> int:
    """The index after the string or character literal that starts at ``i``: its closing quote,
    or the end of its line (cpp: an unterminated literal is a token to the end of the line)."""
    q, j, n = text[i], i + 1, len(text)
    while j < n and text[j] != q and text[j] != "\n":
        j += 2 if text[j] == "\\" and j + 1 < n and text[j + 1] != "\n" else 1
    return min(j + 1, n) if j < n and text[j] == q else j


def in_literal(text: str, i: int) -> bool:
    """Whether ``i`` lies inside a string or character literal of its line, the literals read from
    the line's start as cpp reads them (``"a\\"b"`` is one string, ``'"'`` a character, a lone ``'``
    or ``"`` a token to the line's end)."""
    j = text.rfind("\n", 0, i) + 1
    while True:
        j = min((k for k in (text.find('"', j, i), text.find("'", j, i)) if k >= 0), default=-1)
        if j < 0:
            return False
        j = literal_end(text, j)
        if j > i:
            return True


def token_at(s: str, i: int) -> tuple[str, int]:
    """cpp's token at ``s[i]`` (not a blank): its kind (``name``, ``number``, ``string``, ``char``,
    ``other`` or the punctuator's spelling) and where it ends."""
    c = s[i]
    if c.isalpha() or c == "_":
        return "name", _IDENT.match(s, i).end()
    m = PP_NUMBER.match(s, i)
    if m:
        return "number", m.end()
    if c in "\"'":
        j = literal_end(s, i)
        closed = j - 1 > i and s[j - 1] == c
        return ("string" if c == '"' else "char") if closed else "other", j
    for p in _PUNCT:
        if s.startswith(p, i):
            return p, i + len(p)
    return c, i + 1


def avoid_paste(a: str, a_text: str, b: str, b_text: str) -> bool:
    """cpp's ``cpp_avoid_paste``: whether tokens of kinds ``a`` then ``b`` met at an expansion's
    boundary need a space to stay two tokens (probed: a name before a number gets one)."""
    c = b_text[:1]
    if a in _EQ_PASTE and c == "=":
        return True
    if a in _NEXT_PASTE:
        return c in _NEXT_PASTE[a]
    if a == ".":
        return c in ".%" or b == "number"
    if a == "name":
        return b in ("name", "char", "string") or b == "number" and c != "."
    if a == "number":
        return b in ("number", "name", "char") or c in ".+-"
    if a == "other":
        return a_text[:1] == "\\" and b == "name"
    return False


def _hide(ch: str) -> str:
    """One character of a comment moved by ``_HIDE``; one at ``_WIDE_FROM`` or above (no room for it
    there: U+20000 and up) gets the next free place of ``_WIDE`` (a blank once all are taken)."""
    o = ord(ch)
    if o < _WIDE_FROM:
        return chr(_HIDE + o)
    k = _WIDE.setdefault(ch, len(_WIDE))
    return chr(_HIDE + _WIDE_FROM + k) if k < _WIDE_ROOM else chr(_HIDE + 32)


def _unhide(ch: str) -> str:
    o = ord(ch) - _HIDE
    return chr(o) if o < _WIDE_FROM else next(c for c, k in _WIDE.items() if k == o - _WIDE_FROM)


def hide_comment(chunk: str, stale: dict[int, str] | None = None, line: int = 0) -> str:
    """The comment ``chunk`` of a line of text (its first line ``line``, 0-based) as one token:
    :data:`COMMENT`, then its other characters moved by ``_HIDE`` (newlines kept, so every line keeps its
    number), and before the newline of a line that has them the ``stale`` bytes cpp saves with it, hidden
    too, each newline of those a :data:`STALE_NEWLINE` (:func:`~.cpp_lines.comment_stale`)."""
    out, k = [COMMENT], line
    for ch in chunk[1:]:
        if ch == "\n":
            if stale and k in stale:
                out.append(STALE_NEWLINE + "".join(STALE_NEWLINE if c == "\n" else _hide(c) for c in stale[k]))
            k += 1
            out.append(ch)
        else:
            out.append(_hide(ch))
    return "".join(out)


def comment_text(token: str) -> str:
    """The text cpp -C puts into a string for a comment that :func:`hide_comment` hid: a ``//`` one made
    ``/* */``, its blanks kept and a ``*/`` inside it made ``*|`` (``// c`` is ``/* c*/``)."""
    token = token.replace(STALE_NEWLINE, "\n")
    text = "/" + "".join(NEWLINE_IN_STRING if ch == "\n" else _unhide(ch) for ch in token[1:])
    return "/*" + text[2:].replace("*/", "*|") + "*/" if text.startswith("//") else text


def has_tokens(text: str) -> bool:
    """Whether ``text`` (an argument) holds a token: not only blanks, marks, pins and tags of expansions
    that ended in it (a :data:`COMMENT` is a token to cpp -C: `F(/* c */)` has one argument)."""
    return bool(TAGS.sub("", PIN.sub("", text)).strip(" \t\n\r\f\v" + MARK))


def comment_newlines(text: str) -> str:
    """``text`` (a macro call's lines joined by newlines, expanded) with the newlines of its ``/* */``
    comments made :data:`COMMENT_NEWLINE`: cpp -C prints a comment of an argument where the body puts
    the argument, with its newlines, so what follows it is further down (the call's lines are one)."""
    return _COMMENT_TOKEN.sub(lambda m: m.group(0).replace("\n", COMMENT_NEWLINE + COMMENT), text)


def unmark(text: str) -> str:
    """``text`` with its :data:`PIN` s, :data:`CONTEXT` s and :data:`END` s dropped, its comments blanks (a
    :data:`NEWLINE_IN_STRING` kept), its :data:`MARK` s removed and a space where cpp prints one at such a
    boundary (no blank there in the source and :func:`avoid_paste`)."""
    text = _COMMENT_CHARS.sub(lambda m: " " * len(m.group(0)), text)
    if "\x01" in text or "\x04" in text:
        text = TAGS.sub("", PIN.sub("", text))
    if MARK not in text:
        return text
    out, i, n = [], 0, len(text)
    prev = None          # (kind, spelling) of the last token
    boundary = blank = False
    while i < n:
        c = text[i]
        if c == MARK:
            boundary, i = True, i + 1
            continue
        if c in " \t\n\f\v\r":
            blank = True
            out.append(c)
            i += 1
            continue
        kind, j = token_at(text, i)
        tok = text[i:j].replace(MARK, "")
        if boundary and not blank and prev is not None and avoid_paste(prev[0], prev[1], kind, tok):
            out.append(" ")
        out.append(tok)
        prev, boundary, blank, i = (kind, tok), False, False, j
    return "".join(out)


def join_segment(line: str) -> str:
    """A later line of a macro call as cpp reads it into the call: blanks at its ends dropped, a
    run of blanks between tokens one space, a ``//`` comment made ``/* */`` (cpp -C does that in
    arguments), a literal (closed, or open to the end of the line) kept as written."""
    out, i, n, space = [], 0, len(line), False
    while i < n:
        c = line[i]
        if c in " \t\f\v":
            space, i = True, i + 1
            continue
        if space and out:
            out.append(" ")
        space = False
        if line.startswith("//", i):
            out.append("/*" + line[i + 2:].rstrip(" \t\f\v") + "*/")
            break
        if line.startswith("/*", i):
            j = line.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = literal_end(line, i)
        else:
            j = i + 1
        out.append(line[i:j])
        i = j
    return "".join(out)


def cpp_respace(line: str, in_comment: bool) -> tuple[str, bool]:
    """A continuation line of a string literal written over several lines as p4c's cpp prints it,
    and whether a ``/* */`` comment is still open at its end.  cpp takes the opening line's ``"``
    for an unterminated literal that ends with the line, but reads each later line as tokens: its
    first token is indented to its column (a tab counts as one), a run of blanks between tokens
    becomes one space, blanks at the end go; a comment (kept, ``-C``), a literal closed on the line
    and an unterminated ``"``/``'`` (to the end of the line) are printed as written.  The string
    p4c's lexer then reads holds those lines (an annotation's text in the P4Info)."""
    n = len(line)
    if in_comment:
        j = line.find("*/")
        if j < 0:
            return line, True
        out, i = [line[:j + 2]], j + 2
    else:
        i = len(line) - len(line.lstrip(" \t\f\v"))
        if i == n:
            return "", False
        out = [" " * i]
    space = False
    while i < n:
        c = line[i]
        if c in " \t\f\v":
            space, i = True, i + 1
            continue
        if space:
            out.append(" ")
            space = False
        if line.startswith("//", i):
            out.append(line[i:])
            break
        if line.startswith("/*", i):
            j = line.find("*/", i + 2)
            if j < 0:
                out.append(line[i:])
                return "".join(out), True
            out.append(line[i:j + 2])
            i = j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(line[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), False


def stringify(arg: str) -> str:
    """cpp's ``#param``: the argument's text, blanks at its ends dropped and every run of blanks
    between its tokens one space, in quotes; ``"`` and ``\\`` escaped inside its literals only (not inside
    a comment, which cpp -C puts in as written: :func:`comment_text`)."""
    arg = TAGS.sub("", PIN.sub("", arg)).replace(MARK, "")
    out, i, n, space = [], 0, len(arg), False
    while i < n:
        c = arg[i]
        if c in " \t\n\r\f\v":
            space, i = True, i + 1
            continue
        if space and out:
            out.append(" ")
        space = False
        if c in "\"'":
            j = literal_end(arg, i)
            out.append(arg[i:j].replace("\\", "\\\\").replace('"', '\\"'))
            i = j
        elif c == COMMENT:
            m = _COMMENT_TOKEN.match(arg, i)
            out.append(comment_text(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return '"' + "".join(out) + '"'


def substitute(body: str, raw: dict, expanded) -> str:
    """A function-like macro's body with its parameters replaced, as cpp does it: ``#param`` is the
    argument as a string (:func:`stringify`), a parameter beside ``##`` the argument as written,
    any other the argument with its macros expanded first (``expanded(name)``), between
    :data:`MARK` s; no parameter is replaced inside a literal of the body or inside a number
    (``8wN`` is one pp-number); then ``##`` pastes its neighbours."""
    out, i, n = [], 0, len(body)
    while i < n:
        c = body[i]
        if c in "\"'":
            j = literal_end(body, i)
            out.append(body[i:j])
            i = j
            continue
        if c == "#" and not body.startswith("##", i) and not (i and body[i - 1] == "#"):
            m = _PARAM_STRING.match(body, i)
            if m and m.group(1) in raw:
                out.append(stringify(raw[m.group(1)]))
                i = m.end()
                continue
        m = _IDENT.match(body, i) or PP_NUMBER.match(body, i)
        if m and m.group(0) in raw and m.re is _IDENT:
            name = m.group(0)
            if re.search(r"##[ \t\x02]*$", body[:i]) or _PASTE_AFTER.match(body, m.end()):
                # (an empty one -- no token, only marks and tags of expansions that ended in it: cpp's placemarker)
                out.append(raw[name] if has_tokens(raw[name]) else _PLACEMARKER)
            else:
                out.append(MARK + expanded(name) + MARK)
            i = m.end()
        elif m:
            out.append(m.group(0))
            i = m.end()
        else:
            out.append(c)
            i += 1
    res = "".join(out)
    return _paste(res).replace(_PLACEMARKER, "") if "##" in res else res


def _paste(text: str) -> str:
    """``text`` with each ``##`` pasting its neighbours; the pin of a name before it (the line of the
    call that brought it) goes after the pasted name, as cpp reads ``__LINE__`` in its expansion at
    the call's line (`A ## x` with ``#define A __LINE__``, a call on a later line of a text)."""
    out, i = [], 0
    for m in _PASTE.finditer(text):
        out.append(text[i:m.start()])
        i = m.end()
        pin = PIN.search(m.group(0))
        if pin:
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(text[i:j] + ("" if PIN.match(text, j) else pin.group(0)))
            i = j
    return "".join(out) + text[i:]


def va_comma(body: str, va: str, present: bool, blank: bool = False) -> str:
    """GNU cpp's ``, ## __VA_ARGS__`` (or ``, ## rest``) in a variadic macro's body: the comma goes
    where ``present`` is false (the caller's rule: arguments left out); where not it stays, and the
    ``##`` too: the arguments go in as written, not expanded first (`F(a, F(b))` keeps the inner
    ``F(b)``, painted), and the comma pastes to nothing (:func:`substitute`): the arguments keep the blank
    written before them (``blank``; ``#__VA_ARGS__`` of an expansion of ``F(w, x)`` reads ``, x``, of
    ``F(w,x)`` ``,x``), a placemarker taking the paste."""
    pat = rf",[ \t]*##[ \t]*(?={re.escape(va)}(?![A-Za-z0-9_]))"
    return re.sub(pat, f", {_PLACEMARKER}## " if blank else ",## ", body) if present else re.sub(pat, " ", body)


def va_opt(body: str, present: bool) -> str:
    """A variadic macro's body with each ``__VA_OPT__(x)`` made ``x`` where the variable arguments
    have tokens and nothing where they have none (GCC 12's cpp, which p4c runs, has it)."""
    out, i = [], 0
    while True:
        m = _VA_OPT.search(body, i)
        if m is None:
            return "".join(out) + body[i:]
        depth, j = 1, m.end()
        while j < len(body) and depth:
            if body[j] in "\"'":
                j = literal_end(body, j)
                continue
            depth += (body[j] == "(") - (body[j] == ")")
            j += 1
        out += [body[i:m.start()], body[m.end():j - 1] if present else ""]
        i = j
