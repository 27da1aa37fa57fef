"""P4-16 tokens with source positions.

``>>`` is never a token: two ``>`` are returned and the parser joins adjacent ones
into a shift, so that ``bit<bit<8>>``-style nesting and shifts both parse (p4c does
the same).  Integer literals carry their width/signedness prefix (``8w5``, ``4s3``).
A character no token starts with is an error, except inside an annotation's ``( ... )``
(free-form text there, as in p4c).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .elab_types import MAX_WIDTH, P4C_MAX_WIDTH
from .errors import Loc, P4CompileError, P4Warning
from .preprocessor import Line

KEYWORDS = {
    "action", "actions", "apply", "bool", "bit", "const", "control", "default", "else",
    "entries", "enum", "error", "exit", "extern", "false", "header", "header_union", "if",
    "in", "inout", "int", "key", "match_kind", "out", "package", "parser", "return", "select",
    "state", "struct", "switch", "table", "transition", "true", "tuple", "typedef", "type",
    "varbit", "value_set", "void", "string", "list", "priority", "abstract", "this",
}
# (`for` is no keyword of p4c 1.2.4.8 -- a variable, table or action may be called `for`; the
# parser takes `for (` at the start of a statement as the P4-16 1.2.5 loop, docs/P4C.md)
#: keywords p4c's grammar also takes as a name (its nonTypeName): a variable, parameter or
#: field may be called `priority`, `key`, `state` ...
NON_TYPE_KEYWORDS = ("apply", "key", "actions", "state", "entries", "type", "priority")

_TOKEN = re.compile(r"""
  (?P<ws>\s+)
| (?P<num>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*))
| (?P<id>[A-Za-z_][A-Za-z0-9_]*)
| (?P<str>"(?:[^"\\]|\\.)*")
| (?P<op>&&&|\|\+\|=|\|-\|=|<<=|>>=|[-+*/%&|^]=(?!=)|\|\+\||\|-\||\.\.\.|\.\.|&&|\|\||\+\+|==|!=|<=|>=|<<|[-+*/%&|^~!<>=.,;:?(){}\[\]@#])
""", re.VERBOSE)

_NUM = re.compile(r"(?:(\d+)([ws]))?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*)$")


@dataclass
class Tok:
    kind: str  # "id", "kw", "num", "str", "op", "eof"; "bad": a stray character in an annotation body
    text: str
    loc: Loc
    end_col: int
    value: object = None  # for num: (value, width|None, signed)

    def __repr__(self) -> str:
        return f"{self.text!r}@{self.loc}"


# No P4 type the target supports is anywhere near this wide; the cap keeps a pathological
# literal (5,000 digits, or 99999999w1) from hitting Python's int limits or eating memory.
MAX_LITERAL_BITS = 1 << 16
_BASES = {"0x": 16, "0X": 16, "0b": 2, "0B": 2, "0o": 8, "0O": 8, "0d": 10, "0D": 10}
# digits per base: MAX_LITERAL_BITS worth (+1 for a leading zero); decimal stays under
# Python's default int-from-str limit (4300 digits, sys.get_int_max_str_digits)
_MAX_DIGITS = {16: MAX_LITERAL_BITS // 4 + 1, 2: MAX_LITERAL_BITS + 1, 8: MAX_LITERAL_BITS // 3 + 2, 10: 4000}


def _short(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:20] + "..." + text[-8:])


def parse_int(text: str, loc: Loc, warnings: list | None = None) -> tuple[int, int | None, bool]:
    m = _NUM.match(text)
    if not m:
        raise P4CompileError(loc, f"malformed integer literal {text!r}")
    if m.group(1) and len(m.group(1)) > 6:
        raise P4CompileError(loc, f"integer literal width {_short(m.group(1))} is too large "
                                  f"(a bit width must be <= {MAX_WIDTH})")
    width = int(m.group(1)) if m.group(1) else None
    if width is not None and width > P4C_MAX_WIDTH:
        raise P4CompileError(loc, f"{text}: {width} size too large (p4c 1.2.4.8 takes widths up to {P4C_MAX_WIDTH})")
    signed = m.group(2) == "s"
    body = m.group(3).replace("_", "")
    base, digits = _BASES.get(body[:2], 10), body[2:] if body[:2] in _BASES else body
    if len(digits) > _MAX_DIGITS[base]:
        raise P4CompileError(loc, f"integer literal too long ({len(digits)} digits, at most "
                                  f"{_MAX_DIGITS[base]} base-{base} digits)")
    try:
        v = int(digits, base)
    except ValueError:
        raise P4CompileError(loc, f"malformed integer literal {_short(text)}") from None
    if v.bit_length() > MAX_LITERAL_BITS:
        raise P4CompileError(loc, f"integer literal too long (literals are limited to {MAX_LITERAL_BITS} bits)")
    if width is not None:
        if width == 0 and signed:   # (`0w0`, `0w1` are bit<0> zeros: p4c accepts them)
            raise P4CompileError(loc, f"integer literal {text!r}: int<0>: width of signed type cannot be zero")
        if width > MAX_WIDTH:
            raise P4CompileError(loc, f"integer literal width {width} is too large "
                                      f"(a bit width must be <= {MAX_WIDTH})")
        # too wide for its width: p4c 1.2.4.8 warns ("value does not fit") and keeps the low bits
        if warnings is not None and (v >> (width - 1 if signed else width)):
            warnings.append(P4Warning(loc, f"{text}: value does not fit in {width} bits"))
        v &= (1 << width) - 1
        if signed:
            v = v - (1 << width) if v >= 1 << (width - 1) else v
    return v, width, signed


_STR = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _str_value(s: str) -> str:
    """A string literal's text as written: p4c 1.2.4.8 resolves no escape (`@name("t\\x41")`
    is the name t, backslash, x41; an annotation keeps `\\t` as two characters), and
    UTF-8 text stays as it is."""
    return s[1:-1]


def _annotation_paren(toks: list[Tok]) -> bool:
    """Is the ``(`` just appended the start of an annotation's body (``@name(``, a line
    break or not in between, as the parser reads it)?"""
    return (len(toks) >= 3 and toks[-3].kind == "op" and toks[-3].text == "@"
            and toks[-2].kind in ("id", "kw"))


def tokenize(lines: list[Line], warnings: list | None = None) -> list[Tok]:
    """The tokens of preprocessed ``lines``; warnings (over-wide literals) go to ``warnings``."""
    toks: list[Tok] = []
    anno_depth = 0   # > 0 inside an unstructured annotation's ( ... ): see _annotation_paren
    li = 0
    while li < len(lines):
        ln = lines[li]
        li += 1
        text = ln.text
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            loc = Loc(ln.file, ln.line, pos + 1)
            if not m and text[pos] == '"':
                # a string literal over several lines (p4c keeps the newlines in it): the token
                # ends on a later line; the rest of that line is tokenized as this one's
                joined = text
                while li < len(lines) and lines[li].file == ln.file and not m:
                    joined += "\n" + lines[li].text
                    li += 1
                    m = _STR.match(joined, pos)
                if m:
                    s = m.group(0)
                    toks.append(Tok("str", s, loc, m.end() + 1, _str_value(s)))
                    text = joined[joined.rfind("\n", 0, m.end()) + 1:]
                    ln = lines[li - 1]
                    pos = m.end() - (len(joined) - len(text))
                    continue
            if not m and anno_depth:
                # a free-form annotation body is any token sequence: p4c's lexer returns a
                # character it has no token for as UNEXPECTED_TOKEN, which its grammar takes
                # there (`@note(it's free text)`) and nowhere else
                toks.append(Tok("bad", text[pos], loc, pos + 2))
                pos += 1
                continue
            if not m:
                raise P4CompileError(loc, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup
            s = m.group(0)
            end = m.end()
            pos = end
            if kind == "ws":
                continue
            if kind == "num":
                # an identifier glued to a number (e.g. "8w5x") is malformed
                if end < len(text) and (text[end].isalnum() or text[end] == "_"):
                    raise P4CompileError(loc, f"malformed integer literal {s + text[end]!r}...")
                toks.append(Tok("num", s, loc, end + 1, parse_int(s, loc, warnings)))
            elif kind == "id":
                toks.append(Tok("kw" if s in KEYWORDS else "id", s, loc, end + 1))
            elif kind == "str":
                toks.append(Tok("str", s, loc, end + 1, _str_value(s)))
            else:
                toks.append(Tok("op", s, loc, end + 1))
                if s == "(" and (anno_depth or _annotation_paren(toks)):
                    anno_depth += 1
                elif s == ")" and anno_depth:
                    anno_depth -= 1
    last = lines[-1] if lines else Line("<empty>", 1, "")
    toks.append(Tok("eof", "<end of file>", Loc(last.file, last.line, len(last.text) + 1), 0))
    return toks
