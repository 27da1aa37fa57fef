"""What p4c 1.2.4.8's LocalCopyPropagation makes of a whole-header copy into or out of a header
union member (helper fuzz23; fuzz20's strict xfail).

The pass tracks values by name: after ``lu.w = X;`` a later whole-header read of ``lu.w`` is
``X`` until something writes ``lu.w`` (or ``lu``) or what ``X`` names -- by name only, so a write
or ``setValid()`` of a sibling member (``lu.x = hdr.h;``, an action writing ``lu.x``, an action's
copy-back into it) does not end it, although on BMv2 it has invalidated ``lu.w``.  So
``lu.w = hdr.u.w; lu.x = hdr.h; hdr.u.w = lu.w;`` is ``hdr.u.w = hdr.u.w`` for p4c -- a no-op it
removes -- and BMv2 keeps the parsed ``u.w`` valid where running the statements would copy the
invalidated ``lu.w``.  Not the other way round: a value that reads a union member counts as
using its siblings too (p4c's exprUses), so ``t = hdr.u.x; hdr.u.w.setValid(); hdr.h2 = t;``
copies ``t`` (measured); copies into headers that are no union members mean the same either way
and are left alone.

:func:`propagate_union_copies` does this from each copy on through the rest of its statement
list: the walk stops at anything that may write either name (an assignment, validity change,
stack push/pop, a function's out/inout argument, an action whose body or copy-back writes it), at
a use of either header as a whole (``isValid()``, which p4c 1.2.4.8 takes as a write, ``==``, an
``in`` argument: measured, helper fuzz30) and at every other kind of statement (a ``switch`` on a
value, table applies, externs: not followed); it goes through plain blocks, both branches of an
``if`` (on past it when neither ends the copy), a table apply -- and the cases of a ``switch`` on
its action -- whose actions write neither and whose keys use neither (fuzz31) and a sub-control body p4c has inlined (``copies_in``: the
body's reads get the copy, :func:`.subcontrol_copies.specialize_subcontrols`; also where the body
returns or exits: helper opens2).  Nothing here imports
the elaborator.

A whole-union copy is p4c's member by member (CopyStructures, before LocalCopyPropagation):
``r = lu;`` is ``r.x = lu.x; r.w = lu.w;`` in declaration order, so each member's copy is carried
on its own -- past a write of a sibling (``r.x = hdr.h;``) to a whole-union read of ``r``, itself
split (``lv = r;`` becomes ``lv.x = r.x; lv.w = hdr.u.w;``: on BMv2 ``lv.w`` takes the parsed,
valid ``hdr.u.w`` after ``lv.x``, where running the statements copies the invalidated ``r.w``;
helper fuzz31's local-union probes; also a function's ``u_t r = q; r.x = h; return r;``, which
p4c inlines: the return variable's ``w`` takes ``q.w``; and a struct holding a union, split down
to the union's members).  :func:`_split_unions` splits a statement list's whole-union copies
between paths; a split that nothing changed is put back whole (the same on BMv2).  Parser states
get this too (p4c's pass runs on each state's statements).
"""
from __future__ import annotations

from .elab_common import has_call, ir_dicts
from .copy_paths import ir_path, overlap, same_objects
from .switch_copies import passes_subcontrol

#: statement kinds the walk looks into (anything else ends it)
_FOLLOWED = ("assign", "setvalid", "decl", "call_action", "call_fn", "empty", "nop")


def _writes(st: dict, path: str, actions: dict) -> bool:
    """Whether ``st`` (one of :data:`_FOLLOWED`) may write ``path`` by p4c's names (a union
    member's siblings are not written)."""
    k = st.get("s")
    if k in ("empty", "nop"):
        return False
    if k == "decl":
        return overlap(st["n"], path)
    if k == "assign":
        p = ir_path(st["l"])
        return p is None or overlap(p, path) or has_call(st["r"])
    if k == "setvalid":
        p = ir_path(st["h"])
        return p is None or overlap(p, path)
    if k == "call_fn":
        return any(a.get("dir") in ("out", "inout") and (ir_path(a["e"]) is None or overlap(ir_path(a["e"]), path))
                   for a in st["args"]) or any(has_call(a.get("e")) for a in st["args"])
    if k == "call_action":
        if any(a.get("dir") in ("out", "inout") and (ir_path(a["e"]) is None or overlap(ir_path(a["e"]), path))
               for a in st["args"]) or any(has_call(a.get("e")) for a in st["args"]):
            return True
        act = actions.get(st["action"])
        if act is None or act.get("body") is None:
            return True
        params = {p["py"] for p in act.get("params") or ()}
        for d in ir_dicts(act["body"]):
            s = d.get("s")
            if s is None:
                if str(d.get("op", "")).startswith("call"):
                    return True
                continue
            if s not in _FOLLOWED and s not in ("if", "block", "switch_value", "return", "exit"):
                return True   # (a table, an extern, a stack operation ...: not followed)
            if s in ("call_action", "call_fn"):
                return True
            lv = d.get("l") if s == "assign" else d.get("h") if s == "setvalid" else None
            if lv is not None:
                p = ir_path(lv)
                if p is None or (p.split(".")[0].split("[")[0] not in params and overlap(p, path)):
                    return True
        return False
    return True


def _whole_use(e, paths) -> bool:
    """Whether ``e`` uses one of ``paths`` other than through a field of it."""
    if isinstance(e, list):
        return any(_whole_use(v, paths) for v in e)
    if not isinstance(e, dict):
        return False
    if e.get("op") in ("var", "field", "stack_idx"):
        p = ir_path(e)
        if p is not None:
            if any(q and overlap(p, q) and not p.startswith((q + ".", q + "[")) for q in paths):
                return True
            return any(_whole_use(n["i"], paths) for n in ir_dicts(e)
                       if n.get("op") == "stack_idx" and n["i"].get("op") != "const")
    return any(_whole_use(v, paths) for k, v in e.items() if k != "t")


#: compound statements and their statement lists (:func:`_split_unions` goes into them)
_ARMS = {"block": ("body",), "if": ("then", "else")}


def _split_unions(stmts: list, struct_fields, groups: list | None = None, rebuilt: dict | None = None) -> tuple:
    """``stmts`` with each whole copy between paths of a header union, or of a struct or stack
    holding one (an assignment, a declaration's initializer, a function's ``return``: into a
    variable it then returns), as member assignments (``struct_fields(t)``: ``([(name, type)],
    "union" | "struct" | "stack")``, else None), also in blocks and branches; and ``[(statement,
    [its parts])]``, ``{id(rebuilt compound): the original}``."""
    groups = [] if groups is None else groups
    rebuilt = {} if rebuilt is None else rebuilt
    out = []
    for st in stmts:
        k = st.get("s") if isinstance(st, dict) else None
        if k in _ARMS or k == "switch_action":
            if k == "switch_action":
                cases = [_split_unions(c["body"], struct_fields, groups, rebuilt)[0] for c in st["cases"]]
                new = st if all(same_objects(a, c["body"]) for a, c in zip(cases, st["cases"])) else \
                    dict(st, cases=[dict(c, body=a) for a, c in zip(cases, st["cases"])])
            else:
                arms = {a: _split_unions(st[a], struct_fields, groups, rebuilt)[0] for a in _ARMS[k] if st.get(a)}
                new = st if all(same_objects(v, st[a]) for a, v in arms.items()) else dict(st, **arms)
            if new is not st:
                rebuilt[id(new)] = (new, st)
            out.append(new)
            continue
        if k == "assign":
            lhs, rhs, head = st["l"], st["r"], []
        elif k == "decl" and isinstance(st.get("init"), dict):
            lhs, rhs = {"op": "var", "n": st["n"], "t": st["t"]}, st["init"]
            head = [dict(st, init=None)]
        elif k == "return" and isinstance(st.get("v"), dict) and ir_path(st["v"]) is not None:
            # (a function's `return r;`: p4c's inliner assigns its return variable, member by member)
            rhs = st["v"]
            n = "v_ret_" + "".join(c if c.isalnum() else "_" for c in ir_path(rhs))
            lhs = {"op": "var", "n": n, "t": rhs.get("t")}
            head = [{"s": "decl", "n": n, "t": rhs.get("t"), "init": None}]
        else:
            out.append(st)
            continue
        lp, rp = ir_path(lhs), ir_path(rhs)
        if struct_fields is None or lp is None or rp is None or "[*]" in lp + rp or overlap(lp, rp) or \
                rhs.get("t") != lhs.get("t") or not _holds_union(lhs.get("t"), struct_fields):
            out.append(st)
            continue
        parts = head + _member_copies(lhs, rhs, struct_fields)
        if k == "return":
            parts.append(dict(st, v=lhs))
        groups.append((st, parts))
        out.extend(parts)
    return out, groups, rebuilt


def _holds_union(t, struct_fields) -> bool:
    got = struct_fields(t)
    return got is not None and (got[1] == "union" or any(_holds_union(ft, struct_fields) for _, ft in got[0]))


def _member_copies(lhs: dict, rhs: dict, struct_fields) -> list:
    """``lhs = rhs;`` (a union, or a struct or stack holding one) as p4c's CopyStructures writes it:
    a copy per member (element), in declaration order, itself split where it holds a union."""
    fields, kind = struct_fields(lhs.get("t"))

    def member(e, f, t):
        if kind == "stack":
            return {"op": "stack_idx", "st": e, "i": {"op": "const", "v": f, "t": ["bit", 32]}, "t": t,
                    "size": len(fields)}
        return {"op": "field", "base": e, "f": f, "t": t}
    out = []
    for f, t in fields:
        ml, mr = member(lhs, f, t), member(rhs, f, t)
        if _holds_union(t, struct_fields):
            out.extend(_member_copies(ml, mr, struct_fields))
        elif kind == "union":
            out.append({"s": "assign", "l": ml, "r": mr, "siblings": [member(lhs, g, u) for g, u in fields if g != f]})
        else:
            out.append({"s": "assign", "l": ml, "r": mr})
    return out


def _unsplit(stmts: list, groups: list, rebuilt: dict) -> list:
    """Each group of :func:`_split_unions` whose parts all stay as they were put back whole (and a
    compound statement rebuilt for it that is then as it was, the original)."""
    ids = {id(d) for d in ir_dicts(stmts)}
    back = {}
    for st, parts in groups:
        if all(id(p) in ids for p in parts):
            back[id(parts[0])] = st
            back.update((id(p), None) for p in parts[1:])

    def fix(lst: list) -> list:
        out = []
        for st in lst:
            if st is not None and id(st) in back:
                st = back[id(st)]
            if st is None:
                continue
            k = st.get("s") if isinstance(st, dict) else None
            if k in _ARMS or k == "switch_action":
                orig = rebuilt.get(id(st), (None, None))
                orig = orig[1] if orig[0] is st else None
                if k == "switch_action":
                    cases = [fix(c["body"]) for c in st["cases"]]
                    if orig is not None and all(same_objects(a, c["body"]) for a, c in zip(cases, orig["cases"])):
                        st = orig
                    elif not all(same_objects(a, c["body"]) for a, c in zip(cases, st["cases"])):
                        st = dict(st, cases=[dict(c, body=a) for a, c in zip(cases, st["cases"])])
                else:
                    arms = {a: fix(st[a]) for a in _ARMS[k] if st.get(a)}
                    if orig is not None and all(same_objects(v, orig.get(a) or []) for a, v in arms.items()):
                        st = orig
                    elif not all(same_objects(v, st[a]) for a, v in arms.items()):
                        st = dict(st, **arms)
            out.append(st)
        return out
    return fix(stmts)


def propagate_union_copies(stmts: list, actions: dict, is_union_member, expand=None, struct_fields=None,
                           tables=None) -> list:
    """``stmts`` with each whole-header read of ``D`` after ``D = X;`` (``D`` a union member,
    ``is_union_member``) replaced by ``X`` while nothing writes ``D`` or what ``X`` uses (see the
    module docstring); an assignment that becomes ``X = X`` is dropped, as p4c removes it.  A
    sub-control apply (``expand``: its body as p4c's inliner pastes it,
    ``elab_unions.inlined_for_copies``) gets the copy for its body's reads (``copies_in``, as a
    whole-header copy: ``subcontrol_copies.specialize_subcontrols``) and the walk goes on past it when
    the body writes neither (fuzz_headers seed 8205: ``hdr.u.x = hdr.h; hdr.u.w.setValid();
    s1.apply(hdr, meta);`` with ``mm.mh = hh.u.x;`` in the body copies the valid ``hdr.h``).
    Whole-union copies are carried member by member (``struct_fields``, :func:`_split_unions`); a
    table apply, and a ``switch`` on its action as an ``if`` (``tables``), are walked when no action
    of the table writes either header (fuzz31: ``lu = hdr.u; switch (t.apply().action_run) { a1: { lu.x =
    hdr.h; } } lv = lu;`` gives ``lv.w = hdr.u.w`` for p4c)."""
    out, groups, rebuilt = _split_unions(stmts, struct_fields)
    out = _propagate(out, actions, is_union_member, expand, tables)
    return _unsplit(out, groups, rebuilt)


def _propagate(stmts: list, actions: dict, is_union_member, expand, tables) -> list:
    """The walk of :func:`propagate_union_copies` from each copy in ``stmts`` in program order,
    going into blocks, branches and switch cases after the copies before them have been put in
    (p4c's pass is one forward walk: ``r = lu; r.x = h; { lv = r; hdr.u = lv; }`` has ``lv.w =
    hdr.u.w`` in the block, ended by ``hdr.u.x = ..``; elaborated blocks are only walked from the
    body's top, ``elab_statements``)."""
    out = list(stmts)
    for i, st in enumerate(out):
        if st is None:
            continue
        k = st.get("s")
        if k in _ARMS:
            arms = {a: [b for b in _propagate(st[a], actions, is_union_member, expand, tables) if b is not None]
                    for a in _ARMS[k] if st.get(a)}
            if not all(same_objects(v, st[a]) for a, v in arms.items()):
                out[i] = dict(st, **arms)
            continue
        if k == "switch_action":
            cases = [[b for b in _propagate(c["body"], actions, is_union_member, expand, tables) if b is not None]
                     for c in st["cases"]]
            if not all(same_objects(a, c["body"]) for a, c in zip(cases, st["cases"])):
                out[i] = dict(st, cases=[dict(c, body=a) for a, c in zip(cases, st["cases"])])
            continue
        if k == "assign" and (st["l"].get("t") or [None])[0] == "header":
            dest, val = st["l"], st["r"]
        elif k == "decl" and (st.get("t") or [None])[0] == "header" and isinstance(st.get("init"), dict):
            dest, val = {"op": "var", "n": st["n"]}, st["init"]   # (`h_t t = hdr.u.x;`)
        else:
            continue
        d, x = ir_path(dest), ir_path(val)
        if d is None or x is None or "[*]" in d + x or overlap(d, x) or not is_union_member(dest):
            continue
        if is_union_member(val):   # (p4c's exprUses: a value reading a union member uses its siblings)
            x = ir_path(val["base"]) or x
        out[i + 1:] = _carry(out[i + 1:], d, x, val, actions, expand, (d, ir_path(val)), tables)[0]
    return out


def _carry(sts: list, d: str, x: str, val: dict, actions: dict, expand, paths: tuple, tables=None) -> tuple:
    """``sts`` with the whole-header reads of ``d`` replaced by ``val`` (path ``x``) up to a
    statement that may write either or uses one of them (``paths``) as a whole other than as the
    value it copies -- ``isValid()`` (p4c 1.2.4.8 takes it as a write of the header), ``==``, an
    ``in`` argument (measured: ``hdr.u.x = hdr.h; m = hdr.h.isValid() ? 1 : 2; hdr.u.w.setValid();
    hdr.h2 = hdr.u.x;`` keeps ``hdr.u.x``; a field read, or a sibling's ``isValid()``, does not end
    it); plain blocks and both branches of an ``if`` whose condition uses none
    of them are walked through (p4c's join keeps the copy when neither branch ends it;
    fuzz_headers seed 8205 has one between the copy and the apply; spec5_union_member_assign
    one whose condition reads ``u.x.isValid()``, where p4c leaves the branch's ``u.y = u.x``).
    Returns (the statements, whether the copy reaches their end); an assignment that becomes
    ``X = X`` is None."""
    def uses(e) -> bool:
        return _whole_use(e, paths)
    out = list(sts)
    for j, nxt in enumerate(out):
        if nxt is None:
            continue
        k = nxt.get("s")
        if k == "block":
            body, alive = _carry(nxt["body"], d, x, val, actions, expand, paths, tables)
            if not same_objects(body, nxt["body"]):   # (unchanged statements stay the same objects: marks keep their ids)
                out[j] = dict(nxt, body=[b for b in body if b is not None])
            if not alive:
                return out, False
            continue
        if k == "if":
            if has_call(nxt["c"]) or uses(nxt["c"]):
                return out, False
            arms = {a: _carry(nxt.get(a) or [], d, x, val, actions, expand, paths, tables) for a in ("then", "else")}
            if not all(same_objects(arms[a][0], nxt.get(a) or []) for a in arms):
                out[j] = dict(nxt, **{a: [b for b in arms[a][0] if b is not None] for a in arms if nxt.get(a)})
            if not all(alive for _, alive in arms.values()):
                return out, False
            continue
        if k in ("switch_action", "apply") and tables is not None:
            # (p4c follows the cases as an `if`'s branches; the table's actions must write neither)
            tab = tables.get(nxt.get("table"))
            if tab is None or any(uses(kk.get("expr")) for kk in tab.get("keys") or ()) or \
                    any(ta.get("bound") or _writes({"s": "call_action", "action": ta.get("name"), "args": []}, q, actions)
                        for ta in tab.get("actions") or () for q in (d, x)):
                return out, False
            if k == "apply":
                continue
            arms = [_carry(c["body"], d, x, val, actions, expand, paths, tables) for c in nxt["cases"]]
            if not all(same_objects(got, c["body"]) for (got, _), c in zip(arms, nxt["cases"])):
                out[j] = dict(nxt, cases=[dict(c, body=[b for b in got if b is not None])
                                          for (got, _), c in zip(arms, nxt["cases"])])
            if not all(alive for _, alive in arms):
                return out, False
            continue
        if k == "apply_control" and expand is not None:
            body = expand(nxt)
            if body is None:
                return out, False
            nxt.setdefault("copies_in", {})[d] = {"op": "whole", "v": dict(val), "t": val.get("t")}
            if not passes_subcontrol(nxt, body, [d, x], returns_end=False, exits_end=False):
                # (p4c carries a member's copy on past a body that returns or exits: probed by
                # helper opens2, `opens2_union_copy_past_a_sub_control_with_*`,
                # and mutz36 for a local union's member)
                return out, False
            continue
        if k == "return" and isinstance(nxt.get("v"), dict) and ir_path(nxt["v"]) == d and \
                nxt["v"].get("op") in ("var", "field", "stack_idx"):
            out[j] = dict(nxt, v=dict(val))   # (a function's `return q.w;`: p4c's return variable takes the copy)
        if k in ("exit", "return") and nxt.get("v") is None:
            return out, True   # (the path ends: p4c's join takes the other branch's copies)
        if k not in _FOLLOWED:
            return out, False
        r = "r" if k == "assign" else "init" if k == "decl" else None
        if r and isinstance(nxt.get(r), dict) and ir_path(nxt[r]) == d and nxt[r].get("op") in ("var", "field", "stack_idx"):
            if k == "assign" and ir_path(nxt["l"]) == x:
                out[j] = None   # (`X = X`: p4c removes the no-op)
                continue
            # (p4c's front-end def-use ran before this mid-end pass: it saw the read of ``d``, which
            # union_defuse.touches still counts -- helper mutz46, `lu.p = hdr.h; U c = lu;` keeps `lu.p = ..`)
            out[j] = nxt = dict(nxt, **{r: dict(val)}, fe_whole_reads=sorted({*nxt.get("fe_whole_reads", ()), d}))
        elif uses(nxt.get(r) if r else [a.get("e") for a in nxt.get("args") or () if a.get("dir") not in ("out", "inout")]):
            return out, False
        if _writes(nxt, d, actions) or _writes(nxt, x, actions):
            return out, False
    return out, True


#: statement kinds an action or function body may hold for :func:`propagate_param_union_copies`
_PARAM_BODY = ("assign", "setvalid", "decl", "if", "block", "empty", "nop", "return", "exit")


def propagate_param_union_copies(body: list, params: list, struct_fields, is_union_member) -> list:
    """An action's or function's ``inout`` header-union parameter as p4c's inliner gives it: a
    copy of the argument (``q_0 = hdr.u;``, split member by member), so after ``q.x = hdr.h;`` a
    read of ``q.w`` is the argument's ``hdr.u.w`` for LocalCopyPropagation -- valid on BMv2
    where ``q.w`` has been invalidated (fuzz31's local-union probe: ``action a(inout u_t q) {
    q.x = hdr.h; meta.mw = q.w; }``; and ``{ u_t r = q; r.x = hdr.h; q = r; }`` ends with ``q.w =
    v_in_q.w``, valid again).  ``body`` reads a snapshot of the parameter taken on entry
    (``v_in_<param>``) where p4c reads the argument: until something writes the member by name.
    Left alone where the body may write the argument (a union or union member outside its own
    parameters and locals) or holds anything else (calls, tables, loops, switches)."""
    if len(body) == 1 and isinstance(body[0], dict) and body[0].get("s") == "block":   # (the body's braces)
        got = propagate_param_union_copies(body[0]["body"], params, struct_fields, is_union_member)
        return body if got is body[0]["body"] else [dict(body[0], body=got)]
    mine = {p["py"] for p in params} | {d.get("n") for d in ir_dicts(body) if d.get("s") == "decl"}
    for d in ir_dicts(body):
        k = d.get("s")
        if k is None:
            if str(d.get("op", "")).startswith("call"):
                return body
            continue
        if k not in _PARAM_BODY:
            return body
        lv = d.get("l") if k == "assign" else d.get("h") if k == "setvalid" else None
        p = ir_path(lv) if lv is not None else None
        if lv is not None and (p is None or p.split(".")[0].split("[")[0] not in mine) and \
                (is_union_member(lv) or _holds_union(lv.get("t"), struct_fields)):
            return body
    out, groups, rebuilt = _split_unions(body, struct_fields)
    snaps = []
    for prm in params:
        got = struct_fields(prm.get("t")) if prm.get("dir") == "inout" else None
        if not got or got[1] != "union":
            continue
        snap = "v_in_" + prm["py"]
        sv = {"op": "var", "n": snap, "t": prm["t"]}
        before = list(out)
        for f, t in got[0]:
            d = f"{prm['py']}.{f}"
            out = _carry(out, d, snap, {"op": "field", "base": sv, "f": f, "t": t}, {}, None, (d, snap))[0]
        if not same_objects(out, before):
            snaps.append({"s": "decl", "n": snap, "t": prm["t"], "init": {"op": "var", "n": prm["py"], "t": prm["t"]}})
        out = [st for st in out if st is not None]
    if not snaps:
        return body
    # (the copies out of what now reads the snapshot go on: `r = q; r.x = h; q = r;` has
    # `q.w = v_in_q.w` at the end, re-validating the member after its sibling's copy-back)
    out = propagate_union_copies(out, {}, is_union_member, None, struct_fields)
    return snaps + _unsplit(out, groups, rebuilt)
