"""A ``_`` argument beside an argument that names a value, in a call of a program's function or
action: p4c 1.2.4.8's alias analysis (frontends/p4/alias.h:232) dies on the pair -- "Compiler Bug:
Null result" -- as it asks whether the don't-care location may alias the other argument
(``f(_, hdr.h.a)``, ``f(hdr.h.a, _)``, an action's ``x(_, hdr.h.a)``; probed by helper errs20,
/work/e20 t6).  A ``_`` alone or beside constants (``f(_, 3)``, ``f(_, K)``, ``f(_, Sx.A)``) compiles, as do
extern calls and calls in an action or function nothing uses (p4c drops it first).

:func:`check_dontcare_alias` runs after elaboration (the call is type-correct by then) and raises
:class:`P4CompileError` at the call: p4c names no position.
"""
from __future__ import annotations

from .ast import Node, walk
from .errors import P4CompileError

__all__ = ["check_dontcare_alias"]


def _names(v) -> set:
    return {n.name for n in walk(v) if n.kind in ("name", "action_ref")}


def check_dontcare_alias(decls: list[Node]) -> None:
    # what names no run-time value: constants, enum and error types (`f(_, K)`, `f(_, Sx.A)` compile)
    static = {d.name for d in decls if d.kind in ("const", "enum")} | {"error"}
    bodies = []   # (declaration or None, its statements): apply blocks and states always run
    for d in decls:
        if d.kind in ("function", "action"):
            bodies.append((d, d.get("body")))
        elif d.kind in ("control", "parser"):
            for x in d.get("locals") or ():
                if isinstance(x, Node) and x.kind in ("action", "function"):
                    bodies.append((x, x.get("body")))
            bodies.append((None, [d.get("body"), d.get("states")]))
    callees = {x.name for x, _ in bodies if x is not None}
    for owner, body in bodies:
        if owner is not None:   # an action or function nothing names is dropped before the analysis
            used = any(owner.name in _names(b) for o, b in bodies if o is not owner) or any(
                owner.name in _names(d.get("locals")) for d in decls if d.kind == "control")
            if not used:
                continue
        for n in walk(body):
            if n.kind != "call" or not isinstance(n.get("fn"), Node) or n.fn.kind != "name" or n.fn.name not in callees:
                continue
            args = [a.value if a.kind == "named_arg" else a for a in n.get("args") or () if isinstance(a, Node)]
            if any(a.kind == "dontcare" for a in args) and any(_names(a) - static for a in args if a.kind != "dontcare"):
                raise P4CompileError(n.loc, f"Compiler Bug: alias.h:232: Null result (p4c 1.2.4.8 dies on a don't-care "
                                            f"argument of {n.fn.name} beside an argument that names a value)")
