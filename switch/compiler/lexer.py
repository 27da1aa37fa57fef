"""P4-16 tokens with source positions.

``>>`` is never a token: two ``>`` are returned and the parser joins adjacent ones
into a shift, so that ``bit<bit<8>>``-style nesting and shifts both parse (p4c does
the same).  Integer literals carry their width/signedness prefix (``8w5``, ``4s3``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import Loc, P4CompileError
from .preprocessor import Line

KEYWORDS = {
    "action", "actions", "apply", "bool", "bit", "const", "control", "default", "else",
    "entries", "enum", "error", "exit", "extern", "false", "header", "header_union", "if",
    "in", "inout", "int", "key", "match_kind", "out", "package", "parser", "return", "select",
    "state", "struct", "switch", "table", "transition", "true", "tuple", "typedef", "type",
    "varbit", "value_set", "void", "string", "list", "priority", "abstract", "this", "for",
}

_TOKEN = re.compile(r"""
  (?P<ws>\s+)
| (?P<num>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*))
| (?P<id>[A-Za-z_][A-Za-z0-9_]*)
| (?P<str>"(?:[^"\\]|\\.)*")
| (?P<op>&&&|\|\+\||\|-\||\.\.|&&|\|\||\+\+|==|!=|<=|>=|<<|[-+*/%&|^~!<>=.,;:?(){}\[\]@#])
""", re.VERBOSE)

_NUM = re.compile(r"(?:(\d+)([ws]))?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*)$")


@dataclass
class Tok:
    kind: str  # "id", "kw", "num", "str", "op", "eof"
    text: str
    loc: Loc
    end_col: int
    value: object = None  # for num: (value, width|None, signed)

    def __repr__(self) -> str:
        return f"{self.text!r}@{self.loc}"


def parse_int(text: str, loc: Loc) -> tuple[int, int | None, bool]:
    m = _NUM.match(text)
    if not m:
        raise P4CompileError(loc, f"malformed integer literal {text!r}")
    width = int(m.group(1)) if m.group(1) else None
    signed = m.group(2) == "s"
    body = m.group(3).replace("_", "")
    if body[:2] in ("0x", "0X"):
        v = int(body[2:], 16)
    elif body[:2] in ("0b", "0B"):
        v = int(body[2:], 2)
    elif body[:2] in ("0o", "0O"):
        v = int(body[2:], 8)
    elif body[:2] in ("0d", "0D"):
        v = int(body[2:], 10)
    else:
        v = int(body, 10)
    if width is not None:
        if width <= 0:
            raise P4CompileError(loc, f"integer literal {text!r} has width {width}")
        if signed:
            if v >= 1 << width:
                raise P4CompileError(loc, f"value {v} does not fit in int<{width}>")
            v = v - (1 << width) if v >= 1 << (width - 1) else v
        elif v >= 1 << width:
            raise P4CompileError(loc, f"value {v} does not fit in bit<{width}>")
    return v, width, signed


def tokenize(lines: list[Line]) -> list[Tok]:
    toks: list[Tok] = []
    for ln in lines:
        text = ln.text
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            loc = Loc(ln.file, ln.line, pos + 1)
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
                toks.append(Tok("num", s, loc, end + 1, parse_int(s, loc)))
            elif kind == "id":
                toks.append(Tok("kw" if s in KEYWORDS else "id", s, loc, end + 1))
            elif kind == "str":
                toks.append(Tok("str", s, loc, end + 1, bytes(s[1:-1], "utf-8").decode("unicode_escape")))
            else:
                toks.append(Tok("op", s, loc, end + 1))
    last = lines[-1] if lines else Line("<empty>", 1, "")
    toks.append(Tok("eof", "<end of file>", Loc(last.file, last.line, len(last.text) + 1), 0))
    return toks
