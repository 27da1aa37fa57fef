"""The arithmetic of cpp's ``#if``, for :class:`~.preprocessor.Preprocessor` once it has expanded the
macros and ``defined`` of an expression.

GNU cpp (which p4c runs) evaluates in ``intmax_t``/``uintmax_t`` (64 bits), with C's rules, and so
does :func:`evaluate`: a value is signed or unsigned (a ``u`` suffix; a constant too large for the
signed type; the result of an operator whose operand is unsigned, ``-1 > 0u`` is true), arithmetic
wraps (``1 << 63`` is negative), ``/`` and ``%`` truncate toward zero, ``<<``/``>>`` keep the left
operand's type (an arithmetic right shift of a signed value, a negative count shifts the other
way), comparisons and ``!``/``&&``/``||`` give a signed 0 or 1 (``3 > 2 > 1`` is false), ``?:``
and ``,`` (cpp accepts the comma operator in ``#if``) are C's, and an operand ``&&``, ``||`` or
``?:`` skips is not evaluated (``0 && 1 / 0`` is fine).  Constants: ``0x``, ``0b`` (GNU), octal,
decimal with ``u``/``l``/``ll`` suffixes (any other suffix, a P4 width like ``8w5`` or a float is
an error), character constants (a ``char`` is signed: ``'\\377'`` is -1; several characters are
packed into an ``int``); a name still there is 0.
"""
from __future__ import annotations

import re

from .errors import Loc, P4CompileError

_BITS = 64
_MASK = (1 << _BITS) - 1
_TOKEN = re.compile(r"\s*(?:(?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)|(?P<chr>'(?:\\.|[^'\\])*')|"
                    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%<>&|^~!?:(),]))")
_ESC = {"n": 10, "t": 9, "r": 13, "\\": 92, "'": 39, '"': 34, "?": 63, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27}
_CHAR = re.compile(r"\\x[0-9a-fA-F]+|\\[0-7]{1,3}|\\.|[^\\]")
#: binary operators by precedence (C's, loosest first)
_PREC = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
         "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def _num(v: int, unsigned: bool) -> tuple[int, bool]:
    """``v`` as a value of cpp's type: modulo 2**64, as signed unless ``unsigned``."""
    v &= _MASK
    return (v, True) if unsigned else (v - (1 << _BITS) if v >> (_BITS - 1) else v, False)


class _Eval:
    def __init__(self, text: str, expr: str, loc: Loc):
        self.expr, self.loc, self.toks, pos = expr, loc, [], 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.fail(f"cannot evaluate #if expression {expr!r}")
            self.toks.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        self.i = 0

    def fail(self, msg: str):
        raise P4CompileError(self.loc, msg)

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) and self.toks[self.i][0] == "op" else None

    def take(self, op: str) -> None:
        if self.peek() != op:
            self.fail(f"missing {op!r} in #if expression {self.expr!r}")
        self.i += 1

    def comma(self, skip: bool):
        v = self.cond(skip)
        while self.peek() == ",":
            self.i += 1
            v = self.cond(skip)
        return v

    def cond(self, skip: bool):
        c = self.binary(1, skip)
        if self.peek() != "?":
            return c
        self.i += 1
        a = self.comma(skip or not c[0])
        self.take(":")
        b = self.cond(skip or bool(c[0]))
        u = a[1] or b[1]
        return _num((a if c[0] else b)[0], u)

    def binary(self, level: int, skip: bool):
        if level > 10:
            return self.unary(skip)
        v = self.binary(level + 1, skip)
        while (op := self.peek()) is not None and _PREC.get(op) == level:
            self.i += 1
            if op in ("&&", "||"):
                w = self.binary(level + 1, skip or (not v[0] if op == "&&" else bool(v[0])))
                v = (int(bool(v[0]) and bool(w[0])) if op == "&&" else int(bool(v[0]) or bool(w[0])), False)
            else:
                v = self.apply(op, v, self.binary(level + 1, skip), skip)
        return v

    def apply(self, op: str, a, b, skip: bool):
        if op in ("<<", ">>"):   # the left operand's type; a negative count shifts the other way
            n = b[0] if b[1] or b[0] >= 0 else -b[0]
            if not b[1] and b[0] < 0:
                op = "<<" if op == ">>" else ">>"
            if op == "<<":
                return _num(a[0] << n if n < _BITS else 0, a[1])
            return _num((a[0] & _MASK) >> n if a[1] else a[0] >> min(n, _BITS), a[1])
        u = a[1] or b[1]
        x, y = (_num(a[0], u)[0], _num(b[0], u)[0])
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return int({"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]), False
        if op in ("/", "%"):
            if y == 0:
                if skip:
                    return 0, u
                self.fail(f"division by zero in #if expression {self.expr!r}")
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # C truncates toward zero
            return _num(q if op == "/" else x - q * y, u)
        return _num({"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op], u)

    def unary(self, skip: bool):
        op = self.peek()
        if op in ("-", "+", "~", "!"):
            self.i += 1
            v, u = self.unary(skip)
            return (int(not v), False) if op == "!" else _num(-v if op == "-" else ~v if op == "~" else v, u)
        if op == "(":
            self.i += 1
            v = self.comma(skip)
            self.take(")")
            return v
        if self.i >= len(self.toks):
            self.fail(f"#if with no expression, or an operand missing, in {self.expr!r}")
        kind, t = self.toks[self.i]
        self.i += 1
        if kind == "name":
            return 0, False   # a name no macro replaced is 0
        if kind == "chr":
            return self.char(t)
        if kind == "num":
            return self.number(t)
        self.fail(f"cannot evaluate #if expression {self.expr!r}")

    def char(self, t: str):
        cs = _CHAR.findall(t[1:-1])
        if not cs:
            self.fail(f"empty character constant in #if expression {self.expr!r}")

        def code(c: str) -> int:
            if c.startswith("\\x"):
                return int(c[2:], 16)
            if re.fullmatch(r"\\[0-7]+", c):
                return int(c[1:], 8)
            return _ESC.get(c[1], ord(c[1])) if c.startswith("\\") else ord(c)
        if len(cs) == 1:   # a `char` (signed for gcc)
            b = code(cs[0]) & 0xFF
            return b - 256 if b >= 128 else b, False
        v = 0   # a multi-character constant: gcc packs the bytes into an int, the last 4 kept
        for c in cs:
            v = ((v << 8) | (code(c) & 0xFF)) & 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v, False

    def number(self, t: str):
        if re.fullmatch(r"(?:[0-9]*\.[0-9]*|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?[fFlL]?|"
                        r"0[xX][0-9a-fA-F.]*[pP][+-]?[0-9]+[fFlL]?", t):
            self.fail(f"floating constant in preprocessor expression {self.expr!r}")
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([A-Za-z_][A-Za-z0-9_]*)?", t)
        if m is None:
            self.fail(f"invalid integer constant {t!r} in #if expression {self.expr!r}")
        digits, suffix = m.group(1), m.group(2) or ""
        if suffix and suffix.lower() not in ("u", "l", "ul", "lu", "ll", "ull", "llu"):
            # cpp: a P4 width prefix (8w5) or any other suffix is no C integer constant
            self.fail(f"invalid suffix {suffix!r} on integer constant in #if expression {self.expr!r}")
        base = 16 if digits[1:2] in "xX" and len(digits) > 1 else 2 if digits[1:2] in "bB" and len(digits) > 1 \
            else 8 if digits.startswith("0") and len(digits) > 1 else 10
        try:
            v = int(digits[2:] if base in (16, 2) else digits, base)
        except ValueError:
            self.fail(f"invalid digit in integer constant {digits!r} in #if expression {self.expr!r}")
        # too large for intmax_t: unsigned (cpp warns "integer constant is so large that it is unsigned")
        return _num(v, "u" in suffix.lower() or v >> (_BITS - 1) != 0)


def evaluate(e: str, expr: str, loc: Loc) -> bool:
    """The truth of ``e``, the #if expression ``expr`` (at ``loc``) with its macros expanded."""
    ev = _Eval(e, expr, loc)
    v = ev.comma(False)
    if ev.i != len(ev.toks):
        ev.fail(f"missing binary operator or ')' in #if expression {expr!r}")
    return v[0] != 0
