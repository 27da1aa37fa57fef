"""Whole-stack copies and the case's own locals in what a single-case ``switch`` leaves
(:mod:`.switch_copies`), as p4c 1.2.4.8 has them by its LocalCopyPropagation.

Two things p4c's mid end does before that pass matter there (measured on its mid-end dumps and
on BMv2, fuzz_headers seed 8764):

* CopyStructures writes a copy of a whole header stack element by element: ``hdr.s = l;`` is
  ``hdr.s[0] = l[0]; hdr.s[1] = l[1]; ..`` -- so each element is a whole-header copy of its own,
  which goes on after the switch like any other (:func:`whole_step`): a later
  ``hdr.h = hdr.s[1];`` reads ``l[1]``, and a later whole-stack read (``h_t[3] m = hdr.s;``,
  ``hdr.s2 = hdr.s;``) is element copies too, each reading the element's copy
  (:func:`split_stack_read`);
* MoveDeclarations hoists the case's locals to the control, so a copy whose value is a local
  declared in the case (``h_t[3] l = hdr.s; l.push_front(1); hdr.s = l;``) stays a copy of that
  local after the switch -- which where the case did not run is still as the packet found it:
  never valid on BMv2.  :func:`hoist_case_locals` declares such a local before the switch (no
  initializer: invalid headers) and turns the case's declaration into an assignment, so the
  reads after the switch see it whether or not the case ran.

A whole stack passed to a function's ``in`` parameter is the same: p4c's inliner copies the
argument into the parameter's local (``s_1 = hdr.s;``), which CopyStructures writes element by
element, each element reading its copy -- ``hdr.h.c = f(hdr.s);`` after ``hdr.s = l;`` in the case
reads ``l_0``'s elements (:func:`split_call_args`, measured by helper opens).

Also here, for any whole-header copy: the reads p4c turns into copies of their own -- a
function's ``in`` argument, an arm of a ``?:`` value -- which get it too (:func:`whole_operands`).

A whole struct is the same (:func:`struct_member_assigns`): CopyStructures writes ``m.inner = l;`` and
``m.inner = {x, x.b + 2};`` member by member (nested structs too), so each member's copy goes on after
the switch (helper fuzz40: BMv2 reads ``x.b + 2`` in ``m.inner.v`` where the case did not run).

Only stacks of headers are split (``elem_of``: a stack type's element type); stacks of unions
are :mod:`.union_copies`' business.  Scalar values reading a case's locals are still left out
(p4c has usually put the local's own value in: ``switch_copies.single_case_copies``).
"""
from __future__ import annotations

import re

from .copy_paths import ir_path, may_write, overlap, path_reads
from .elab_common import ir_dicts

_PATH_OPS = ("var", "field", "stack_idx")


def element_of(e: dict, i: int, t: list, size: int) -> dict:
    return {"op": "stack_idx", "st": e, "i": {"op": "const", "v": i, "t": ["bit", 32]}, "t": t, "size": size}


def stack_element_copies(st: dict, dest, val, elem_of) -> list:
    """For a copy ``dest`` <- ``val`` (statement ``st``) of a whole header stack between fixed
    paths: ``[(element path, element value expression)]``, one per element, as CopyStructures
    writes it; ``[]`` for anything else."""
    if elem_of is None or dest is None or not isinstance(val, dict) or val.get("op") not in _PATH_OPS \
            or (val.get("t") or [None])[0] != "stack" or "[*]" in dest or st.get("siblings") \
            or (st.get("l") or {}).get("op") == "slice":
        return []
    src = ir_path(val)
    t = val["t"]
    et = elem_of(t)
    if src is None or "[*]" in src or overlap(src, dest) or (et or [None])[0] != "header":
        return []
    return [(f"{dest}[{i}]", element_of(val, i, et, t[2])) for i in range(t[2])]


def struct_member_assigns(st: dict, members_of) -> list | None:
    """Assignment ``st`` of a whole struct (not a header union) from a fixed path or a struct
    initializer, as CopyStructures writes it: one assignment per member, a nested struct's
    members in turn; None for anything else, or where a copy from a path reads the destination.
    An initializer reading its destination goes through a temporary first (p4c's RemoveAliases:
    ``tmp = {x, m.inner.v + 2}; m.inner = tmp;``, both then split; a declaration of the temporary
    ``v0_alias_..`` first), which LocalCopyPropagation folds: ``m.inner.v = m.inner.v + 2`` after a
    copy of ``m.inner.v`` before the switch is a copy that goes on after it (helper fuzz41).
    ``members_of``: the elaborator's ``struct_fields``."""
    if members_of is None or st.get("s") != "assign" or st.get("siblings") or st["l"].get("op") not in _PATH_OPS:
        return None
    dest, val = ir_path(st["l"]), st["r"]
    info = members_of(st["l"].get("t"))
    if dest is None or "[*]" in dest or info is None or info[1] != "struct" or not isinstance(val, dict):
        return None
    if val.get("op") == "mk" and (val.get("t") or [None])[0] == "struct":
        vals = dict(zip(val["fields"], val["vals"]))
        if any(overlap(r, dest) for r in path_reads(val)):
            tmp = {"op": "var", "n": "v0_alias_" + re.sub(r"\W", "_", dest), "t": st["l"]["t"]}
            head = struct_member_assigns({"s": "assign", "l": tmp, "r": val}, members_of)
            back = struct_member_assigns({"s": "assign", "l": st["l"], "r": tmp}, members_of)
            return None if head is None or back is None else \
                [{"s": "decl", "n": tmp["n"], "t": tmp["t"], "init": None}, *head, *back]
    elif val.get("op") in _PATH_OPS and val.get("t") == st["l"].get("t") and ir_path(val) is not None:
        vals = {f: {"op": "field", "base": val, "f": f, "t": ft} for f, ft in info[0]}
    else:
        return None
    if set(vals) != {f for f, _ in info[0]} or any(r is None or overlap(r, dest) for r in map(ir_path, (
            d for d in ir_dicts(val) if d.get("op") in _PATH_OPS))):
        return None
    out = []
    for f, ft in info[0]:
        one = {"s": "assign", "l": {"op": "field", "base": st["l"], "f": f, "t": ft}, "r": vals[f]}
        out += struct_member_assigns(one, members_of) or [one]
    return out


def struct_member(var: dict, path: str, members_of) -> dict | None:
    """Member ``path`` (``p_m.inner.ih``) of struct variable ``var`` as an expression, where every
    step to it is a struct's member (not a header's field); else None."""
    if members_of is None or not path.startswith(var["n"] + "."):
        return None
    e = var
    for f in path[len(var["n"]) + 1:].split("."):
        info = members_of(e["t"])
        ft = None if info is None or info[1] != "struct" else dict(info[0]).get(f)
        if ft is None:
            return None
        e = {"op": "field", "base": e, "f": f, "t": ft}
    return e


def split_stack_read(st: dict, copies: dict) -> list | None:
    """Assignment or declaration ``st`` that copies a whole stack holding an element with a whole
    copy in ``copies`` (``h_t[3] m = hdr.s;`` after ``hdr.s = l;`` in the case), as p4c's
    CopyStructures writes it: element by element (a declaration first without its value), so
    each element's copy can be read; None when ``st`` is no such copy."""
    k = st.get("s")
    val = st.get("r") if k == "assign" else st.get("init") if k == "decl" else None
    if not isinstance(val, dict) or val.get("op") not in _PATH_OPS or (val.get("t") or [None])[0] != "stack" \
            or st.get("siblings") or (k == "assign" and st["l"].get("op") == "slice"):
        return None
    src = ir_path(val)
    if src is None or "[*]" in src:
        return None
    et = next((w["t"] for p, w in copies.items() if w.get("op") == "whole" and p.startswith(src + "[")
               and p[len(src):].count("[") == 1 and p.endswith("]")), None)
    if et is None:
        return None
    if k == "decl":
        dest = {"op": "var", "n": st["n"], "t": st["t"]}
        head = [{"s": "decl", "n": st["n"], "t": st["t"], "init": None}]
    else:
        dest, head = st["l"], []
        dp = ir_path(dest)
        if dp is None or "[*]" in dp or overlap(dp, src):
            return None
    n = val["t"][2]
    return head + [{"s": "assign", "l": element_of(dest, i, et, n), "r": element_of(val, i, et, n)} for i in range(n)]


def _copied_stack(e, copies: dict):
    """``e``'s path when it is a whole header stack at a fixed path holding an element with a whole
    copy in ``copies``; with that element type.  (None, None) otherwise."""
    if not isinstance(e, dict) or e.get("op") not in _PATH_OPS or (e.get("t") or [None])[0] != "stack":
        return None, None
    src = ir_path(e)
    if src is None or "[*]" in src:
        return None, None
    return src, next((w["t"] for p, w in copies.items() if w.get("op") == "whole" and p.startswith(src + "[")
                      and p[len(src):].count("[") == 1 and p.endswith("]")), None)


def split_call_args(st: dict, copies: dict) -> list | None:
    """Statement ``st`` where a function call's ``in`` argument is a whole stack holding an element
    with a whole copy in ``copies`` (``hdr.h.c = f(hdr.s);`` after ``hdr.s = l;`` in the case), as
    p4c's inliner and CopyStructures have it: a local of the parameter's type given the stack
    element by element before ``st`` (so each element reads its copy) and passed instead (named
    after the stack: its value lives for the statement only); an ``inout`` one likewise, copied
    back into the stack after ``st`` -- and so is an ``inout`` header with a whole copy
    (``gi(hdr.s[1]);``: ``x = l_0; ..; hdr.s[1] = x;``).  Nested
    statement lists are left alone; None when ``st`` has no such argument."""
    head: list = []
    tail: list = []

    def arg(e, back=False):
        src, et = _copied_stack(e, copies)
        if et is None and back and isinstance(e, dict) and e.get("op") in _PATH_OPS and \
                (e.get("t") or [None])[0] == "header" and (copies.get(ir_path(e) or "") or {}).get("op") == "whole":
            tmp = {"op": "var", "n": "v0_arg_" + re.sub(r"\W", "_", ir_path(e)), "t": e["t"]}
            head.extend([{"s": "decl", "n": tmp["n"], "t": e["t"], "init": None}, {"s": "assign", "l": tmp, "r": e}])
            tail.append({"s": "assign", "l": e, "r": tmp})
            return tmp
        if et is None:
            return e
        tmp = {"op": "var", "n": "v0_arg_" + re.sub(r"\W", "_", src), "t": e["t"]}
        n = e["t"][2]
        head.append({"s": "decl", "n": tmp["n"], "t": e["t"], "init": None})
        head.extend({"s": "assign", "l": element_of(tmp, i, et, n), "r": element_of(e, i, et, n)} for i in range(n))
        if back:   # (an inout one: the inliner copies the parameter back after the body)
            tail.append({"s": "assign", "l": e, "r": tmp})
        return tmp

    out = _map_call_args(st, lambda e, d: arg(e, d == "inout"))
    return head + [out] + tail if head else None


def hoist_case_locals(sw: dict, names: set) -> None:
    """The locals ``names`` of ``sw``'s case (read by a copy that goes on after the switch) as
    p4c's MoveDeclarations leaves them: declared before the switch (``sw["ghosts"]``, no value),
    the case's declaration an assignment of its value (or nothing, where it has none)."""
    for body in (c["body"] for c in sw["cases"]):
        for d in ir_dicts(body):
            if d.get("s") == "decl" and d.get("n") in names:
                sw.setdefault("ghosts", []).append({"s": "decl", "n": d["n"], "t": d["t"], "init": None})
                init = d.get("init")
                d.clear()
                if init is None:
                    d.update({"s": "block", "body": []})
                else:
                    d.update({"s": "assign", "l": {"op": "var", "n": sw["ghosts"][-1]["n"],
                                                   "t": sw["ghosts"][-1]["t"]}, "r": init})


def whole_operands(st: dict, path: str, val: dict) -> tuple:
    """Statement ``st`` with the exact reads of header ``path`` that p4c turns into copies of their
    own put as ``val`` (its whole copy): a function's ``in`` argument (the inliner's ``x = arg;``)
    and an arm of a ``?:`` that is the statement's whole value (``tmp = ..;`` in each branch of
    the ``if`` p4c makes of it) -- measured on p4c's mid end, helper fuzz32.  Nested statement
    lists are left alone.  Returns (statement, how many reads were put)."""
    n = 0

    def arm(e):
        nonlocal n
        if isinstance(e, dict) and e.get("op") in _PATH_OPS and ir_path(e) == path:
            n += 1
            return dict(val)
        if isinstance(e, dict) and e.get("op") == "cond":
            return dict(e, a=arm(e["a"]), b=arm(e["b"]))
        return e

    key = "r" if st.get("s") == "assign" else "init" if st.get("s") == "decl" else None
    if key and isinstance(st.get(key), dict) and st[key].get("op") == "cond":
        st = dict(st, **{key: arm(st[key])})
    out = _map_call_args(st, lambda e, d: arm(e) if d == "in" and (e.get("t") or [None])[0] == "header" else e)
    return (out if n else st), n


def _map_call_args(st: dict, fn) -> dict:
    """``st`` with each function call's ``in``/``inout`` argument ``e`` put as ``fn(e, direction)``
    (a ``call_fn`` expression's parameters are all ``in``: its arguments are plain expressions);
    nested statement lists are left alone."""
    def walk(x):
        if isinstance(x, list):
            return [walk(y) for y in x]
        if not isinstance(x, dict):
            return x
        if x.get("op") == "call_fn":
            x = dict(x, args=[fn(a, "in") for a in x["args"]])
        elif x.get("op") == "call_fn_out" or x.get("s") == "call_fn":
            x = dict(x, args=[dict(a, e=fn(a["e"], a["dir"])) if a.get("dir") in ("in", "inout") else a
                              for a in x["args"]])
        return {k: (y if k in ("body", "then", "else", "cases") else walk(y)) for k, y in x.items()}
    return walk(st)


def whole_uses(x, paths) -> int:
    """How often ``x`` uses one of ``paths`` other than through a field of it."""
    if isinstance(x, list):
        return sum(whole_uses(v, paths) for v in x)
    if not isinstance(x, dict):
        return 0
    if x.get("op") in _PATH_OPS:
        p = ir_path(x)
        if p is not None and any(p.startswith((q + ".")) for q in paths) and "[*]" not in p:
            return 0   # (a field read: left as it is, and the copy goes on)
        if p is not None and any(overlap(p, q) for q in paths):
            return 1
        if p is not None:   # (another path: only its run-time index expressions may use them)
            return sum(whole_uses(d["i"], paths) for d in ir_dicts(x)
                       if d.get("op") == "stack_idx" and d["i"].get("op") != "const")
    return sum(whole_uses(v, paths) for k, v in x.items() if k != "t")


def whole_step(st: dict, path: str, w: dict) -> tuple:
    """A whole-header copy ``path`` <- ``w["v"]`` at statement ``st`` (measured on p4c's mid end):
    an assignment or declaration whose value is exactly ``path`` gets the header copied instead
    (``hdr.s[0] = hdr.s[1];`` becomes ``hdr.s[0] = hdr.o;``), so do a function's ``in`` argument
    and the arms of a ``?:`` that is the whole value (p4c's temporaries: :func:`
    whole_operands`); reads of its fields are left alone; any other use of either header --
    ``isValid()``, ``==``, an action's argument -- or a write to either ends the copy; the source
    copied whole elsewhere (``meta.inner.ih = hdr.h2;``, a function's ``in`` argument, an arm of such
    a ``?:``) does not (helper fuzz42, measured).  Returns (the statement, whether the copy ends)."""
    src = ir_path(w["v"])
    k = st.get("s")
    key = "r" if k == "assign" else "init" if k == "decl" else None
    val = st.get(key) if key else None
    whole = isinstance(val, dict) and val.get("op") in _PATH_OPS and not st.get("siblings")
    exact = whole and ir_path(val) == path
    put, n = whole_operands(st, path, w["v"])   # (a function's `in` argument, an arm of `?:`)
    # (the source copied whole is a read that ends nothing either: `meta.inner.ih = hdr.h2;`, `f(hdr.h2)`
    # for an `in` parameter, an arm of `?:` -- p4c's copies of it, helper fuzz42)
    n += whole_operands(st, src, w["v"])[1] + (1 if whole and ir_path(val) == src else 0)
    ends = whole_uses(st, (path, src)) > (1 if exact else 0) + n or may_write(st, path) or may_write(st, src)
    return (dict(put, **{key: dict(w["v"])}) if exact else put), ends
