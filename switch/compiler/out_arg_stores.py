"""Stores a sub-control's ``out`` argument makes dead: p4c drops them, BMv2 never runs them.

p4c's front-end def-use (SimplifyDefUse, before the inliner) counts an ``out`` argument of a
sub-control apply as a write of the whole argument, so a store to it that nothing reads before the
apply is dead and gone from p4c's JSON.  The inliner then passes a scalar ``out`` argument in place
without initialising it (``hdr.h.a`` is the body's ``o``: ``if (sel == 1) { hdr.h.a = 9; }``), so
where the body writes nothing the caller's variable keeps the value it had *before* the dropped
store: ``hdr.h.a = 5; s.apply(hdr.h.b, hdr.h.a);`` with ``S(in bit<8> sel, out bit<8> o) { apply {
if (sel == 1) { o = 9; } } }`` leaves the packet's ``h.a`` where ``h.b`` is not 1 (measured on
simple_switch 1.15.5, lead s58 probes; ``--top4 FrontEnd_57_InlineFunctions`` shows the store gone).
The runtime starts such a parameter from the caller's value (``switch.runtime.gen_subcontrol``);
here the dead stores go, as p4c's pass leaves them: straight-line code and through ``if``/``switch``
arms as :func:`.dead_reads._store_fate` walks them, a store decided by an apply's ``out`` argument
only (other dead stores change nothing BMv2 shows and are left alone).  A declaration's initialiser
so decided becomes 0 (BMv2's fresh local).
"""
from __future__ import annotations

from .copy_paths import ir_path, overlap, path_reads
from .dead_reads import _covers, _store_fate, flat_blocks
from .elab_common import ir_dicts
from .exit_blind_stores import bit_span, mux_leftovers
from .header_init import has_method_call

_SCALAR = ("bit", "int", "bool")


def apply_fate(st: dict, target: str, span=None):
    """What the ``apply_control`` ``st`` does to a store to ``target`` before it: ``"apply"`` where
    a scalar ``out`` argument writes all of it, False where an argument reads it (an ``in``/``inout``
    one, a run-time index) or an aggregate ``out`` one overlaps it, None where no argument touches
    it (a sub-control reaches the caller's variables only through its arguments)."""
    kills = False
    for a in st.get("args", ()):
        e = a.get("e") or {}
        reads = [p for d in ir_dicts(e) if d.get("op") == "stack_idx" and d["i"].get("op") != "const"
                 for p in path_reads(d["i"], [])]
        if a.get("dir") != "out":
            reads += [ir_path(e)] if ir_path(e) is not None else path_reads(e, [])
        if any(r is not None and overlap(r, target) for r in reads):
            return False
        if a.get("dir") != "out":
            continue
        p = ir_path(e)
        if p is None or not overlap(p, target):
            continue
        if (e.get("t") or [None])[0] not in _SCALAR or not _covers(e, target, span):
            return False
        kills = True
    return "apply" if kills else None


def drop_stores_before_out_args(stmts: list, after: tuple = ()) -> None:
    """In place, through nested blocks, ``if`` arms and ``switch`` cases: the stores (and local
    initialisers) of ``stmts`` that a later sub-control apply's ``out`` argument overwrites before
    anything reads them (module docstring).  ``after``: the statement lists that follow ``stmts``."""
    if not any(d.get("s") == "apply_control" for d in ir_dicts([stmts, list(after)])):
        return
    # (last statement first: a store dropped here makes the one before it dead too --
    # ``bit<8> m = hdr.h.a + 1; m = 33; s.apply(sel, m);`` leaves ``m`` 0 on BMv2, lead59)
    for i in range(len(stmts) - 1, -1, -1):
        st = stmts[i]
        rest = (stmts[i + 1:],) + tuple(after)
        k = st.get("s")
        if k == "assign" and (st["l"].get("t") or [None])[0] in _SCALAR and not has_method_call(st["r"]) \
                and not st.get("siblings"):
            lp = ir_path(st["l"])
            if lp is not None and "[*]" not in lp and _dead(lp, rest, bit_span(st["l"])):
                stmts[i:i + 1] = mux_leftovers(st)   # (a ``?:`` condition's emptied ``if`` stays)
        elif k == "decl" and st.get("init") is not None and (st.get("t") or [None])[0] in ("bit", "int") \
                and not (st["init"].get("op") == "const" and not st["init"].get("v")):
            if not has_method_call(st["init"]) and _dead(st["n"], rest, None):
                st["init"] = {"op": "const", "v": 0, "t": st["t"]}
        elif k == "block":
            drop_stores_before_out_args(st["body"], rest)
        elif k == "if":
            for arm in ("then", "else"):
                if st.get(arm):
                    drop_stores_before_out_args(st[arm], rest)
        elif k == "switch_value":
            for c in st["cases"]:
                drop_stores_before_out_args(c["body"], rest)


def _dead(target: str, rest: tuple, span) -> bool:
    flat = [s for lst in rest for s in flat_blocks(lst)]
    return _store_fate(target, flat, None, span, apply_fate) == "apply"


def drop_all(bodies) -> None:
    """:func:`drop_stores_before_out_args` over the control bodies (``blocks``) and sub-control
    bodies (``subcontrols``) of an IR."""
    for b in bodies:
        if isinstance(b, dict) and isinstance(b.get("body"), list):
            drop_stores_before_out_args(b["body"])
