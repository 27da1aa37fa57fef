"""p4c's def-use pass seen through header unions: which union-member assignments p4c drops.

p4c's SimplifyDefUse removes an assignment whose value a later assignment overwrites before
anything reads it.  For a header union member that is not a no-op on BMv2: making a member
valid invalidates its siblings, which p4c's analysis does not see -- so when p4c drops the
assignment, BMv2 keeps the siblings valid.  :func:`drop_dead_union_stores` does the same for
the plain cases, on one elaborated statement list -- looking into a sub-control applied there
as p4c's inliner lays it out (the struct arguments in place of its parameters).
"""
from __future__ import annotations

_PATH_OPS = ("field", "stack_idx", "stack_next", "stack_last")
_PLAIN = ("assign", "decl", "setvalid", "if", "block")


def _chain(lv) -> list:
    """An lvalue path and every path it is built on (``hdr.u.x``, ``hdr.u``, ``hdr``)."""
    out = [lv]
    while isinstance(lv, dict) and lv.get("op") in _PATH_OPS:
        lv = lv.get("base") if lv.get("op") == "field" else lv.get("st")
        out.append(lv)
    return out


def _touches(node, target) -> bool:
    """Whether ``node`` (IR, any depth) names ``target``, a part of it, or a path it is part of;
    a sibling path (``hdr.u.w`` for ``hdr.u.x``) does not count."""
    if isinstance(node, list):
        return any(_touches(x, target) for x in node)
    if not isinstance(node, dict):
        return False
    if node.get("op") in _PATH_OPS or node.get("op") == "var":
        if node in _chain(target) or target in _chain(node):
            return True
        idx = node.get("i")   # a run-time index reads something else
        return _touches(idx, target) if node.get("op") == "stack_idx" else False
    # (the siblings a setValid/assignment invalidates are not read)
    return any(_touches(v, target) for k, v in node.items() if k != "siblings")


def _plain(node) -> bool:
    """Only assignments, declarations, setValid/setInvalid and if/blocks of those (no call
    that may read the union unseen, no exit)."""
    if isinstance(node, list):
        return all(_plain(x) for x in node)
    if not isinstance(node, dict):
        return True
    if "s" in node and node["s"] not in _PLAIN:
        return False
    return all(_plain(v) for v in node.values())


def _substitute(node, subst: dict):
    """``node`` (IR) with each parameter variable named in ``subst`` replaced by its argument."""
    if isinstance(node, list):
        return [_substitute(x, subst) for x in node]
    if not isinstance(node, dict):
        return node
    if node.get("op") == "var" and node.get("n") in subst:
        return subst[node["n"]]
    return {k: _substitute(v, subst) for k, v in node.items()}


def inlined_body(blk: dict, call: dict, lv) -> list | None:
    """The statements sub-control ``blk`` runs for ``call`` (an ``apply_control``) as p4c's
    inliner sees them when ``lv`` is in question: its locals and body with each struct
    argument passed ``inout`` put in place of its parameter -- p4c uses such an argument
    directly, no copy.  None when an argument that holds ``lv`` (or is part of it) goes any
    other way (copied in or out: not seen through here)."""
    subst = {}
    for a in call["args"]:
        if "py" not in a or not _touches(a["e"], lv):
            continue
        if a["dir"] != "inout" or (a["e"].get("t") or [None])[0] != "struct" or a.get("siblings"):
            return None
        subst[a["py"]] = a["e"]
    return _substitute(list(blk.get("locals") or []) + list(blk["body"]), subst)


def _overwritten(rest: list, lv, inline=None) -> bool:
    """Whether the statements ``rest`` assign all of ``lv`` before anything reads it (only
    plain statements in between: see :func:`drop_dead_union_stores`; ``inline(call, lv)``:
    the statements a sub-control call stands for, or None)."""
    for j, b in enumerate(rest):
        if b.get("s") == "block":   # a block (also an inlined body's) runs in line
            return _overwritten(list(b["body"]) + rest[j + 1:], lv, inline)
        if b.get("s") == "apply_control" and inline is not None:
            body = inline(b, lv)
            if body is not None:
                return _overwritten(body + rest[j + 1:], lv, inline)
        if b.get("s") == "assign" and b["l"] == lv:
            return not _touches(b["r"], lv)
        if not _plain(b):
            return False
        # a write into it (dead too: p4c drops it first, so what it reads does not count),
        # or setValid/setInvalid of it (a write for p4c)
        if b.get("s") == "assign" and lv in _chain(b["l"])[1:] or \
                b.get("s") == "setvalid" and b.get("h") == lv:
            continue
        if _touches(b, lv):
            return False
    return False


def drop_dead_union_stores(stmts: list, inline=None) -> list:
    """p4c's def-use pass (SimplifyDefUse) drops an assignment to a header union member that
    a later assignment to the same member overwrites before anything reads that member --
    without seeing that it also invalidated the member's siblings, which BMv2 then keeps
    valid.  Only the plain case: both in one statement list, nothing between them but
    assignments, declarations, setValid/setInvalid and ifs of those that do not read it
    (writes into it, themselves dead, may read it).  The copy-back of an action's or a
    sub-control's out/inout argument that is a union member (p4c inlines both) is such an
    assignment too: its siblings are then left alone.  ``inline``: see :func:`_overwritten`
    (p4c inlines sub-controls before its def-use pass, so a body that starts by overwriting
    the member makes the assignment before the call dead)."""
    drop = set()
    out = []
    for i, a in enumerate(stmts):
        if a.get("s") == "assign" and a.get("siblings") and _overwritten(stmts[i + 1:], a["l"], inline):
            drop.add(i)
        elif a.get("s") in ("call_action", "apply_control") and \
                any(x.get("siblings") and _overwritten(stmts[i + 1:], x["e"], inline) for x in a["args"]):
            a = {**a, "args": [{k: v for k, v in x.items() if k != "siblings"}
                               if x.get("siblings") and _overwritten(stmts[i + 1:], x["e"], inline) else x
                               for x in a["args"]]}
        out.append(a)
    return [x for i, x in enumerate(out) if i not in drop]
