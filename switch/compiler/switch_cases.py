"""Two things a ``switch`` on a value leaves for p4c 1.2.4.8 that are no copies
(:mod:`.switch_copies` has those): which actions a constant switch's dropped cases leave unused
(:func:`unused_by_dead_cases`), and the locals whose stores p4c drops after a single-case switch
whose case exits (:func:`drop_unvisited_locals`; in the front end's view a case that returns too,
and then the locals of an action only that flow calls: :func:`drop_unvisited_action_locals`, and
p4c's copy of the body of each action called or applied there: :func:`unvisited_copy`).
Split out of :mod:`.switch_copies`.
"""
from __future__ import annotations

from types import SimpleNamespace

from .call_copies import call_guard
from .copy_paths import ir_path, may_write, overlap, path_reads
from .elab_common import ir_dicts, ir_replace
from .header_init import has_method_call
from .predication import MUX_WRAPPERS, dismantle_muxes


def unused_by_dead_cases(actions: dict, cases: list, v) -> dict:
    """A constant switch (value ``v``; ``"default"``: p4c keeps the default case) drops the cases it
    does not select before p4c's back-end checks, so an action only they call is unused (fuzz_headers
    seed 5708: a conditional ``pop_front`` in an action called in ``switch (8w1) { 2: {..} }``).
    ``cases`` carry ``used_before`` (each action's ``used`` before the case's body; taken out here);
    returns the ``used`` values to restore."""
    befores = [c.pop("used_before", None) for c in cases]
    if v is None:
        return {}
    hit = next((i for i, c in enumerate(cases) if v in c["labels"]), None) if v != "default" else None
    hit = next((i for i, c in enumerate(cases) if "default" in c["labels"]), None) if hit is None else hit
    snaps = [b for b in befores if b is not None] + [{q: a.get("used") for q, a in actions.items()}]
    k = sum(1 for b in befores[:hit] if b is not None) if hit is not None and befores[hit] is not None else None
    mine = set() if k is None else {q for q in snaps[-1] if snaps[k].get(q) != snaps[k + 1].get(q)}
    return {q: u for q, u in snaps[0].items() if q not in mine and u != snaps[-1].get(q)}


def _var_reads(x, out: set) -> set:
    for d in ir_dicts(x):
        if d.get("op") == "var":
            out.add(d["n"])
    return out


def drop_unvisited_locals(body: list, lcp: bool = True, actions: dict | None = None, tables: dict | None = None,
                          prefix: str = "", hdr_bytes=None) -> list:
    """After a single-case switch whose case ends in ``exit`` p4c 1.2.4.8's LocalCopyPropagation
    takes the flow as unreachable (nothing to merge with the case's) and does not visit what
    follows up to the next join (the end of an ``if`` or ``switch`` around it): reads there do not
    make a local live, so a local of the control body read only there loses every assignment and
    its initializer to the pass's dead-code removal, and reads as 0 on BMv2 (``bit<8> v = 1;
    switch (x) { 5: { exit; } } v = 2; h.c = v;`` writes 0 whatever x is; measured, helper fuzz22).
    Returns ``body`` with those assignments removed (a local whose assignments call anything is
    left alone).  RemoveReturns' flag is such a local in the front end's second pass: a ``return``
    past an exit sets it (``hasReturned = true``) where only the unvisited flow reads it -- no visited
    statement follows the return, which RemoveReturns would put under ``if (!hasReturned)`` -- so
    the store goes and the ``return`` does nothing on BMv2 (helper mutz59: ``switch (x) { 5: { exit; } }
    if (h.b == 6) { return; } h.a = 1;`` writes h.a = 1 where h.b is 6); such returns are removed.

    An assignment to a local in that unvisited flow goes too where no visited read follows it: the
    front end's SimplifyDefUse sees the flow so as well (a read there uses no store) and drops it
    (fuzz_mutants seed 2915, helper mutz38: ``bit<8> v = 4; switch (x) { 5: { m = v + 1; exit; } }
    v = 7; h.b = v;`` sends 4 on BMv2 -- v, read in the case, is live, and the case's copy
    ``m = v + 1`` that the mid end then propagates past the switch reads 4 too).  Without ``lcp``
    only those go: the front end's drop, made before the copies are propagated (elab_statements),
    with the visited assignments to a local that only that flow reads after them (the pass is
    flow-sensitive: ``v = 3; switch (x) { 5: { exit; } } h.a = v;`` drops ``v = 3``, helper mutz59);
    for the front end (before RemoveReturns) a case that returns ends the flow too -- also where
    :func:`.elab_common.live_prefix` un-marked the switch for the mid end (``fe_returns``: a second
    statement that may return follows; fuzz_mutants ``--kinds mux_expr`` seed 3793) --, and with
    ``actions``/``tables`` (the program's records; ``prefix``: the control's actions' prefix) the
    actions only that flow calls lose their locals' stores (:func:`drop_unvisited_action_locals`)
    and each call or table apply there runs p4c's copy of the action (:func:`_unvisited_sites`).
    With ``lcp`` a function called there as a statement copies back what it never assigned
    (:func:`_uninitialized_copy_backs`; ``hdr_bytes(t)``: a header type's size)."""
    live: set = set()
    unvisited: list = []
    last_read: dict = {}   # local -> the position (walk order) of its last visited read
    late: list = []        # (position, an unvisited assignment to a local; without lcp a visited one too)
    count = [0]

    def reads(x, pos: int) -> None:
        for n in _var_reads(x, set()):
            live.add(n)
            last_read[n] = pos

    tails: list = []       # (statement list, first unvisited index): the field stores' scan (_overwritten)
    sites: list = []       # (an unvisited table apply or action call, the statements after it)

    exit_unvisited: list = []   # (the part past an exit: the front end's second pass, after RemoveReturns)
    pending: list = []     # the returns past an exit no visited statement follows yet (RemoveReturns' flag)
    flag_dead: set = set()   # ids of the returns past an exit ever pending (less those a visited one follows)

    def arms(bodies, vis: int) -> list:   # each arm's walk from the same pending returns (none reads another's)
        before, after, ends = pending[:], [], []
        for b in bodies:
            pending[:] = before
            ends.append(walk(b, vis))
            after += [r for r in pending if r not in after]
        pending[:] = after
        return ends

    def walk(sts, vis: int) -> int:   # vis: 2 visited, 1 past a return only, 0 past an exit
        if vis < 2:
            tails.append((sts, 0))
        for i, st in enumerate(sts):
            k = st.get("s")
            was = vis
            count[0] += 1
            pos = count[0]
            if vis == 2:   # (RemoveReturns puts it under `if (!hasReturned)`: a visited read of the flag)
                flag_dead.difference_update(pending)
                pending.clear()
            elif vis == 0 and k == "return" and not lcp:
                pending.append(id(st))
                flag_dead.add(id(st))
            if vis < 2:
                unvisited.append(st)
                if vis == 0:
                    exit_unvisited.append(st)
                if k in ("apply", "call_action"):
                    sites.append((st, sts[i + 1:]))
            if (vis < 2 or not lcp) and (
                    k == "assign" and st["l"].get("op") == "var" and not has_method_call(st["r"]) or
                    k == "decl" and st.get("init") is not None and not has_method_call(st["init"])):
                late.append((pos, st))
            if k == "block":
                vis = walk(st["body"], vis)
            elif k == "if":
                if vis == 2:
                    reads(st["c"], pos)
                vis = max(arms([st["then"] or [], st["else"] or []], vis))
            elif k == "switch_value":
                if vis == 2:
                    reads(st["e"], pos)
                ends = arms([c["body"] for c in st["cases"]], vis)
                if vis == 2:   # (reads the case's copies took from the statements after it: switch_copies)
                    for n in st.get("fe_reads") or ():
                        live.add(n)
                        last_read[n] = max(last_read.get(n, -1), count[0])
                single = len(st["cases"]) == 1 and len(st["cases"][0]["labels"]) == 1 and \
                    st["cases"][0]["labels"] != ["default"]
                if single and st.get("exits"):
                    vis = 0
                elif single and not lcp and (st.get("returns") or st.get("fe_returns")):
                    vis = min(vis, 1)
                else:
                    vis = max(ends + [vis])
            elif k == "switch_action":   # (a table's action_run: its cases as a switch's, the join after)
                if vis == 2:
                    reads({kk: v for kk, v in st.items() if kk not in ("cases", "p4info_rest")}, pos)
                vis = max(arms([c["body"] for c in st["cases"]], vis) + [vis])
            elif vis == 2:
                if k == "assign" and st["l"].get("op") == "var":
                    reads(st["r"], pos)
                elif k == "decl":
                    reads(st.get("init"), pos)
                else:
                    reads({kk: v for kk, v in st.items() if kk != "p4info_rest"}, pos)
            if was == 2 and vis < 2:
                tails.append((sts, i + 1))
        return vis
    walk(body, 2)
    if not unvisited:
        return body
    uv_ids = {id(st) for st in unvisited}
    if actions is not None and tables is not None:
        drop_unvisited_action_locals(body, unvisited, actions, tables, prefix, sites, exit_unvisited)
    overwritten = set() if lcp else {id(st) for lst, i in tails for st in overwritten_field_stores(lst, i)}
    decls = {d["n"] for d in ir_dicts(body) if d.get("s") == "decl" and not str(d.get("n", "")).startswith("L.")}
    read_anywhere = _var_reads(unvisited, set())
    gone = {id(st) for pos, st in late if _lname(st) in decls and last_read.get(_lname(st), -1) < pos
            and (id(st) in uv_ids or _lname(st) in read_anywhere)} | overwritten
    dead = {n for n in decls - live if n in read_anywhere} if lcp else set()   # (live: fuzz_mutants seed 4015)
    for d in ir_dicts(body):
        if (d.get("s") == "assign" and d["l"].get("op") == "var" and d["l"]["n"] in dead and has_method_call(d["r"])) \
                or (d.get("s") == "decl" and d.get("n") in dead and d.get("init") is not None
                    and has_method_call(d["init"])):
            dead.discard(d.get("n") or d["l"]["n"])
    repl: dict = {}
    if not lcp and actions is not None and tables is not None and hdr_bytes is not None:
        repl = {k: ([], st) for k, st in _unvisited_sites(body, exit_unvisited, actions, tables, hdr_bytes,
                                                          sites).items()}
    for st in unvisited if not lcp else ():
        zeroed = _front_temps_zeroed(st)
        if zeroed is not None:
            repl[id(st)] = ([], zeroed)
    for st in unvisited if lcp and hdr_bytes is not None else ():
        zeroed = _zeroed_mux(st)
        got = _uninitialized_copy_backs(zeroed or st, hdr_bytes)
        if got is not None or zeroed is not None:
            repl[id(st)] = got if got is not None else ([], zeroed)
    gone |= flag_dead
    if not dead and not gone and not repl:
        return body

    def strip(sts):
        out = []
        for st in sts:
            if id(st) in gone and st.get("s") == "decl":   # (a declaration loses its initializer)
                st = dict(st, init=None)
            elif st.get("s") == "assign" and st["l"].get("op") == "var" and st["l"]["n"] in dead or id(st) in gone:
                continue
            if id(st) in repl:
                out.extend(repl[id(st)][0])
                st = repl[id(st)][1]
                if st is None:
                    continue
            if st.get("s") == "decl" and st.get("n") in dead:
                st = dict(st, init=None)
            out.append(_nested_mapped(st, strip))
        return out
    return strip(body)


def _nested_mapped(st: dict, fn) -> dict:
    """``st`` with ``fn`` applied to each statement list nested in it (a block's or an if's arms,
    each case's body); ``st`` itself where it nests none."""
    for key in ("body", "then", "else"):
        if isinstance(st.get(key), list):
            st = dict(st, **{key: fn(st[key])})
    if isinstance(st.get("cases"), list):
        st = dict(st, cases=[dict(c, body=fn(c["body"])) for c in st["cases"]])
    return st


def _root_var(lv):
    while isinstance(lv, dict) and lv.get("op") != "var":
        lv = lv.get("base", lv.get("a", lv.get("st")))
    return lv.get("n") if isinstance(lv, dict) else None


def _unassigned_store(a: dict, hdr_bytes) -> dict | None:
    """The statement that leaves in out/inout argument ``a`` what a never-assigned parameter
    temporary copies back on BMv2: 0 for a scalar, the header made invalid (assign_header keeps its
    fields); None for any other type (not modelled)."""
    lv, t = a["e"], a["e"].get("t") or [None]
    if t[0] in ("bit", "int", "bool"):
        return {"s": "assign", "l": lv, "r": _zero(t)}
    if t[0] == "header" and not a.get("siblings"):
        return {"s": "setvalid", "h": lv, "v": False, "siblings": [], "bytes": hdr_bytes(t)}
    return None


def unvisited_copy(rec: dict | None, hdr_bytes, after: list | None = None) -> list | None:
    """The body of p4c's copy of action ``rec`` for a call site in the flow its front-end
    SimplifyDefUse does not visit after RemoveReturns (past a single-case switch whose case exits:
    :func:`drop_unvisited_locals`; past one whose case returns the flow is visited by then, the
    return a flag -- ``fuzz50_unvisited_action_copy_with_a_header_parameter_made_valid_past_a_case_that_returns``).  p4c gives each call site (each table) its own copy of the
    action (LocalizeAllActions, after MoveDeclarations and SideEffectOrdering: the copies share the
    body's locals and temporaries, which lose their stores only where no other site is visited --
    :func:`drop_unvisited_action_locals`); then RemoveActionParameters makes each directional
    parameter a control local of the copy (``q_0 = arg; ..body..; arg = q_0;``), FunctionsInliner a
    called function's parameters, locals and value too, and RemoveReturns a return a flag: each is
    read only in that flow, so the pass drops every store to them -- the copy-in, the body's stores
    to a parameter (a field, a slice), an inlined function's copy-backs -- and keeps the method
    calls (``q.setValid()``) and the stores elsewhere (fuzz_exprs seed 19768, helpers uvact49 and fuzz50:
    ``switch (..) { 11: { exit; } } t2.apply();`` with t2's default ``a0(hdr.opt, hdr.s[0],
    hdr.s[2])`` doing ``q2.setValid(); .. if (f0(.., meta.m1, q2)) { return; } ..`` leaves s[2]
    valid with 0 fields, meta.m1 0 and the rest after the return run on BMv2).  Returns that body:
    each function call made its uninitialized copy-backs and a 0 value
    (:func:`_uninitialized_copy_backs`), then the stores to the parameters and every ``return``
    gone, and the field stores the rest of the body
    (then ``after``: the statement lists after the site) overwrites (:func:`overwritten_field_stores`).
    The site copies the parameters in as BMv2 starts a never-assigned local (``unassigned``: 0, an
    invalid header) and out as the body leaves them.  None where the body calls an action or applies
    anything, or a call is not followed."""
    if rec is None or not rec.get("body"):
        return None
    body = rec["body"]
    if any(d.get("s") in ("call_action", "apply", "apply_control", "switch_action") or d.get("op") == "table_hit"
           for d in ir_dicts(body)):
        return None

    def calls_out(sts):
        out = []
        for st in sts:
            got = _uninitialized_copy_backs(st, hdr_bytes)
            if got is None and (st.get("s") == "call_fn" or any(
                    d.get("op") in ("call_fn", "call_fn_out") for key in ("r", "init", "c", "e")
                    for d in ir_dicts(st.get(key)))):
                raise LookupError   # (a call not followed)
            if got is not None:
                out.extend(got[0])
                if got[1] is None:
                    continue
                st = got[1]
            out.append(_nested_mapped(st, calls_out))
        return out
    try:
        body = calls_out(body)
    except LookupError:
        return None
    gone = {p["py"] for p in rec["params"] if p.get("dir") in ("in", "out", "inout")}
    if any(d.get("s") == "assign" and _root_var(d["l"]) in gone and has_method_call(d["r"]) for d in ir_dicts(body)):
        return None

    def strip(sts):
        out = []
        for st in sts:
            k = st.get("s")
            if k == "return" or k == "assign" and _root_var(st["l"]) in gone:
                continue
            out.append(_nested_mapped(st, strip))
        return out
    body = strip(body)
    fields = {id(st) for st in overwritten_field_stores(body, 0, after)}
    return _strip(body, fields) if fields else body


def _directional(rec: dict) -> bool:
    return any(p.get("dir") in ("in", "out", "inout") for p in rec["params"])


def _unvisited_sites(body: list, unvisited: list, actions: dict, tables: dict, hdr_bytes, sites: list) -> dict:
    """Each action call and table apply of the unvisited flow past an exit (``unvisited``; ``sites``: (a call or
    apply, the statements after it)) given p4c's copy of the body (:func:`unvisited_copy`, carried as
    ``unvisited_body``: ``dead_reads.specialize_copy_out_bodies`` makes it the site's variant) and its
    directional arguments marked ``unassigned`` (copied in as BMv2 starts them).  A table's action
    references are changed in place (a table applied in the visited flow too is left alone); returns
    the replacements of the call statements (by id)."""
    rests = {id(st): rest for st, rest in sites}
    uv = {id(x) for x in ir_dicts(unvisited)}
    elsewhere = {d.get("table") for d in ir_dicts(body) if id(d) not in uv
                 and (d.get("s") in ("apply", "switch_action") or d.get("op") == "table_hit")}
    repl: dict = {}
    done: set = set()
    for d in ir_dicts(unvisited):
        if id(d) in done:
            continue
        done.add(id(d))
        if d.get("s") == "call_action":
            rec = actions.get(d["action"])
            new = unvisited_copy(rec, hdr_bytes, [rests[id(d)]] if id(d) in rests else None)
            if new is not None and (new != rec["body"] or _directional(rec)):
                repl[id(d)] = dict(d, unvisited_body=new, args=[dict(a, unassigned=True) if a.get("dir") in
                                                                ("in", "out", "inout") else a for a in d["args"]])
        elif (d.get("s") in ("apply", "switch_action") or d.get("op") == "table_hit") and d.get("table") not in elsewhere:
            if d.get("table") in done:
                continue
            done.add(d.get("table"))
            tab = tables.get(d.get("table")) or {}
            for ta in tab.get("actions") or ():
                rec = actions.get(ta["name"])
                new = unvisited_copy(rec, hdr_bytes, [rests[id(d)]] if id(d) in rests else None)
                if new is not None and (new != rec["body"] or _directional(rec)):
                    ta["unvisited_body"] = new
                    ta["bound"] = [dict(b, unassigned=True) if b.get("dir") in ("in", "out", "inout") else b
                                   for b in ta.get("bound") or ()]
    return repl


def _uninitialized_copy_backs(st: dict, hdr_bytes) -> tuple | None:
    """A function called in the flow the mid end's LocalCopyPropagation does not visit (past a
    single-case switch whose case exits): p4c has inlined it (``p_0 = arg; ..body..; arg = p_0;``,
    its value ``tmp = retval``) and its variables, locals read only there, lose their stores, so
    each out/inout argument is given the uninitialized variable -- 0, ``false``, an invalid header
    (BMv2's assign_header from it: the header invalid, its fields kept) -- and its value is 0
    (fuzz_mutants ``--kinds exit_stmt`` seed 3374, helper mutz40: ``switch (h.a) { 5: { exit; } }
    f(hdr.h2, c);`` with ``f(inout h_t x, in bool c)`` leaves h2 invalid on BMv2; ``h.c =
    (bit<16>)g(h.b);`` writes 0).  Every temporary SideEffectOrdering makes of that statement is such
    a local: each ``?:`` (calling or not), and each binary operation (``&&``/``||`` too) over a call,
    reads 0 or ``false`` -- unary operations, casts and slices stay around it (helper mutz41: ``h.c =
    (bit<16>)g(h.b) + (c ? 1 : 2);`` writes 0, ``if (h.b == 3 || g(h.b) == 4)`` is false, ``h.c =
    ~(bit<16>)g(h.b);`` writes 0xffff; p4c's ``--top4`` dumps of SideEffectOrdering and the mid end).
    A call under a ``?:`` arm or the right operand of ``&&``/``||`` is in SideEffectOrdering's ``if``
    on that condition, so its copy-backs are too (helper mutz42: ``if (h.b == 3 && f(h.b) == 6)``
    with ``f(inout bit<8> p)`` writes h.b = 0 where h.b was 3, and keeps it elsewhere; ``h.c = c ?
    (bit<16>)f(h.b) : 2;`` writes h.c = 0 either way: :func:`.call_copies.call_guard`).
    Returns (the copy-backs, ``st`` with those values put in, or None for a call statement); None where
    an argument is of another type or not a fixed path, a call's guard is not followed, a call is in
    another call, or the statement reads an out/inout argument elsewhere."""
    if st.get("s") == "call_fn":
        calls, key = [st], None
    else:
        key = {"assign": "r", "decl": "init", "if": "c", "switch_value": "e"}.get(st.get("s"))
        calls = [d for d in ir_dicts(st.get(key)) if d.get("op") in ("call_fn", "call_fn_out")] if key else []
    if not calls:
        return None
    pre, outs = [], []
    for call in calls:
        guard = True if key is None else call_guard(st[key], call)
        if guard is None or any(d is not call and d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(call)):
            return None
        mine = []
        for a in call["args"] if call.get("s") == "call_fn" or call.get("op") == "call_fn_out" else ():
            if has_method_call(a.get("e")):
                return None
            if a.get("dir") not in ("out", "inout"):
                continue
            lv = a["e"]
            path = ir_path(lv)
            if path is None or "[*]" in path or lv.get("op") == "slice":
                return None
            outs.append(path)
            zeroed = _unassigned_store(a, hdr_bytes)
            if zeroed is None:
                return None
            mine.append(zeroed)
        pre += mine if guard is True or not mine else [{"s": "if", "c": guard, "then": mine, "else": []}]
        if key is not None and (call.get("t") or [None])[0] not in ("bit", "int", "bool"):
            return None
    if key is None:
        return pre, None
    rest = _temps_zeroed(st[key], calls)
    if any(overlap(r, p) for r in path_reads(rest) for p in outs):
        return None
    return pre, dict(st, **{key: rest})


def _temps_zeroed(x: dict, calls: list) -> dict:
    """Expression ``x`` with each temporary SideEffectOrdering makes of it read as 0/``false``: each
    of ``calls`` (nodes of ``x``), each ``?:``, and each binary operation over one of ``calls``."""
    def temp(d):
        e = d["a"] if d.get("op") == "un" and d.get("o") == "!" and (d["a"].get("o") in ("==", "!=")) else d
        if any(e is c for c in calls) or e.get("op") == "cond" or e.get("op") == "bin" and any(
                x is c for x in ir_dicts(e) for c in calls):   # (the front end made `!(a == b)` one `!=`)
            return _zero(d["t"])
        return None
    return ir_replace(x, temp)


def _front_temps_zeroed(st: dict) -> dict | None:
    """Statement ``st`` of the flow p4c's front-end SimplifyDefUse does not visit (past a single-case
    switch whose case returns or exits; :func:`drop_unvisited_locals`) with the temporaries
    SideEffectOrdering made of it before that pass read as 0/``false`` -- locals read only there, whose
    stores it drops: as :func:`_uninitialized_copy_backs` has them, each ``?:``, each value of a
    function without out/inout parameters (inlined later), each binary operation over such a call, and
    without a call a ``?:`` that is the whole value (:func:`_zeroed_mux`) (helper mutz42, fuzz_mutants ``--kinds mux_expr``
    seed 1761: ``if (h.d == 2) { return; } switch (h.b) { 5: { return; } } h.a = (h.a == 0) ? 7 : h.a;``
    writes h.a = 0 on BMv2 -- where the switch is the first statement that may return, the mid end
    drops the statement: ``elab_common.live_prefix``).  A call with out/inout arguments keeps its
    temporary (its store has a side effect: ``h.c = (bit<16>)f(h.b)`` works); None where ``st`` has
    one, calls anything else, or has none of those temporaries."""
    key = {"assign": "r", "decl": "init", "if": "c", "switch_value": "e"}.get(st.get("s"))
    e = st.get(key) if key else None
    calls = [d for d in ir_dicts(e) if d.get("op") == "call_fn"] if isinstance(e, dict) else []
    if not isinstance(e, dict) or has_method_call(ir_replace(e, lambda d: _zero(d["t"]) if any(d is c for c in calls) else None)):
        return None
    if not calls:   # (without a call only a `?:` that is the whole value, as in the mid end's flow)
        return _zeroed_mux(st)
    return dict(st, **{key: _temps_zeroed(e, calls)})


def _lname(st: dict) -> str:
    return st["n"] if st.get("s") == "decl" else st["l"]["n"]


def _zeroed_mux(st: dict) -> dict | None:
    """``st`` with the ``?:`` p4c's SideEffectOrdering makes an ``if`` assigning a temporary (an
    assignment's right-hand side, an ``if`` condition, through casts, unary operations, slices:
    ``predication.dismantle_muxes``) read as 0 -- in the flow the mid end's LocalCopyPropagation does
    not visit that temporary is a local read only there and loses its stores (helper mutz40:
    ``switch (h.a) { 5: { exit; } } h.c = (h.b == 3) ? 1 : 2;`` writes 0 on BMv2); None where there is
    none, or it calls anything but a function without out/inout arguments (not followed)."""
    key = {"assign": "r", "if": "c"}.get(st.get("s"))
    e = st.get(key) if key else None
    while isinstance(e, dict) and e.get("op") in MUX_WRAPPERS:
        e = e["a"]
    if not isinstance(e, dict) or e.get("op") != "cond" or \
            any(str(d.get("op", "")).startswith("call") and d.get("op") != "call_fn" for d in ir_dicts(e)):
        return None
    return dict(st, **{key: ir_replace(st[key], lambda d: _zero(d["t"]) if d is e else None)})


def _zero(t) -> dict:
    return {"op": "const", "v": False if t[0] == "bool" else 0, "t": t}


def _called(d: dict, tables: dict) -> list:
    if d.get("s") == "call_action":
        return [d["action"]]
    if d.get("s") in ("apply", "switch_action") or d.get("op") == "table_hit":
        return [a["name"] for a in (tables.get(d.get("table")) or {}).get("actions") or ()]
    return []


def drop_unvisited_action_locals(body: list, unvisited: list, actions: dict, tables: dict, prefix: str,
                                 sites: list = (), exits: list = ()) -> None:
    """The actions of this control that only the flow p4c's front-end SimplifyDefUse does not visit
    calls (``unvisited``: its statements, see :func:`drop_unvisited_locals`) lose every store to
    their locals -- control locals after MoveDeclarations, whose reads there use no store -- and
    each of their ``?:`` is the temporary p4c's SideEffectOrdering made of it
    (``predication.dismantle_muxes``), unassigned: BMv2 reads them as 0 (fuzz_mutants ``--kinds
    mux_expr`` seed 195, helper mutz39: ``switch (h.b) { 5: { return; } } t2.apply();`` with t2's
    ``a0() { h.b = (h.b != 1) ? 0x11 : h.b; }`` writes h.b = 0).  An action whose local is written
    by a call is left alone (the front end's first pass, before RemoveReturns, keeps them all past a
    case that returns) -- unless every call of it is past a case that exits (``exits``: those
    statements), where the second pass drops them too and keeps the calls: a store holding
    ``isValid()`` goes, one holding a function call stays for :func:`unvisited_copy` to make its
    value 0 and its copy-backs, a local header's ``setValid()`` stays too (helper fuzz58: ``bool v =
    hdr.o.isValid(); if (v) {..}`` there is false, ``v = tick(h.b); h.c = (v == 2) ? 3 : 4;`` writes h.c
    = 0, ``h_t l; l.setValid(); l.a = 3; hdr.h2 = l;`` a valid h2 of 0s on BMv2).  Their field stores
    that the rest of the body, or else what follows every call of it there (``sites``: (call, the
    statements after it)), overwrites go too (:func:`overwritten_field_stores`)."""
    uv = {id(d) for d in ir_dicts(unvisited)}
    past_exit = {id(d) for d in ir_dicts(exits)}
    there, elsewhere = set(), set()
    for d in ir_dicts(body):
        (there if id(d) in uv else elsewhere).update(_called(d, tables))
    for q in sorted(there - elsewhere):
        rec = actions.get(q)
        if rec is None or not q.startswith(prefix + ".") or not rec.get("body"):
            continue
        new = dismantle_muxes(rec["body"], SimpleNamespace(fresh=0))
        calls = [d for d in ir_dicts(unvisited) if q in _called(d, tables)]
        after = [rest for st, rest in sites if any(st is d for d in calls)]
        fields = {id(st) for st in overwritten_field_stores(new, 0, after if len(after) == len(calls) else None)}
        if fields:   # (fuzz_mutants --kinds action_if seed 3550)
            new = _strip(new, fields)
            rec["body"] = new
        locs = {d["n"] for d in ir_dicts(new) if d.get("s") == "decl"}
        if not locs:
            continue

        def local(lv) -> bool:
            while isinstance(lv, dict) and lv.get("op") != "var":
                lv = lv.get("base", lv.get("a", lv.get("st")))
            return isinstance(lv, dict) and lv.get("n") in locs
        stores = [d for d in ir_dicts(new) if d.get("s") == "assign" and local(d["l"])]
        calling = {id(d) for d in stores if has_method_call(d["r"])} | {
            id(d) for d in ir_dicts(new) if d.get("s") == "decl" and d.get("init") is not None and has_method_call(d["init"])}
        exit_only = all(id(d) in past_exit for d in calls)
        kinds = ("assign", "decl", "if", "block") + (("setvalid",) if exit_only else ())   # (the call stays)
        if calling and not exit_only or any(
                d.get("s") not in (None, *kinds) and _var_reads(d, set()) & locs for d in ir_dicts(new)):
            continue
        keep = {id(d) for d in ir_dicts(new) if id(d) in calling and _calls_function(d.get("r", d.get("init")))}
        rec["body"] = _strip(new, {id(d) for d in stores} - keep, inits=True, keep=keep)


def _calls_function(x) -> bool:
    return any(d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(x))


def _strip(sts: list, gone: set, inits: bool = False, keep: set = frozenset()) -> list:
    """``sts`` without the statements whose ids are in ``gone`` (nested lists too); ``inits``: the
    declarations' initializers go as well, but those of the declarations in ``keep``."""
    out = []
    for st in sts:
        if id(st) in gone:
            continue
        if inits and st.get("s") == "decl" and st.get("init") is not None and id(st) not in keep:
            st = dict(st, init=None)
        for key in ("body", "then", "else"):
            if isinstance(st.get(key), list):
                st = dict(st, **{key: _strip(st[key], gone, inits, keep)})
        out.append(st)
    return out


def overwritten_field_stores(sts: list, start: int, after: list | None = None) -> list:
    """The stores to a header or metadata field in ``sts[start:]`` -- a statement list of the flow
    p4c's front-end SimplifyDefUse does not visit (:func:`drop_unvisited_locals`), or the body of an
    action only that flow calls -- that a later assignment of the same field (or of a slice of it:
    the pass's locations are whole fields) overwrites on every path: a read there uses no store, so
    only the end of the control keeps a store live, and p4c drops these (fuzz_mutants ``--kinds
    action_if`` seed 3550, helper mutz40: ``switch (h.b) { 5: { return; } } t2.apply();`` with t2's
    ``a0() { if (h.b == 0) { h.b = 0x11; h.b = h.b + 2; } else { h.b = 0x11; } }`` sends h.b = 2 where
    h.b was 0; ``h.c = 1; h.d = (bit<32>)h.c; h.c = h.c + 1;`` there drops ``h.c = 1`` too).  The
    scan follows the list and the ``if`` statements in it (both arms overwriting, or neither
    writing); anything else that may write the field, an ``exit`` or ``return``, or the end of the
    list keeps the store (the flow after it is not followed) -- but for ``after``, the statement
    lists that follow the list's end (each call of an action body: all of them must overwrite).
    ``h.c = 1;`` in t2's action, ``t2.apply(); h.c = h.c + 1;`` there drops it too."""
    out = []
    sts, start = _unblocked(sts[start:]), 0   # (plain blocks opened: the body of an action is one)
    for i in range(start, len(sts)):
        st = sts[i]
        if st.get("s") != "assign" or has_method_call(st["r"]) or st["l"].get("op") == "slice":
            continue
        path = ir_path(st["l"])
        if path is None or "[*]" in path or ("." not in path and "[" not in path):
            continue
        if _overwritten(sts[i + 1:], path, after):
            out.append(st)
    for st in sts:
        for key in ("then", "else", "body"):
            if isinstance(st.get(key), list):
                out += overwritten_field_stores(st[key], 0)
    return out


def _unblocked(sts: list) -> list:
    return [y for x in sts for y in (_unblocked(x["body"]) if x.get("s") == "block" else [x])]


def _overwritten(sts: list, path: str, after: list | None = None) -> bool:
    for j, x in enumerate(sts):
        k = x.get("s")
        if k == "assign":
            lv = x["l"]["a"] if x["l"].get("op") == "slice" else x["l"]
            if ir_path(lv) == path:
                return True
        if k == "block":
            return _overwritten(x["body"] + sts[j + 1:], path, after)
        if any(d.get("s") in ("exit", "return") for d in ir_dicts(x)):
            return False
        if k == "if" and may_write(x, path):
            if not (_overwritten(x["then"] or [], path) and _overwritten(x["else"] or [], path)):
                return False
            return True
        if k != "if" and may_write(x, path):
            return False
    return bool(after) and all(_overwritten(rest, path) for rest in after)
