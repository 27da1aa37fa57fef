"""What p4c 1.2.4.8 does with a header initializer (``h = {...}``) that reads ``h`` itself, and
the expression analysis that decides it.

p4c builds such an initializer in a temporary header it never makes valid (``add_header h;
tmp.f = ...; assign_header h = tmp``): on BMv2 ``h`` ends invalid and no field of it is written
(it was zeroed first by the ``add_header`` if it was invalid).  :func:`reads_header` decides
whether an initializer counts as reading ``h`` the way p4c sees it -- after its constant folding
and strength reduction, and not where p4c hoists a ``?:`` element or orders calls first.  Since
p4c's def-use pass takes the initializer as a definition of every field, it also drops earlier
stores to fields the initializer does not read: :func:`drop_stores_before_self_init` does the
same, because on BMv2 that drop is observable.  The elaborator (``elab_statements``) lowers the
assignment and calls both; nothing here imports the elaborator.
"""
from __future__ import annotations

from .elab_common import eval_bin, wrap, has_call, ir_dicts, is_call


#: method calls in an expression other than a function's (``h.isValid()``, a union's, ``t.apply().hit``)
_METHODS = ("isvalid", "uvalid", "table_hit")


def has_method_call(ir) -> bool:
    """Whether ``ir`` calls anything, ``isValid()`` included: p4c's strength reduction asks its
    side-effect check without a type map, which takes every method call for a side effect --
    so ``h.isValid() ? x : x`` and ``(h.isValid() ? x : y) & 0`` stay as they are (BMv2 says so)."""
    if isinstance(ir, list):
        return any(has_method_call(v) for v in ir)
    return isinstance(ir, dict) and (str(ir.get("op", "")).startswith("call") or ir.get("op") in _METHODS
                                     or any(has_method_call(v) for v in ir.values()))


def header_path(ir):
    """A header lvalue as a comparable path (``None`` for a run-time stack index)."""
    op = ir.get("op")
    if op == "var":
        return ("var", ir["n"])
    if op == "field":
        b = header_path(ir["base"])
        return None if b is None else ("field", b, ir["f"])
    if op == "stack_idx":
        st = header_path(ir["st"])
        i = ir["i"]
        return ("idx", st, i["v"] if i.get("op") == "const" else None)
    return ("other", id(ir))


def _may_alias(a, b) -> bool:
    if a == b:
        return True
    # two elements of one stack where an index is only known at run time
    return a[0] == b[0] == "idx" and a[1] == b[1] and (a[2] is None or b[2] is None)


def fields_read(ir, lhs, validity: bool = False):
    """The names of ``lhs``'s fields that the initializer ``ir`` reads, or None when it uses the
    header otherwise (``isValid()``, the whole header, a stack element that may be it);
    ``validity``: an ``isValid()`` of the header reads no field (p4c's def-use: its validity only)."""
    target = lhs if isinstance(lhs, tuple) else header_path(lhs)   # (or its path already)
    names: set = set()

    def walk(x) -> bool:
        if isinstance(x, list):
            return all(walk(v) for v in x)
        if not isinstance(x, dict):
            return True
        if validity and x.get("op") == "isvalid" and isinstance(x.get("h"), dict) and header_path(x["h"]) == target:
            return True
        if x.get("op") == "field" and isinstance(x.get("base"), dict) and header_path(x["base"]) == target:
            names.add(x["f"])
            return True
        t = x.get("t")
        if isinstance(t, list) and t and t[0] == "header" and "op" in x and _may_alias(header_path(x), target):
            return False
        return all(walk(v) for k, v in x.items() if k != "t")
    return frozenset(names) if walk(ir.get("vals", [])) else None


def _action_stores_dead(call: dict, body, target, reads: set) -> tuple[list, set] | None:
    """A direct call of an action between such a store and the initializer: p4c has inlined it, so
    the stores of its body to ``target``'s fields the initializer does not read (and nothing after
    them in the body reads) are dead too (fuzz_exprs seed 11101).  Only where the arguments do
    not use ``target`` (:func:`body_stores_dead`): the dead stores' field names, and the fields
    read before them."""
    if body is None or mentions(call.get("args"), target):
        return None
    got = body_stores_dead(body, target, reads)
    return None if got is None else (dead_field_marks([_stored_field(x)["f"] for x in got[0]], body, target), got[1])


def dead_field_marks(fields: list, body: list, target) -> list:
    """The ``dead_fields`` marks of a call whose body's stores to ``fields`` (one name per dead store,
    of :func:`body_stores_dead`) are dead: a field name where every store of the body to it is,
    else ``[name, n, total]`` -- the dead ones are the last ``n`` of its ``total`` stores in the
    body's plain blocks (a store a later ``if`` reads stays: fuzz_mutants seed 6298;
    ``dead_reads._without_stores`` drops those where it finds that many)."""
    out: list = []
    for f in sorted(set(fields)):
        mine = [d for d in ir_dicts(body) if d.get("s") == "assign" and (b := _stored_field(d)) is not None
                and b.get("op") == "field" and b.get("f") == f and isinstance(b.get("base"), dict)
                and header_path(b["base"]) == target]
        flat = [d for d in _flat_blocks(body) if any(d is m for m in mine)]
        n = fields.count(f)
        out.append(f if n == len(mine) else [f, n, len(flat)])
    return out


def _stored_field(x: dict) -> dict | None:
    lv = x.get("l") if x["s"] == "assign" else None
    return None if lv is None else lv["a"] if lv.get("op") == "slice" else lv


_QUIET = ("assign", "decl", "setvalid", "if", "switch_value", "block", "empty", "nop", "return")


def _quiet(x: dict, target, branch: bool = False) -> bool:
    """A statement that does not use ``target`` and cannot reach it unseen (no call, action, table
    or exit in it; a ``return`` in a branch only skips the body's rest, whose reads still count:
    fuzz_mutants seed 5639, helper mutz46); ``branch``: an ``if``/``switch`` of such statements may
    use ``target``."""
    return (not mentions(x, target) or branch and x.get("s") in ("if", "switch_value")) and not has_call(x) and \
        all(d.get("s") in _QUIET and not d.get("siblings") for d in ir_dicts(x) if "s" in d)


def _apart_functions(x: dict, target) -> bool:
    """``x`` does not use ``target`` and calls only functions: p4c has inlined them, and a function
    reads and writes nothing but its arguments (fuzz_exprs seed 18358: ``hdr.inh.i6 =
    (bit<1>)f0(hdr.stk[0], hdr.inh.i0, ..);`` in a sub-control's body after the dead store)."""
    return not mentions(x, target) and _only_functions(x)


def _only_functions(x) -> bool:
    return all(d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(x) if is_call(d))


def body_stores_dead(body, target, reads: set) -> tuple[list, set] | None:
    """The stores of an inlined ``body`` (an action's, or a sub-control's with its arguments in
    place) to fields of header ``target`` that no later statement of it nor the initializer after
    it reads (``reads``): ``(those assignments, the fields read before them)``.  Only a body of
    plain assignments and declarations without calls but of functions apart from ``target``
    (setValid/setInvalid calls may be there: they read no field), and ``if``/``switch`` statements of those that do not use ``target``
    (fuzz_exprs seed 18152: an empty ``switch``); None where anything else is there."""
    flat = list(_flat_blocks(body))
    ends = next((i for i, x in enumerate(flat) if x.get("s") == "return"), None)
    flat = flat if ends is None else flat[:ends]   # (RemoveReturns: nothing runs past a plain `return`)
    if not all(x.get("s") in ("assign", "decl", "setvalid") and not x.get("siblings") and
               (not has_call(x) or _apart_functions(x, target)) or _quiet(x, target, True) for x in flat):
        return None
    dead: list = []
    reads = set(reads)
    for x in reversed(flat):
        if x["s"] in ("if", "switch_value") and mentions(x, target):
            # (its fields count as read before it -- a store in it as well; one after it that nothing
            # reads is dead also where a branch returns: fuzz_mutants seed 6298, helper mutz59)
            if (used := fields_read({"vals": [x]}, target)) is None:
                return None
            reads |= used
            continue
        if x["s"] not in ("assign", "decl"):
            continue   # (a validity change reads no field: fuzz_exprs seed 11101)
        base = _stored_field(x)
        if base is not None and base.get("op") == "field" and isinstance(base.get("base"), dict) \
                and header_path(base["base"]) == target:
            if base["f"] not in reads:
                dead.append(x)
                continue
            if mentions(x["r"], target):
                used = fields_read({"vals": [x["r"]]}, base["base"])
                if used is None:
                    return None
                reads |= used
            continue
        if mentions(x, target):   # (a read into something else: `hdr.h.b = hdr.h2.b;`, its fields live)
            val = x.get("init") if x["s"] == "decl" else None if mentions(x["l"], target) else x["r"]
            if (used := None if val is None else fields_read({"vals": [val]}, target)) is None:
                return None
            reads |= used
    return dead, reads


def drop_stores_before_self_init(stmts: list, self_inits: dict, action_body=None, control_body=None,
                                 control_stores=None) -> list:
    """p4c's def-use pass takes an initializer that reads its own header (``h = {h.b, 1}``,
    lowered here to setValid + setInvalid, see the assignment) as a definition of every field of
    ``h``, and drops an earlier store to a field the initializer does not read when nothing in
    between reads it.  On BMv2 that initializer writes no field (``assign_header`` from a
    temporary that is never valid), so the dropped store is observable: the field keeps its value
    from before it (fuzz_exprs seed 2465).  Done here within one statement list and the plain
    blocks nested in it (``h.e1 = x; { ...; { h = {h.e0, 1, 2}; } }``: fuzz_exprs seed 6247),
    walking back over plain assignments, declarations and validity changes (a ``setValid()`` of
    ``h`` too) that do not touch ``h``'s fields, and stores to ``h``'s fields (one whose value
    reads ``h`` too, ``h.c = h.c / 7``: p4c_mutate seed 501; a kept one's reads are then live), and ``if``/``switch`` statements without calls
    (the fields they use are then kept), and a sub-control apply none of whose arguments names
    ``h`` (``control_body``: its body, which then cannot reach ``h``; one that may exit stops
    it -- fuzz_exprs seed 13424) or that passes ``h`` only inside struct arguments p4c uses in
    place (``control_stores(call, target, reads)``: the inlined body's stores are judged as an
    action's, the fields read before it or None -- fuzz_exprs seed 18038); anything else stops the walk.  ``self_inits``:
    id of such a lowered setValid -> (it, the names of the fields its initializer reads, or None)."""
    seq = list(_flat_blocks(stmts))
    drop: set = set()
    for k, st in enumerate(seq):
        got = self_inits.get(id(st))
        if got is None or got[0] is not st or got[1] is None:
            continue
        reads = set(got[1])
        target = header_path(st["h"])
        if target is None or target[0] == "other" or any(p is None for p in _path_parts(target)):
            continue
        for j in range(k - 1, -1, -1):
            prev = seq[j]
            if id(prev) in drop:
                continue
            if prev.get("s") == "setvalid" and not prev.get("siblings") and id(prev) not in self_inits:
                continue   # (a validity change reads no field)
            if _plain_branch(prev, target):
                # p4c's def-use sees through a branch: a store in it that nothing reads before the
                # initializer is dead too (fuzz_exprs seed 8114); else its fields count as read
                used = _live_before(prev, reads, target, st["h"], self_inits, drop, action_body, got[2], control_stores)
                if used is not None and _emptied(prev, drop):
                    drop.add(id(prev))   # (gone with its condition's reads: fuzz_mutants seed 1588, mux_expr)
                    continue
                if used is None:
                    used = fields_read({"vals": [prev]}, st["h"])
                if used is None:
                    break
                reads = set(used) | reads
                continue
            if prev.get("s") == "call_action" and action_body is not None:
                got2 = _action_stores_dead(prev, action_body(prev["action"]), target, reads)
                if got2 is None:
                    break
                if got2[0]:   # (the call runs a copy of the body without them: dead_reads.specialize)
                    prev.setdefault("dead_fields", []).append({"h": st["h"], "f": got2[0]})
                reads = got2[1]
                continue
            if prev.get("s") == "apply_control" and control_stores is not None and mentions(prev.get("args"), target):
                if (reads := control_stores(prev, target, reads)) is None:
                    break
                continue
            if prev.get("s") in ("call_fn", "eval") and not mentions(prev, target) or _plain_loop(prev, target) \
                    or _apart_control(prev, target, control_body):
                continue   # (a function's arguments are all it reads and writes: fuzz_exprs seed 11101)
            if prev.get("s") not in ("assign", "decl") or prev.get("siblings") or _foreign_call(prev, target):
                break
            if prev["s"] == "decl":
                if mentions(prev, target) and not _unread_decl(prev, seq[j + 1:]):
                    break
                continue
            if _dead_local_store(prev, seq, j, drop):
                continue   # (p4c's front end removed it before: its reads do not count)
            lv = prev["l"]
            base = lv["a"] if lv.get("op") == "slice" else lv
            if base.get("op") == "field" and isinstance(base.get("base"), dict) and header_path(base["base"]) == target:
                if base["f"] not in reads:
                    drop.add(id(prev))   # (what its value reads is then read by nothing: `h.c = h.c / 7`)
                    continue
                if mentions(prev["r"], target):   # (kept: the fields its value reads are live before it)
                    used = fields_read({"vals": [prev["r"]]}, st["h"])
                    if used is None:
                        break
                    reads |= used
                continue   # (a store to another field the initializer reads stays; the walk goes on)
            if mentions(prev, target):
                break
    return _without(stmts, drop) if drop else stmts


def _emptied(st: dict, drop: set) -> bool:
    """Whether ``if`` statement ``st`` is left empty by the stores of ``drop``: p4c's SimplifyControlFlow
    removes it, a condition without calls with it, and its repeated def-use finds a store that only
    that condition read dead too (helper mutz40: ``h.b = x; if (h.b == 2) { h.b = 7; } .. h = {h.a, ..};``
    drops both stores)."""
    return st.get("s") == "if" and not has_call(st["c"]) and all(
        id(d) in drop for d in ir_dicts([st["then"], st.get("else")]) if "s" in d and d["s"] != "block")


def _plain_path(e) -> str | None:
    """``v.f.g`` / ``v.s[2]`` for a path of a variable with constant indices, else None."""
    op = e.get("op") if isinstance(e, dict) else None
    if op == "var":
        return e["n"]
    if op == "field":
        b = _plain_path(e.get("base"))
        return None if b is None else f"{b}.{e['f']}"
    if op == "stack_idx" and (e.get("i") or {}).get("op") == "const":
        b = _plain_path(e.get("st"))
        return None if b is None else f"{b}[{e['i']['v']}]"
    return None


def _near(a: str, b: str) -> bool:
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def _uses_path(ir, root: str, path: str) -> bool:
    """Whether ``ir`` reads or writes local ``root`` where it may overlap ``path``."""
    if isinstance(ir, list):
        return any(_uses_path(v, root, path) for v in ir)
    if not isinstance(ir, dict):
        return False
    if ir.get("op") in ("var", "field", "stack_idx"):
        p = _plain_path(ir)
        if p is not None and (p == root or p.startswith((root + ".", root + "["))):
            return _near(p, path)
        if p is None and any(d.get("op") == "var" and d.get("n") == root for d in ir_dicts(ir)):
            return True
    return any(_uses_path(v, root, path) for k, v in ir.items() if k != "t")


def _unread_decl(st: dict, rest: list) -> bool:
    """Whether declaration ``st`` has a value without calls and nothing in ``rest`` (what follows
    it in its scope) uses its local: p4c's front end removed its store as dead, so what its value
    reads is no read (fuzz_exprs seed 18152: ``bit<2> l7 = (..hdr.opt.e0..)[6:5];`` alone in a
    switch case)."""
    return st.get("init") is not None and not has_call(st["init"]) and \
        not any(_uses_path(d, st["n"], st["n"]) for d in rest)


def _dead_local_store(st: dict, seq: list, j: int, drop: set) -> bool:
    """Whether assignment ``st`` (``seq[j]``) stores into a local declared earlier in ``seq`` (a
    field or slice of one too) with a value without calls, and nothing after it in ``seq`` uses
    what it writes: p4c's front end removed such a store as dead before the mid end's def-use, so
    what it reads is no read (fuzz_exprs seed 13424: ``l34.e3[15:0] = hdr.opt.e1;``, l34.e3 read
    by nothing, leaves an earlier store to ``hdr.opt.e1`` dead before ``hdr.opt = {..hdr.opt.e3..}``)."""
    if st.get("s") != "assign" or st.get("siblings") or has_call(st["r"]):
        return False
    lv = st["l"]
    path = _plain_path(lv["a"] if lv.get("op") == "slice" else lv)
    if path is None:
        return False
    root = path.split(".")[0].split("[")[0]
    if not any(d.get("s") == "decl" and d.get("n") == root for d in seq[:j]):
        return False
    return not any(_uses_path(d, root, path) for d in seq[j + 1:] if id(d) not in drop)


def _foreign_call(st: dict, target) -> bool:
    """Whether ``st`` calls a function that may touch ``target``: one of its arguments uses it (a
    function reads and writes nothing else; p4c has inlined it and ordered its effects first, so a
    call in an expression of a statement that does not use ``target`` is no read of it: fuzz_exprs
    seed 11101, ``hdr.stk[tick(meta.ix) >> 1].epad = ..``)."""
    return has_call(st) and mentions(st, target)


def _plain_branch(st, target) -> bool:
    """An ``if`` or a ``switch`` on a value without calls that may touch ``target`` but of functions
    (p4c orders them before the branch; :func:`_live_before` takes the fields their arguments name
    as read: fuzz_exprs seed 18358, ``if (f0(.., hdr.opt.e1, ..))``; function calls as statements in
    its branches: it looks at their arguments) or union-sibling effects."""
    if st.get("s") not in ("if", "switch_value") or any(isinstance(d, dict) and d.get("siblings") for d in ir_dicts(st)):
        return False
    head = st.get("c") if st["s"] == "if" else st.get("e")   # (functions there: their arguments count as read)
    return (not _foreign_call(head, target) or _only_functions(head)) and not any(
        _foreign_call(d, target) for d in ir_dicts(st) if isinstance(d, dict) and "s" in d
        and d.get("s") not in ("call_fn", "eval") and d is not st and d.get("s") not in ("if", "switch_value", "block"))


#: statements a loop :func:`_plain_loop` walks through may hold (each checked not to use the header)
_LOOP_KINDS = ("assign", "decl", "block", "if", "switch_value", "for", "for_in", "break", "continue",
               "call_fn", "eval", "setvalid", "empty", "nop")


def _apart_control(st, target, control_body) -> bool:
    """A sub-control apply whose arguments do not name ``target`` -- its body has no other way to
    the caller's headers -- and whose body (``control_body``) cannot exit: no ``exit``, action
    call, table or apply of its own (p4c has inlined it; its def-use walks through)."""
    if st.get("s") != "apply_control" or control_body is None or mentions(st.get("args"), target):
        return False
    body = control_body(st)
    return body is not None and not any(
        d.get("s") in ("exit", "call_action", "apply", "switch_action", "apply_control") or
        str(d.get("op", "")).startswith(("table", "call_action")) for d in ir_dicts(body) if isinstance(d, dict))


def _plain_loop(st, target) -> bool:
    """A ``for`` loop that does not use ``target`` and holds nothing that may touch it unseen (an
    action call, a table, a union member's siblings, a return): the reference spells it out for
    p4c 1.2.4.8, and its def-use walks through the copies (fuzz_exprs seed 12598: a store to
    ``hdr.opt.epad`` before such a loop and ``hdr.opt = {hdr.opt.e0, ..}`` is dropped)."""
    return st.get("s") in ("for", "for_in") and not mentions(st, target) and all(
        d.get("s") in _LOOP_KINDS and not d.get("siblings") for d in ir_dicts(st) if isinstance(d, dict) and "s" in d)


def _live_before(st: dict, live: set, target, h, self_inits: dict, drop: set, action_body=None, every=frozenset(),
                 control_stores=None):
    """The fields of header ``h`` read before they are written from the start of ``st`` (a
    :func:`_plain_branch`) on, when after it ``live`` are; or None where this cannot tell.  Walking
    back through each branch from its end, a store to a field not read later is dead (its own
    reads do not count) and goes into ``drop``: p4c's mid end shows ``if (c) { h.c = 5; } else {
    h.b = h.c; } h = {h.a, 1, 2, 3};`` as the initializer alone.  A branch holding anything this does
    not follow gives None (its stores stay).  An ``exit`` in a branch makes ``every`` field of the
    header live there (the control's copy-out reads them all), and a store to a whole field ends
    that field's liveness before it: ``if (c) { h.d = 1; exit; }`` leaves ``h.d`` dead before the
    ``if`` (fuzz_mutants seed 2631 with --kinds cast_slice,exit_stmt,switch_wrap)."""
    if st["s"] == "if":
        bodies, heads = [st["then"] or [], st["else"] or []], [st["c"]]
    else:
        bodies, heads = [c["body"] for c in st["cases"]], [st["e"]]
        if not any("default" in c["labels"] for c in st["cases"]):
            bodies.append([])   # (no case runs)
    out = fields_read({"vals": heads}, h)
    if out is None:
        return None
    out = set(out)
    for body in bodies:
        now, mine, calls = set(live), set(), []
        flat = list(_flat_blocks(body))
        for k, prev in reversed(list(enumerate(flat))):
            if id(prev) in drop:
                continue
            if prev.get("s") == "setvalid" and not prev.get("siblings") and id(prev) not in self_inits:
                continue
            if prev.get("s") == "exit":
                now = set(every)
                continue
            if _plain_branch(prev, target):
                now = _live_before(prev, now, target, h, self_inits, mine, action_body, every, control_stores)
            elif prev.get("s") == "call_action" and action_body is not None:
                got = _action_stores_dead(prev, action_body(prev["action"]), target, now)
                if got is not None and got[0]:
                    calls.append((prev, got[0]))
                now = None if got is None else got[1]
            elif prev.get("s") == "apply_control" and control_stores is not None and mentions(prev.get("args"), target):
                now = control_stores(prev, target, now)   # (in a branch too: fuzz_exprs seed 18358)
            elif prev.get("s") == "decl" and (not mentions(prev, target) or _unread_decl(prev, flat[k + 1:])):
                continue
            elif prev.get("s") in ("call_fn", "eval") and not mentions(prev, target) or _plain_loop(prev, target):
                continue   # (a function's arguments are all it reads and writes: fuzz_exprs seed 11101)
            elif prev.get("s") != "assign" or prev.get("siblings") or _foreign_call(prev, target):
                now = None
            else:
                lv = prev["l"]
                base = lv["a"] if lv.get("op") == "slice" else lv
                own = base.get("op") == "field" and isinstance(base.get("base"), dict) and \
                    header_path(base["base"]) == target
                if own and base["f"] not in now:
                    mine.add(id(prev))
                    continue
                used = fields_read({"vals": [prev["r"]] + ([] if own and base is lv else [lv])}, h)
                now = None if used is None else (now - {base["f"]} if own and base is lv else now) | used
            if now is None:
                return None
        drop |= mine
        for call, fields in calls:   # (the call runs a copy of its body without them: dead_reads)
            call.setdefault("dead_fields", []).append({"h": h, "f": fields})
        out |= now
    return out


def _flat_blocks(stmts: list):
    """``stmts`` with the plain blocks nested in them opened, in order (a block's own dict too, so
    that nothing is lost: it is neither an assignment nor a declaration and stops a walk)."""
    for st in stmts:
        if st.get("s") == "block":
            yield from _flat_blocks(st["body"])
        else:
            yield st


def _without(stmts: list, drop: set) -> list:
    out = []
    for st in stmts:
        if id(st) in drop:
            continue
        if not any(id(d) in drop for d in ir_dicts(st)):
            pass   # (kept as it is: other passes know statements by id)
        elif st.get("s") == "block":
            st = dict(st, body=_without(st["body"], drop))
        elif st.get("s") == "if":
            st = dict(st, then=_without(st["then"] or [], drop), **{"else": _without(st["else"] or [], drop)})
        elif st.get("s") == "switch_value":
            st = dict(st, cases=[dict(c, body=_without(c["body"], drop)) for c in st["cases"]])
        out.append(st)
    return out


def _path_parts(p):
    """The index parts of a header path (None where a stack index is run-time)."""
    while isinstance(p, tuple) and p and p[0] in ("field", "idx"):
        if p[0] == "idx":
            yield p[2]
        p = p[1]


def mentions(ir, target) -> bool:
    """Whether ``ir`` uses the header at ``target`` (or what may alias it, or a struct holding it)."""
    if isinstance(ir, list):
        return any(mentions(v, target) for v in ir)
    if not isinstance(ir, dict):
        return False
    if ir.get("op") in ("var", "field", "stack_idx"):
        p = header_path(ir)
        if p is None or p[0] == "other":
            return True   # (a run-time stack index somewhere in the path: may be anything)
        if related(p, target):
            return True
        node = ir   # the path is not the header: only run-time index expressions along it remain
        while isinstance(node, dict) and node.get("op") in ("field", "stack_idx"):
            if node.get("op") == "stack_idx" and mentions(node["i"], target):
                return True
            node = node.get("base") or node.get("st")
        return False
    return any(mentions(v, target) for k, v in ir.items() if k != "t")


def related(p, target) -> bool:
    """Path ``p`` is ``target``, a part of it, or something holding it (or may alias one)."""
    q = target
    while True:
        if p == q or _may_alias(p, q):
            return True
        if not (isinstance(q, tuple) and q and q[0] in ("field", "idx")):
            break
        q = q[1]
    return _inside(p, target)


def _inside(p, target) -> bool:
    """``p`` is a part of ``target`` (one of its fields)."""
    while isinstance(p, tuple) and p and p[0] in ("field", "idx"):
        p = p[1]
        if p == target:
            return True
    return False


def reads_header(ir, lhs) -> bool:
    """Whether the initializer ``ir`` uses the header ``lhs`` (or a stack element that may be it):
    a field read, ``isValid()``, a header comparison.  An element that is a ``?:`` as a whole (also
    under casts, slices and unary operators) does not count: p4c evaluates it into a temporary
    beforehand (one inside a binary operator it does not); nor does anything when an element
    calls a function (p4c then evaluates every element first)."""
    target = header_path(lhs)

    def walk(x) -> bool:
        if isinstance(x, list):
            return any(walk(v) for v in x)
        if not isinstance(x, dict):
            return False
        t = x.get("t")
        if isinstance(t, list) and t and t[0] == "header" and "op" in x and _may_alias(header_path(x), target):
            return True
        r = reduced(x, has_method_call)
        if r is not x and _const(r) == 0:
            return False   # p4c's strength reduction leaves no read: `h.f & 0`, `h.f ^ h.f`, `0 << h.f`
        return any(walk(v) for k, v in x.items() if k != "t")

    def calls(x) -> bool:
        if isinstance(x, list):
            return any(calls(v) for v in x)
        return isinstance(x, dict) and (str(x.get("op", "")).startswith("call") or any(calls(v) for v in x.values()))

    def hoisted(v):   # p4c moves unary operators into a ?:'s arms, then hoists it
        # (-> whether it is hoisted, and what p4c's strength reduction leaves of it to read)
        while True:
            if v.get("op") == "slice" and v["a"].get("op") == "bin" and v["a"]["o"] == "++" \
                    and _const(v["a"]["a"]) == 0 and v["lo"] == 0 and v["hi"] == v["a"]["b"]["t"][1] - 1:
                v = v["a"]["b"]   # (0 ++ x)[w-1:0] is x
            elif v.get("op") in ("cast", "slice", "un"):
                v = v["a"]
            elif v.get("op") == "bin" and (x := _identity_operand(v)) is not None:
                v = x   # p4c's strength reduction first: `x | 0`, `x * 1`, ... are x
            elif v.get("op") == "bin" and v["o"] == "-" and _const(v["a"]) == 0 and v["t"][0] in ("bit", "int"):
                v = v["b"]   # `0 - x` is `-x`, a unary operator
            elif v.get("op") == "bin" and v["o"] in ("&", "|") and not has_method_call(v) \
                    and same_ir(folded(v["a"]), folded(v["b"])):
                v = v["a"]   # `x & x`, `x | x` are x
            elif v.get("op") == "cond" and _const(v["c"]) is not None:
                v = v["a"] if _const(v["c"]) else v["b"]   # (and its constant folding: `true ? x : y` is x)
            elif v.get("op") == "cond" and not has_method_call(v) and same_ir(folded(v["a"]), folded(v["b"])):
                v = v["a"]   # `c ? x : x` is x (fuzz_exprs seed 2881), not where c calls `isValid()` (seed 1025)
            else:
                return v.get("op") == "cond", v

    if calls(ir.get("vals", [])):   # p4c orders the side effects first: every element into a temporary
        return False
    # (a `c ? x : x` reduced to x reads no more what c read: `(h == g) ? h2.b : (h2.b & h2.b)` as an
    # element of `h = {..}` leaves h valid on BMv2, fuzz_exprs seed 10454)
    return any(walk(r) for h, r in map(hoisted, ir.get("vals", [])) if not h)


def folded(x):
    """``x`` as p4c compares it with another expression in its strength reduction: bottom up,
    every ``?:`` on a constant condition (``true ? a : b``) is its arm (constant folding), one whose
    arms are the same (``c ? a : a``, no method call in it) is that arm, and every binary operation
    is :func:`reduced` (``h.f + 0`` is ``h.f``)."""
    if isinstance(x, list):
        return [folded(v) for v in x]
    if not isinstance(x, dict):
        return x
    x = {k: (v if k == "t" else folded(v)) for k, v in x.items()}
    while x.get("op") == "cond":
        if _const(x["c"]) is not None:
            x = x["a"] if _const(x["c"]) else x["b"]
        elif not has_method_call(x) and same_ir(x["a"], x["b"]):
            x = x["a"]   # `c ? y : y` is y, also nested (`c ? h.e : (p ? h.e : h.e)`: fuzz_exprs seed 6512)
        else:
            break
    return reduced(x, has_method_call)


def _const(x):
    """The value of ``x`` when it is a constant after p4c's constant folding, which runs before
    its strength reduction: a literal, or an operation or slice on constants only (``8w5 - 8w5`` is 0, so
    ``(c ? h.b : 0) + (8w5 - 8w5)`` is the ``?:`` alone and hoisted: fuzz_headers seed 4428)."""
    if not isinstance(x, dict):
        return None
    op = x.get("op")
    if op == "const":
        return x.get("v")
    t = x.get("t") or [None]
    if op == "slice":   # (a slice of a constant: `(23w1)[19:4] >> x` is `0 >> x`, fuzz_exprs seed 8175)
        a = _const(x["a"])
        return None if a is None or isinstance(a, bool) else (int(a) >> x["lo"]) & ((1 << (x["hi"] - x["lo"] + 1)) - 1)
    if op not in ("bin", "un", "cast") or t[0] not in ("bit", "int"):
        return None
    a = _const(x["a"])
    if a is None or isinstance(a, bool):
        return None
    if op == "cast":
        return wrap(int(a), t)
    if op == "un":
        return {"-": lambda: wrap(-a, t), "~": lambda: wrap(~a, t)}.get(x["o"], lambda: None)()
    b = _const(x["b"])
    at = (x["a"].get("t") or [None])
    if b is None or isinstance(b, bool) or at[0] not in ("bit", "int") or x["o"] in ("/", "%") and b == 0:
        return None
    return eval_bin(x["o"], a, b, at, t)


def _identity_operand(b: dict):
    """The operand that the binary expression ``b`` is equal to by p4c's strength reduction
    (``x | 0``, ``0 ^ x``, ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1``, ``x & 0xff..``,
    ``x << 0``, ``x >> 0``), or None; on ``bit<W>`` and ``int<W>`` alike, but for ``&`` (no
    ``int<W>`` constant has W one bits).  (Saturating operators are not reduced.)"""
    o, a, c = b["o"], b["a"], b["b"]
    t = b.get("t") or [None]
    if t[0] not in ("bit", "int"):
        return None
    ones = (1 << t[1]) - 1 if t[0] == "bit" else None
    for x, k in ((a, _const(c)), (c, _const(a))):
        if k is None:
            continue
        if o in ("|", "^", "+") and k == 0 or o == "*" and k == 1 or o == "&" and k == ones:
            return x
        if x is a and (o in ("-", "<<", ">>") and k == 0 or o == "/" and k == 1):
            return x
    return None


def reduced(x, effects=has_call):
    """``x`` as p4c's strength reduction leaves it, as far as it matters to which header reads
    remain: an identity operation is its operand (:func:`_identity_operand`), and one whose value
    is 0 whatever its operands (``x & 0``, ``x * 0``, ``x ^ x``, ``x - x``, ``0 << x``, ``0 >> x``,
    ``x % 1``, ``0 / x``, ``0 % x``, operands without side effects by ``effects``) is the constant 0; anything else is
    ``x`` itself.  On ``bit<W>`` and ``int<W>`` alike (an ``int<W>`` ``x ^ x`` is 0 too: fuzz_exprs
    seed 3002)."""
    if not isinstance(x, dict) or x.get("op") != "bin" or (x.get("t") or [None])[0] not in ("bit", "int"):
        return x
    a, b = reduced(x["a"], effects), reduced(x["b"], effects)
    o = x["o"]
    zero = {"op": "const", "v": 0, "t": x["t"]}
    if effects(x):
        return x
    if o in ("&", "*") and (_const(a) == 0 or _const(b) == 0) or o in ("<<", ">>", "/", "%") and _const(a) == 0 \
            or o == "%" and _const(b) == 1 or o in ("^", "-") and same_ir(a, b):
        return zero
    if (y := _identity_operand({**x, "a": a, "b": b})) is not None:
        return y
    if o in ("&", "|") and same_ir(a, b):
        return a   # `x & x`, `x | x`
    return x


def reduced_value(x, effects=has_method_call):
    """The constant p4c's mid end makes of ``x`` by strength reduction and constant folding,
    repeated bottom-up (``(x * 0 - 1) / 10`` is ``(0 - 1) / 10``, then a constant), or None."""
    if not isinstance(x, dict) or x.get("op") not in ("bin", "un", "cast"):
        return _const(x)
    parts = {}
    for k in ("a", "b"):
        if isinstance(x.get(k), dict):
            v = reduced_value(x[k], effects)
            parts[k] = x[k] if v is None or isinstance(v, bool) else {"op": "const", "v": v, "t": x[k].get("t")}
    return _const(reduced({**x, **parts}, effects))


def same_ir(a, b) -> bool:
    """Two expressions p4c's strength reduction takes as equal (the same IR)."""
    return repr(a) == repr(b)
