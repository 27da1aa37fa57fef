"""``log_msg`` format strings as p4c 1.2.4.8 rewrites them and simple_switch 1.15.5 reads them.

Shared by checkmate-p4c (switch/compiler/elab_log_msg.py), the generated code's trace line
(switch/runtime/codegen.py) and the BMv2 JSON loader (switch/bmv2json/actions.py); no imports.

BMv2's ``log_msg`` primitive finds its placeholders itself, with a search that starts at the
second character and, after a ``{}`` at ``p``, goes on at ``p + 3`` (``pos = find("{}", pos + 1)``
with ``pos`` left on the placeholder's second character): a ``{}`` that opens the string is text,
and of two adjacent ones (``"a{}{}"``) only the first is a placeholder.  When the number of
placeholders is not the number of values, simple_switch logs "Not enough arguments for format
string in call to log_msg()" and dies -- for more values and for fewer (helper errs18, measured
on simple_switch_grpc: ``"{}"`` with one value, ``"x{} y{}"`` with one, ``"x{}{}"`` with two).

p4c's mid end (``FlattenLogMsg``) rewrites the format of a list argument that has a struct,
header or union element: each such element's ``{}`` becomes ``(f1:{},f2:{},...)`` (nested
structs the same way, ``f:(g:{},...)``), and an element without a ``{}`` left in the format gets
its text in front of the rest of the format.  Its BMv2 back end then takes only bit, bool and
error values ("log_msg: only integral values supported for logged values").
"""
from __future__ import annotations


def bmv2_placeholders(fmt: str) -> list[int]:
    """The offsets of the ``{}`` simple_switch substitutes in ``fmt`` (see the docstring)."""
    out, pos = [], 0
    while True:
        pos = fmt.find("{}", pos + 1)
        if pos < 0:
            return out
        out.append(pos)
        pos += 2


def bmv2_render(fmt: str, values) -> str:
    """The line simple_switch logs for ``fmt`` and ``values`` (as many as its placeholders)."""
    out, last = [], 0
    for p, v in zip(bmv2_placeholders(fmt), values):
        out.append(fmt[last:p] + str(v))
        last = p + 2
    return "".join(out) + fmt[last:]


def p4c_rewrite(fmt: str, shapes: list) -> str:
    """p4c's format for a list argument whose elements have the ``shapes`` given: ``None`` for
    a scalar, ``[(name, shape), ...]`` for a struct, header or union element (see
    :func:`shape_text`).  Unchanged when no element is a struct."""
    if all(s is None for s in shapes):
        return fmt
    res, rest = "", fmt
    for s in shapes:
        n = rest.find("{}")
        if n >= 0:
            res += rest[:n]
            rest = rest[n + 2:]
        res += "{}" if s is None else shape_text(s)
    return res + rest


def shape_text(shape) -> str:
    """``(a:{},b:(c:{},d:{}))`` for a struct shape ``[(name, sub-shape or None), ...]``."""
    return "(" + ",".join(f"{n}:" + ("{}" if s is None else shape_text(s)) for n, s in shape) + ")"
