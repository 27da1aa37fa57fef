"""Table keys that p4c 1.2.4.8's mid end reads through a copy (helper mutz39).

LocalCopyPropagation puts into a table's key element the copy it holds where the table is
applied: a whole-field key ``hdr.h2.d`` after ``hdr.h2.d = hdr.h.d;`` is ``hdr.h.d`` in p4c's JSON,
after ``hdr.h2.d = meta.m32;`` ``meta.m32``, after ``bit<32> v = hdr.h.d; hdr.h2.d = v;`` ``hdr.h.d``,
and after ``hdr.h2.d = c ? a : b;`` the ``?:``'s temporary (its front end made it ``if (c) { tmp =
a; } else { tmp = b; } hdr.h2.d = tmp;``).  A constant or a computed value is not put into a key
(``hdr.h2.d = v`` after ``v = hdr.h.d + 1`` leaves the key ``hdr.h2.d``).  This shows where the
key's header is invalid: BMv2 builds a key from an invalid header's field as zeros, and from the
copy's source as what that is (fuzz_mutants ``--kinds mux_expr`` seed 159: h2 invalid, BMv2 matches
0x55555555).

:func:`propagate_key_copies` follows the copies along a control body -- an assignment of a path
(through the copies it reads) or of a ``?:``; what a statement may write ends the copies of and
from it (``copy_paths.may_write``: an action call, a table apply end all of them), the branches of
an ``if`` or the cases of a switch start from the copies before it and keep after it what all of
them agree on -- and rewrites the whole-field key elements of the tables applied there (BMv2's
back end lets a table be applied once per control): a source that a table apply reaches (a field
of a parameter, a control local) becomes the key; any other (a local of the apply body, a ``?:``'s
temporary) marks the key ``temp``, read as the field holds it (the copy's value, as it still is).

A masked key ``f & K`` (table_keys.bmv2_key_shape keeps it as the field and a mask, a metadata
field's too: helper keys39) is rewritten alike under its mask (``meta.m8 = hdr.h.a;`` makes it
``hdr.h.a & K``: BMv2 masks the entries).  A slice of a path is put into a key too (unlike a
cast or another computed value): after ``meta.m8 = hdr.h.c[7:0];`` -- while ``hdr.h.c`` is not
written -- p4c computes the key, whole or masked, into a temporary with no mask (``key_0``: BMv2
compares the entries as sent), so the key is marked ``temp`` (the field holds the slice's value).
A ``?:``'s temporary, or a source no apply reaches, makes a masked key ``tmp & K`` in p4c's JSON:
the value the field holds, masked, and BMv2 masks the entries -- the key is marked ``held`` (read
as the field holds it, not as zeros where the header is invalid, unlike a masked header field;
runtime/gen_blocks.key_expr), its mask kept (runtime/tables.key_mask; helper p4rt39: with ``h2``
invalid at the apply BMv2 matched ``hdr.h2.b = c ? hdr.h.b : ..;`` by ``h.b``'s masked value).
Probed on p4c 1.2.4.8's JSON, ingress and egress alike.
"""
from __future__ import annotations

from .copy_paths import ir_path, may_write
from .elab_common import ir_dicts, ir_replace

_TEMP = "temp"


def _path_of(e) -> str | None:
    p = ir_path(e) if isinstance(e, dict) and e.get("op") in ("var", "field", "stack_idx") else None
    return None if p is None or "[*]" in p else p


def _src_path(v) -> str | None:
    """The path a copy reads (a slice's: the path it slices)."""
    return _path_of(v["a"] if v.get("op") == "slice" else v) if isinstance(v, dict) else None


def _masked(e) -> bool:
    """A key element ``field & constant`` (table_keys.bmv2_key_shape's masked form)."""
    return isinstance(e, dict) and e.get("op") == "bin" and e.get("o") == "&" and e["b"].get("op") == "const" \
        and e["a"].get("op") == "field"


def _value(r, copies: dict):
    """What a store of ``r`` leaves as the copy: an IR path, a slice of one, ``_TEMP`` for a
    ``?:``, or None (a constant, a computed value: put into no key)."""
    if not isinstance(r, dict):
        return None
    if r.get("op") == "cond":
        return _TEMP
    if r.get("op") == "slice" and _path_of(r["a"]) is not None:
        return r
    p = _path_of(r)
    if p is None:
        return None
    return copies.get(p, r) if p in copies else r


def _kill(copies: dict, st) -> None:
    for t in [t for t, v in copies.items()
              if may_write(st, t) or isinstance(v, dict) and may_write(st, _src_path(v))]:
        del copies[t]


def _applied(table: str, copies: dict, seen: dict, bodies) -> dict:
    """The copies after an apply of ``table``: what none of its actions may write."""
    seen.setdefault(table, []).append(dict(copies))
    copies = dict(copies)
    for body in bodies(table):
        if body is None:
            return {}
        _kill(copies, {"s": "block", "body": body})
    return copies


def _join(outs: list) -> dict:
    first, rest = outs[0], outs[1:]
    return {t: v for t, v in first.items() if all(t in o and o[t] == v for o in rest)}


def _walk(body: list, copies: dict, seen: dict, bodies) -> dict:
    for st in body:
        copies = _step(st, copies, seen, bodies)
    return copies


def _step(st: dict, copies: dict, seen: dict, bodies) -> dict:
    k = st.get("s")
    if k == "block":
        return _walk(st["body"], copies, seen, bodies)
    if k == "apply":
        return _applied(st["table"], copies, seen, bodies)
    if k == "if":
        hits = [d["table"] for d in ir_dicts(st["c"]) if d.get("op") == "table_hit"]
        for q in hits:
            copies = _applied(q, copies, seen, bodies)
        if not hits:
            copies = dict(copies)
            _kill(copies, {"s": "nop", "c": st["c"]})
        return _join([_walk(st["then"] or [], dict(copies), seen, bodies),
                      _walk(st.get("else") or [], dict(copies), seen, bodies)])
    if k in ("switch_action", "switch_value"):
        if k == "switch_action":
            copies = _applied(st["table"], copies, seen, bodies)
        cases = st.get("cases") or []
        outs = [_walk(c.get("body") or [], dict(copies), seen, bodies) for c in cases]
        return _join(outs + [copies]) if outs else copies
    if k == "apply_control":   # (the copies it is applied with: the keys of its body's tables)
        seen.setdefault(("apply_control", st.get("fn")), []).append((st, dict(copies)))
    for d in ir_dicts(st):   # (a table applied elsewhere in it: not followed)
        if d.get("s") in ("apply", "switch_action") or d.get("op") == "table_hit":
            seen.setdefault(d.get("table"), []).append(None)
    copies = dict(copies)
    _kill(copies, st)
    if k in ("assign", "decl"):
        lv = st["l"] if k == "assign" else {"op": "var", "n": st["n"], "t": st["t"]}
        t = _path_of(lv)
        r = st.get("r") if k == "assign" else st.get("init")
        if t is not None and r is not None and (lv.get("t") or [None])[0] in ("bit", "int", "bool"):
            copies[t] = _value(r, copies)
    return copies


def propagate_key_copies(body: list, tables: dict, actions: dict, reachable, subcontrol_of=None,
                         initial: dict | None = None) -> None:
    """Rewrite the keys of the tables ``body`` applies once (see the module docstring; ``tables``,
    ``actions``: the program's records by name); ``reachable(path)``: whether a table apply can
    read that path (a parameter's, a control local's).  ``subcontrol_of(apply)``: the block of a
    sub-control apply -- p4c has inlined it, so the copies at an apply (of an instance applied
    once) reach the keys of the tables its body applies, in its terms (:func:`_into_subcontrol`);
    ``initial``: the copies at the start of ``body``."""
    def bodies(q: str) -> list:
        return [(actions.get(a["name"]) or {}).get("body") for a in (tables.get(q) or {}).get("actions") or ()] \
            if q in tables else [None]
    seen: dict = {}
    _walk(body, dict(initial or {}), seen, bodies)
    for name, snaps in seen.items():
        t = tables.get(name) if isinstance(name, str) else None
        if t is None or len(snaps) != 1 or snaps[0] is None:
            continue
        for key in t.get("keys") or ():
            e = key.get("expr")
            masked = not key.get("temp") and _masked(e)
            f = e["a"] if masked else e
            p = _path_of(f) if not key.get("temp") and isinstance(f, dict) and f.get("op") == "field" else None
            v = snaps[0].get(p) if p is not None else None
            if v is None or isinstance(v, dict) and _path_of(v) == p:
                continue
            vp = _path_of(v) if isinstance(v, dict) else None
            if vp is not None and reachable(vp) and v.get("t") == f.get("t"):
                key["expr"] = {**e, "a": dict(v)} if masked else dict(v)
            elif not masked or isinstance(v, dict) and v.get("op") == "slice":
                key["temp"] = True
            else:
                key["held"] = True   # (p4c: ``tmp & K``, the value as held, the entries masked)
    for name, snaps in seen.items():
        blk = subcontrol_of(snaps[0][0]) if subcontrol_of is not None and not isinstance(name, str) else None
        if blk is None or len(snaps) != 1 or not blk.get("body"):
            continue
        inner = _into_subcontrol(snaps[0][0], snaps[0][1])
        if inner:
            roots = {q["py"] for q in blk.get("params") or ()}
            propagate_key_copies(blk["body"], tables, actions, lambda q: q.startswith("L.") or q.split(".")[0] in roots,
                                 subcontrol_of, inner)


def _into_subcontrol(call: dict, copies: dict) -> dict:
    """The caller's ``copies`` at sub-control apply ``call`` in the body's terms: a path through a
    struct argument p4c's inliner uses in place (``inout``, a variable) renamed to the parameter; a
    value read through one likewise, any other (a caller's local, a field of a struct not passed)
    ``_TEMP`` -- the key reads the field as it holds it (mutz39's open note, helper mutz40)."""
    ren = {a["e"]["n"]: a["py"] for a in call.get("args") or ()
           if "py" in a and a["dir"] == "inout" and a["e"].get("op") == "var"
           and (a["e"].get("t") or [None])[0] == "struct" and not a.get("siblings")}

    def renamed(x):
        return ir_replace(x, lambda d: dict(d, n=ren[d["n"]]) if d.get("op") == "var" and d.get("n") in ren else None)
    out = {}
    for path, v in copies.items():
        root = path.split(".")[0].split("[")[0]
        if root not in ren or v is None:
            continue
        vp = _path_of(v) if isinstance(v, dict) else None
        out[ren[root] + path[len(root):]] = renamed(v) if vp is not None and vp.split(".")[0].split("[")[0] in ren \
            else (None if vp is None and v != _TEMP else _TEMP)
    return out
