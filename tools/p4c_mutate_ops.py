"""Operator mutations for tools/p4c_mutate.py (helper mutz25): the type rules of P4's operators.

No earlier kind touched an expression's operator, yet most of p4c's type errors are about them:
``&&`` on bit<N> values, ``&`` on bools, a comparison where a value is wanted, ``<`` on a bool
or a header, ``++`` or ``|+|`` on mixed signs, ``%`` on signed values, a shift by a signed
amount, ``!`` / ``~`` / ``-`` on the wrong type.  Three kinds:

``op_swap``    one binary operator of the program's controls and parsers (written with spaces
               around it, as the corpus does) replaced by another of any class;
``unary_op``   ``!``, ``~`` or ``-`` put in front of an operand (a header, metadata or local
               field read after ``=``, ``(`` or ``,``);
``cmp_chain``  a comparison's result used where a value is wanted (``x == y`` becomes
               ``(x == y) + 1``) or compared again (``(x == y) < true``);
``cast_slice`` (helper mutz35) an operand cast or sliced: ``(bit<8>)(x)``, ``(x)[3:0]``, a
               rotation ``x[0:0] ++ x[7:1]``, a sign round trip ``(bit<8>)(int<8>)x``, a widened
               slice, a ``bool`` cast of one bit -- widths that fit the context or not.

Each returns ``(text, position, description)`` as the other helper modules' kinds do.
"""
from __future__ import annotations

import re

_BINARY = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", ">", "<=", ">=",
           "&&", "||", "++", "|+|", "|-|"]
_OP = re.compile(r"(?<=\s)(\|\+\||\|-\||&&|\|\||<<|>>|==|!=|<=|>=|\+\+|[-+*/%&|^<>])(?=\s)")
_OPERAND = re.compile(r"(?<=[=(,]\s)(?:hdr|meta|m|sm|standard_metadata|h)\.[A-Za-z_][\w.]*(?:\[\d+\])?(?:\.[A-Za-z_]\w*)*")
_CMP = re.compile(r"(\b[A-Za-z_][\w.]*(?:\[\d+\])?)\s+(==|!=|<|>|<=|>=)\s+([A-Za-z_0-9][\w.]*)")


def _body_start(t: str) -> int:
    """Where the blocks start (the first parser or control): headers and includes are left alone."""
    ms = [m.start() for m in re.finditer(r"\b(?:parser|control)\s+\w+\s*\(", t)]
    return min(ms) if ms else len(t)


def _pick(rng, ms: list):
    return rng.choice(ms) if ms else None


def m_op_swap(rng, t):
    start = _body_start(t)
    m = _pick(rng, [m for m in _OP.finditer(t) if m.start() > start and not _in_annotation(t, m.start())])
    if m is None:
        return None
    new = rng.choice([o for o in _BINARY if o != m.group(1)])
    return t[:m.start()] + new + t[m.end():], m.start(), f"operator {m.group(1)} -> {new}"


def m_unary_op(rng, t):
    start = _body_start(t)
    m = _pick(rng, [m for m in _OPERAND.finditer(t) if m.start() > start])
    if m is None:
        return None
    op = rng.choice(["!", "~", "-"])
    return t[:m.start()] + op + t[m.start():], m.start(), f"unary {op} on {m.group(0)[:40]}"


def m_cmp_chain(rng, t):
    start = _body_start(t)
    m = _pick(rng, [m for m in _CMP.finditer(t) if m.start() > start and not _in_annotation(t, m.start())])
    if m is None:
        return None
    tail = rng.choice([" + 1", " < true", " == 1", " & 8w1", " ++ 1w0"])
    return t[:m.start()] + "(" + m.group(0) + ")" + tail + t[m.end():], m.start(), f"({m.group(0)[:40]}){tail}"


_CASTS = ["(bit<8>)({x})", "({x})[3:0]", "{x}[0:0] ++ {x}[7:1]", "(bit<8>)(int<8>)({x})", "(bit<16>)({x}[7:0])",
          "(bit<8>)((int<8>)({x}[7:0]) >> 1)", "(bool)({x}[0:0])", "(bit<4>)({x}) ++ 4w0", "({x} ++ 8w0)[15:8]",
          "(bit<32>)({x})"]


def m_cast_slice(rng, t):
    start = _body_start(t)
    m = _pick(rng, [m for m in _OPERAND.finditer(t) if m.start() > start])
    if m is None:
        return None
    new = rng.choice(_CASTS).format(x=m.group(0))
    return t[:m.start()] + new + t[m.end():], m.start(), f"{m.group(0)[:40]} -> {new[:60]}"


def _in_annotation(t: str, pos: int) -> bool:
    """Whether ``pos`` is inside an ``@name(...)``-like annotation's parentheses or a comment line."""
    line = t[t.rfind("\n", 0, pos) + 1:pos]
    return "//" in line or bool(re.search(r"@\w+\([^)]*$", line))


KINDS = {f.__name__[2:]: f for f in [m_op_swap, m_unary_op, m_cmp_chain, m_cast_slice]}
