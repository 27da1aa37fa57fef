"""AST of the P4-16 subset: one generic :class:`Node` with a ``kind`` and attributes.

Kinds (attributes) -- types: ``bit(width)``, ``int(width)``, ``varbit(width)``,
``bool``, ``void``, ``error``, ``string``, ``typename(name, args)``, ``stack(elem, size)``,
``tuple(args)``, ``dontcare``.  Declarations: ``header``/``struct``/``header_union``
(name, fields), ``typedef``/``newtype`` (type, name), ``const`` (type, name, value),
``enum`` (name, members, base, values), ``error_decl``/``match_kind`` (members),
``extern_func``, ``extern_obj``, ``parser``/``control`` (name, params, ctor_params,
locals, states|body), ``parser_type``/``control_type``/``package``, ``action``,
``function``, ``instance`` (type, args, name), ``table`` (name, props).  Statements:
``assign``, ``call_stmt``, ``if``, ``switch``, ``block``, ``var``, ``exit``, ``return``,
``empty``.  Expressions: ``int``, ``bool_lit``, ``str``, ``name``, ``member``, ``index``,
``slice``, ``call``, ``binary``, ``unary``, ``cast``, ``cond``, ``list``, ``struct_init``,
``dontcare``, and in keysets ``mask``, ``range``, ``default``.
"""
from __future__ import annotations

from .errors import Loc


class Node:
    __slots__ = ("kind", "loc", "_attrs")

    def __init__(self, kind: str, loc: Loc, **attrs):
        self.kind = kind
        self.loc = loc
        self._attrs = attrs

    def __getattr__(self, name):
        if name.startswith("__") or name == "_attrs":
            raise AttributeError(name)
        try:
            return self._attrs[name]
        except KeyError:
            raise AttributeError(f"{self.kind} node has no attribute {name!r}") from None

    def get(self, name, default=None):
        return self._attrs.get(name, default)

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(f'{k}={v!r}' for k, v in self._attrs.items())})"


class Anno(tuple):
    """An annotation as the parser read it: ``(name, args, loc)``; ``raw`` is its text as p4c
    writes it into the P4Info (``@name(tok tok ...)``: the body's tokens as written, joined
    by single spaces), None for a structured ``@name[...]`` one."""
    raw = None
    error = None   # a bad @p4runtime_translation on a `type`, raised where the type is used

    def __new__(cls, name, args, loc, raw=None):
        a = super().__new__(cls, (name, args, loc))
        a.raw = raw
        return a


def annotation(annos: list, name: str):
    """The first annotation ``name`` of a list, as (name, args, loc) or None."""
    for a in annos or ():
        if a[0] == name:
            return a
    return None


def walk(v):
    """Every node in ``v`` (a node, or lists, tuples and dicts of them), each before what it
    holds; nothing is skipped (callers that must not enter nested declarations or folded
    branches have walkers of their own)."""
    if isinstance(v, Node):
        yield v
        v = v._attrs.values()
    elif isinstance(v, dict):
        v = v.values()
    elif not isinstance(v, (list, tuple)):
        return
    for x in v:
        yield from walk(x)


def find_name(n, name: str):
    """The first plain name ``name`` in expression ``n`` (a member's field name does not count)."""
    if isinstance(n, Node):
        if n.kind == "name" and n.get("name") == name:
            return n
        for v in n._attrs.values():
            hit = find_name(v, name)
            if hit is not None:
                return hit
    elif isinstance(n, (list, tuple)):
        for v in n:
            hit = find_name(v, name)
            if hit is not None:
                return hit
    return None
