"""Parser stores that p4c 1.2.4.8's front-end def-use (SimplifyDefUse) drops, dropped the same way.

p4c sees a parser as its states and transitions only: ``accept`` and ``reject`` read every
parameter, but a sub-parser's ``apply``, an ``extract`` and a ``verify`` do not end the parse
there.  So ``meta.m = 5; sub.apply(pkt, hdr.h); meta.m = 7;`` (across states too) loses its first
store, which is observable on BMv2 when the parse does end between the two -- the sub-parser
rejects, an extract is short, a verify fails: ingress then sees the field's earlier value
(fuzz_parsers seed 2321).  An explicit ``transition reject`` is an edge p4c sees: a store before
it stays.

:func:`drop_dead_parser_stores` removes, from one elaborated parser (or sub-parser), a top-level
assignment to a scalar reached by a constant path from a parameter (``meta.m``, ``hdr.h.f``,
``hdr.s[1].f``, a sub-parser's scalar ``out``) or to a header-union member (dropped whole: its siblings stay valid on
BMv2, as in :mod:`.union_defuse`), with a right-hand side free of calls and lookaheads, when every path
from it assigns that same path again before anything might read it.  It errs towards keeping:
anything that names the path, a part of it or a struct/header it is in counts as a read (an
``extract`` of the header, a sub-parser argument, a select key), as do a select without a
default case (it may reject; a tuple of don't-cares, ``(_, _)``, is no default case for p4c's
front end, only ``default`` or a lone ``_`` is: fuzz_parsers seed 4803); an ``if`` is judged as the
states p4c makes of it (:func:`p4c_states`), its condition a ``select`` key and an assignment in a
branch one of its state; p4c, which knows an extract writes the whole header, drops a few more.  ``standard_metadata`` is left alone (a parser error
writes ``parser_error``).  Nothing here imports the elaborator.
"""
from __future__ import annotations

_SCALARS = ("bit", "int", "bool")
# right-hand sides p4c can drop with the store (no call, no lookahead: those it keeps apart)
_PURE = {"const", "cast", "field", "var", "bin", "un", "slice", "cond", "isvalid", "uvalid",
         "stack_lastindex", "stack_last", "tuple_idx", "list", "mk", "sinit"}
_ENDS = ("accept", "reject")
MUX_TMP = "_mux_tmp"   # (predication.dismantle_muxes' temporaries)


def _path(ir):
    """A field/var chain as a tuple of names (``None`` for anything else)."""
    names = []
    while isinstance(ir, dict) and (ir.get("op") == "field" or ir.get("op") == "stack_idx" and ir["i"].get("op") == "const"):
        if ir["op"] == "field":   # (an element at a constant index, `[1]`: p4c_mutate seed 528)
            names.append(ir["f"])
            ir = ir["base"]
        else:
            names.append(f"[{ir['i']['v']}]")
            ir = ir["st"]
    if not (isinstance(ir, dict) and ir.get("op") == "var"):
        return None
    return (ir["n"], *reversed(names))


def _mentions(node, target: tuple) -> bool:
    """Whether ``node`` names ``target``, a part of it or a path it is part of."""
    if isinstance(node, list):
        return any(_mentions(v, target) for v in node)
    if not isinstance(node, dict):
        return False
    if node.get("op") in ("field", "var"):
        p = _path(node)
        if p is not None:
            n = min(len(p), len(target))
            return p[:n] == target[:n]
    return any(_mentions(v, target) for v in node.values())


def _pure(ir) -> bool:
    if isinstance(ir, list):
        return all(_pure(v) for v in ir)
    if not isinstance(ir, dict):
        return True
    op = ir.get("op")
    if op == "stack_idx":
        return ir["i"].get("op") == "const" and _pure(ir["st"])
    if op is not None and op not in _PURE:
        return False
    return all(_pure(v) for k, v in ir.items() if k != "t")


def _live(states: dict, name: str, start: int, target: tuple, seen: set, ends_read: bool = True, late=None) -> bool:
    """Whether ``target`` may be read from statement ``start`` of state ``name`` on, before an
    assignment to it (p4c's view of the parser; ``ends_read`` False: ``accept`` and ``reject`` do
    not read it -- a parser's local).  ``late``: p4c's second def-use (see drop_dead_parser_stores),
    whether sub-parser ``fn`` may reject."""
    st = states[name]
    for s in st["body"][start:]:
        if late is not None and ends_read and s.get("s") == "apply_parser" and late(s["fn"]):
            return True
        p = _path(s["l"]) if s.get("s") == "assign" else None
        if p == target:
            return _mentions(s["r"], target)
        if p is not None and p[:len(target)] == target:
            continue   # a write into it: dead too for p4c, which drops it first (what it reads too)
        if _mentions(s, target):
            return True
    tr = st["transition"]
    if tr["kind"] == "direct":
        succ = [tr["to"]]
    else:
        if _mentions(tr["keys"], target) and not (late is not None and tr.get("gone")):
            return True   # (a `?:`'s `if` the first def-use emptied is gone by the second: seed 1242)
        if not any(all(k.get("k") == "default" for k in c["keysets"]) and not c.get("dc_tuple")
                   for c in tr["cases"]):
            return True   # no case may match (as p4c's def-use sees it): reject
        succ = [c["to"] for c in tr["cases"]]
    for n in succ:
        if n in _ENDS:
            if ends_read:
                return True
            continue
        if n not in seen and n in states:
            seen.add(n)
            if _live(states, n, 0, target, seen, ends_read, late):
                return True
    return False


def store_live(states: dict, name: str, start: int, lv, roots: set) -> bool:
    """Whether what lvalue ``lv`` names may be read from statement ``start`` of state ``name`` on
    (anything but a constant path counts as read; a local, not in ``roots``, is dead at the end)."""
    target = _path(lv)
    return target is None or _live(states, name, start, target, set(), ends_read=target[0] in roots)


def _flat(body: list):
    for s in body:
        if s.get("s") == "block":
            yield from _flat(s["body"])
        else:
            yield s


def p4c_states(states: dict) -> dict:
    """``states`` as p4c's def-use sees them: each ``if`` of a state's body made states -- p4c
    turns a parser ``if`` into a ``select`` on its condition and ``_true``/``_false``/``_join``
    states before its def-use (a ``?:`` is such an ``if`` already: elab_parsers dismantles it as
    SideEffectOrdering does) -- and blocks flattened.  The statements are ``states``' own (the
    same dicts); the new states are named by tuples, no state's name."""
    out: dict = {}

    def split(name, body: list, tr: dict) -> None:
        cur: list = []
        for s in _flat(body):
            if s.get("s") != "if":
                cur.append(s)
                continue
            t, f, j = ((name, len(out), k) for k in ("true", "false", "join"))
            mux = all(x.get("s") == "assign" and (_path(x["l"]) or ("",))[0].startswith(MUX_TMP)
                      for x in _flat((s["then"] or []) + (s.get("else") or [])))
            out[name] = {"body": cur, "transition": {"kind": "select", "keys": [s["c"]], "cases": [
                {"keysets": [{"k": "value", "v": 1}], "to": t}, {"keysets": [{"k": "default"}], "to": f}],
                **({"mux": (t, f)} if mux else {})}}
            for n, b in ((t, s["then"]), (f, s.get("else"))):
                split(n, b or [], {"kind": "direct", "to": j})
            name, cur = j, []
        out[name] = {"body": cur, "transition": tr}

    for name, st in states.items():
        split(name, st["body"], st["transition"])
    return out


def _rebuilt(body: list, gone: set, renewed: dict) -> list:
    out = []
    for s in body:
        if id(s) in gone:
            continue
        k = s.get("s")
        if k == "if":
            s = dict(s, then=_rebuilt(s["then"] or [], gone, renewed),
                     **{"else": _rebuilt(s["else"], gone, renewed) if s.get("else") else s.get("else")})
        elif k == "block":
            s = dict(s, body=_rebuilt(s["body"], gone, renewed))
        out.append(renewed.get(id(s), s))
    return out


def drop_dead_parser_stores(states: dict, params: list, rejects=None) -> None:
    """Remove the stores p4c's def-use drops (see the module docstring) from ``states``, in rounds
    as p4c repeats it: a store only a dropped one read goes next (``m = 5; m = m + 1; verify(..);
    m = 7;``: both, BMv2 sends m's initial 0 where the verify fails -- fuzz_mutants seed 605), with
    the initial value of a local declared in a state whose only readers were dropped.  Judged on
    :func:`p4c_states`: a store in an ``if``'s branch goes as one outside it does (fuzz_mutants
    ``--kinds mux_expr`` seed 251), and so does a store into a ``?:``'s temporary no one reads
    (what only its arms read goes next; its condition stays, read by the ``select``).  Then, with
    ``rejects`` (whether sub-parser ``fn`` may reject), p4c's second def-use, after SimplifyControlFlow
    removed the ``if`` of a ``?:`` whose temporary's stores went and the sub-parsers were inlined:
    that ``if``'s condition reads nothing, a call of a sub-parser that may reject reads everything
    (seed 1242: ``m = 5; m = (m < 8) ? m + 1 : m; m = (m == 1) ? m + 1 : m; verify(..); m = 7;``
    sends 5 where the verify fails)."""
    roots = {p["py"] for p in params
             if p["t"][0] != "extern" and p["t"] != ["struct", "standard_metadata_t"]}
    view = p4c_states(states)
    gone: set = set()
    renewed: dict = {}
    _rounds(view, roots, gone, renewed, None)
    if rejects is not None:
        for st in view.values():   # (an `if` emptied now is removed before RemoveParserControlFlow)
            tr = st["transition"]
            if tr.get("mux") and all(not view[n]["body"] and view[n]["transition"]["kind"] == "direct"
                                      for n in tr["mux"]):
                tr["gone"] = True
        _rounds(view, roots, gone, renewed, rejects)
    if gone or renewed:
        for st in states.values():
            st["body"] = _rebuilt(st["body"], gone, renewed)


def _rounds(view: dict, roots: set, gone: set, renewed: dict, late) -> None:
    dropped = True
    while dropped:
        dropped = False
        for name, st in view.items():
            keep = []
            for i, s in enumerate(st["body"]):
                target = _path(s["l"]) if s.get("s") == "assign" else None
                if (target is not None and (target[0] in roots or target[0].startswith(MUX_TMP))
                        and (s["l"]["t"][0] in _SCALARS or s.get("siblings")) and _pure(s["r"])
                        and not _live(view, name, i + 1, target, set(), target[0] in roots, late)):
                    dropped = True
                    gone.add(id(s))
                    continue
                if s.get("s") == "decl" and s.get("init") is not None and s["t"][0] in _SCALARS and \
                        _pure(s["init"]) and not _live(view, name, i + 1, (s["n"],), set(), False, late):
                    renewed[id(s)] = s = dict(s, init=None)
                    dropped = True
                keep.append(s)
            st["body"] = keep


def may_reject(states: dict, sub_rejects) -> bool:
    """Whether a sub-parser's ``states`` may reject as p4c's def-use sees them once inlined: a
    transition to ``reject``, a select without a default case, a sub-parser call that may."""
    for st in states.values():
        tr = st["transition"]
        if tr["kind"] == "direct" and tr["to"] == "reject" or tr["kind"] != "direct" and (
                any(c["to"] == "reject" for c in tr["cases"]) or not any(
                    all(k.get("k") == "default" for k in c["keysets"]) and not c.get("dc_tuple") for c in tr["cases"])):
            return True
        if any(s.get("s") == "apply_parser" and sub_rejects(s["fn"]) for s in _flat(st["body"])):
            return True
    return False
