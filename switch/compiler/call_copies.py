"""The copies p4c's LocalCopyPropagation holds for a function's out/inout arguments after a call
of it as a statement in the case of a single-case ``switch`` (:mod:`.switch_copies`).

p4c has inlined the function there (``p_1 = arg; ..body..; arg = p_1;``, the value unused where it
has one), so after the switch -- as if the case always ran -- the argument reads what the body
leaves in the parameter: the value it was last given in the caller's terms (the copy-in being the
argument's value before the call, with the case's own copies put in: ``h.b = 5; f1(h.b);`` with
``p = p + 1`` leaves 6, fuzz36's open item), or -- after a join -- the parameter's own variable, a
control local the caller makes that stays zero where the case did not run (fuzz_exprs seed 11091).
:func:`call_copies` works on the body as :func:`.switch_copies._straight` flattens it (plain blocks
opened, folded ``if`` arms taken, constant loops unrolled), which the caller passes in.
"""
from __future__ import annotations

from .copy_paths import ir_path, may_write, overlap, path_reads, put_path
from .elab_common import ir_dicts
from .header_init import has_method_call

_SCALAR = ("bit", "int", "bool")
_BOOL = ["bool"]


def _returns_before_last(x: dict) -> bool:
    """A ``for (.. in {..})`` over two values or more whose body may return: p4c's spelling has
    the loop unrolled, so the last pass runs under RemoveReturns' flag (fuzz_exprs seed 11091)."""
    return x.get("s") == "for_in" and isinstance(x.get("values"), list) and len(x["values"]) > 1 and \
        any(d.get("s") == "return" for d in ir_dicts(x["body"]))


def call_copies(st: dict, rec: dict | None, flat: list | None, outer: dict) -> dict:
    """What p4c's LocalCopyPropagation holds for the out/inout arguments of function call ``st``
    after it (p4c has inlined the body: ``p_1 = arg; ...body...; arg = p_1;``; probes measured on
    p4c's mid end): path -> (type, value), the value None where it is the parameter's variable
    (a write after a join -- an ``if``, or anything after a conditional ``return``, which
    RemoveReturns puts under a flag), else the expression the body's straight-line part leaves in
    it, in the caller's terms (the in-arguments put in for the parameters).  Left out (the
    argument's copy simply ends): anything this does not follow (loops, switches and calls that
    write it, p4c may know its value), a value reading the function's own variables or another
    out/inout argument, non-scalar arguments.  ``outer``: the case's copies before the call."""
    if rec is None or flat is None:
        return {}
    params = rec["params"]
    args = st["args"]
    mine = {p["py"] for p in params} | {d.get("n") for d in ir_dicts(rec["body"]) if d.get("s") == "decl"}
    outs = {}
    for p, a in zip(params, args):
        path = ir_path(a["e"]) if a.get("dir") in ("out", "inout") else None
        if path is not None and "[*]" not in path and a["e"].get("op") != "slice" and \
                (p["t"] or [None])[0] in _SCALAR and p["t"] == a["e"].get("t"):
            outs[p["py"]] = (path, p["t"])
    if not outs:
        return {}
    written = [ir_path(a["e"]) for a in args if a.get("dir") in ("out", "inout")]
    avail: dict = {}
    for p, a in zip(params, args):   # (the copy-in `p_1 = arg`, with the case's copies put in)
        if p["dir"] in ("in", "inout") and (p["t"] or [None])[0] in _SCALAR and not has_method_call(a["e"]):
            val = a["e"]
            for q, v in outer.items():
                val = put_path(val, q, v)
            avail[p["py"]] = val
    ghost: set = set()
    joined = False   # (a return may have happened: the rest is under RemoveReturns' flag)
    for x in flat:
        if x.get("s") == "return":
            break
        if x.get("s") == "assign":
            dest, val = ir_path(x["l"]), x["r"]
        elif x.get("s") == "decl" and x.get("init") is not None:
            dest, val = x["n"], x["init"]
        else:
            dest = val = None
        if val is not None:
            for q, v in avail.items():
                val = put_path(val, q, v)
        for q in [q for q, v in avail.items() if may_write(x, q) or any(may_write(x, r) for r in path_reads(v))]:
            del avail[q]
        hit = [q for q in outs if may_write(x, q)]
        plain = dest in outs and not joined and x.get("s") == "assign" and x["l"].get("op") == "var"
        for q in hit:
            if plain and q == dest:
                continue
            if joined or x.get("s") == "if" or (x.get("s") == "assign" and q == dest) or _returns_before_last(x):
                ghost.add(q)
            else:
                ghost.discard(q)
                outs[q] = None   # (not followed: p4c may know a value)
        if plain and not has_method_call(val) and val.get("op") not in ("list", "mk") \
                and not any(overlap(r, dest) for r in path_reads(val)):
            ghost.discard(dest)
            avail[dest] = val
        elif plain:
            ghost.add(dest)
        elif dest is not None and dest not in outs and "." not in dest and "[" not in dest and \
                not joined and x.get("s") in ("assign", "decl") and not has_method_call(val) and \
                val.get("op") not in ("list", "mk") and not any(overlap(r, dest) for r in path_reads(val)):
            avail[dest] = val   # (a local of the function: its copy goes on into what reads it)
        if any(d.get("s") == "return" for d in ir_dicts(x)):
            joined = True
    out = {}
    for q, got in outs.items():
        if got is None:
            continue
        path, t = got
        if q in avail:
            val = avail[q]
            reads = path_reads(val)
            if any(r.split(".")[0].split("[")[0] in mine or r == q for r in reads) or \
                    any(w is None or overlap(w, r) for w in written for r in reads):
                continue
            out[path] = (t, val)
        elif q in ghost:
            out[path] = (t, None)
    return out


def call_guard(st: dict, call: dict):
    """When the call ``call`` (a node of statement ``st``) runs: True where always, else the
    condition of the ``?:`` arms and ``&&``/``||`` right operands it sits under (p4c's front-end
    SideEffectOrdering makes each an ``if`` around the inlined call), a conjunction; None where
    that is not followed: a condition that calls a function, or reads what another call in ``st``
    may write (evaluated once more before ``st``)."""
    def walk(e, conds):
        if e is call:
            return conds
        if not isinstance(e, dict):
            return None
        if e.get("op") == "cond":
            for k, c in (("a", e["c"]), ("b", {"op": "un", "o": "!", "a": e["c"], "t": _BOOL})):
                got = walk(e[k], conds + [c])
                if got is not None:
                    return got
            return walk(e["c"], conds)
        if e.get("s") == "if":   # (a statement's arms: the same guards)
            for k, c in (("then", e["c"]), ("else", {"op": "un", "o": "!", "a": e["c"], "t": _BOOL})):
                for x in e.get(k) or []:
                    got = walk(x, conds + [c])
                    if got is not None:
                        return got
            return walk(e["c"], conds)
        if e.get("op") == "bin" and e.get("o") in ("&&", "||"):
            c = e["a"] if e["o"] == "&&" else {"op": "un", "o": "!", "a": e["a"], "t": _BOOL}
            got = walk(e["b"], conds + [c])
            if got is not None:
                return got
        for v in e.values():
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, dict):
                    got = walk(x, conds)
                    if got is not None:
                        return got
        return None
    conds = walk(st, [])
    if not conds:
        return None if conds is None else True
    if any(has_method_call(c) or any(d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(c)) for c in conds):
        return None
    others = [d for d in ir_dicts(st) if d is not call and d.get("op") in ("call_fn", "call_fn_out")]
    if any(may_write(o, r) for o in others for c in conds for r in path_reads(c)):
        return None
    out = conds[0]
    for c in conds[1:]:
        out = {"op": "bin", "o": "&&", "a": out, "b": c, "t": _BOOL}
    return out
