"""p4c's ``RemoveReturns`` (frontends/p4/removeReturns.cpp, p4c 1.2.4.8) on an action body, as
:mod:`.predication` replays it before the Predication pass.

An action that holds a ``return`` gets a ``hasReturned`` flag: each ``return`` becomes
``hasReturned = true``, and after a statement that may have returned (an ``if`` with a return in
one arm only) the rest of the block goes under ``if (!hasReturned) { .. }``.  A statement that
always returns ends its block (what follows is dropped).  Such a guard is appended to the block
being rewritten -- not to the previous guard -- so ``S1; if (a) return; S2; if (b) return; S3;``
is ``S1; if (a) {f = true;} if (!f) { S2; if (b) {f = true;} } if (!f) { S3; }`` (dumps of p4c
1.2.4.8, ``--top4 RemoveReturns``).  p4c's front-end SimplifyControlFlow then writes each guard
``if (!f) {S}`` as ``if (f) { ; } else {S}``, the form Predication gets (and what the replay
builds); a guard with nothing in it is gone before, and so is the declarations' place: p4c's
MoveDeclarations has put every local at the top of the action, its initializer left where it
was as an assignment.  The front end's def-use then drops the flag's stores nothing reads
(:func:`.predication.drop_dead_stores`), and Predication predicates what is left, the flag's
guards and the stores before a ``return`` included -- with its known double updates (helper
opens4: ``if (a != 1) { a = a + 1; } else if (a != 3) { a = 3; } if (b == 0) { return; }``
gives BMv2 ``a`` 0 -> 2, as without the ``return``).

:func:`remove_returns` returns None for a body without a ``return``, and for one whose
``return`` is in a statement the replay does not rewrite (a loop, a switch): the action then
runs as written.
"""
from __future__ import annotations

from .elab_common import ir_dicts

FLAG = "_pred_returned"
_NO, _MAYBE, _YES = 0, 1, 2


class _Bail(Exception):
    pass


def _has_return(x) -> bool:
    return any(d.get("s") == "return" for d in ir_dicts(x, "t"))


def remove_returns(body: list, flag: str = FLAG, retval: dict | None = None) -> list | None:
    """``body`` rewritten as p4c's RemoveReturns, MoveDeclarations and SimplifyControlFlow leave
    it (module docstring), its flag the local ``flag``, or None.  ``retval``: the variable a
    function's ``return e`` assigns after the flag (``hasReturned = true; retval = e``; helper
    opens5), None for a body whose ``return``s carry no value."""
    if not _has_return(body):
        return None
    rr = _Rewrite(flag, retval)
    try:
        out, _ = rr.block(body, top=True)
    except _Bail:
        return None
    decl = {"s": "decl", "n": flag, "t": ["bool"], "init": {"op": "const", "v": False, "t": ["bool"]}}
    return [decl] + rr.hoisted + out


class _Rewrite:
    def __init__(self, flag: str, retval: dict | None = None):
        self.flag = {"op": "var", "n": flag, "t": ["bool"]}
        self.retval = retval
        self.hoisted: list = []

    def block(self, stmts: list, top: bool = False) -> tuple[list, int]:
        block: list = []
        cur, ret = block, _NO
        for s in stmts:
            out, r = self.stmt(s, top and cur is block)
            cur.extend(out)
            if r == _YES:
                ret = _YES
                break
            if r == _MAYBE:
                cur = []
                block.append({"s": "if", "c": self.flag, "then": [], "else": cur})
                ret = _MAYBE
        if block and block[-1].get("c") is self.flag and not block[-1]["else"]:
            block.pop()   # (a guard with nothing in it: SimplifyControlFlow drops it)
        return block, ret

    def stmt(self, s: dict, top: bool) -> tuple[list, int]:
        k = s.get("s")
        if k == "return":
            if (s.get("v") is not None) != (self.retval is not None):
                raise _Bail
            value = [{"s": "assign", "l": self.retval, "r": s["v"]}] if self.retval is not None else []
            return [{"s": "block", "body": [{"s": "assign", "l": self.flag,
                                              "r": {"op": "const", "v": True, "t": ["bool"]}}] + value}], _YES
        if k == "exit":
            return [s], _YES
        if k == "block":
            body, r = self.block(s["body"])
            return [dict(s, body=body)], r
        if k == "if":
            then, rt = self.block(s["then"] or [])
            els, rf = self.block(s["else"]) if s.get("else") else ([], _NO)
            r = _YES if rt == rf == _YES else _NO if rt == rf == _NO else _MAYBE
            return [dict(s, then=then, **{"else": els})], r
        if k == "decl" and not top:   # (MoveDeclarations: the local at the top, its initializer here)
            self.hoisted.append(dict(s, init=None))
            return hoist_init(s), _NO
        if _has_return(s):
            raise _Bail
        return [s], _NO


def hoist_init(decl: dict) -> list:
    """What stays in place of a declaration MoveDeclarations moved up: its initializer."""
    if decl.get("init") is None:
        return []
    return [{"s": "assign", "l": {"op": "var", "n": decl["n"], "t": decl["t"]}, "r": decl["init"]}]


def move_nested_declarations(body: list) -> list:
    """``body`` with the declarations inside its ``if``s and blocks moved to its top as p4c's
    MoveDeclarations moves an action's locals (their initializers left in place as assignments:
    :func:`hoist_init`), so that Predication sees a branch's ``T x = e;`` as the assignment p4c has
    there (helper opens6: ``else { bit<8> x = c ? 4 : a; if (x == 2) { x = 7; } .. }`` -- the action ran
    as written); ``body`` itself when none is nested."""
    moved: list = []

    def walk(stmts: list, top: bool) -> list:
        out = []
        for s in stmts:
            k = s.get("s")
            if k == "decl" and not top:
                moved.append(dict(s, init=None))
                out += hoist_init(s)
            elif k == "block":
                out.append(dict(s, body=walk(s["body"], False)))
            elif k == "if":
                out.append(dict(s, then=walk(s["then"] or [], False), **{"else": walk(s.get("else") or [], False)}))
            else:
                out.append(s)
        return out
    out = walk(body, True)
    return moved + out if moved else body
