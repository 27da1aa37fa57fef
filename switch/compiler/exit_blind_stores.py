"""Stores p4c drops across a sub-control apply that may ``exit``.

p4c 1.2.4.8's front end removes a store that a later assignment overwrites before anything
reads it (SimplifyDefUse), and it does so before it inlines sub-controls: at that point a
``sc.apply(..)`` is a call that reads and writes its arguments and nothing else -- an ``exit``
inside the sub-control's body is not seen.  So in

    hdr.h.a = 7;
    sc.apply(hdr.h.b);      // SC: if (x != 0) { exit; }
    hdr.h.a = 9;

the first store is gone from p4c's output, and when the sub-control exits BMv2 sends ``hdr.h.a``
as it was parsed (measured: fuzz_exprs seed 9595, reduced by helper fuzz25; a local's store
``l = hdr.h.c; hdr.h.a = l;`` likewise).  The same store is kept where the exit is visible to the
pass: an ``exit`` in the control itself, an action that exits, or a sub-control handed a struct
that holds the stored field (its body may read it).

:func:`drop_stores_before_exiting_applies` removes such stores from checkmate-p4c's IR, in the
narrow shape that was measured: within one statement list, an assignment to a path (no call in
its value), then only assignments that neither read nor touch that path, and sub-control applies
whose arguments do not name it -- at least one of them to a sub-control whose body (or a
sub-control it applies) has an ``exit`` -- then an assignment of the whole path (not a slice)
whose value does not read it (local declarations whose initializers do not read it may come
between too).  Anything else between them keeps the store (a store p4c would
drop elsewhere is not observable without such an exit: the overwrite hides it).
"""
from __future__ import annotations

from .elab_common import ir_dicts
from .switch_copies import _reads, ir_path, overlap
from .union_defuse import _has_call


def drop_stores_before_exiting_applies(subs: list, roots) -> int:
    """Remove the stores described in the module docstring from every statement list of ``roots``
    (the control blocks) and of the sub-control bodies ``subs``; returns how many."""
    bodies = {b.get("fn"): b for b in subs}
    exits: dict = {}

    def may_exit(fn, seen=()) -> bool:
        if fn not in exits:
            b = bodies.get(fn)
            if b is None or fn in seen:
                return False
            nodes = list(ir_dicts(b["body"]))
            exits[fn] = any(d.get("s") == "exit" for d in nodes) or any(
                d.get("s") == "apply_control" and may_exit(d.get("fn"), (*seen, fn)) for d in nodes)
        return exits[fn]

    lists = [v for d in ir_dicts([roots, [b["body"] for b in subs]]) for v in d.values()
             if isinstance(v, list) and v and all(isinstance(x, dict) and "s" in x for x in v)]
    dropped = 0
    for stmts in lists:
        i = 0
        while i < len(stmts):
            if _dead_across_exit(stmts, i, may_exit):
                del stmts[i]
                dropped += 1
            else:
                i += 1
    return dropped


def _dead_across_exit(stmts: list, i: int, may_exit) -> bool:
    s = stmts[i]
    path = ir_path(s.get("l")) if s.get("s") == "assign" else None
    if path is None or "[*]" in path or _has_call(s["r"]):
        return False
    crossed = False
    for t in stmts[i + 1:]:
        k = t.get("s")
        if k == "apply_control":
            if any(overlap(r, path) for a in t["args"] for r in _reads(a["e"])) or any(
                    ir_path(a["e"]) is None and a.get("dir") != "in" for a in t["args"]):
                return False
            crossed = crossed or may_exit(t.get("fn"))
            continue
        if k == "decl":   # a local declared in between: its initializer must not read the path
            init = t.get("init")
            if overlap(t["n"], path) or (init is not None and (_has_call(init) or any(
                    overlap(r, path) for r in _reads(init)))):
                return False
            continue
        if k == "if":   # (one that neither reads nor writes the path: fuzz_exprs seed 10417, an empty one)
            if _has_call(t["c"]) or any(overlap(r, path) for r in _reads(t["c"])) or \
                    not _untouched(t["then"] or [], path) or not _untouched(t["else"] or [], path):
                return False
            continue
        if k != "assign" or _has_call(t["r"]):
            return False
        dst = ir_path(t["l"])
        if dst is None or any(overlap(r, path) for r in _reads(t["r"])) or any(
                overlap(r, path) for r in _reads([d["i"] for d in ir_dicts(t["l"]) if d.get("op") == "stack_idx"])):
            return False
        if t["l"].get("op") != "slice" and (dst == path or path.startswith((dst + ".", dst + "["))):
            return crossed
        if overlap(dst, path):
            return False
    return False


def _untouched(stmts: list, path: str) -> bool:
    """Whether ``stmts`` (a branch) only assign, without calls, what neither is nor reads ``path``."""
    for t in stmts:
        if t.get("s") == "block":
            if not _untouched(t["body"], path):
                return False
            continue
        if t.get("s") != "assign" or _has_call(t["r"]):
            return False
        dst = ir_path(t["l"])
        if dst is None or overlap(dst, path) or any(overlap(r, path) for r in _reads([t["r"], t["l"]])):
            return False
    return True
