"""Walks of the parsed AST shared by the whole-program checks (:mod:`.checks`,
:mod:`.checks_decls`, :mod:`.checks_generic`): every node under a node or list without entering
nested declarations, the same with the branches p4c folds away skipped, a call's callee name and
a call described for a message.
"""
from __future__ import annotations

from .ast import Node


def _children(node: Node):
    for v in node._attrs.values():
        yield from _nodes(v)


def _nodes(v):
    if isinstance(v, Node):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _nodes(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _nodes(x)


def _walk(v, skip=("action", "function", "table", "parser", "control")):
    """Every node under ``v`` (a node or a list), not entering nested declarations."""
    for n in _nodes(v):
        yield n
        if n.kind not in skip:
            yield from _walk(list(_children(n)), skip)


def _live_walk(v):
    """:func:`_walk`, but an ``if`` the elaborator found p4c folds (``p4c_folded``, elab_common.
    mark_folded) is the branch it keeps: p4c removes the ``if`` before its back end looks."""
    for n in _nodes(v):
        kept = n.get("p4c_folded") if n.kind == "if" else None
        if kept is not None:
            yield from _live_walk(n.get(kept))
            continue
        yield n
        if n.kind not in ("action", "function", "table", "parser", "control"):
            yield from _live_walk(list(_children(n)))


def _callee(call: Node) -> str | None:
    fn = call.get("fn")
    return fn.name if fn is not None and fn.kind == "name" else None


def _describe(call) -> str:
    if not isinstance(call, Node):
        return "call"
    fn = call.get("fn")
    parts = []
    while isinstance(fn, Node) and fn.kind == "member":
        parts.append(fn.get("name") or fn.get("member") or "")
        fn = fn.get("expr") or fn.get("base")
    if isinstance(fn, Node) and fn.kind == "name":
        parts.append(fn.name)
    return ".".join(reversed([p for p in parts if p])) or "call"
