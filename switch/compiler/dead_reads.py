"""Dead stores whose value reads a header stack at a run-time index.

p4c's def-use passes remove an assignment whose target is overwritten before anything reads it;
BMv2 then never evaluates its right-hand side.  That matters where the evaluation can fail: a read
of ``hdr.s[i]`` with ``i`` past the stack's end (simple_switch 1.15.5 dies on such a read, or
checkmate-switch drops the packet there).  ``hdr.s[1] = hdr.s[i]; ...; hdr.s[1] = {9};`` forwards
the packet on BMv2 whatever ``i`` is (fuzz_exprs seed 6144, egress; the same in ingress), so the
first store is dropped here too.

Only straight-line code is looked at (the statements that follow in the same block, through plain
nested blocks): the store is dead when a later assignment writes all of its target (the same path,
or the whole header or struct holding it) before any statement reads an overlapping path; any other
statement (a call, an ``if``, a table apply ...) ends the search and the store stays.  A store whose
right-hand side calls anything stays too.
"""
from __future__ import annotations

from .elab_common import ir_dicts
from .switch_copies import ir_path as _path, overlap as _overlap
from .header_init import _has_method_call

_PATH_OPS = ("var", "field", "stack_idx")


def _reads(e, out: list) -> list:
    """The paths expression ``e`` reads (a path's run-time index expressions too)."""
    if isinstance(e, list):
        for x in e:
            _reads(x, out)
    elif isinstance(e, dict):
        p = _path(e) if e.get("op") in _PATH_OPS else None
        if p is not None:
            out.append(p)
            for d in ir_dicts(e):
                if d.get("op") == "stack_idx" and d["i"].get("op") != "const":
                    _reads(d["i"], out)
        else:
            for v in e.values():
                _reads(v, out)
    return out


def _dyn_read(e) -> bool:
    return any(d.get("op") == "stack_idx" and d["i"].get("op") != "const" for d in ir_dicts(e))


def _flat(stmts: list):
    for st in stmts:
        if st.get("s") == "block":
            yield from _flat(st["body"])
        else:
            yield st


def _dead(target: str, rest) -> bool:
    for st in rest:
        if st.get("s") != "assign":
            return False
        lp = _path(st["l"])
        reads = _reads(st["r"], []) + [p for d in ir_dicts(st["l"]) if d.get("op") == "stack_idx"
                                       and d["i"].get("op") != "const" for p in _reads(d["i"], [])]
        if lp is None or any(_overlap(r, target) for r in reads):
            return False
        if st["l"].get("op") != "slice" and "[*]" not in lp and \
                (lp == target or target.startswith(lp + ".") or target.startswith(lp + "[")):
            return True   # (all of the target written: the store is dead)
    return False


def drop_dead_indexed_reads(stmts: list) -> list:
    """``stmts`` without the stores described in the module docstring."""
    out = []
    for i, st in enumerate(stmts):
        if st.get("s") == "assign" and _dyn_read(st["r"]) and not _has_method_call(st["r"]):
            target = _path(st["l"])
            if target is not None and "[*]" not in target and _dead(target, _flat(stmts[i + 1:])):
                continue
        out.append(st)
    return out
