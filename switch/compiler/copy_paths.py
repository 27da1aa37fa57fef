"""Paths of the IR and what a statement may write: the helpers p4c's copy and def-use rules share
(:mod:`.switch_copies`, :mod:`.union_copies`, :mod:`.exit_blind_stores`, :mod:`.dead_reads`).

A path is the text of a place a program stores into -- ``v12_x``, ``p_hdr.h2.c``,
``p_hdr.s[1].x``, ``[*]`` for a run-time stack index; two paths overlap when one names storage
inside the other.  :func:`may_write` is deliberately pessimistic: a statement it cannot see
through (an action call, a table apply) may write any path it could reach."""
from __future__ import annotations

import copy

from .elab_common import ir_dicts, ir_replace

# statements that by themselves write nothing but what their assignments name
_PLAIN = ("assign", "decl", "eval", "block", "if", "switch_value", "return", "exit", "empty", "nop",
          "for", "for_in", "break", "continue")   # (a for_in also writes its variable: may_write;
#   an eval writes what the calls in its value do: a function only through its out/inout arguments)


def ir_path(e) -> str | None:
    """``v12_x``, ``p_hdr.h2.c``, ``p_hdr.s[1].x`` for a path expression; a run-time stack index
    is ``[*]``; a slice is its base's path; anything else None."""
    if not isinstance(e, dict):
        return None
    op = e.get("op")
    if op == "var":
        return e["n"]
    if op == "field":
        b = ir_path(e["base"])
        return None if b is None else f"{b}.{e['f']}"
    if op == "stack_idx":
        b = ir_path(e["st"])
        if b is None:
            return None
        i = e["i"]
        return f"{b}[{i['v']}]" if i.get("op") == "const" else f"{b}[*]"
    if op == "slice":
        return ir_path(e["a"])
    return None


def overlap(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` may name overlapping storage."""
    a, b = a.split("[*]")[0], b.split("[*]")[0]   # (a run-time index may be any element)
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def path_reads(e, out: list | None = None) -> list:
    """The paths expression ``e`` reads, in order: a path's own text, then the paths its
    run-time stack indexes read (``h.s[i].x`` reads ``h.s[*].x`` and ``i``)."""
    out = [] if out is None else out
    if isinstance(e, list):
        for x in e:
            path_reads(x, out)
    elif isinstance(e, dict):
        p = ir_path(e) if e.get("op") in ("var", "field", "stack_idx") else None
        if p is not None:
            out.append(p)
            for d in ir_dicts(e):
                if d.get("op") == "stack_idx" and d["i"].get("op") != "const":
                    path_reads(d["i"], out)
        else:
            for v in e.values():
                path_reads(v, out)
    return out


def may_write(st: dict, path: str) -> bool:
    """Whether statement ``st`` may write ``path``: an assignment or validity change of an
    overlapping path anywhere in it (a union member's siblings too), a function call's overlapping
    out/inout argument, or any statement of another kind (an action call, a table apply ...),
    which may write what it does not name; a local variable only where it is named."""
    is_var = "." not in path and "[" not in path
    for d in ir_dicts(st):
        k = d.get("s")
        if k == "call_fn" or d.get("op") in ("call_fn", "call_fn_out"):
            # a function reaches the caller's data through its out/inout arguments only (p4c
            # inlines it before the pass: fuzz_exprs seed 6209)
            if any(a.get("dir") in ("out", "inout") and (ir_path(a["e"]) is None or overlap(ir_path(a["e"]), path))
                   for a in d["args"] if isinstance(a, dict) and "dir" in a):
                return True
            continue
        if k == "for_in" and d.get("n") == path:
            return True
        if k in ("assign", "setvalid"):   # (a union member's siblings are written too)
            hp = [ir_path(d["l" if k == "assign" else "h"])] + \
                [ir_path(x) if isinstance(x, dict) else None for x in d.get("siblings") or []]
            if any(p is None or overlap(p, path) for p in hp):
                return True
        elif k in ("push_front", "pop_front"):   # (its own stack only)
            sp = ir_path(d["st"])
            if sp is None or overlap(sp, path):
                return True
        elif k is not None and k not in _PLAIN:
            if not is_var or any(x.get("op") == "var" and x.get("n") == path for x in ir_dicts(d)):
                return True
        elif not is_var and str(d.get("op", "")).startswith("call"):
            return True
    return False


def put_path(x, path: str, val):
    """``x`` with each read of ``path`` replaced by ``val`` -- not in a call's out/inout argument,
    which is written too (it reads the variable itself, as a function call statement's does:
    fuzz_exprs seed 18175, a single-case switch's copy put into ``tick(meta.ix)`` in an expression).
    Like ``ir_replace``, the result shares nothing with ``x`` (such an argument is copied as it is)."""
    return ir_replace(x, lambda d: copy.deepcopy(val) if d.get("op") in ("var", "field", "stack_idx") and ir_path(d) == path
                      else copy.deepcopy(d) if d.get("dir") in ("out", "inout") and "e" in d else None)


def same_objects(a: list, b: list) -> bool:
    """Whether two statement lists hold the very same objects (a rewrite that changed nothing keeps
    them, so the marks other passes keep by ``id`` stay valid)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
