"""A small C preprocessor for P4: ``#include``, ``#define`` (object- and function-like),
``#undef``, ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif``, ``#error``.

Comments are blanked first (newlines kept, :mod:`.cpp_lines`) so that every output line still
knows its file and line number; the result is a list of :class:`Line` records that the lexer
turns into tokens with exact ``file:line:col`` positions (columns inside a line that
a macro expanded are those of the expanded text).

Macros expand as cpp's tokens would (:mod:`.cpp_tokens`): the text is scanned left to right, each
expansion rescanned with the text after it (a call's arguments are taken as written when its name
is met; a name followed by another token is no call), arguments are expanded before they go
into a body (not under ``#``/``##``), a name is never expanded inside its own expansion, expansion
boundaries get cpp's avoid-paste spaces, a call whose arguments run past the expansion that
brought its name is expanded outside that expansion's context, and the later lines of a macro call
keep their own ``__LINE__`` and end an open ``"`` with the line.  Directives among a call's
arguments run as cpp runs them (``_arg_directive``): the arguments are expanded when the call ends,
the text before the call when a ``#define``/``#undef`` in it comes: :meth:`Preprocessor.expand` hands
back where it stopped at the open call (``split``: the call's name and ``(`` may come out of other
macros' expansions), and the call keeps its name's definition.  A call with the wrong number of
arguments is named where cpp last read a token of the file (its ``)``; :func:`_arg_count` carries
the offset back through each expansion), as is a call an argument's own expansion leaves open.  A
conditional among a call's arguments works on the file's ``#if`` stack (:meth:`Preprocessor._conditional`:
arguments run into and out of branches); a line a `\\` splices on pins its names to its physical line
(cpp's ``__LINE__``), and the lines of a ``/* */`` comment that a call's longer expansion pushed down
keep cpp's numbering (no line marker inside a comment).  ``#if`` arithmetic is :mod:`.cpp_if`, the checks of a ``#define``'s
name and parameters :mod:`.cpp_define`, the contexts (cpp's disabled macros) that macro names carry
:mod:`.cpp_context`.

``<core.p4>`` and ``<v1model.p4>`` always resolve to this package's own declaration
files (``include/``), which describe the v1model architecture the target implements.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .cpp_tokens import (COMMENT_NEWLINE, CONTEXT, END, MARK, NEWLINE_IN_STRING, PIN, SKIP_TO_PAREN, comment_newlines,
                         cpp_respace, has_tokens, in_literal, join_segment, literal_end, substitute, unmark, va_comma,
                         va_opt)
from .cpp_context import MacroContexts
from .cpp_define import macro_name, parse_define
from .cpp_if import evaluate
from .cpp_lines import CPP_DIRECTIVES as _CPP_DIRECTIVES
from .cpp_lines import comment_stale, directive_lines, lines_ending_in_comment, lines_inside_string, strip_comments
from .errors import Loc, P4CompileError

BUILTIN_DIR = os.path.join(os.path.dirname(__file__), "include")
BUILTIN_HEADERS = {"core.p4", "v1model.p4"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_INCLUDE_DEPTH = 32
_UNTERMINATED = "unterminated argument list invoking macro"
_HAS_INCLUDE = re.compile(r"(?<![A-Za-z0-9_])__has_include(?:_next)?\s*\(\s*([^()]*?)\s*\)")
#: a name at the end of a macro's expansion (its pin, context, the marks and ends after it, blanks)
_TAIL = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(?:\x01\d+\x01)?(?:\x04([\d.]*)\x05)?"
                   r"(?:\x02|\x04!\d+\x05)*\s*$")


@dataclass
class Line:
    file: str
    line: int
    text: str


@dataclass
class Macro:
    params: list[str] | None
    body: str
    loc: Loc | None = None   # where the body starts in its #define (cpp's position for its tokens)


def _rest_loc(line: str, d: str, loc: Loc) -> Loc:
    """Where the text after the directive name ``d`` starts on ``line`` (cpp names it)."""
    i = line.index(d, line.index("#")) + len(d)
    return Loc(loc.file, loc.line, len(line[:i]) + len(line[i:]) - len(line[i:].lstrip(" \t")) + 1)


def _arg_count(loc: Loc, name: str, params: int, given: int, at: int) -> P4CompileError:
    """cpp's error for a call of macro ``name`` with the wrong number of arguments; its ``offset`` is
    the call's ``)`` in the text expanded (cpp names it: the last token it read from the file),
    which :meth:`Preprocessor.expand` maps back to the text it was given (an offset inside an
    expansion is the last token of the source read) and the main loop to a line and column."""
    err = P4CompileError(loc, f'macro "{name}" passed {given} arguments, but takes just {params}' if given > params
                         else f'macro "{name}" requires {params} arguments, but only {given} given')
    err.offset = at
    return err


def _read_at(line: str, off: int, segs: list) -> tuple[int, int]:
    """The source line and column of the token at ``off`` in ``line``, a macro call's text made of the
    source lines ``segs`` ((number, text) each; joined with newlines, blanks normalised, the first
    ones gone where a directive split the text before the call off): the same token found in its
    line's text, counted from the line's end."""
    segs = segs[max(0, len(segs) - line.count("\n") - 1):]
    no, src = segs[min(line.count("\n", 0, off), len(segs) - 1)]
    end = line.find("\n", off)
    m = _IDENT.match(line, off)
    tok = m.group(0) if m else line[off:off + 1]
    pat = re.compile(rf"(?<![A-Za-z0-9_]){tok}(?![A-Za-z0-9_])" if m else re.escape(tok))
    after = len(pat.findall(line, off + len(tok), len(line) if end < 0 else end))
    hits = [h.start() for h in pat.finditer(src)]
    return no, hits[len(hits) - 1 - after] + 1 if after < len(hits) else 1


#: cpp's predefined macros p4c's preprocessor (``cc -E``) defines (Preprocessor.builtin)
_BUILTINS = frozenset({"__LINE__", "__FILE__", "__COUNTER__", "__STDC__", "__DATE__", "__TIME__", "__BASE_FILE__",
                       "__FILE_NAME__", "__INCLUDE_LEVEL__", "__ASSEMBLER__", "__STDC_HOSTED__"})


class Preprocessor(MacroContexts):
    def __init__(self, include_dirs=(), defines=None):
        self.include_dirs = list(include_dirs)
        self.macros: dict[str, Macro] = {}
        for k, v in (defines or {}).items():
            self.macros[k] = Macro(None, "1" if v is None else str(v))
        self.out: list[Line] = []
        self.once: set[str] = set()

    def run(self, path: str) -> list[Line]:
        if not os.path.isfile(path):
            raise P4CompileError(Loc(path, 0, 0), "no such file")
        self.base, self.level = path, 0
        self._file(path, 0)
        return self.out

    def run_text(self, text: str, name: str) -> list[Line]:
        self.base, self.level, self.here = name, 0, os.getcwd()
        self._text(text, name, os.getcwd(), 0)
        return self.out

    def _file(self, path: str, depth: int) -> None:
        with open(path, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            raise P4CompileError(Loc(path, line, col),
                                 f"invalid UTF-8 byte 0x{data[e.start]:02x}: P4 source files must be "
                                 "UTF-8 encoded (ASCII or UTF-8)") from None
        # cpp looks beside the including file by the path as written (__FILE__ of a header included
        # from `main.p4` is `inc/t.p4`, from `/d/main.p4` it is `/d/inc/t.p4`)
        outer, self.level = getattr(self, "level", 0), depth   # __INCLUDE_LEVEL__
        outer_here, self.here = getattr(self, "here", ""), os.path.dirname(path)   # (__has_include)
        self._text(text, path, os.path.dirname(path), depth)
        self.level, self.here = outer, outer_here

    def _resolve(self, name: str, angle: bool, here: str, loc: Loc) -> str:
        if angle and name in BUILTIN_HEADERS:
            return os.path.join(BUILTIN_DIR, name)
        cands = ([] if angle else [here]) + self.include_dirs
        for d in cands:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return p
        if name in BUILTIN_HEADERS:
            return os.path.join(BUILTIN_DIR, name)
        raise P4CompileError(loc, f"cannot find include file {name!r} (searched: {', '.join(cands) or 'nothing'})")

    def _text(self, text: str, file: str, here: str, depth: int) -> None:
        if depth > _MAX_INCLUDE_DEPTH:
            raise P4CompileError(Loc(file, 1, 1), "#include nested too deeply")
        # cpp ends a line at \r\n and at a lone \r too (a file written on Windows continues a
        # #define with `\` before \r\n)
        # ... and skips a UTF-8 byte order mark at a file's start
        stale = comment_stale(text)   # (what cpp -C's comments over those line ends print more)
        text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        # a directive is a line whose first character (comments not skipped: p4c keeps them, -C)
        # is `#`; a block comment that runs on past its end continues it (cpp reads the comment
        # as a space: `#define Z 4 /* ... \n ... */ + 1` is `4 + 1`)
        orig = text.split("\n")
        open_lines = lines_ending_in_comment(text)
        # (a line that starts inside a `/* */` comment is no directive: `a /* p` / `#endif` / `*/ b`)
        hashed = {k for k in directive_lines(orig) if k - 1 not in open_lines}
        text = strip_comments(text, file, stale)
        in_string = lines_inside_string(text)
        in_comment = False   # cpp's view of a string's continuation lines (cpp_respace)
        raw = text.split("\n")
        # conditional stack entries: [active, taken_any, parent_active, else_seen, Loc of the #if]
        stack: list[list] = []
        active = True
        # `#line N "f"` renumbers for cpp (__LINE__, __FILE__) and for positions; `# N "f"` is
        # passed through by p4c's cpp (-x assembler-with-cpp) and renumbers positions only
        cpp_file, cpp_delta = file, 0
        pos_file, pos_delta = file, 0
        # lines cpp's output is ahead of the source (behind: negative): a line that prints more lines
        # than it took (a string holding a comment's newline) and ends inside a `/* */` comment, which
        # cpp prints as it is -- no line marker before the comment's end (its later lines, and the
        # tokens after it)
        ahead = 0
        i = 0
        while i < len(raw):
            lineno = i + 1
            line = raw[i]
            # cpp splices a line ending in `\` followed only by blanks too (gcc warns "backslash
            # and newline separated by space"; a `#define` whose continuation line has a trailing
            # blank goes on), and it joins the two parts with nothing between them (`8w\` + `7`
            # is `8w7`, a name may be cut in two)
            spliced, pieces, hidden = 0, [(None, line)], False
            while pieces[-1][1].rstrip(" \t\f\v").endswith("\\") and i + 1 < len(raw):
                i += 1
                spliced += 1
                pieces.append((None if lineno - 1 in hashed else i + 1 + cpp_delta, raw[i]))
                raw[i] = ""
            line = self._splice(pieces)
            # (cpp prints a line at its first token's line: one after blank lines that a `\\` splices on)
            lead = next(k for k, (_, t) in enumerate(pieces) if t.rstrip(" \t\f\v")[:-1].strip() or k == spliced)
            i += 1
            if lineno - 1 in hashed:
                while (i - 1) in open_lines and i < len(raw):
                    line = line + " " + raw[i]
                    raw[i] = ""
                    i += 1
                    # (the comment's last line may end in a `\` splice: the directive goes on)
                    while line.rstrip(" \t\f\v").endswith("\\") and i < len(raw) and (i - 1) not in open_lines:
                        line = line.rstrip(" \t\f\v")[:-1] + raw[i]
                        raw[i] = ""
                        i += 1
            s = line.strip()
            if s.startswith("#") and lineno - 1 in hashed:
                col = line.index("#") + 1
                loc = Loc(file, lineno, col)
                m = re.match(r"#\s*([A-Za-z_][A-Za-z0-9_]*)\s*(.*)$", s)
                if not m or (active and m.group(1) not in _CPP_DIRECTIVES):
                    # p4c runs cpp as `-x assembler-with-cpp`: a line that is no cpp directive
                    # (`#4096`, `#foo`, `#!x`) is passed through and p4c's lexer skips it; one of
                    # the form `# N "file"` renumbers the positions that follow
                    mk = re.match(r'#\s*(\d+)\s+"([^"]*)"', s) if active else None
                    if mk:
                        pos_file, pos_delta = mk.group(2), int(mk.group(1)) - (lineno + 1)
                    if not active:
                        self.out.append(Line(pos_file, lineno + pos_delta, ""))
                        continue
                    # ... but cpp expands its macros as a text line's: `# B` / `(1)` is a call of B,
                    # which takes the next line into the line p4c skips (read below, printed blank)
                    hidden, line = True, line.replace("#", " ", 1)
                else:
                    d, rest = m.group(1), m.group(2).strip()
                    nloc = Loc(file, lineno, line.index(d, col) + 1)   # (cpp names the directive)
                    if self._conditional(d, rest, line, stack, loc, nloc):
                        active = stack[-1][0] if stack else True
                    elif active:
                        moved = self._directive(d, rest, loc, line, here, depth)
                        if moved is not None:   # `#line N "f"`
                            cpp_delta = pos_delta = moved[0] - (lineno + 1)
                            if moved[1] is not None:
                                cpp_file = pos_file = moved[1]
                    self.out.append(Line(pos_file, lineno + pos_delta, ""))
                    continue
            joined = 0
            at, call_loc = (pos_file, lineno + pos_delta + ahead), Loc(cpp_file, lineno + cpp_delta, 1)
            done, held = "", None   # (the text before a call that a directive in it split off)
            segs = [(lineno, line)]   # (the source lines of a call's text)
            while active:
                try:
                    self.in_text = True   # (`__has_include` is cpp's error here)
                    try:
                        text = done + self.expand(line, call_loc, held=held)
                    finally:
                        self.in_text = False
                    # (in the expansion: `#define G FN` then `G` / `(5)` calls FN, cpp reads on)
                    tail = _TAIL.search(text)
                    if tail and tail.group(2) and tail.group(1) in self._context_names(tail.group(2)):
                        tail = None
                    if not (tail and (self.macros.get(tail.group(1)) or Macro(None, "")).params is not None
                            and self._next_text_line(raw, hashed, i + joined).startswith("(")):
                        break
                    # a function-like macro's name at the end of a line, `(` on a later one: a call
                    raise P4CompileError(Loc(file, lineno, 1), "unterminated call of macro")
                except P4CompileError as err:
                    # cpp collects a function-like macro's arguments over the lines that follow
                    # (`F(1,` / `2)`); the expansion stays on the call's line, the lines it took
                    # are left empty, as in cpp's output
                    if getattr(err, "offset", None) is not None:   # (a wrong number of arguments)
                        no, col = _read_at(line, err.offset, segs)
                        raise P4CompileError(Loc(cpp_file, no + cpp_delta, col), err.message) from None
                    if err.message != "unterminated call of macro" and not err.message.startswith(_UNTERMINATED):
                        raise
                    if i + joined >= len(raw):   # cpp names the end of the file
                        last = len(orig) - 1 if len(orig) > 1 and orig[-1] == "" else len(orig)
                        raise P4CompileError(Loc(file, last, len(orig[last - 1]) + 1), err.message if
                                             err.message != "unterminated call of macro" else
                                             f'{_UNTERMINATED} "{tail.group(1)}"') from None
                    nxt = raw[i + joined]
                    if nxt.lstrip().startswith("#") and i + joined in hashed:
                        # cpp runs the directives among a call's arguments (`F(` / `#ifdef X` / `1` /
                        # `#else` / `2` / `#endif` / `)`; `F(Q` / `#define Q 7` / `Q)` is `[7 7]`:
                        # the arguments are expanded when the call ends)
                        dloc = Loc(file, i + joined + 1, nxt.index("#") + 1)
                        # (a directive a `\` splices: `#\` / `undef B`)
                        while nxt.rstrip(" \t\f\v").endswith("\\") and i + joined + 1 < len(raw):
                            joined += 1
                            nxt = nxt.rstrip(" \t\f\v")[:-1] + raw[i + joined]
                        if re.match(r"\s*#\s*(define|undef)\b", nxt) and not (stack and not stack[-1][0]):
                            # what comes before the open call was expanded before it (cpp reads on)
                            # and the call keeps the definition its name had (`F(1` / `#undef F` / `)`)
                            split = getattr(err, "split", None)
                            if split is not None:   # (where the expansion stopped: the open call)
                                done, line, held = done + split[0], split[1], split[2]
                            elif held is None:
                                before, line, held = self._expanded_call_start(line, call_loc)
                                done += before
                        # (cpp's `__LINE__` in an `#if` there is the call's line where the call came from
                        # object-like macros only, as for the arguments' names below)
                        cline = self._open_call_line(err)
                        if cline is False and held is not None and held[0] not in self.macros:
                            cline = None   # (the call's name was #undef'd among its arguments: _call)
                        eloc = None if cline is False else call_loc if cline is None else Loc(call_loc.file, cline, 1)
                        moved = self._arg_directive(nxt, stack, dloc, here, depth, err.message, eloc)
                        joined += 1
                        if moved is None:
                            continue
                        if moved != "#":   # `#line N "f"`
                            cpp_delta = pos_delta = moved[0] - (i + joined + 1)
                            cpp_file, pos_file = (moved[1], moved[1]) if moved[1] is not None else (cpp_file, pos_file)
                            call_loc = Loc(cpp_file, call_loc.line, 1)   # (__FILE__: the file where the call ends)
                            continue
                        # no directive (`#foo`, p4c's cpp runs in assembler mode): its `#` separates
                        # the arguments as a `,` does
                        joined -= 1
                        nxt = nxt.replace("#", ",", 1)
                    elif stack and not stack[-1][0]:   # a line of a branch not taken
                        joined += 1
                        continue
                    # the line's tokens as cpp reads them into the call (cpp_tokens.join_segment), its
                    # macro names pinned to its line (cpp: an argument's __LINE__ is its own line; _call
                    # gives the call's line to those of a call from object-like macros only)
                    no, pieces = i + joined + 1, [(None, nxt)]   # (cpp splices a later line ending in `\` too)
                    while pieces[-1][1].rstrip(" \t\f\v").endswith("\\") and no + len(pieces) - 1 < len(raw):
                        pieces.append((no + len(pieces) + cpp_delta, raw[no + len(pieces) - 1]))
                    spl = len(pieces) - 1
                    src = self._splice(pieces)
                    nxt = self._pin(src, no + cpp_delta)
                    nxt = join_segment(nxt)
                    if nxt:
                        line = line + "\n" + nxt
                        segs.append((no, src))
                    joined += 1 + spl
            if active:
                text = unmark(comment_newlines(text) if joined and "\n" in text else text)
                if "\n" in text:
                    text = text.replace("\n", " ")
                # (a comment over lines in a call's arguments is printed where they go, with its newlines)
                text = text.replace(COMMENT_NEWLINE, NEWLINE_IN_STRING)
            if active and lineno - 1 in in_string:
                text, in_comment = cpp_respace(text, in_comment)
            else:
                in_comment = False
            # (a string holding a `/* */` comment written over several lines goes on over as many lines,
            # which p4c's second cpp reads as tokens, as it does a string written over lines: cpp_respace)
            parts, held_comment = text.split(NEWLINE_IN_STRING) if active else [""], False
            for k in range(1, len(parts)):
                parts[k], held_comment = cpp_respace(parts[k], held_comment)
            lead = lead if active and not hidden and text.strip() and lineno - 1 not in hashed else 0
            for k, part in enumerate([""] * lead + parts):
                self.out.append(Line(at[0], at[1] + k, "" if hidden else part))
            # the lines a `\` spliced in or a macro call took are empty lines in cpp's output (a string
            # written over several lines keeps their newlines)
            for k in range(lead + len(parts) - 1, spliced + joined):
                self.out.append(Line(at[0], at[1] + 1 + k, ""))
            i += joined
            # (and behind it after a macro call over lines, which prints on one: `F(1` / `) /* a` / `b */ zz`
            # has zz a line up; the stale bytes cpp -C saves with a comment past a line that a `\` spliced
            # or that ends in \r\n print more newlines: cpp_lines.comment_stale)
            step = lead + len(parts) - 1 - spliced - joined
            ahead = ahead + step if i - 1 in open_lines else 0
        if stack:   # (cpp names the #if left open: errs22 probe c_def_unterminated_if)
            raise P4CompileError(stack[-1][4], "unterminated #if (missing #endif)")

    def _open_call_line(self, err) -> int | None | bool:
        """cpp's ``__LINE__`` for the later lines of the open call ``err`` names: False where each line
        has its own, else (the call came from object-like macros only: `#define K M`, `K(` / ` L)`) the
        line of the macro the source names -- where known (a pin: a line a `\\` spliced on), else None
        (the call's first line)."""
        ctx = getattr(self, "open_call_context", ()) if err.message != "unterminated call of macro" else ()
        if not (ctx and all(self.macros[n].params is None for n in ctx if n in self.macros)):
            return False
        return getattr(self, "open_call_pin", None)

    def _splice(self, pieces: list) -> str:
        """The physical lines ``pieces`` ((line or None, text) each) joined where each but the last ends
        in `\\` (the `\\` and the blanks after it dropped), the ``__LINE__`` s and macro names that start
        in a piece with a line pinned to it: cpp's ``__LINE__`` there is the physical line (a name cut
        in two by the splice is the line it starts on); ``None`` pins nothing (a directive's lines,
        the first line, which the call's line pins)."""
        text, starts = "", []
        for k, (no, part) in enumerate(pieces):
            starts.append((len(text), no))
            text += part.rstrip(" \t\f\v")[:-1] if k < len(pieces) - 1 else part
        if all(no is None for _, no in starts):
            return text
        out, last = [], 0
        for m in _IDENT.finditer(text):
            no = [n for o, n in starts if o <= m.start()][-1]
            if no is None or not (m.group(0) in self.macros or m.group(0) == "__LINE__") or PIN.match(text, m.end()) \
                    or (m.start() and text[m.start() - 1].isalnum()) or in_literal(text, m.start()):
                continue
            out.append(f"{text[last:m.end()]}\x01{no}\x01")
            last = m.end()
        return "".join(out) + text[last:]

    @staticmethod
    def _next_text_line(raw: list[str], hashed: set, k: int) -> str:
        """The first line from ``k`` on that holds a token, blanks before it dropped, with the lines a `\\`
        splices on ("" for none): cpp looks for a function-like macro's ``(`` past empty lines (not past a
        directive, which ends the search, nor a comment, a token to cpp -C: :data:`~.cpp_tokens.COMMENT`)."""
        while k < len(raw) and k not in hashed:
            text, j = raw[k], k
            while text.rstrip(" \t\f\v").endswith("\\") and j + 1 < len(raw):
                j += 1
                text = text.rstrip(" \t\f\v")[:-1] + raw[j]
            if text.strip():
                return text.lstrip()
            k = j + 1
        return raw[k].lstrip() if k < len(raw) else ""

    def _directive(self, d: str, rest: str, loc: Loc, line: str, here: str, depth: int):
        """Run the directive ``#d rest`` (not a conditional) of ``line`` at ``loc``; for ``#line``
        the line number the next line gets and the file it names (None: unchanged)."""
        if d in ("include", "include_next", "import"):
            m2 = re.match(r'(<([^>]+)>|"([^"]+)")', rest)
            if m2:   # (cpp names a file it cannot find at the file's name)
                loc = Loc(loc.file, loc.line, line.find(m2.group(1), line.find("#")) + 1)
            else:    # `#include NAME`: cpp expands the macros first
                m2 = re.match(r'(<([^>]+)>|"([^"]+)")', unmark(self.expand(rest, loc)).strip())
            if not m2:
                raise P4CompileError(_rest_loc(line, d, loc), f"#include expects <file> or \"file\", got {rest!r}")
            angle = m2.group(2) is not None
            target = self._resolve(m2.group(2) or m2.group(3), angle, here, loc)
            key = os.path.abspath(target)
            if key not in self.once:
                if os.path.basename(target) in BUILTIN_HEADERS and target.startswith(BUILTIN_DIR):
                    self.once.add(key)
                self._file(target, depth + 1)
        elif d == "define":
            name, params, body, body_col = parse_define(line, loc)
            self.macros[name] = Macro(params, body, Loc(loc.file, loc.line, body_col))
        elif d == "undef":
            self.macros.pop(macro_name(line, d, loc)[0], None)
        elif d == "error":
            raise P4CompileError(loc, f"#error {rest}")
        elif d == "pragma" and rest.split()[:1] == ["once"]:
            self.once.add(os.path.abspath(loc.file))   # cpp: this file is not read again
        elif d == "line":
            m2 = re.match(r'(\d+)(?:\s+("([^"]*)"|\S+))?', unmark(self.expand(rest, loc)).strip())
            if not m2:   # (`#line 0` only warns)
                raise P4CompileError(_rest_loc(line, d, loc), f"{rest.split()[0] if rest else 'nothing'!r} after #line "
                                          "is not a positive integer")
            if m2.group(2) and m2.group(3) is None:
                raise P4CompileError(Loc(loc.file, loc.line, max(line.find(m2.group(2), line.find("line")), 0) + 1),
                                     f'"{m2.group(2)}" is not a valid filename')
            return int(m2.group(1)), m2.group(3)
        return None   # (pragma, warning, ident, sccs, assert, unassert: nothing to do)

    def _expanded_call_start(self, text: str, loc: Loc):
        """For ``text`` with a macro call left open (`F(1`, `OB(1` with `#define OB F`, `K(F)(1` with
        `#define K(a) a`): the expansion of the text before the call's name -- cpp has printed it when
        a directive among the call's arguments comes --, the call (the name, with its context, and
        the text from its ``(`` on) and the name's definition that the call keeps (F's, whatever the
        directive does to F or OB); ``("", text, None)`` where no ``(`` left open follows a
        function-like name once the text before it is expanded (the outermost such ``(`` is the call)."""
        opened, i = [], 0
        while i < len(text):
            if text[i] in "\"'":
                i = literal_end(text, i)
                continue
            if text[i] == "(":
                opened.append(i)
            elif text[i] == ")" and opened:
                opened.pop()
            i += 1
        for p in opened:
            exp = self.expand(text[:p], loc)
            tail = _TAIL.search(exp)
            mac = self.macros.get(tail.group(1)) if tail else None
            if mac is not None and mac.params is not None and not (
                    tail.group(2) and tail.group(1) in self._context_names(tail.group(2))):
                return exp[:tail.start()], exp[tail.start():] + text[p:], (tail.group(1), mac)
        return "", text, None

    def _arg_directive(self, line: str, stack: list, loc: Loc, here: str, depth: int, call: str, eloc=None):
        """Run the directive ``line`` among the arguments of the macro call ``call`` (the message
        that it is left open): None once it is run or skipped (a branch not taken), ``#`` for a
        line that is no directive, as :meth:`_directive` for ``#line``; ``eloc``, where given, is where an
        ``#if``'s condition is evaluated (its ``__LINE__``).  A conditional works on the
        file's ``stack`` (:meth:`_conditional`): cpp's arguments may run into, out of and across the
        branches of an ``#if`` (`#ifdef X` / `F(1` / `#else` / `F(2` / `#endif` / `)`)."""
        s = line.strip()
        m = re.match(r"#\s*([A-Za-z_][A-Za-z0-9_]*)\s*(.*)$", s)
        if m and self._conditional(m.group(1), m.group(2).strip(), line, stack, loc,
                                   Loc(loc.file, loc.line, line.index(m.group(1), loc.col - 1) + 1), eloc):
            return None
        if (stack and not stack[-1][0]) or s == "#":
            return None
        if not m or m.group(1) not in _CPP_DIRECTIVES:
            return "#"
        d, rest = m.group(1), m.group(2).strip()
        m2 = re.match(r'(<([^>]+)>|"([^"]+)")', rest)
        if d in ("include", "include_next", "import") and m2:
            # cpp reads the file's tokens into the call and finds no `)` there: it names the
            # file's end (a call's arguments never run out of a file)
            target = self._resolve(m2.group(2) or m2.group(3), m2.group(2) is not None, here, loc)
            with open(target, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            last = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
            raise P4CompileError(Loc(target, last, len(lines[last - 1]) + 1), call)
        return self._directive(d, rest, loc, line, here, depth)

    def _conditional(self, d: str, rest: str, line: str, stack: list, loc: Loc, nloc: Loc, eloc=None) -> bool:
        """Run ``#d rest`` (of ``line``, at ``loc``; ``nloc`` the directive's name; its condition evaluated
        at ``eloc`` or ``loc``) on the conditional ``stack`` ([active, taken any, parent active, #else seen,
        Loc of the #if] each) if it is a conditional directive; False for any other."""
        active = stack[-1][0] if stack else True
        if d in ("ifdef", "ifndef"):
            cond = active and self.defined(macro_name(line, d, loc)[0]) == (d == "ifdef")
            stack.append([active and cond, cond, active, False, loc])
        elif d == "if":
            cond = self._eval(rest, eloc or loc) if active else False
            stack.append([active and cond, cond, active, False, loc])
        elif d in ("elif", "elifdef", "elifndef", "else", "endif"):
            if not stack:
                raise P4CompileError(nloc, f"#{d} without #if")
            top = stack[-1]
            if d == "endif":
                stack.pop()
            elif top[3]:
                raise P4CompileError(nloc, f"#{d} after #else")
            elif d != "else":
                cond = (not top[1]) and top[2] and self._elif(d, rest, eloc or loc)
                top[0], top[1] = cond, top[1] or cond
            else:
                top[3], top[0], top[1] = True, top[2] and not top[1], True
        else:
            return False
        return True

    def _elif(self, d: str, rest: str, loc: Loc) -> bool:
        """The condition of ``#elif rest``, or of ``#elifdef NAME`` / ``#elifndef NAME`` (GCC 12's
        cpp, which p4c runs, has them)."""
        if d == "elif":
            return self._eval(rest, loc)
        if not rest:
            raise P4CompileError(loc, f"#{d} needs a macro name")
        return self.defined(rest.split()[0]) == (d == "elifdef")

    def builtin(self, name: str, loc: Loc) -> str | None:
        """cpp's predefined macros that p4c's ``cc -E`` has (probed with ``#ifdef``): ``__LINE__``,
        ``__FILE__``, ``__COUNTER__``, ``__STDC__``, ``__DATE__``, ``__TIME__`` -- unless the
        program defines them itself -- and (probed in annotations) ``__BASE_FILE__`` (the file
        compiled, as named), ``__FILE_NAME__`` (``__FILE__``'s last component),
        ``__INCLUDE_LEVEL__``, ``__ASSEMBLER__`` and ``__STDC_HOSTED__`` (both 1: p4c's cpp runs
        in ``-x assembler-with-cpp`` mode)."""
        if name not in _BUILTINS or name in self.macros:
            return None
        if name == "__LINE__":
            return str(loc.line)
        if name in ("__FILE__", "__BASE_FILE__", "__FILE_NAME__"):
            f = {"__FILE__": loc.file, "__BASE_FILE__": getattr(self, "base", loc.file),
                 "__FILE_NAME__": os.path.basename(loc.file)}[name]
            return '"' + f.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if name == "__INCLUDE_LEVEL__":
            return str(getattr(self, "level", 0))
        if name == "__COUNTER__":
            self.counter = getattr(self, "counter", -1) + 1
            return str(self.counter)
        if name in ("__STDC__", "__ASSEMBLER__", "__STDC_HOSTED__"):
            return "1"
        import time
        return time.strftime('"%b %e %Y"' if name == "__DATE__" else '"%H:%M:%S"')

    def defined(self, name: str) -> bool:
        return name in self.macros or name in _BUILTINS or name in ("__has_include", "__has_include_next")

    def _has_include(self, operand: str, loc: Loc) -> bool:
        """GCC's ``__has_include(<f>)`` / ``("f")`` in an ``#if`` (p4c's cpp has it): whether the file
        is found where ``#include`` would look (the operand may be a macro naming it)."""
        if not operand.startswith(("<", '"')):
            operand = unmark(self.expand(operand, loc)).strip()
        m = re.match(r'<([^>]+)>$|"([^"]+)"$', operand)
        if not m:
            raise P4CompileError(loc, 'operator "__has_include" requires a header-name')
        try:
            self._resolve(m.group(1) or m.group(2), m.group(1) is not None, getattr(self, "here", ""), loc)
        except P4CompileError:
            return False
        return True

    def expand(self, text: str, loc: Loc, depth: int = 0, held=None) -> str:
        """``text`` with its macros expanded as cpp scans it: left to right, each expansion rescanned
        together with the text after it before that text is looked at (a call's arguments are
        collected unexpanded when its name is met: `PICK(1)(FOO)` with `#define PICK(n) STR` gives
        STR the argument FOO), what lies before it final.  The expansions are bracketed by
        :data:`~.cpp_tokens.MARK` s (removed by :func:`~.cpp_tokens.unmark`); a name pinned to a
        line (:meth:`_pin`) gives __LINE__, and its body's names, that line; ``held`` is (name, Macro)
        of a call at the text's start whose definition a directive among its arguments changed;
        ``depth`` counts the arguments being expanded inside one another."""
        if not (self.macros or held or "__" in text):
            return text
        if depth > 200:
            raise P4CompileError(loc, "macro arguments nested too deeply")
        out, i, skip, count = [], 0, 0, 0
        rest_start, rest_src, last_read = 0, 0, 0   # (where the text left of the source starts, cpp's last read)

        def src(o: int) -> int:   # an offset of the text now as one of the text given
            return rest_src + (o - rest_start) if o >= rest_start else last_read
        try:
            while True:
                m = _IDENT.search(text, i)
                if m is None:
                    break
                name, i = m.group(0), m.end()
                if m.start() < skip:
                    continue
                pm = PIN.match(text, m.end())
                pin, end = (int(pm.group(1)), pm.end()) if pm else (None, m.end())
                cm = CONTEXT.match(text, end)
                context = frozenset(self._context_names(cm.group(1))) if cm else frozenset()
                if cm:
                    end = skip = cm.end()
                # skip identifiers inside string literals and numeric suffixes like 8w0, the operand of
                # `defined` (cpp never expands it, also where a macro's expansion brings `defined`) and a
                # name inside its own expansion (cpp)
                if in_literal(text, m.start()) or (m.start() > 0 and text[m.start() - 1].isalnum()) \
                        or re.search(r"\bdefined\s*\(?\s*$", (out[-1][-40:] if out else "") + text[:m.start()]) \
                        or name in context:
                    continue
                first = held and not out and m.start() == 0 and name == held[0]
                mac = held[1] if first else self.macros.get(name)
                if mac is None and name == "_Pragma":   # cpp runs `_Pragma("...")`; p4c sees a line marker
                    j = SKIP_TO_PAREN.match(text, end).end()
                    k = SKIP_TO_PAREN.match(text, j + 1).end() if text.startswith("(", j) else j
                    k = SKIP_TO_PAREN.match(text, literal_end(text, k)).end() if text.startswith('"', k) else k
                    if text.startswith(")", k):
                        text, i = text[:m.start()] + MARK + MARK + text[k + 1:], m.start() + 2
                        rest_start, rest_src = (m.start() + 2, src(k + 1)) if k >= rest_start else \
                            (rest_start - (k + 1 - m.start()) + 2, rest_src)
                    continue
                if mac is None and name in ("__has_include", "__has_include_next") and getattr(self, "in_text", False):
                    # (GCC's operator is for `#if` only; cpp names it, or the macro of the source that brought it)
                    err = P4CompileError(loc, f'"{name}" used outside of preprocessing directive')
                    err.offset = m.start()
                    raise err
                if mac is None:
                    b = self.builtin(name, loc if pin is None else Loc(loc.file, pin, loc.col))
                    if b is not None:   # (final: no macro in it)
                        out += [text[:m.start()], MARK + b + MARK]
                        text, i, skip = text[end:], 0, 0
                        rest_start, rest_src = (0, src(end)) if end >= rest_start else (rest_start - end, rest_src)
                    continue
                if mac.params is None:
                    body = self._body(mac.body, name, pin, context)
                    if "##" in body:   # (a pasted name is read inside the expansion too)
                        body = self._paint(substitute(body, {}, None), context | {name})
                    repl, k = MARK + body + MARK + self._end(name), m.start()
                    e = end
                else:
                    j = SKIP_TO_PAREN.match(text, end).end()
                    if j >= len(text) or text[j] != "(":
                        # cpp looks for the `(` without expanding what follows: a name followed by another
                        # token (or by nothing, the end of an argument) is no call
                        continue
                    repl, k = self._call(text, m, name, mac, end, j, pin, context, loc, depth)
                    e = k + 1
                count += 1
                if count > 100000:
                    raise P4CompileError(loc, "macro expansion does not end")
                if k >= rest_start:   # (a token of the source read: cpp's last read moves on)
                    last_read = src(k)
                rest_start, rest_src = (len(repl), src(e)) if e >= rest_start else \
                    (len(repl) + rest_start - e, rest_src)
                out.append(text[:m.start()])
                text, i, skip = repl + text[e:], 0, 0
        except P4CompileError as err:
            if getattr(err, "offset", None) is not None:
                err.offset = src(err.offset)
            if getattr(err, "open_at", None) == depth == 0:   # (a call left open here: cpp's state)
                err.split = "".join(out) + text[:m.start()], text[m.start():], (name, mac)
            raise
        out.append(text)
        return "".join(out)

    def _call(self, text: str, m, name: str, mac: Macro, end: int, j: int, pin, context: frozenset, loc: Loc,
              depth: int) -> tuple[str, int]:
        """The expansion of the call of function-like macro ``name`` (``mac``) matched by ``m`` in
        ``text``, its ``(`` at ``j``: the body with its arguments put in, and the index of the ``)``."""
        lvl, k, args, start = 0, j, [], j + 1
        while k < len(text):
            ch = text[k]
            if ch in "\"'":   # a literal's commas and parentheses are no separators (cpp); one
                k = literal_end(text, k) - 1   # left open ends with its line
            elif ch == "(":
                lvl += 1
            elif ch == ")":
                lvl -= 1
                if lvl == 0:
                    args.append(text[start:k])
                    break
            elif ch == "," and lvl == 1:
                args.append(text[start:k])
                start = k + 1
            k += 1
        else:
            self.open_call_context = context   # (the main loop reads the call's later lines)
            self.open_call_pin = int(pin) if pin is not None else None
            err = P4CompileError(loc, f'{_UNTERMINATED} "{name}"')
            err.open_at = depth
            raise err
        # cpp pops the expansions the arguments ran past: the body, and an argument's macros
        # (not the names inside their own expansion), are expanded outside their context
        popped = frozenset(self._context_names(".".join(END.findall(text, end, k))))
        pieces, args = args, [self._outside(a.strip(" \t\n"), popped) for a in args]
        if len(args) == 1 and not mac.params and not has_tokens(args[0]):
            args = []
        params, body = list(mac.params), mac.body
        if params and params[-1].endswith("..."):   # variadic: `...` is __VA_ARGS__, `rest...` is rest
            va = params[-1][:-3].strip() or "__VA_ARGS__"
            fixed = len(params) - 1
            if len(args) < fixed:
                raise _arg_count(loc, name, len(mac.params), len(args), k)
            # (the variable arguments as written, commas and blanks kept: `#__VA_ARGS__` of `1 ,2` is "1 ,2")
            args = args[:fixed] + [self._outside(",".join(pieces[fixed:]).strip(" \t\n"), popped)]
            params[-1] = va
            present = has_tokens(args[-1])
            # GNU's `, ## __VA_ARGS__` keeps its comma where the variable arguments are given, empty
            # or not (`F(w, )`), and drops it where they are left out (`F(w)`) -- or, for a macro of
            # variable arguments only, where they are empty (gcc's macro.c, outside -std=c99)
            body = va_comma(mac.body, va, len(pieces) > fixed if fixed else present,
                            present and pieces[fixed][:1] in (" ", "\t", "\n"))
        if len(args) != len(params):
            raise _arg_count(loc, name, len(params), len(args), k)
        raw, done = dict(zip(params, args)), {}
        # an argument beside `##` is not expanded before it goes in: its names are read when the body is
        # rescanned, a __LINE__ there is the line of the call's name (B(1 / __LINE__) with x ## p)
        pasted = {p: PIN.sub(f"\x01{pin}\x01" if pin is not None else "", a) for p, a in raw.items()}
        # cpp reads every `__LINE__` of the arguments as the call's line, as beside `##`, where the call's
        # name was `#undef`'d among them, or where its name and `(` came from object-like macros only
        # (`#define K ID(`, `K 1` / ` __LINE__)`; the text after its `)` has its own lines again)
        if name not in self.macros or (context and all(self.macros[n].params is None for n in context
                                                       if n in self.macros)):
            raw = pasted

        def expanded(p: str) -> str:   # cpp expands an argument before it goes into the body
            if p not in done:
                try:
                    done[p] = self._settle(self.expand(raw[p], loc, depth + 1), raw[p])
                except P4CompileError as err:   # (cpp has read this call's `)` then; a call left open in
                    # an argument is cpp's error too: the argument ends its tokens, `F(1, H)` with H -> `F (`)
                    if getattr(err, "offset", None) is not None or err.message.startswith(_UNTERMINATED):
                        err.offset = k
                    raise
            return done[p]
        if "__VA_OPT__" in body and mac.params and mac.params[-1].endswith("..."):
            # (GCC 12 keeps its tokens where the variable arguments, expanded, have one: `F(x, E)` none;
            # it has expanded the arguments those tokens name all the same: their errors are cpp's)
            keep = has_tokens(expanded(params[-1]))
            if not keep:
                substitute(va_opt(body, True), pasted, expanded)
            body = va_opt(body, keep)
        body = self._body(body, name, pin, context.difference(popped), params)
        # every name of the expansion is read inside it and inside what it is in -- an argument's
        # (`ID(ID)(1)` stays) and one a `##` made, too
        return MARK + self._paint(substitute(body, pasted, expanded), context.difference(popped) | {name}) \
            + MARK + self._end(name), k

    def macro_loc(self, name: str) -> Loc | None:
        """Where macro ``name``'s body is defined (None: not defined in a file)."""
        mac = self.macros.get(name)
        return mac.loc if mac is not None else None

    def _eval(self, expr: str, loc: Loc) -> bool:
        try:
            return self._eval_at(expr, loc)
        except P4CompileError as err:
            # a bad token that a macro defined in another file brings (`#define V1MODEL_VERSION 2020x`
            # before v1model.p4's `#if V1MODEL_VERSION >= ...`) is reported at its #define, as cpp does
            for name in _IDENT.findall(expr):
                mac = self.macros.get(name)
                if mac is not None and mac.loc is not None and mac.loc.file != loc.file and mac.body:
                    raise P4CompileError(mac.loc, f"{err.message} (from the #define of {name})") from None
            raise

    def _eval_at(self, expr: str, loc: Loc) -> bool:
        e = _HAS_INCLUDE.sub(lambda m: "1" if self._has_include(m.group(1), loc) else "0", expr)
        e = re.sub(r"defined\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)",
                   lambda m: "1" if self.defined(m.group(1)) else "0", e)
        e = re.sub(r"defined\s+([A-Za-z_][A-Za-z0-9_]*)",
                   lambda m: "1" if self.defined(m.group(1)) else "0", e)
        if re.search(r"(?<![A-Za-z0-9_])defined(?![A-Za-z0-9_])", e):   # (`#if defined`, `defined(1)`)
            raise P4CompileError(loc, 'operator "defined" requires an identifier')
        e = unmark(self.expand(e, loc))
        # (`__has_include` that a macro's expansion brought: `#define HI __has_include(<core.p4>)`)
        e = _HAS_INCLUDE.sub(lambda m: "1" if self._has_include(m.group(1), loc) else "0", e)
        # `defined` that a macro's expansion brought (cpp evaluates it too)
        e = re.sub(r"\bdefined\s*(?:\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)|([A-Za-z_][A-Za-z0-9_]*))",
                   lambda m: "1" if self.defined(m.group(1) or m.group(2)) else "0", e)
        return evaluate(e, expr, loc)
