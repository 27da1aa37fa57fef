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
sub-control it applies) has an ``exit`` -- then an assignment of the whole path (or a slice of
it holding every bit stored, below) whose value does not read it (local declarations whose
initializers do not read it may come between too).  Anything else between them keeps the store (a store p4c would
drop elsewhere is not observable without such an exit: the overwrite hides it).

Statements of other kinds between them -- ``if``, ``switch`` on a value, ``for`` loops (p4c
1.2.4.8 has none: the same statements spelled out), blocks, ``setValid``/``setInvalid``,
function calls, ``break``/``continue`` -- are let through when nothing in them reads or writes
the path, as measured on p4c's JSON (fuzz_exprs seed 10417, helper fuzz27): an ``isValid()`` reads
only the header's validity (not a field stored), a ``setValid()``/``setInvalid()`` of the header
neither reads nor kills a store to it or to its field, a function call reads its arguments and
writes its out/inout ones, a sub-control apply in a branch too (helper fuzz31: ``hdr.h.b = 7;
s1.apply(m); if (c) { s0.apply(m); } hdr.h.b = 9;`` drops the store; an exiting one there
crosses as well), and an access at a run-time stack index touches the same member of
every element (``hdr.s[i].y = ..`` leaves a store to ``hdr.s[0].x`` dead, ``hdr.s[i].x = ..`` or
a read of ``hdr.s[i].x`` keeps it).

The pass tracks the bits a slice writes (helper fuzz34: fuzz_exprs seed 16651, probed on p4c's
front-end output): a later slice holding every bit stored overwrites a store (``x[19:9] = ..;
sc.apply(..); x[47:0] = 398;`` drops the first; ``x = ..`` then ``x[w-1:0] = ..`` too), while a
slice missing some of them reads the field's other bits and keeps it (``x[11:4] = 7; ..;
x[3:0] = 1; x[15:4] = 9;`` keeps both) -- a read of the field (of any slice) keeps it as well.
Such a slice write, or any assignment that reads the stored field, is no obstacle when it is
itself overwritten before a read, within the list: p4c drops it first (``x[11:4] = 7; sc..;
x[3:0] = 1; x = 9;`` and ``x = 7; sc..; y = x; y = 1; x = 9;`` drop every store but the last),
and so are such writes in a branch or block when the whole path is overwritten after it
(``if (c) { x[3:0] = 1; } x = 9;``: :func:`_dead_writes_only`).

A store in an ``if`` arm or a plain block is judged on its path: the rest of the arm, then what
follows the ``if`` (helper fuzz35, fuzz_exprs seed 17783: ``if (c) { x = 7; } sc.apply(..);
x = 9;`` drops it; a header initializer's field stores so too, its ``setValid`` stays: BMv2 sends
the header valid with zero fields), a store in a switch case so too; inside a loop only the list itself.  A local
declared in between whose initializer reads the store is no read when the local is next given
whole as a sub-control's ``out`` argument (p4c drops the initializer first: :func:`_local_dead`).

As p4c's pass repeats, a store read only by a dropped one goes next (``x = a + 1; x = x % 5;``
before the apply: both gone on BMv2), and the same stores are dead for mk_stores' judging of a
division or match_kind comparison in them (:func:`stores_dead_across_exits`; p4c_mutate seed 524,
helper mutz31: p4c compiles ``% 5`` there).
"""
from __future__ import annotations

import re

from .elab_common import has_call, ir_dicts
from .copy_paths import ir_path, overlap, path_reads


def exiting_subcontrols(subs: list):
    """``may_exit(fn)``: whether the sub-control body ``fn`` of ``subs`` (or one it applies) has an
    ``exit``."""
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
    return may_exit


def stores_dead_across_exits(subs: list, root) -> set:
    """The ids of the stores in ``root`` (statements, at any depth) that p4c drops as the module
    docstring describes -- for mk_stores, whose def-use view of a body must drop them too (a
    division in one is no error: p4c_mutate seed 524, helper mutz31)."""
    if not any(d.get("s") == "apply_control" for d in ir_dicts(root)):
        return set()
    may_exit = exiting_subcontrols(subs)
    return {id(stmts[i]) for stmts, tail in _lists_with_tails(root) for i in range(len(stmts))
            if _dead_across_exit(stmts + tail, i, may_exit)}


def _lists_with_tails(root, tail: list | None = None) -> list:
    """``(statement list, the statements that run after it)`` for every statement list in
    ``root``: past the end of a plain block, an ``if`` arm or a switch case the path goes on after
    it (helper fuzz35, fuzz_exprs seed 17783: ``if (c) { x = 7; } sc.apply(..); x = 9;`` drops the
    store, in a case too); inside anything else (a loop, an expression) only the list itself."""
    if isinstance(root, dict):
        root = [v for v in root.values() if isinstance(v, (list, dict))]
    if not isinstance(root, list):
        return []
    if not (root and all(isinstance(x, dict) and "s" in x for x in root)):
        return [x for v in root for x in _lists_with_tails(v)]
    out = [(root, tail or [])]
    for j, st in enumerate(root):
        after = root[j + 1:] + (tail or [])
        for key, v in st.items():
            if st.get("s") == "block" and key == "body" or st.get("s") == "if" and key in ("then", "else"):
                out += _lists_with_tails(v, after) if isinstance(v, list) and v else []
            elif st.get("s") in ("switch_value", "switch_action") and key == "cases":
                out += [x for c in v if c.get("body") for x in _lists_with_tails(c["body"], after)]
            elif isinstance(v, (list, dict)):
                out += _lists_with_tails(v)
    return out


def drop_stores_before_exiting_applies(subs: list, roots) -> int:
    """Remove the stores described in the module docstring from every statement list of ``roots``
    (the control blocks) and of the sub-control bodies ``subs``; returns how many."""
    may_exit = exiting_subcontrols(subs)
    total = 0
    while True:   # (as p4c's pass repeats: a store read only by a dropped one goes next, seed 524)
        dropped = 0
        for stmts, tail in _lists_with_tails([roots, [b["body"] for b in subs]]):
            i = 0
            while i < len(stmts):
                if _dead_across_exit(stmts + tail, i, may_exit):
                    # (a ``?:`` condition's ``if`` stays, emptied, as in p4c: :func:`_mux_reads`)
                    left = mux_leftovers(stmts[i])
                    stmts[i:i + 1] = left
                    dropped += 1
                    i += len(left)
                else:
                    i += 1
        total += dropped
        if not dropped:
            return total


def bit_span(lv: dict):
    """``(lo, hi)``: the bits of its field that lvalue ``lv`` writes (a slice of a slice counted
    from the field's bit 0); None for a whole value that is not a ``bit``/``int``."""
    if lv.get("op") == "slice":
        base = bit_span(lv["a"])
        off = 0 if base is None else base[0]
        return off + lv["lo"], off + lv["hi"]
    t = lv.get("t")
    return (0, t[1] - 1) if isinstance(t, list) and t[0] in ("bit", "int") else None


def _dead_across_exit(stmts: list, i: int, may_exit, need_exit: bool = True, memo: dict | None = None) -> bool:
    """Whether store ``stmts[i]`` is overwritten before anything reads it, past an apply of a
    sub-control that may exit (``need_exit``; without it: overwritten at all, for a partial
    write in between that p4c drops first; ``memo``: those answers by index)."""
    s, memo = stmts[i], {} if memo is None else memo
    path = ir_path(s.get("l")) if s.get("s") == "assign" else None
    if path is None or "[*]" in path or has_call(s["r"]):
        return False
    span, crossed = bit_span(s["l"]), not need_exit
    for j in range(i + 1, len(stmts)):
        t = stmts[j]
        k = t.get("s")
        if k == "apply_control":
            if any(overlap(r, path) for a in t["args"] for r in path_reads(a["e"])) or any(
                    ir_path(a["e"]) is None and a.get("dir") != "in" for a in t["args"]):
                return False
            crossed = crossed or may_exit(t.get("fn"))
            continue
        if k == "decl":   # a local declared in between: its initializer must not read the path
            init = t.get("init")
            if overlap(t["n"], path) or (init is not None and (has_call(init) or any(
                    overlap(r, path) for r in path_reads(init)) and not _local_dead(stmts, j))):
                return False
            continue
        if k != "assign":   # (an if, a loop ... that neither reads nor writes the path: fuzz_exprs 10417)
            if not untouched([t], path) and not _dead_writes_only(stmts, j, path, may_exit):
                return False
            crossed = crossed or any(d.get("s") == "apply_control" and may_exit(d.get("fn")) for d in ir_dicts(t))
            continue
        if has_call(t["r"]):
            return False
        dst = ir_path(t["l"])
        if dst is None or any(overlap(r, path) for r in path_reads(
                [d["i"] for d in ir_dicts(t["l"]) if d.get("op") == "stack_idx"])):
            return False
        if not any(overlap(r, path) for r in path_reads(t["r"])):
            if t["l"].get("op") != "slice" and (dst == path or path.startswith((dst + ".", dst + "["))):
                return crossed
            if t["l"].get("op") == "slice" and dst == path:   # (fuzz_exprs 16651, helper fuzz34)
                lo, hi = bit_span(t["l"])
                if span is not None and lo <= span[0] and span[1] <= hi:
                    return crossed   # a slice holding every bit stored kills the store
                # one that does not reads the field's other bits (p4c 1.2.4.8)
            elif not overlap(dst, path):
                continue
        # t reads the store (a slice write of other bits does): unless p4c drops t first, as
        # overwritten itself before a read (its pass repeats; helper fuzz34's probes) -- but not
        # a read in a ``?:`` condition, which stays in the ``if`` dismantled from it (:func:`mux_reads`)
        if mux_reads(t["r"], path):
            return False
        if j not in memo:
            memo[j] = _dead_across_exit(stmts, j, may_exit, False, memo)
        if not memo[j]:
            return False
    return False


def mux_leftovers(st: dict) -> list:
    """What p4c's def-use leaves of a dropped assignment ``st``: an emptied ``if`` on each ``?:``
    condition of its value (:func:`mux_reads`), none for a plain one."""
    return [{"s": "if", "c": d["c"], "then": [], "else": []} for d in ir_dicts(st.get("r")) if d.get("op") == "cond"]


def mux_reads(e, path: str) -> bool:
    """Whether a ``?:`` condition in ``e`` reads ``path``.  p4c's front-end SideEffectOrdering
    makes ``x = c ? a : b`` an ``if (c) { tmp = a; } else { tmp = b; } x = tmp;`` before its
    def-use: dropping ``x = tmp`` (and then the arms' stores to ``tmp``) leaves the emptied
    ``if``, which reads ``c`` until SimplifyControlFlow removes it after the pass -- so a store
    ``c`` reads stays, and BMv2 sends it where the sub-control exits (fuzz_mutants
    ``--kinds mux_expr`` seed 6, helper mutz38: ``x = a + 1; x = (x % 5 == x) ? x % 5 : x;
    sc.apply(..); hdr.s[0] = {9, 9};`` keeps ``x = a + 1``)."""
    return any(d.get("op") == "cond" and any(overlap(r, path) for r in path_reads(d["c"])) for d in ir_dicts(e))


def _local_dead(stmts: list, j: int) -> bool:
    """Whether the local declared by ``stmts[j]`` is written before any read: given whole as an
    ``out`` argument of a sub-control apply (a call for p4c's front end), past statements that do
    not touch it -- p4c drops its initializer, and with it the read of a store (helper fuzz35,
    fuzz_exprs seed 17783: ``bit<48> l = (bit<48>)hdr.o.p; sc.apply(l);`` with ``out`` ``l``)."""
    n = stmts[j]["n"]
    for t in stmts[j + 1:]:
        if t.get("s") == "apply_control" and any(
                a.get("dir") == "out" and ir_path(a["e"]) == n and a["e"].get("op") == "var" for a in t["args"]):
            return not any(a.get("dir") != "out" and any(overlap(r, n) for r in path_reads(a["e"])) for a in t["args"])
        if not untouched([t], n):
            return False
    return False


def _dead_writes_only(stmts: list, j: int, path: str, may_exit) -> bool:
    """Whether statement ``stmts[j]`` only writes ``path`` (assignments to it or a slice of it, in
    its branches or blocks, that read nothing of it) and the statements after it overwrite the whole
    of it before a read: p4c drops those writes first (``x[11:4] = 7; sc..; if (c) { x[3:0] = 1; }
    x = 9;``: only ``x = 9`` is left, helper fuzz34's probes)."""
    whole = []

    def blank(x):
        if isinstance(x, list):
            return [blank(v) for v in x]
        if not isinstance(x, dict):
            return x
        if x.get("s") == "assign" and ir_path(x["l"]) == path and not has_call(x["r"]) and not any(
                overlap(r, path) for r in path_reads([x["r"], [d["i"] for d in ir_dicts(x["l"]) if d.get("op") == "stack_idx"]])):
            lv = x["l"]
            while lv.get("op") == "slice":
                lv = lv["a"]
            whole.append(lv)
            return {"s": "nop"}
        return {key: blank(v) for key, v in x.items()}

    if not untouched([blank(stmts[j])], path) or not whole:
        return False
    probe = stmts[:j] + [{"s": "assign", "l": whole[0], "r": {"op": "const", "v": 0, "t": whole[0].get("t")}}] + stmts[j + 1:]
    return _dead_across_exit(probe, j, may_exit, False)


_SEG = re.compile(r"\[[^\]]*\]|[^.\[]+")


def _touch(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` may overlap, a run-time index (``[*]``) meeting any index
    of the same stack but only the same member of an element."""
    for x, y in zip(_SEG.findall(a), _SEG.findall(b)):
        if x != y and not (x[0] == y[0] == "[" and "[*]" in (x, y)):
            return False
    return True


def _reads_path(e, path: str) -> bool:
    """Whether expression ``e`` reads ``path`` (an ``isValid()`` reads the header's validity
    only) or writes it (a function's out/inout argument)."""
    for d in ir_dicts(e):
        op = d.get("op")
        if op == "isvalid":
            h = ir_path(d["h"])
            if h is None or _touch(h + ".$valid", path) or any(
                    _touch(r, path) for x in ir_dicts(d["h"]) if x.get("op") == "stack_idx" for r in path_reads(x["i"])):
                return True
        elif op == "call_fn_out" and any(a["dir"] in ("out", "inout") and _writes(a["e"], path) for a in d["args"]):
            return True
        elif op == "table_hit" or op is not None and op.startswith("call") and op not in ("call_fn", "call_fn_out"):
            return True   # (a table apply, an extern or method call: not measured)
    plain = _strip_isvalid(e)
    return any(_touch(r, path) for r in path_reads(plain))


def _strip_isvalid(e):
    if isinstance(e, list):
        return [_strip_isvalid(x) for x in e]
    if isinstance(e, dict):
        if e.get("op") == "isvalid":
            return {"op": "const", "v": 0}
        return {k: _strip_isvalid(v) for k, v in e.items()}
    return e


def _writes(lv, path: str) -> bool:
    dst = ir_path(lv)
    return dst is None or _touch(dst, path)


def untouched(stmts: list, path: str) -> bool:
    """Whether ``stmts`` neither read nor write ``path`` (the kinds of statement the module
    docstring lists; any other kind counts as touching it)."""
    for t in stmts:
        k = t.get("s")
        if k == "block":
            ok = untouched(t["body"], path)
        elif k == "if":
            ok = not _reads_path(t["c"], path) and untouched(t["then"] or [], path) and \
                untouched(t["else"] or [], path)
        elif k == "switch_value":
            ok = not _reads_path(t["e"], path) and all(untouched(c.get("body") or [], path) for c in t["cases"])
        elif k == "for":
            ok = not _reads_path([t["c"]], path) and untouched(t.get("init") or [], path) and \
                untouched(t["update"] or [], path) and untouched(t["body"], path)
        elif k == "for_in":
            ok = not _touch(t["n"], path) and not _reads_path(t["values"], path) and untouched(t["body"], path)
        elif k == "eval":   # (a function called as a statement)
            ok = not _reads_path(t["e"], path)
        elif k in ("break", "continue", "nop"):
            ok = True
        elif k == "apply_control":   # (a call of its arguments for p4c's front end: fuzz31)
            ok = not any(_touch(r, path) for a in t["args"] for r in path_reads(a["e"])) and \
                not any(ir_path(a["e"]) is None and a.get("dir") != "in" for a in t["args"])
        elif k == "decl":
            ok = not _touch(t["n"], path) and (t.get("init") is None or not _reads_path(t["init"], path))
        elif k == "assign":
            ok = not _writes(t["l"], path) and not _reads_path(t["r"], path) and not _reads_path(
                [d["i"] for d in ir_dicts(t["l"]) if d.get("op") == "stack_idx"], path)
        elif k == "setvalid":
            h = ir_path(t["h"])
            # (a union member's siblings lose their validity: untouched when none overlaps the path --
            # `tmp_u.p.setValid()` of a local union before `hdr.u = tmp_u`, fuzz_mutants seed 3046)
            ok = h is not None and "[*]" not in h and all(
                (sp := ir_path(sb)) is not None and "[*]" not in sp and not _touch(sp, path)
                for sb in t.get("siblings") or ()) and (
                h == path or path.startswith(h + ".") or not _touch(h, path))
        elif k == "call_fn":
            ok = all(not _reads_path(a["e"], path) and (a["dir"] not in ("out", "inout") or not _writes(a["e"], path))
                     for a in t["args"])
        else:
            return False
        if not ok:
            return False
    return True
