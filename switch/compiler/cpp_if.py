"""The arithmetic of cpp's ``#if``, for :class:`~.preprocessor.Preprocessor` once it has expanded the
macros and ``defined`` of an expression: C's integer constants (``0x``, ``0b``, octal, ``u``/``l``
suffixes; a P4 width prefix like ``8w5`` is an error, as for cpp), character constants, the comma
operator and ``?:``, then Python's evaluation of what is left (names still there are 0, as in C).
"""
from __future__ import annotations

import re

from .errors import Loc, P4CompileError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def last_comma_operand(e: str) -> str:
    """``e`` with C's comma operator evaluated: each ``a, b`` (at the top level and inside every
    parenthesis) is its last operand (a #if expression has no side effects)."""
    parts, cur, depth = [], [], 0
    for ch in e:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur)
    out, i = [], 0
    while i < len(last):   # the same inside each top-level parenthesis
        if last[i] == "(":
            depth, j = 0, i
            while j < len(last):
                depth += (last[j] == "(") - (last[j] == ")")
                if depth == 0:
                    break
                j += 1
            out.append("(" + last_comma_operand(last[i + 1:j]) + ")")
            i = j + 1
        else:
            out.append(last[i])
            i += 1
    return "".join(out)


def c_conditional(e: str) -> str:
    """C's ``c ? a : b`` (lowest precedence, right-associative) as Python's ``(a if c else b)``,
    over a whole #if expression or a parenthesised part of it."""
    if "?" not in e:
        return e
    # innermost parentheses first
    while True:
        m = re.search(r"\(([^()]*\?[^()]*)\)", e)
        if not m:
            break
        e = e[:m.start()] + "(" + c_conditional_flat(m.group(1)) + ")" + e[m.end():]
    return c_conditional_flat(e)


def c_conditional_flat(e: str) -> str:
    """``c ? a : b`` with no parentheses left around a ``?``: split at the first ``?`` and the
    ``:`` that matches it (the rest is right-associative)."""
    q = e.find("?")
    if q < 0 or "(" in e[:q] and e[:q].count("(") != e[:q].count(")"):
        return e
    depth, i = 0, q + 1
    nest = 0
    while i < len(e):
        c = e[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "?" and depth == 0:
            nest += 1
        elif c == ":" and depth == 0:
            if nest == 0:
                break
            nest -= 1
        i += 1
    if i >= len(e):
        return e
    return f"(({c_conditional_flat(e[q + 1:i])}) if ({e[:q]}) else ({c_conditional_flat(e[i + 1:])}))"


def evaluate(e: str, expr: str, loc: Loc) -> bool:
    """The truth of ``e``, the #if expression ``expr`` (at ``loc``) with its macros expanded."""
    e = last_comma_operand(e)   # C's comma operator: `#if (1, 0)` is false, `#if 0, 1` true
    # a character constant ('a', '\n', '\x41') is its code, as for cpp
    esc = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11}
    one = r"\\x[0-9a-fA-F]+|\\[0-7]{1,3}|\\.|[^'\\]"

    def code(c: str) -> int:
        return int(c[2:], 16) if c.startswith("\\x") else int(c[1:], 8) if re.fullmatch(r"\\[0-7]+", c) else \
            esc.get(c[1], ord(c[1])) if c.startswith("\\") else ord(c)

    def char_const(m) -> str:
        cs = re.findall(one, m.group(1))
        if len(cs) == 1:
            return str(code(cs[0]))
        v = 0   # a multi-character constant: gcc packs the bytes into an int, the last 4 kept
        for c in cs:
            v = ((v << 8) | (code(c) & 0xFF)) & 0xFFFFFFFF
        return str(v - (1 << 32) if v >= 1 << 31 else v)
    e = re.sub(rf"'((?:{one})+)'", char_const, e)
    for m in re.finditer(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([A-Za-z_][A-Za-z0-9_]*)?", e):
        suffix = m.group(2)
        if suffix and suffix.lower() not in ("u", "l", "ul", "lu", "ll", "ull", "llu"):
            # cpp: a P4 width prefix (8w5) or any other suffix is no C integer constant
            raise P4CompileError(loc, f"invalid suffix {suffix!r} on integer constant in #if expression {expr!r}")

    def c_int(m):   # C constants as cpp reads them: 0x.., 0b.. (GNU), 0.. octal, decimal
        t = m.group(1)
        base = 16 if t[1:2] in "xX" and len(t) > 1 else 2 if t[1:2] in "bB" and len(t) > 1 else \
            8 if t.startswith("0") and len(t) > 1 else 10
        try:
            return str(int(t[2:] if base in (16, 2) else t, base))
        except ValueError:
            raise P4CompileError(loc, f"invalid digit in integer constant {t!r} in #if expression {expr!r}") from None
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)\b", c_int, e)
    e = _IDENT.sub("0", e)  # undefined identifiers are 0, as in C
    e = e.replace("&&", " and ").replace("||", " or ").replace("!", " not ").replace(" not =", "!=")
    e = c_conditional(re.sub(r"(?<!/)/(?!/)", "//", e))   # (C's integer division)
    if not re.fullmatch(r"[0-9xXa-fA-F\s()+\-*/%<>=!&|^~andortnifels]*", e):
        raise P4CompileError(loc, f"cannot evaluate #if expression {expr!r}")
    try:
        return bool(eval(e, {"__builtins__": {}}, {}))  # noqa: S307 - filtered to arithmetic above
    except Exception:
        raise P4CompileError(loc, f"cannot evaluate #if expression {expr!r}") from None
