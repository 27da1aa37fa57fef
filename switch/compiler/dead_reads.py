"""Dead stores whose value reads a header stack at a run-time index.

p4c's def-use passes remove an assignment whose target is overwritten before anything reads it;
BMv2 then never evaluates its right-hand side.  That matters where the evaluation can fail: a read
of ``hdr.s[i]`` with ``i`` past the stack's end (simple_switch 1.15.5 dies on such a read, or
checkmate-switch drops the packet there).  ``hdr.s[1] = hdr.s[i]; ...; hdr.s[1] = {9};`` forwards
the packet on BMv2 whatever ``i`` is (fuzz_exprs seed 6144, egress; the same in ingress), so the
first store is dropped here too.

Only straight-line code is looked at (the statements that follow in the same block, through plain
nested blocks, and after the block or ``if`` holding the store; a function call is its arguments, a
``switch`` on a value and a plain ``for (x in {..})`` loop are looked into, a store in such a loop is
dead when only the next iteration's store reads it and what follows the loop overwrites it: helper
fuzz41, fuzz_exprs seed 19185, p4c's repeated def-use on the unrolled loop): the store is dead when a later assignment writes all of its target (the same path,
the whole header or struct holding it, or a slice of it holding every bit stored: helper fuzz35) before any statement reads an overlapping path
(declarations of locals in between too), and into the body of a sub-control applied with its
arguments in place (p4c's def-use runs after its inliner; fuzz_mutants seed 1528); any other
statement (a call, an ``if``, a table apply ...) ends the search and the store stays.  A store whose
right-hand side calls anything stays too.

An action's out/inout arguments are copied back after its body, and p4c's def-use sees those
copies (RemoveActionParameters writes them for a table's action, InlineActions for a call): a
store the copy-back overwrites is dead at that use (fuzz_exprs seed 10599: ``hdr.s[0] =
hdr.s[i];`` in an action a table lists as ``a1(hdr.s[0])``; p4c's JSON has an empty action).
One action body serves every use here, and each use may copy back into other places, so
:func:`specialize_copy_out_bodies` gives a table's action reference or a call statement whose
copy-back kills such a store a body of its own without it (``action_variants`` in the IR; the
reference's ``impl`` names it), the statements of the shared body walked into plain blocks and
the arms of ``if``s (a store in an arm is dead when the rest of the arm, what follows the ``if`` and
the copy-back overwrite it: fuzz_mutants seed 2636).  p4c's def-use runs before its Predication, so
such a variant is made from the body as written (``predication.predicate_actions`` keeps it) and
predicated again once the dead stores are gone (:mod:`.remove_returns` first: a ``return`` the
body then ends with is RemoveReturns' flag, which nothing reads -- seed 2482, whose predicated
double update BMv2 shows).

p4c's front-end SimplifyDefUse also drops a store to a field that the code after it overwrites
before a read: in a control (:func:`drop_dead_field_stores`) and in an action body whose only use
is one table apply (:func:`drop_dead_action_stores`) -- for the single-case switch copies
(:mod:`.switch_copies`), which such a store does not end.  There p4c tracks the bits a slice
writes (helper fuzz35's probes): a later slice holding every bit stored overwrites a store (a
slice store or a whole field's), one missing some reads the field's other bits; and as its pass
repeats, an assignment in between that reads the field or writes other bits of it is no obstacle
when it is itself overwritten before a read.
"""
from __future__ import annotations

import json

from .elab_common import ir_dicts
from .copy_paths import ir_path as _path, overlap as _overlap, path_reads
from .exit_blind_stores import bit_span, mux_leftovers, mux_reads, untouched
from .header_init import has_method_call
from .predication import predicate_from



def _dyn_read(e) -> bool:
    return any(d.get("op") == "stack_idx" and d["i"].get("op") != "const" for d in ir_dicts(e))


def flat_blocks(stmts: list):
    for st in stmts:
        if st.get("s") == "block":
            yield from flat_blocks(st["body"])
        else:
            yield st


def _in_place_body(st: dict, sub_body) -> list | None:
    """The body of the sub-control an ``apply_control`` runs, where every argument is passed in
    place (the caller's variable is the parameter: p4c's inliner substitutes it), else None."""
    if sub_body is None or st.get("s") != "apply_control":
        return None
    if not all(a.get("e", {}).get("op") == "var" and a["e"].get("n") == a.get("py") for a in st.get("args", [])):
        return None
    return sub_body(st)


def dead_store(target: str, rest, sub_body=None, span=None) -> bool:
    """Whether a store to ``target`` (its bits ``span``: ``exit_blind_stores.bit_span``'s; None: all
    of it) is overwritten by the statements ``rest`` on every path before a read (module docstring)."""
    return _store_fate(target, list(rest), sub_body, span) is True


def _store_fate(target: str, rest: list, sub_body=None, span=None, outs=None):
    """True: ``rest`` overwrites ``target`` before reading it; False: it may read it (or does what
    is not looked into); None: it neither reads nor writes it.  ``outs`` (``out_arg_stores.apply_fate``):
    what a sub-control's apply does to it, its ``"apply"`` (an ``out`` argument writes it) passed on
    as the fate, so that the caller knows an apply decided it."""
    for i, st in enumerate(rest):
        body = _in_place_body(st, sub_body)
        if body is not None:   # (p4c's def-use runs after its inliner: fuzz_mutants seed 1528)
            return _store_fate(target, list(flat_blocks(body)) + rest[i + 1:], sub_body, span, outs)
        k = st.get("s")
        if outs is not None and k == "apply_control":
            fate = outs(st, target, span)
            if fate is not None:
                return fate
            continue
        if k == "block":
            return _store_fate(target, list(flat_blocks(st["body"])) + rest[i + 1:], sub_body, span, outs)
        if k == "decl" and not any(_overlap(r, target) for r in path_reads(st.get("init"), [])):
            continue   # (a local's declaration writes nothing else: fuzz_exprs seed 12077)
        if k == "setvalid":
            continue   # (a validity change reads no field: `hdr.h = {..}` is one, then the fields)
        if k in ("push_front", "pop_front") and _path(st["st"]) is not None and not _overlap(_path(st["st"]), target):
            continue   # (its own stack only: fuzz_mutants seed 3793, helper mutz40)
        if k == "call_fn" and not has_method_call(st) and not any(_overlap(r, target) for r in path_reads(st["args"], [])):
            continue   # (p4c has inlined the function: it reaches only its arguments, fuzz_exprs seed 19185)
        if k == "if" and not has_method_call(st["c"]) and not any(d.get("op") == "table_hit" for d in ir_dicts(st["c"])) \
                and not any(_overlap(r, target) for r in path_reads(st["c"], [])):
            # (p4c's def-use goes into both arms: fuzz_mutants seeds 3488 (helper opens4) and 2945
            # (mutz37), an `if` on other fields between an action's store and the copy-back that
            # overwrites it)
            fates = [_store_fate(target, list(flat_blocks(arm or [])), sub_body, span, outs) for arm in (st["then"], st.get("else"))]
            if False in fates:
                return False
            if all(fates):
                return "apply" if "apply" in fates else True
            continue
        if k == "switch_value" and not has_method_call(st["e"]) and not any(_overlap(r, target) for r in path_reads(st["e"], [])):
            # (as an `if`: each case, and no case where no label matches -- helper fuzz41)
            fates = [_store_fate(target, list(flat_blocks(c["body"])), sub_body, span, outs) for c in st["cases"]]
            fates += [] if any("default" in c["labels"] for c in st["cases"]) else [None]
            if False in fates:
                return False
            if all(fates):
                return "apply" if "apply" in fates else True
            continue
        if k == "for_in" and _plain_loop(st) and not any(_overlap(r, target) for r in path_reads(st["values"], [])):
            fate = _store_fate(target, list(flat_blocks(st["body"])), sub_body, span, outs)   # (it runs at least once)
            if fate is not None:
                return fate
            continue
        if k != "assign":
            return False
        lp = _path(st["l"])
        reads = path_reads(st["r"], []) + [p for d in ir_dicts(st["l"]) if d.get("op") == "stack_idx"
                                       and d["i"].get("op") != "const" for p in path_reads(d["i"], [])]
        if lp is None or any(_overlap(r, target) for r in reads):
            return False
        if "[*]" not in lp and _covers(st["l"], target, span):
            return True   # (all of the target written -- or a slice holding its bits: fuzz35 -- dead)
    return None


def drop_dead_indexed_reads(stmts: list, sub_body=None, tail: tuple = ()) -> list:
    """``stmts`` without the stores described in the module docstring (``sub_body``: an
    ``apply_control``'s body, walked through where its arguments are passed in place); ``tail``:
    the statements that run after them.  Also in a plain block or an ``if``'s arm, with what
    follows it (p4c's def-use: ``{ bit<16> i = 5; hdr.s[1] = hdr.s[j]; } hdr.s[1] = {..};``, an
    unrolled loop's iteration, forwards the packet for j past the end, fuzz_exprs seed 19185).
    Repeated until nothing changes, as p4c's pass is: a store read only by a dead one goes with it
    (the earlier iterations' ``hdr.s[1] = hdr.s[j];``, read by the next one's)."""
    while True:
        out = _drop_indexed_once(stmts, sub_body, tail)
        if len(out) == len(stmts) and all(x is y for x, y in zip(out, stmts)):
            return out
        stmts = out


def _plain_loop(st: dict) -> bool:
    """A ``for (x in {..})`` loop over at least one value whose body neither breaks nor continues."""
    return bool(st["values"]) and not any(d.get("s") in ("break", "continue", "return", "exit") for d in ir_dicts(st["body"]))


def _dead_in_loop(st: dict, j: int, after: list, sub_body) -> bool:
    """Whether store ``st["body"][j]`` of a plain ``for_in`` loop is dead in every iteration, as p4c's
    def-use finds it in the unrolled loop by repeating: in the last one ``after`` (what follows the
    loop) overwrites it, and in each earlier one only the next iteration's store reads it (helper
    fuzz41, fuzz_exprs seed 19185: ``for (bit<16> i in {..}) { ..; hdr.s[1] = hdr.s[j]; }
    hdr.s[1] = {..};``)."""
    body = _loop_list(st["body"])
    x = body[j]
    target = _path(x["l"])
    return dead_store(target, list(flat_blocks(body[j + 1:])) + after, sub_body, bit_span(x["l"])) and \
        _store_fate(target, list(flat_blocks(body[j + 1:] + body[:j])), sub_body, bit_span(x["l"])) is not False


def _loop_list(body: list) -> list:
    """The statement list a loop body's plain single blocks wrap (``elab_loops``' iteration block)."""
    while len(body) == 1 and body[0].get("s") == "block":
        body = body[0]["body"]
    return body


def _with_loop_list(body: list, new: list) -> list:
    if len(body) == 1 and body[0].get("s") == "block":
        return [dict(body[0], body=_with_loop_list(body[0]["body"], new))]
    return new


def _indexed_store(st: dict) -> bool:
    target = _path(st["l"]) if st.get("s") == "assign" else None
    return target is not None and "[*]" not in target and _dyn_read(st["r"]) and not has_method_call(st["r"])


def _drop_indexed_once(stmts: list, sub_body, tail: tuple) -> list:
    out = []
    for i, st in enumerate(stmts):
        after = list(flat_blocks(stmts[i + 1:])) + list(tail)
        if st.get("s") == "for_in" and _plain_loop(st) and any(_indexed_store(x) for x in _loop_list(st["body"])):
            was = _loop_list(st["body"])
            body = [x for j, x in enumerate(was) if not (_indexed_store(x) and _dead_in_loop(st, j, after, sub_body))]
            st = st if len(body) == len(was) else dict(st, body=_with_loop_list(st["body"], body))
        if st.get("s") == "assign" and _dyn_read(st["r"]) and not has_method_call(st["r"]):
            target = _path(st["l"])
            if target is not None and "[*]" not in target and dead_store(target, after, sub_body, bit_span(st["l"])):
                continue
        if st.get("s") == "if" and _dyn_read(st) and _emptied_if(st, after, sub_body):
            continue
        arms = ("body",) if st.get("s") == "block" else ("then", "else") if st.get("s") == "if" else ()
        new = {arm: _drop_indexed_once(st[arm], sub_body, tuple(after)) for arm in arms
               if st.get(arm) and _dyn_read(st[arm])}
        out.append(dict(st, **new) if any(len(new[a]) != len(st[a]) or any(
            x is not y for x, y in zip(new[a], st[a])) for a in new) else st)
    return out


def _emptied_if(st: dict, rest: list, sub_body) -> bool:
    """Whether p4c's def-use empties ``if`` statement ``st`` -- each arm only stores that it or ``rest``
    overwrites before a read -- and SimplifyControlFlow then removes it with its condition, which BMv2
    never evaluates (fuzz_mutants ``--kinds mux_expr`` seed 1528, helper mutz40: ``if ((s[i].x + 1 ==
    h.b) ? .. : false) { h.b = s[i].x + 1; } .. h.b = 7;`` forwards the packet for i past the end)."""
    if has_method_call(st["c"]) or any(d.get("op") == "table_hit" for d in ir_dicts(st["c"])):
        return False
    for arm in (st["then"], st.get("else")):
        arm = list(flat_blocks(arm or []))
        for j, x in enumerate(arm):
            target = _path(x["l"]) if x.get("s") == "assign" and not has_method_call(x["r"]) else None
            if target is None or "[*]" in target or not dead_store(target, arm[j + 1:] + rest, sub_body, bit_span(x["l"])):
                return False
    return True


def _drop_dead_before(stmts: list, tail: list, headers: frozenset = frozenset(), ret: list | None = None) -> list:
    """``stmts`` (walked into plain blocks) without the stores of the module docstring, ``tail``
    being the assignments that run after them; also, with ``headers`` (the paths of headers a
    copy-back writes whole), any store to one of them or a part of it and its ``setValid()``.
    Repeated until nothing changes, as p4c's front end does: a store read only by a dead one goes
    with it (fuzz_mutants seed 3445, ``q.c = 3; q.c = q.c + 2;`` in an arm), and an ``if`` left empty
    goes (SimplifyControlFlow), its condition's read with it, so the next def-use drops what only
    that read kept (seed 2981: ``h2.c = 3; if (h2.c == 2) { h2.c = 7; }`` in a body whose copy-back
    writes h2).  A ``return`` goes to ``ret`` (the copy-back; ``tail`` by default): a store an arm's
    ``return`` follows is dead when the copy-back overwrites it (fuzz_mutants ``--kinds action_if``
    seed 4243, helper mutz42: ``if (h2.c == 0) { h2.c = 3; return; }`` in a body copied back into h2)."""
    ret = tail if ret is None else ret
    while True:
        out = _without_empty_ifs(_drop_once(stmts, tail, headers, ret))
        if out == stmts:
            return out
        stmts = out


def _without_empty_ifs(stmts: list) -> list:
    out = []
    for st in stmts:
        if st.get("s") == "block":
            st = dict(st, body=_without_empty_ifs(st["body"]))
        elif st.get("s") == "if":
            st = dict(st, then=_without_empty_ifs(st["then"] or []),
                      **{"else": _without_empty_ifs(st["else"]) if st.get("else") else st.get("else")})
            if not has_method_call(st["c"]) and not any(d.get("op") == "table_hit" for d in ir_dicts(st["c"])) and \
                    not any("s" in d and d["s"] != "block" for d in ir_dicts([st["then"], st["else"]])):
                continue
        out.append(st)
    return out


def _following(rest: list, tail: list, ret: list) -> list:
    """What runs after a statement: ``rest`` (plain blocks opened) up to a ``return``, which goes to
    ``ret``; ``tail`` after its end.  A ``return`` in an ``if``'s arm goes to ``ret`` too (RemoveReturns
    puts what follows under ``if (!hasReturned)``, the copy-back runs on both paths: fuzz_mutants
    ``--kinds action_if`` seed 4903, helper mutz46).  An ``exit`` goes to ``ret`` as a ``return`` does:
    p4c's RemoveActionParameters puts the copy-back before each ``exit`` of the body too
    (``hdr.s[0] = q_0; exit;``; fuzz_mutants ``--kinds exit_stmt`` seed 5831, helper mutz51)."""
    out = []
    for x in flat_blocks(rest):
        if x.get("s") in ("return", "exit"):
            return out + ret
        out.append(_returning_to(x, ret) if ret else x)
    return out + tail


def _returning_to(st: dict, ret: list) -> dict:
    """``st`` with each ``return`` (``exit``) in its ``if`` arms (and plain blocks) preceded by ``ret``:
    a block ``ret`` then the ``return`` (which :func:`_store_fate` stops at)."""
    if st.get("s") in ("return", "exit"):
        return {"s": "block", "body": list(ret) + [st]}
    if st.get("s") == "block":
        return dict(st, body=[_returning_to(x, ret) for x in st["body"]])
    if st.get("s") == "if":
        return dict(st, **{arm: [_returning_to(x, ret) for x in st[arm]] for arm in ("then", "else") if st.get(arm)})
    return st


def _drop_once(stmts: list, tail: list, headers: frozenset, ret: list) -> list:
    out = []
    for i, st in enumerate(stmts):
        after = _following(stmts[i + 1:], tail, ret)
        if st.get("s") == "block":
            body = _drop_dead_before(st["body"], after, headers, ret)
            if body != st["body"]:
                st = dict(st, body=body)
        elif st.get("s") == "if":
            # (a store in a branch is dead as in straight-line code when what follows the if
            # overwrites it: p4c's def-use drops it predicated too -- fuzz_mutants seed 2636)
            arms = {arm: _drop_dead_before(st[arm], after, headers, ret) for arm in ("then", "else") if st.get(arm)}
            if any(arms[arm] != st[arm] for arm in arms):
                st = dict(st, **arms)
        elif st.get("s") == "assign" and not has_method_call(st["r"]) and (
                _dyn_read(st["r"]) or _within(_path(st["l"]), headers)):
            target = _path(st["l"])
            if target is not None and "[*]" not in target and dead_store(target, after, span=bit_span(st["l"])):
                continue
        elif st.get("s") == "setvalid" and not st.get("siblings") and _path(st["h"]) in headers \
                and dead_store(_path(st["h"]), after):
            continue
        out.append(st)
    return out


def _within(path, headers) -> bool:
    return path is not None and any(path == h or path.startswith((h + ".", h + "[")) for h in headers)


def _without_stores(stmts: list, paths: set) -> list:
    """``stmts`` (walked into plain blocks) without the assignments to ``paths`` (a slice's too); a
    ``(path, n, total)`` of ``paths``: the last ``n`` of its stores there, where it has ``total``
    (``header_init.dead_field_marks``; none where it has another count)."""
    plain = {p for p in paths if isinstance(p, str)}
    seen: dict = {}
    for p, n, total in (p for p in paths if not isinstance(p, str)):
        seen[p] = [0, total - n, total]   # (stores met, the first to drop, the count expected)

    def count(sts):
        for st in sts:
            if st.get("s") == "block":
                count(st["body"])
            elif st.get("s") == "assign" and _path(st["l"]) in seen:
                seen[_path(st["l"])][0] += 1
    count(stmts)
    last = {p: v[1] for p, v in seen.items() if v[0] == v[2]}
    met = dict.fromkeys(last, 0)

    def strip(sts):
        out = []
        for st in sts:
            if st.get("s") == "block":
                st = dict(st, body=strip(st["body"]))
            elif st.get("s") == "assign" and _path(st["l"]) in plain:
                continue
            elif st.get("s") == "assign" and _path(st["l"]) in last:
                met[_path(st["l"])] += 1
                if met[_path(st["l"])] > last[_path(st["l"])]:
                    continue
            out.append(st)
        return out
    return strip(stmts)


def specialize_copy_out_bodies(ir: dict) -> None:
    """Action bodies without the stores a use's copy-back overwrites (module docstring): the IR's
    ``action_variants`` and the ``impl`` of the table action references and ``call_action``
    statements that run them.

    The actions are taken in p4c's order, the Predication pass's program-wide state carried from
    one to the next (:func:`.predication.predicate_from`): a variant is predicated from the state
    before its action, and where it is the action's only copy -- every use of the action runs it --
    the actions after it start from the state after the variant, not after the body as written
    (p4c predicates the copy its def-use left; the body's dropped stores made a name "dependent"
    that a later action's nested double update then lost on BMv2: helper opens5,
    ``opens5_predicated_after_a_variant*``), such a later action predicated again."""
    by_impl = {a.get("impl", a["id"]): a for a in ir["actions"]}
    by_name = {a["name"]: a for a in ir["actions"]}
    variants: list = []
    made: dict = {}

    # (an action predication.predicate_actions changed: the variant drops the dead stores from the
    # body as written and predicates the rest again -- p4c's SimplifyDefUse runs before its
    # Predication, which never sees a store in an `if` the copy-back overwrites; seed 2636)
    unpred = {a["name"]: a.pop("unpredicated") for a in ir["actions"] if "unpredicated" in a}
    # (and from the pass's state before that action: p4c predicates its copy there)
    states = {a["name"]: a.pop("pred_state", None) for a in ir["actions"]}

    def variant(a, pairs, dead_paths, state, own=None) -> tuple | None:
        if a is None or not a.get("body"):
            return None
        base = unpred.get(a["name"], a["body"])
        # (own: p4c's copy of the body for a site of the flow its def-use does not visit --
        # switch_cases.unvisited_copy)
        body = own if own is not None else base
        body = _without_stores(body, set(dead_paths)) if dead_paths else body
        # (a header copied back whole: p4c drops the body's stores to it, which on BMv2 show where
        # the copy-back's source is invalid and writes no field -- fuzz_exprs seed 12748)
        headers = frozenset(h for e, p in pairs if (p["t"] or [None])[0] == "header"
                            and (h := _path(e)) is not None and "[*]" not in h)
        if pairs and (_dyn_read(body) or headers):
            tail = [{"s": "assign", "l": e, "r": {"op": "var", "n": p["py"], "t": p["t"]}} for e, p in pairs]
            body = _drop_dead_before(body, tail, headers)
        if body == base:
            return None
        body, after = predicate_from(body, state)   # (p4c predicates what its def-use left)
        key = (a.get("impl", a["id"]), json.dumps(body, sort_keys=True))
        if key not in made:
            made[key] = f"v{a['id']}_{len(variants)}"
            variants.append(dict(a, impl=made[key], body=body))
        return made[key], after

    # every use of an action: (the table reference or call statement, its copy-back pairs, the dead paths)
    uses: dict = {}
    calls = [d for d in ir_dicts([ir["blocks"], ir.get("subcontrols"), ir.get("functions"), ir["actions"]])
             if d.get("s") == "call_action"]
    for t in ir["tables"]:
        for ref in t["actions"]:
            a = by_impl.get(ref.get("impl", ref["id"]))
            bound = ref.get("bound") or []
            dead = ref.pop("dead_paths", ())   # (this table's copy of an action others run too)
            own = ref.pop("unvisited_body", None)
            if a is not None:
                uses.setdefault(id(a), []).append(
                    (ref, [(b["e"], p) for b, p in zip(bound, a["all_params"]) if b["dir"] in ("out", "inout")], dead,
                     own))
    for st in calls:
        a = by_name.get(st["action"])
        if a is not None:
            # (a copy-back the caller drops -- union_defuse's "dead", a caller's "dead_key" -- kills nothing;
            # one a whole-header assignment after the call overwrites -- drop_stores_before_whole_copies'
            # "dead_whole" -- kills as it would: p4c's def-use drops the body's stores there too)
            # (and without the stores a self-reading header initializer after the call makes dead:
            # header_init.drop_stores_before_self_init's "dead_fields")
            dead_paths = [f"{_path(d['h'])}.{f}" if isinstance(f, str) else (f"{_path(d['h'])}.{f[0]}", f[1], f[2])
                          for d in st.pop("dead_fields", ()) for f in d["f"]]
            uses.setdefault(id(a), []).append(
                (st, [(g["e"], p) for g, p in zip(st["args"], a["all_params"])
                      if g["dir"] in ("out", "inout") and (not g.get("dead") or g.get("dead_whole"))
                      and g.get("dead_key") is None],
                 dead_paths, st.pop("unvisited_body", None)))
    running = None   # (the pass's state before the next action, once a variant changed it)
    for a in sorted(ir["actions"], key=lambda x: x.get("p4order", 0)):
        state = states.get(a["name"]) if running is None else running
        if running is not None and a["name"] in unpred and _state_key(running) != _state_key(states.get(a["name"])):
            a["body"] = predicate_from(unpred[a["name"]], running)[0]   # (from the state p4c has there)
        impls: dict = {}   # impl (None: the body as written) -> the state after it
        for where, pairs, dead_paths, own in uses.get(id(a), ()):
            v = variant(a, pairs, dead_paths, state, own) if pairs or dead_paths or own is not None else None
            if v:
                where["impl"] = v[0]
            impls[v and v[0]] = v
        only = next(iter(impls.values())) if len(impls) == 1 else None   # (a variant every use runs)
        if state is None or (only is None and running is None):
            continue
        base_after = predicate_from(unpred.get(a["name"], a["body"]), state)[1]
        after = only[1] if only else base_after
        if running is not None or _state_key(after) != _state_key(base_after):
            running = after
    if variants:
        ir["action_variants"] = variants


def _state_key(state: tuple | None):
    """The part of a Predication state that changes what the pass writes (not its callees)."""
    return None if state is None else json.dumps(state[:3], sort_keys=True)


#: statements whose ``out`` argument ``l`` p4c's def-use takes as written (BMv2 writes nothing with the
#: index ``i`` out of range)
_EXTERN_OUTS = ("reg_read", "meter")


def drop_action_stores_before_extern_outs(stmts: list, expand) -> None:
    """The stores of the actions a table applied in ``stmts`` (a control's body) runs that what
    follows the apply overwrites before a read, where a ``register.read`` or ``execute_meter`` follows
    it (in ``stmts`` or in an action they call): p4c's front-end def-use drops them
    (:func:`drop_dead_action_stores`, through ``expand`` -- the elaborator's ``inlined_for_copies``
    with the statements after the apply), and with the extern's index out of range BMv2 writes
    nothing there, so the place keeps the value it had before the store (fuzz_tables seed 3399,
    helper fuzz42: ``hdr.h2.b = ..`` in a table's action, ``a12();`` after the apply holding
    ``m.execute_meter(i, hdr.h2.b)``)."""
    for i, st in enumerate(stmts):
        rest = stmts[i + 1:]
        if st.get("s") == "apply" and any(d.get("s") in _EXTERN_OUTS for d in ir_dicts(
                [rest] + [expand(c) for c in ir_dicts(rest) if c.get("s") == "call_action"])):
            expand(st, (rest,))


def drop_stores_before_extern_outs(x) -> None:
    """A store right before a ``register.read`` or ``execute_meter`` that writes the same place
    (``hdr.h.b = 77; r.read(hdr.h.b, i);``, ``bit<2> c = 3; m.execute_meter(i, c);``) is dead to
    p4c's def-use passes (an ``out`` argument), and BMv2 never runs it: with the index out of range
    the extern writes nothing and the place keeps the value it had before the store (a fresh
    local: 0; errs17 probe r_reg_idx_oob_read_preset, r_meter_oob_preset).  Only the statement just
    before the call is looked at, and only when the call's index does not read that place."""
    if isinstance(x, dict):
        for v in x.values():
            drop_stores_before_extern_outs(v)
        return
    if not isinstance(x, list):
        return
    i = 0
    while i + 1 < len(x):
        a, b = x[i], x[i + 1]
        if isinstance(a, dict) and isinstance(b, dict) and b.get("s") in ("reg_read", "meter") \
                and a.get("s") in ("assign", "decl") and not has_method_call(a.get("r") or a.get("init")):
            target = a["l"] if a["s"] == "assign" else {"op": "var", "n": a["n"], "t": a["t"]}
            key = json.dumps(target, sort_keys=True)
            reads = any(json.dumps(d, sort_keys=True) == key for d in ir_dicts(b.get("i")))
            if json.dumps(b["l"], sort_keys=True) == key and not reads:
                if a["s"] == "assign":
                    del x[i]
                    continue
                if a.get("init") is not None and a["t"][0] in ("bit", "int"):
                    a["init"] = {"op": "const", "v": 0, "t": a["t"]}
        i += 1
    for v in x:
        drop_stores_before_extern_outs(v)


def drop_dead_field_stores(stmts: list, paths: list, expand=None, after: tuple = (), scalars: bool = False,
                           action_body=None) -> None:
    """In place: the stores to a header or struct field overlapping one of ``paths`` that the
    statements after them overwrite (``rest`` lists: what follows in the list, then ``after``; a
    direct action call as its body, ``expand``) before anything reads it, past statements that
    neither read nor write it (``exit_blind_stores.untouched``: branches, switches, function
    calls) -- p4c's front-end SimplifyDefUse drops them, in the nested blocks, branches and
    cases too.  For :func:`.switch_copies.propagate_copies`: such a store ends no copy of a single-case
    switch (measured by helper opens: ``switch (a) { 7: { hdr.h.d = 1 | (bit<32>)hdr.h.c; } }
    switch (b) { 1: { hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; } } hdr.h.c = meta.m16;`` reads
    ``1 | (bit<32>)hdr.h.c`` with the old ``hdr.h.c`` in the second case), and a later single-case
    switch's own copy it made (its ``copies`` mark) is gone with it.  ``scalars``: only the stores
    of a bit, int or bool value, of a whole header outside a union or of a whole struct or union
    (``_WHOLE_OR_SCALAR``), and with ``action_body`` an
    action call's dead copy-back (:func:`drop_stores_before_whole_copies`)."""
    i = 0
    while i < len(stmts):
        st, rest = stmts[i], (stmts[i + 1:],) + after
        k = st.get("s")
        if k == "call_action" and action_body is not None:
            _dead_copy_out(st, paths, rest, action_body)
        if k == "assign" and (not scalars or (st["l"].get("t") or [None])[0] in _WHOLE_OR_SCALAR and
                              not st.get("siblings")) and _dead_field(st, paths, rest, expand):
            left = mux_leftovers(st)   # (a ``?:`` condition's emptied ``if`` stays: fuzz_mutants seed 6)
            stmts[i:i + 1] = left
            i += len(left)
            continue
        if k == "block":
            drop_dead_field_stores(st["body"], paths, expand, rest, scalars, action_body)
        elif k == "if":
            for arm in ("then", "else"):
                if st.get(arm):
                    drop_dead_field_stores(st[arm], paths, expand, rest, scalars, action_body)
        elif k in ("switch_value", "switch_action"):
            for c in st["cases"]:
                drop_dead_field_stores(c["body"], paths, expand, rest, scalars, action_body)
            for p in list(st.get("copies") or ()):   # (a copy whose store is gone; not a sub-control's copy-back)
                if not any(d.get("s") == "assign" and _path(d["l"]) == p or d.get("s") == "apply_control"
                           for c in st["cases"] for d in ir_dicts(c["body"])):
                    del st["copies"][p]
        i += 1


def drop_stores_before_whole_copies(stmts: list, action_body=None) -> None:
    """In place: the field stores of a control body that a later assignment of the whole header,
    header union or struct holding them overwrites before anything reads them
    (:func:`drop_dead_field_stores`) -- p4c's front-end SimplifyDefUse drops them, and where that
    assignment's source is an invalid header BMv2's ``assign_header`` only marks the destination
    invalid, so the field keeps what it held before the dropped store (fuzz_mutants seed 3046:
    ``hdr.u.q.v = 0x77; { U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; }`` -- a later read of
    ``hdr.u.q.v`` sees no 0x77 on BMv2).  So are a store of a whole header (``hdr.h3 = {..};``
    or ``hdr.h3 = hdr.h;``, not a union member: union_defuse's) and an action call's copy-back
    into an ``out``/``inout`` header argument (p4c inlines the call, ``action_body(name)``: its
    body) that such an assignment overwrites: ``a0(hdr.h3); hdr.h3 = hdr.h2;`` with ``h2``
    invalid leaves ``h3``'s fields as they were before the call (fuzz_exprs seed 18427, helper
    fuzz38; p4c drops the body's own stores to ``hdr.h3`` too), and a store of a whole union or struct
    of headers (``{ U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; } hdr = b;``: a member of ``b`` invalid
    keeps the fields ``hdr.u`` had before; fuzz_mutants seed 5422, helper mutz46)."""
    paths = sorted({p for d in ir_dicts(stmts) if d.get("s") == "assign" and (d["l"].get("t") or [None])[0]
                    in ("header", "struct", "union") and (p := _path(d["l"])) is not None and "[*]" not in p})
    if paths:   # (a scalar field's store only: a union member's is union_defuse's)
        drop_dead_field_stores(stmts, paths, scalars=True, action_body=action_body)


#: the stores :func:`drop_stores_before_whole_copies` may drop (a header: not a union member's; a
#: struct -- a whole header union is one -- p4c's def-use drops as a whole: fuzz_mutants seed 5422)
_WHOLE_OR_SCALAR = ("bit", "int", "bool", "header", "struct")


def _dead_copy_out(st: dict, paths: list, rest: tuple, action_body) -> bool:
    """Marks ``dead`` (and ``dead_whole``) each ``out``/``inout`` header argument of call ``st``
    whose copy-back is dead (overwritten by ``rest`` before a read, as :func:`_dead_field` judges a
    store): the copy-back is not made, and :func:`specialize_copy_out_bodies` still drops the
    body's own stores to that place, which p4c's def-use finds dead as well.  Whether one was
    marked.  Not for a body that may exit (p4c copies back before the ``exit``)."""
    body = action_body(st.get("action"))
    if body is None or any(d.get("s") in ("exit", "return") for d in ir_dicts(body)):
        return False
    marked = False
    for a in st.get("args") or ():
        e = a.get("e")
        lp = _path(e) if a.get("dir") in ("out", "inout") and isinstance(e, dict) and e.get("op") == "field" and \
            (e.get("t") or [None])[0] == "header" and not a.get("siblings") and not a.get("dead") else None
        if lp is not None and "[*]" not in lp and any(_overlap(lp, p) for p in paths) and _fate_all(rest, lp, None):
            a["dead"] = a["dead_whole"] = marked = True
    return marked


def _dead_field(st: dict, paths: list, rest: tuple, expand) -> bool:
    lp = _path(st["l"])
    if not _field_store(st["l"]) or lp is None or "[*]" in lp or has_method_call(st["r"]) \
            or not any(_overlap(lp, p) for p in paths):
        return False
    return bool(_fate_all(rest, lp, expand, bit_span(st["l"])))


def _fate_all(lists: tuple, lp: str, expand, span=None):
    """:func:`_fate` of the statement lists ``lists`` run one after the other."""
    for i, lst in enumerate(lists):
        if (fate := _fate(lst, lp, expand, span, lists[i + 1:])) is not None:
            return fate
    return None


def _field_store(lv: dict) -> bool:
    """Whether ``lv`` is a header or struct field, or a slice of one (p4c's def-use tracks the
    bits a slice writes: helper fuzz35)."""
    while lv.get("op") == "slice":
        lv = lv["a"]
    return lv.get("op") == "field"


def _fate(stmts: list, lp: str, expand, span=None, after: tuple = ()):
    """True: ``stmts`` overwrite ``lp`` (its bits ``span``, ``exit_blind_stores.bit_span``'s; None:
    all of it) on every path before reading it; False: they may read it (or do what is not seen
    through); None: they neither read nor write it (a path that goes on past them).  The kinds of
    statement p4c's def-use sees through are exit_blind_stores's; an ``if`` or ``switch`` on a
    value whose condition does not read it, by its branches.  A slice of ``lp`` holding every bit
    of ``span`` overwrites it (helper fuzz35's probes, as fuzz34 found for exit_blind_stores); one
    missing some reads the field's other bits.  As p4c's pass repeats, an assignment that reads
    ``lp`` or writes some of its bits is no obstacle when it is itself overwritten before a read
    (``after``: the statement lists that run after ``stmts``): p4c drops it first (fuzz35's probes:
    ``x = 9; y = x; y = 1; x = z;`` and ``x = 9; x[7:0] = 1; x = z;`` drop ``x = 9`` too)."""
    flat = list(flat_blocks(stmts))
    for j, x in enumerate(flat):
        k, later = x.get("s"), (flat[j + 1:],) + after
        if k == "call_action" and expand is not None and not any(   # (its body reads its parameters)
                _overlap(r, lp) for a in x.get("args") or () if a.get("dir") != "out" for r in path_reads(a.get("e", a), [])):
            if (body := expand(x)) is not None:
                if (fate := _fate(body, lp, expand, span, later)) is not None:
                    return fate
                continue
        if k == "assign" and _covers(x["l"], lp, span) and not any(_overlap(r, lp) for r in path_reads(x["r"], [])):
            return True
        if k in _EXTERN_OUTS and _covers(x["l"], lp, span) and not any(_overlap(r, lp) for r in path_reads(x["i"], [])):
            return True   # (an extern's `out` argument: a write for p4c's def-use, fuzz_tables seed 3399)
        if k == "call_fn" and any(a["dir"] == "out" and _covers(a["e"], lp, span) for a in x["args"]) and \
                untouched([dict(x, args=[a for a in x["args"] if a["dir"] != "out"])], lp):
            return True   # (an out argument is written whatever the body does: the inliner's copy-back)
        if k in ("if", "switch_value") and untouched([dict(x, then=[], **{"else": None}) if k == "if" else dict(x, cases=[])], lp):
            arms = [x["then"] or [], x["else"] or []] if k == "if" else \
                [c.get("body") or [] for c in x["cases"]] + [[]]   # (p4c joins the path past the cases, a
            # `default` notwithstanding: fuzz19_union_store_dead_through_switch's d 0)
            fates = [_fate(a, lp, expand, span, later) for a in arms]
            if False in fates:
                return False
            if all(fates):
                return True
            continue
        if not untouched([x], lp) and (mux_reads(x.get("r"), lp) or not _dead_itself(x, later, expand)):
            return False
    return None


def _dead_itself(x: dict, later: tuple, expand) -> bool:
    """Whether assignment ``x`` is overwritten by ``later`` (statement lists) before a read."""
    xp = _path(x.get("l")) if x.get("s") == "assign" else None
    if xp is None or "[*]" in xp or has_method_call(x["r"]) or any(
            d.get("op") == "stack_idx" and d["i"].get("op") != "const" for d in ir_dicts(x["l"])):
        return False
    return bool(_fate_all(later, xp, expand, bit_span(x["l"])))


def _covers(lv: dict, target: str, span=None) -> bool:
    xp = _path(lv)
    if xp is None or "[*]" in xp:
        return False
    if lv.get("op") == "slice":
        got = bit_span(lv)
        return xp == target and span is not None and got[0] <= span[0] and span[1] <= got[1]
    return target == xp or target.startswith((xp + ".", xp + "["))


def drop_dead_action_stores(body: list, rest: tuple, expand=None) -> list:
    """An action body as p4c's front-end def-use leaves it where its only use is one table apply
    followed by ``rest`` (statement lists, :func:`_fate`'s): without the stores to a header or
    struct field that the rest of the body, or else ``rest``, overwrites on every path before
    anything reads it (measured by helper opens2: ``action wc() { hdr.h.c = 44; }`` listed by a
    table whose apply is followed by ``hdr.h.c = meta.m16;`` is empty in p4c's JSON, so the apply
    ends no single-case switch's copy reading ``hdr.h.c``).  Only the body's straight-line
    statements are looked at."""
    flat = list(flat_blocks(body))
    dead = _dead_stores(flat, rest, expand)
    out = [st for i, st in enumerate(flat) if i not in dead]
    return out if len(out) < len(flat) else body


def dead_action_store_paths(body: list, rest: tuple, expand=None) -> list[str]:
    """The paths of the stores :func:`drop_dead_action_stores` drops, for a table's use of an action
    other uses also run: p4c gives each table its own copy of the action (LocalizeAllActions) and
    drops them from this one only (the table reference's variant, :func:`specialize_copy_out_bodies`)."""
    flat = list(flat_blocks(body))
    return sorted({_path(flat[i]["l"]) for i in _dead_stores(flat, rest, expand)})


def _dead_stores(flat: list, rest: tuple, expand) -> set:
    """Indices of the straight-line stores of ``flat`` the rest of it, or else ``rest``, overwrites."""
    dead = set()
    for i, st in enumerate(flat):
        if st.get("s") == "assign" and _field_store(st["l"]) and not has_method_call(st["r"]):
            lp, span = _path(st["l"]), bit_span(st["l"])
            if lp is not None and "[*]" not in lp:
                if _fate_all((flat[i + 1:],) + tuple(rest), lp, expand, span):
                    dead.add(i)
    return dead
