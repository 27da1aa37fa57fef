"""What p4c's parser propagation still holds for a stack element after ``extract(hs.next)``.

p4c 1.2.4.8's propagation does not take ``extract(hs.next)`` as writing an element of ``hs``:
what it knew of ``hs[0]``, ``hs[1]``, ... before the extract stays, and its BMv2 JSON has it in
place of the reads after it.  Two kinds of knowledge go stale so (probed on p4c's JSON and
BMv2's frames):

* a constant stored into an element's field (``hdr.s[0].a = 7; extract(hdr.s.next);
  meta.m8 = hdr.s[0].a;`` is ``meta.m8 = 7``; helper mutz28) -- :class:`Stale`, kept in the
  propagation's environment of ``const_index`` in place of the constant;
* a copy: a local or field stored from an expression that reads an element (a constant index
  or ``hs.last``), or an element's field stored from any expression (``meta.m16 =
  (bit<16>)hdr.s[1].b; extract(hdr.s.next); hdr.h.c = meta.m16;`` is ``hdr.h.c = hdr.s[1].b &
  0xffff``, read after the extract -- the new element's field; helper mutz29).  :func:`track_copies`
  keeps them (under :data:`COPIES` in the same environment, composed: ``y = x + 1`` with ``x`` a
  copy of ``hdr.s[0].a`` is a copy of ``hdr.s[0].a + 1``), forgets one whose target or whose
  reads a statement writes (an assignment, an ``extract`` of a header, ``setValid``; any other
  statement but a ``verify`` forgets them all), and marks it stale at an ``extract(hs.next)``
  over what it reads.

:func:`stale_reads` puts the stale constant or expression in place of a read in a value (an
assignment's, a declaration's, a ``select``'s keys).  A sub-parser's states are shared by its
calls while p4c inlines each: there the reads are voted on (``votes``: per IR node, the payloads
the walks gave it) and :func:`pin_votes` pins only a read every walk gave the same payload.
The caller's copies flow past a sub-parser call as p4c's inliner lays it out
(:func:`copies_past_call`: stale over a stack the body extracts ``next`` of; helper mutz30), and
into the body of the call (:func:`copies_into_call`: its reads of them go stale at the body's own
``extract(hs.next)``; a read of what no argument reaches, such as a ``?:`` temporary, is passed as
a hidden ``in`` parameter, :func:`add_hidden_params`; helper stale55), a nested call's too, and the
body's own copies flow back out of it (:func:`copies_out_of_call`; helper stale63).
"""
from __future__ import annotations

import copy
import json

from .elab_common import ir_dicts

COPIES = ("\0copies",)   # (the environment's key of the copies: {target key: (expr, reads, stale)})


class Stale(int):
    """A constant p4c's propagation still holds for a stack element that an ``extract(hs.next)``
    has overwritten since (it does not take ``next`` as writing ``hs[0]``, ...)."""


def path_key(lv):
    """A hashable name of a variable / field path, or None (an index, a slice, ...)."""
    if not isinstance(lv, dict):
        return None
    if lv.get("op") == "var":
        return (lv["n"],)
    if lv.get("op") == "field":
        b = path_key(lv["base"])
        return None if b is None else b + (lv["f"],)
    if lv.get("op") == "stack_idx" and lv["i"].get("op") == "const":   # (a constant index only)
        b = path_key(lv["st"])
        return None if b is None else b + (lv["i"]["v"],)
    if lv.get("op") == "tuple_idx" and isinstance(lv.get("i"), int):   # (a tuple's element: mutz30)
        b = path_key(lv["a"])
        return None if b is None else b + (lv["i"],)
    return None


def subst_paths(e, env: dict):
    """``e`` with every tracked path replaced by its constant (``env``: path key -> value; const_index
    and sub_divisions fold through it)."""
    if isinstance(e, list):
        return [subst_paths(x, env) for x in e]
    if not isinstance(e, dict):
        return e
    k = path_key(e) if e.get("op") in ("var", "field", "tuple_idx") else None
    if k is not None and k in env:
        return {"op": "const", "v": int(env[k]), "t": e.get("t")}
    return {a: subst_paths(v, env) for a, v in e.items()}


LAST = "\0last"   # (the element index of a read through ``hs.last``: any element)


def _overlap(a: tuple, b: tuple) -> bool:
    return all(x == y or LAST in (x, y) and isinstance(x if y == LAST else y, int) for x, y in zip(a, b))


def _reads(e, out: set | None = None) -> set:
    """The paths IR value ``e`` reads (the whole path's key, not its bases')."""
    out = set() if out is None else out
    if isinstance(e, list):
        for x in e:
            _reads(x, out)
    elif isinstance(e, dict):
        if e.get("op") in ("var", "field") and (k := path_key(e)) is not None:
            out.add(k)
        elif e.get("op") == "field" and e["base"].get("op") == "stack_last" and (k := path_key(e["base"]["st"])):
            out.add(k + (LAST, e["f"]))   # (`hs.last.f`: field f of some element -- a store into
                                          # another field of an element keeps it, as p4c's propagation does)
        else:
            for v in e.values():
                _reads(v, out)
    return out


def _compose(e, copies: dict):
    """``e`` with the reads of live copies put as their expressions (p4c propagated them into it)."""
    if isinstance(e, list):
        return [_compose(x, copies) for x in e]
    if not isinstance(e, dict):
        return e
    k = path_key(e) if e.get("op") in ("var", "field") else None
    if k is not None and k in copies:
        return copy.deepcopy(copies[k][0])
    return {a: _compose(v, copies) for a, v in e.items()}


def _payload(e: dict, env: dict):
    """What a stale read of path node ``e`` stands for: ('c', constant), ('e', JSON expr) or None."""
    k = path_key(e)
    if k is None:
        return None
    if isinstance(env.get(k), Stale):
        return ("c", int(env[k]))
    c = (env.get(COPIES) or {}).get(k)
    if c is not None and c[2]:
        return ("e", json.dumps(c[0], sort_keys=True))
    return None


def _pin(e: dict, payload) -> None:
    t = e.get("t")
    e.clear()
    e.update({"op": "const", "v": payload[1], "t": t} if payload[0] == "c" else json.loads(payload[1]))


def stale_reads(e, env: dict, votes: dict | None) -> None:
    """Pin (``votes`` None: a top-level parser's state) or vote for (a sub-parser's) the stale
    reads of IR value ``e``."""
    if isinstance(e, list):
        for x in e:
            stale_reads(x, env, votes)
        return
    if not isinstance(e, dict):
        return
    if e.get("op") in ("var", "field") and path_key(e) is not None:
        p = _payload(e, env)
        if votes is not None:
            votes.setdefault(id(e), (e, set()))[1].add(p)
        elif p is not None:
            _pin(e, p)
        if p is not None:
            return
    for v in list(e.values()):
        stale_reads(v, env, votes)


def pin_votes(votes: dict) -> None:
    for e, ps in votes.values():
        if len(ps) == 1 and None not in ps:
            _pin(e, ps.pop())


def mark_stale(env: dict, k: tuple) -> None:
    """``extract(hs.next)`` of stack ``k``: what is known of its elements stays, stale."""
    for x in [x for x in env if x != COPIES and x[:len(k)] == k]:
        env[x] = Stale(env[x])
    copies = env.get(COPIES)
    if copies:
        env[COPIES] = {t: (e, r, s or _overlap(t, k) or any(_overlap(x, k) for x in r)) for t, (e, r, s) in copies.items()}


def track_copies(env: dict, st: dict, trackable, consts: dict | None = None) -> None:
    """Update the copies of ``env`` after parser statement ``st`` (its reads already pinned);
    ``trackable(lv)``: whether a store into ``lv`` is one the propagation follows; ``consts``: the
    constants known before ``st`` (a copy reading its own target is not kept)."""
    copies = env.get(COPIES) or {}
    s = st.get("s")
    if s == "extract_next" or s == "nop" or s == "verify" or not copies and s not in ("assign", "decl"):
        return   # (extract_next: mark_stale, through const_index's forgetting)
    if s == "assign" and any(d.get("op") == "cond" for d in ir_dicts(st["r"])):
        env.pop(COPIES, None)   # (a `?:` is an `if` for p4c: RemoveParserControlFlow splits the state there)
        return
    if s in ("assign", "decl", "extract", "setvalid"):
        lv = st["l"] if s == "assign" else {"op": "var", "n": st["n"], "t": st["t"]} if s == "decl" else st["h"]
        ks = [path_key(x) for x in [lv] + list(st.get("siblings") or ())]
        if None in ks:
            env.pop(COPIES, None)
            return
        out = {t: c for t, c in copies.items() if not any(_overlap(t, k) or any(_overlap(x, k) for x in c[1]) for k in ks)}
        r = st.get("r") if s == "assign" else st.get("init") if s == "decl" else None
        if r is not None and trackable(lv):
            e = subst_paths(_compose(r, copies), consts or {})   # (p4c folds constants in: `m = 0; m = m + s.last.b`)
            reads = _reads(e)
            if ks[0] not in reads and (any(isinstance(c, int) for x in reads | {ks[0]} for c in x)
                    or any(d.get("op") == "stack_last" for d in ir_dicts(e))) and not any(
                    str(d.get("op", "")).startswith("call") for d in ir_dicts(e)):
                out[ks[0]] = (e, reads, False)   # (it reads or writes a stack element: it may go stale)
        env[COPIES] = out
        return
    env.pop(COPIES, None)   # (anything else: forgotten, never propagated wrongly)


def copies_past_call(copies: dict, blk: dict, back: list) -> dict:
    """The caller's stack-element copies (stale_stack) after a call of sub-parser ``blk`` (``back``:
    (its parameter's path, the caller's) of each ``out``/``inout`` argument): p4c inlines the call,
    so a copy over a stack the body extracts ``next`` of goes stale as in the caller's own states
    (``m8 = hdr.s.last.a; sub.apply(..)``, then ``h.a = m8`` reads the element the call extracted;
    helper mutz30); one whose target or reads the body writes otherwise is forgotten, and all of
    them where the body does what is not followed here (a nested call, another statement)."""
    def caller(x):
        return next((k + x[len(pk):] for pk, k in back if x is not None and x[:len(pk)] == pk), None)
    stale, written = [], []
    for d in ir_dicts([blk.get("locals") or [], [st["body"] for st in blk["states"].values()]]):
        s = d.get("s")
        if s is None or s in ("decl", "verify", "nop"):
            continue
        if s == "extract_next":
            stale.append(caller(path_key(d["st"])))
            continue
        if s not in ("assign", "extract", "setvalid"):
            return {}
        for lv in [d["l"] if s == "assign" else d["h"]] + list(d.get("siblings") or ()):
            k = path_key(lv)
            if k is None:
                return {}
            if (c := caller(k)) is not None:
                written.append(c)
    if None in stale:
        return {}
    out = {}
    for t, (e, r, st) in copies.items():
        keys = [t] + list(r)
        if any(_overlap(x, w) for x in keys for w in written):
            continue
        out[t] = (e, r, st or any(_overlap(x, k) for x in keys for k in stale))
    return out


class _Unmapped(Exception):
    pass


def copies_into_call(copies: dict, maps: list, prefix: str) -> tuple[dict, list]:
    """The caller's stack-element copies as the body of the sub-parser it calls sees them: p4c
    inlines the call into the calling state, so a copy goes on -- and goes stale at the body's
    ``extract(hs.next)`` -- there (``s[0].a = tmp + 1; sub.apply(..)`` with ``extract(s.next); m8 =
    m8 + s[0].a`` in the body is ``m8 = m8 + (tmp + 1)``; stale55, fuzz_mutants seed 3766).
    ``maps``: (the caller's path, the parameter's) of each ``inout`` argument passed in place; a
    copy whose target no map covers is left out.  A read no map covers is one the body cannot
    write, so its value at the call is the value at the read: it becomes a hidden ``in``
    parameter (``hidden``: (name, the caller's path node); :func:`add_hidden_params`)."""
    hidden, seen = [], {}

    def conv(e):
        if isinstance(e, list):
            return [conv(x) for x in e]
        if not isinstance(e, dict):
            return e
        k = path_key(e) if e.get("op") in ("var", "field", "stack_idx") else None
        if k is not None:
            for ck, pk in maps:
                if k == ck:
                    return {"op": "var", "n": pk[0], "t": e.get("t")}
            if any(ck[:len(k)] == k for ck, _ in maps):
                raise _Unmapped   # (a whole aggregate over an argument: not followed)
            if not any(k[:len(ck)] == ck for ck, _ in maps):
                if e.get("op") not in ("var", "field") or (e.get("t") or [None])[0] not in ("bit", "int", "bool"):
                    raise _Unmapped
                j = json.dumps(e, sort_keys=True)
                if j not in seen:
                    seen[j] = f"{prefix}{len(seen)}"
                    hidden.append((seen[j], copy.deepcopy(e)))
                return {"op": "var", "n": seen[j], "t": e.get("t")}
        return {a: conv(v) for a, v in e.items()}

    out = {}
    for t, (e, _r, st) in copies.items():
        m = next(((ck, pk) for ck, pk in maps if t[:len(ck)] == ck), None)
        if m is None:
            continue
        try:
            ne = conv(e)
        except _Unmapped:
            continue
        out[m[1] + t[len(m[0]):]] = (ne, _reads(ne), st)
    return out, hidden


def copies_out_of_call(copies: dict, args: list, hidden: list) -> dict:
    """The copies the body of a sub-parser call holds where it reaches ``accept``, as its caller sees
    them after the call: p4c inlines the call, so a copy the body made goes on in the calling state
    and into a later call (``m16 = m16 + (bit<16>)s[1].a`` in the body is, at the second call's
    ``extract(s.next)``, stale over the element it extracts: BMv2 adds it twice; stale63).
    ``args``: (parameter name, the caller's node) of each ``inout`` argument passed in place;
    ``hidden``: the call's hidden parameters (:func:`copies_into_call`), put back as the caller's
    paths.  A copy over anything else of the body's (a local, an ``in`` parameter) is left out."""
    names = dict(args) | dict(hidden)

    def conv(e):
        if isinstance(e, list):
            return [conv(x) for x in e]
        if not isinstance(e, dict):
            return e
        if e.get("op") == "var":
            if e["n"] not in names:
                raise _Unmapped
            return copy.deepcopy(names[e["n"]])
        return {a: conv(v) for a, v in e.items()}

    out = {}
    for t, (e, _r, st) in copies.items():
        base = dict(args).get(t[0])
        if base is None or (bk := path_key(base)) is None:
            continue
        try:
            ne = conv(e)
        except _Unmapped:
            continue
        out[bk + t[1:]] = (ne, _reads(ne), st)
    return out


def add_hidden_params(pending: list, votes: dict, calls: list) -> None:
    """Before ``votes`` are pinned: each sub-parser call's hidden parameters (:func:`copies_into_call`)
    a pinned read may use are added to the sub-parser and its call (an ``in`` argument of the
    caller's path); where the sub-parser has another call (``calls``: every ``apply_parser``
    node), none is, and the reads that would use one are not pinned."""
    added = []   # (the hidden arguments of nested calls, added first: one may read the outer call's)
    for blk, st, hidden in reversed(pending):
        if not hidden:
            continue
        names = [n for n, _ in hidden]
        if sum(c.get("fn") == blk["fn"] for c in calls) != 1:
            for _e, ps in votes.values():
                if any(p is not None and p[0] == "e" and any(f'"{n}"' in p[1] for n in names) for p in ps):
                    ps.add(None)
            continue
        used = " ".join([p[1] for _e, ps in votes.values() if len(ps) == 1 for p in ps if p is not None and p[0] == "e"]
                        + added)
        for n, node in hidden:
            if f'"{n}"' in used:
                added.append(json.dumps(node, sort_keys=True))
                blk["params"].append({"name": n, "py": n, "t": node.get("t"), "dir": "in", "pdir": "in"})
                st["args"].append(node)
                st.setdefault("dirs", []).append("in")
