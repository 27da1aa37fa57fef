"""p4c's def-use pass seen through header unions: which union-member assignments p4c drops.

p4c's SimplifyDefUse removes an assignment whose value a later assignment overwrites before
anything reads it.  For a header union member that is not a no-op on BMv2: making a member
valid invalidates its siblings, which p4c's analysis does not see -- so when p4c drops the
assignment, BMv2 keeps the siblings valid.  :func:`drop_dead_union_stores` does the same for
the plain cases, on one elaborated statement list -- looking into a sub-control applied there
as p4c's inliner lays it out (the struct arguments in place of its parameters) -- and, the
other way, which stores of a sub-control body the statements after a call of it make dead
(:func:`body_store_verdicts`, settled over all call sites by :func:`settle_body_stores`), and of
an action body, per call site (:func:`action_store_verdicts`, :func:`settle_action_stores`: p4c
gives every direct call and every table its own copy of the action).

The analysis (:func:`overwritten`) follows every path: both branches of an ``if``, a table
apply as one of its actions, a call as the statements it stands for (``inline``); extern calls
read their arguments only, and a store that is dead itself reads nothing.  An action's or a
function's copy-back exists for p4c only after its inliner, so it is judged in that view
(:func:`_after_inlining`).  A ``switch`` is its case bodies and, as p4c's ComputeWriteSet has it,
maybe the path past them (:func:`_switch_view`).  An inlined sub-control body tags the action calls
and table applies in it with its arguments (:func:`in_place`): the actions' bodies and the tables'
keys reach the body's parameters, which are those arguments there.  Whatever is not seen through (an ``exit``, a
call in a condition) counts as a read: the store is kept.
"""
from __future__ import annotations

from .copy_paths import ir_path, overlap
from .elab_common import has_call, ir_dicts, ir_replace
from .header_init import reduced

_PATH_OPS = ("field", "stack_idx", "stack_next", "stack_last", "tuple_idx")   # (a tuple element: p4c_mutate seed 511)
_PLAIN = ("assign", "decl", "setvalid", "if", "block", "push_front", "pop_front", "nop",
          # extern calls read and write their arguments only (p4c's def-use: no hidden read)
          "mark_to_drop", "counter", "truncate", "log", "random", "hash", "reg_read", "reg_write",
          "meter", "digest")


def path_chain(lv) -> list:
    """An lvalue path and every path it is built on (``hdr.u.x``, ``hdr.u``, ``hdr``)."""
    out = [lv]
    while isinstance(lv, dict) and (lv.get("op") in _PATH_OPS or lv.get("op") == "slice"):
        lv = lv.get("base") if lv.get("op") == "field" else lv.get("a") if lv.get("op") in ("slice", "tuple_idx") \
            else lv.get("st")
        out.append(lv)
    return out


def _steps(p) -> list | None:
    """Path ``p`` as its steps from the variable on (a stack element of a run-time index, ``next``
    or ``last`` as ``("i", "*")``; a slice as its base), or None when it is not such a path."""
    out = []
    while isinstance(p, dict) and p.get("op") != "var":
        op = p.get("op")
        if op == "field":
            out.append(("f", p["f"]))
        elif op == "stack_idx":
            out.append(("i", p["i"]["v"] if p["i"].get("op") == "const" else "*"))
        elif op in ("stack_next", "stack_last"):
            out.append(("i", "*"))
        elif op == "tuple_idx":
            out.append(("t", p["i"]))
        elif op != "slice":
            return None
        p = p.get("base") if op == "field" else p.get("a") if op in ("slice", "tuple_idx") else p.get("st")
    return [("v", p["n"])] + out[::-1] if isinstance(p, dict) else None


def _run_time_alias(a, b) -> bool:
    """Whether paths ``a`` and ``b`` may name the same data through a stack element of a run-time
    index (``st[i].b`` and ``st[1].b``: p4c's def-use takes such a read as reading every element --
    a store into ``st[1].b`` that it follows stays; p4c_mutate seed 522, helper mutz30)."""
    sa, sb = _steps(a), _steps(b)
    if not sa or not sb or ("i", "*") not in sa + sb:
        return False
    return all(x == y or x[0] == y[0] == "i" and "*" in (x[1], y[1]) for x, y in zip(sa, sb))


def touches(node, target) -> bool:
    """Whether ``node`` (IR, any depth) names ``target``, a part of it, or a path it is part of;
    a sibling path (``hdr.u.w`` for ``hdr.u.x``) does not count."""
    if isinstance(node, list):
        return any(touches(x, target) for x in node)
    if not isinstance(node, dict):
        return False
    if node.get("fe_whole_reads") and (tp := ir_path(target)) is not None and \
            any(overlap(p, tp) for p in node["fe_whole_reads"]):
        return True   # (a whole-header read union_copies replaced: p4c's def-use saw it)
    if node.get("op") in _PATH_OPS or node.get("op") == "var":
        if node in path_chain(target) or target in path_chain(node) or _run_time_alias(node, target):
            return True
        idx = node.get("i")   # a run-time index reads something else
        return touches(idx, target) if node.get("op") == "stack_idx" else False
    # (the siblings a setValid/assignment invalidates are not read; nor is a call's _args tag)
    return any(touches(v, target) for k, v in node.items() if k not in ("siblings", "_args"))


def _plain(node) -> bool:
    """Only assignments, declarations, setValid/setInvalid, a stack's push/pop, extern calls and
    if/blocks of those (no call that may read the union unseen, no exit)."""
    if isinstance(node, list):
        return all(_plain(x) for x in node)
    if not isinstance(node, dict):
        return True
    if "s" in node and node["s"] not in _PLAIN or node.get("op") == "table_hit":
        return False   # (a table applied in a condition runs actions unseen here)
    return all(_plain(v) for v in node.values())


def no_hits(node):
    """``node`` (IR) with each table apply's hit/miss in it made a constant."""
    return ir_replace(node, lambda d: {"op": "const", "v": True, "t": ["bool"]} if d.get("op") == "table_hit" else None)


def substitute(node, subst: dict):
    """``node`` (IR) with each parameter variable named in ``subst`` replaced by its argument."""
    return ir_replace(node, lambda d: subst[d["n"]] if d.get("op") == "var" and d.get("n") in subst else None)


_RUNS_ACTIONS = ("call_action", "apply", "switch_action")


def in_place(stmts, subst: dict):
    """``stmts`` of a sub-control body with its parameters replaced as ``subst`` says (the
    arguments p4c's inliner uses in place), each action call and table apply in them tagged with
    ``_args``: the actions they run reach the parameters too (:func:`with_args`)."""
    out = substitute(stmts, subst)
    for n in ir_dicts(out):
        if n.get("s") in _RUNS_ACTIONS or n.get("op") == "table_hit":
            n.setdefault("_args", subst)
    return out


def with_args(call: dict, ir):
    """``ir`` (an action's body, a table's view) run by ``call``, with the arguments of the
    sub-control body the call is in (its ``_args`` tag, :func:`in_place`) in place."""
    return substitute(ir, call["_args"]) if call.get("_args") else ir


def inlined_body(blk: dict, call: dict, lv) -> list | None:
    """The statements sub-control ``blk`` runs for ``call`` (an ``apply_control``) as p4c's
    inliner sees them when ``lv`` is in question: its locals and body with each struct
    argument passed ``inout`` put in place of its parameter -- p4c uses such an argument
    directly, no copy.  None when an argument that holds ``lv`` (or is part of it) goes any
    other way (copied in or out: not seen through here)."""
    subst = {}
    for a in call["args"]:
        if "py" not in a or not touches(a["e"], lv):
            continue
        if a["dir"] != "inout" or (a["e"].get("t") or [None])[0] != "struct" or a.get("siblings"):
            return None
        subst[a["py"]] = a["e"]
    # (a return of the body ends the body only: marked, so that _past_return leaves the caller's
    # statements after the apply alone; the path through it still ends the verdict, as before)
    body = ir_replace(list(blk["body"]), lambda d: dict(d, _sub=True) if d.get("s") == "return" else None)
    return in_place(list(blk.get("locals") or []) + body, subst)


def inlined_action(act: dict, call: dict, lv) -> list | None:
    """The statements a ``call_action`` of ``act`` stands for in p4c's def-use view when ``lv``
    is its ``out`` argument: the inlined body (writing the parameter, a local), then the
    copy-out ``lv = parameter``; when no argument holds ``lv``: the body, then the other
    arguments' copy-outs; when it is an ``inout`` or ``in`` argument: the copy-in, the body and the
    copy-outs (:func:`_copied_in`).  None when ``lv`` goes any other way or another
    argument reads it.  A ``return`` in the body is no end of the path: p4c's RemoveReturns
    puts the rest under ``if (!hasReturned)`` and the copy-out runs after it either way
    (fuzz_mutants seed 2815: ``if (hdr.h.b == 0) { return; }`` in the body, the caller's store into
    the ``out`` argument is still dropped)."""
    if act.get("body") is not None:
        act = dict(act, body=returns_passed(act["body"]))
    if act.get("body") is not None and not any(touches(a["e"], lv) for a in call["args"]):
        # (no argument holds it: the body, then the copy-backs of the other arguments -- fuzz_headers
        # seed 8548: `hdr.u.x = hdr.h;` in a switch case, `a0(hdr.h); hdr.u.x = hdr.s[1];`)
        return list(act["body"]) + [{"s": "assign", "l": a["e"], "r": {"op": "var", "n": None}}
                                    for a in call["args"] if a["dir"] in ("out", "inout")]
    through = _copied_in(act, call, lv)
    if through is not None:
        return through
    outs = [a for a in call["args"] if a["dir"] == "out" and a["e"] == lv]
    if len(outs) != 1 or act.get("body") is None or \
            any(touches(a["e"], lv) for a in call["args"] if a is not outs[0]):
        return None
    return list(act["body"]) + [{"s": "assign", "l": lv, "r": {"op": "var", "n": None}}]


def _copied_in(act: dict, call: dict, lv) -> list | None:
    """The view of :func:`inlined_action` when ``lv`` is an ``inout`` or ``in`` argument (the only one
    holding it) and the body names ``lv`` no other way: the call as p4c's RemoveActionParameters leaves
    it -- the copy-in ``y = lv``, the body (a local's initializer as its store), the copy-out ``lv = y``
    (``inout``) and the other arguments' ones --, then each of those locals' end (a store of a constant:
    past the action they are dead).  :func:`overwritten` then judges the copy-in a read of ``lv`` only
    where ``y`` is read live: p4c's repeated SimplifyDefUse drops a store into ``y`` or elsewhere
    that nothing reads (``hdr.h.c = (bit<16>)y.a;`` overwritten after the call, an unused local), then
    the copy-in and copy-out that fed only each other, and the caller's store before the call where the
    statements after it overwrite ``lv`` (fuzz_headers seed 11664: a body only writing ``y``;
    ``hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);`` with ``a1``'s ``out`` parameter: BMv2 keeps ``u.w``
    valid; helper fuzz71: a body reading ``y`` into dead stores, or overwriting it whole, an ``in``
    parameter unread).  None otherwise."""
    params = act.get("params") or ()
    if act.get("body") is None or len(params) != len(call["args"]):
        return None
    held = [(a, p) for a, p in zip(call["args"], params) if touches(a["e"], lv)]
    if len(held) != 1 or held[0][0]["dir"] not in ("inout", "in") or held[0][0]["e"] != lv or \
            not held[0][1].get("py") or touches(act["body"], lv):
        return None
    arg, p = held[0]
    y = {"op": "var", "n": p["py"], "t": p.get("t")}
    body = ir_replace(list(act["body"]), lambda d: {"s": "assign", "l": {"op": "var", "n": d["n"], "t": d.get("t")},
                                                    "r": d["init"]} if d.get("s") == "decl" and d.get("init") else None)
    ends = [y] + [{"op": "var", "n": d["n"], "t": d.get("t")} for d in ir_dicts(act["body"]) if d.get("s") == "decl"]
    return [{"s": "assign", "l": y, "r": lv}] + body + \
        ([{"s": "assign", "l": lv, "r": y}] if arg["dir"] == "inout" else []) + \
        [{"s": "assign", "l": a["e"], "r": {"op": "var", "n": None}}
         for a in call["args"] if a["dir"] in ("out", "inout") and a is not arg] + \
        [{"s": "assign", "l": v, "r": {"op": "const", "v": 0, "t": v["t"]}} for v in ends]


def returns_passed(node):
    """An action body as p4c's RemoveReturns leaves it, for the def-use views (:func:`inlined_action`; a
    table's actions in :meth:`~.elab_unions.UnionRules.inlined_table`): a ``return`` ends the action
    only -- the path goes on with the copy-backs or the call site's rest --, and what follows a
    statement that may return is under ``if (!hasReturned)``, which may not run (a store there does
    not overwrite the caller's one for p4c; what follows a plain ``return`` is gone)."""
    out = []
    for s in node:
        if s.get("s") == "return":
            break
        out.append(_returns_in(s))
        if any(n.get("s") == "return" for n in ir_dicts(s)):
            rest = returns_passed(node[len(out):])
            if rest:
                out.append({"s": "if", "c": dict(_ANY), "then": rest, "else": []})
            break
    return out


def _returns_in(s: dict) -> dict:
    """Statement ``s`` with :func:`returns_passed` applied to the statement lists in it."""
    k = s.get("s")
    if k == "if":
        return dict(s, then=returns_passed(s["then"] or []), **{"else": returns_passed(s["else"] or [])})
    if k == "block":
        return dict(s, body=returns_passed(s["body"]))
    if k in _SWITCHES:
        return dict(s, cases=[dict(c, body=returns_passed(c["body"])) for c in s["cases"]])
    return s


def out_overwrite(call: dict, lv) -> list | None:
    """A function call or sub-control apply passing ``lv`` as an ``out`` argument that no other
    argument reads: for p4c's def-use view ``lv`` is written there unread (a function's or a
    control's body reaches the caller's data through its parameters only), as the one
    assignment returned -- also when the body may ``exit`` (BMv2 keeps the sibling valid
    then too).  Also when a sub-control's body writes the parameter: p4c's inliner
    starts an ``out`` argument passed in place with ``lv.setInvalid()``, which overwrites the
    store before the body runs (``y = st[0]`` in the body, fuzz_headers 5783: the store goes, and
    BMv2 keeps the sibling valid when ``st[0]`` is invalid); the body's own writes invalidate the
    siblings through the tracked copy (``gen_subcontrol``).  (Through temporaries -- an instance
    applied with different arguments -- the copy-back overwrites the store; with an ``exit`` in
    the body p4c 1.2.4.8 dies, "Overwriting definitions at ExitStatement".)  None otherwise."""
    outs = [a for a in call["args"] if a["dir"] == "out" and a["e"] == lv]
    if len(outs) != 1 or any(touches(a["e"], lv) for a in call["args"] if a is not outs[0]):
        return None
    return [{"s": "assign", "l": lv, "r": {"op": "var", "n": None}}]


def _kill_store(n: dict, everywhere: bool, dead_at: list, key: int) -> int:
    """Settle a union-member store ``n`` that p4c finds dead at some of its copies (call sites of a
    sub-control body, inlined copies of an action).  Dead ``everywhere``: the store goes -- a call in
    its right-hand side still runs, as p4c evaluates it into a temporary first.  Dead at some: it is
    marked ``dead_key = key`` and every site of each dead copy (``dead_at``: lists of site nodes)
    lists the key in its ``dead_stores``, so the generated code skips the store there.  Returns the
    next free key."""
    if everywhere:
        r = n["r"]
        n.clear()
        n.update({"s": "eval", "e": r} if has_call(r) else {"s": "nop"})
        return key
    if not dead_at:
        return key
    n["dead_key"] = key
    for sites in dead_at:
        for site in sites:
            site.setdefault("dead_stores", []).append(key)
    return key + 1


_ANY = {"op": "const", "v": True, "t": ["bool"]}   # a condition that reads nothing: either path


def one_of(bodies: list) -> list:
    """Statements that run one of ``bodies`` (statement lists): an ``if`` chain whose conditions
    read nothing, so that :func:`overwritten` follows every one of them."""
    out = None
    for body in reversed(bodies):
        out = list(body) if out is None else [{"s": "if", "c": dict(_ANY), "then": list(body), "else": out}]
    return out or []


def switch_cases(sw: dict, may_skip: bool) -> list:
    """A ``switch``'s cases in p4c's def-use view (ComputeWriteSet): one of the case bodies runs,
    or -- ``may_skip`` -- none of them."""
    return one_of([c["body"] for c in sw["cases"]] + ([[]] if may_skip else []))


def _switch_view(sw: dict, lv, inline) -> list | None:
    """What a ``switch`` statement stands for in p4c's def-use view when ``lv`` is in question, or
    None (no view: taken as a read).  A switch on a value: its expression read, then one of the
    cases or none -- p4c always adds the path past every case ("conservative"), also with a
    ``default``.  A switch on ``t.apply().action_run``: what ``inline`` makes of it (the table's
    view, then the cases: :meth:`inlined_control`)."""
    if sw["s"] == "switch_action":
        return None if inline is None else inline(sw, lv)
    if touches(sw["e"], lv) or any(n.get("op") == "table_hit" for n in ir_dicts(sw["e"])):
        return None
    return switch_cases(sw, True)


_SWITCHES = ("switch_value", "switch_action")


#: statements :func:`overwritten` looks at for one verdict, every path of its ifs together;
#: past it the store counts as read (kept) -- sequential ifs double the paths
_BUDGET = 4000


def overwritten(rest: list, lv, inline=None, budget: list | None = None) -> bool:
    """Whether the statements ``rest`` assign all of ``lv`` before anything reads it, on every
    path through their ifs (only plain statements in between: see
    :func:`drop_dead_union_stores`; ``inline(call, lv)``: the statements a sub-control, action,
    function call or table apply stands for -- a table's as ifs of its actions --, or None)."""
    budget = [_BUDGET, set()] if budget is None else budget
    for j, b in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if b.get("s") == "block":   # a block (also an inlined body's) runs in line
            return overwritten(list(b["body"]) + rest[j + 1:], lv, inline, budget)
        if b.get("s") == "return" and "_ret" in b:   # (an action body's own: action_store_verdicts)
            return overwritten(b["_ret"], lv, inline, budget)
        if b.get("s") in _SWITCHES:
            view = _switch_view(b, lv, inline)
            return view is not None and overwritten(view + _past_return(b, rest[j + 1:]), lv, inline, budget)
        if inline is not None and (b.get("s") in ("apply_control", "call_action", "call_fn", "apply") or
                                   b.get("s") == "eval" and b["e"].get("op") == "call_fn"):
            body = inline(b, lv)
            if body is not None:
                if b.get("s") == "apply_control":
                    budget[1].update(id(x) for x in ir_dicts(body) if "s" in x)
                return overwritten(body + rest[j + 1:], lv, inline, budget)
        if b.get("s") == "if" and id(b) not in budget[1] and _emptied(b, rest[j + 1:], inline, budget):
            # (p4c's repeated def-use empties it, SimplifyControlFlow drops it: mutants seed 1878; not an
            # inlined sub-control's `if`, which only the caller's stores empty once inlined: its condition's
            # reads stay -- fuzz_mutants --kinds mux_expr seed 5106, helper mutz59)
            continue
        if b.get("s") == "if" and not (_plain(b) and not touches(b, lv)):
            # p4c's def-use: dead when every path overwrites it first (a read in the
            # condition, or a table applied there, keeps it)
            if touches(b["c"], lv):
                return False
            after = _past_return(b, rest[j + 1:])
            hits = [n for n in ir_dicts(b["c"]) if n.get("op") == "table_hit"]
            if hits:   # the tables the condition applies run first, then either branch
                pre = [inline({"s": "apply", "table": n["table"], "_args": n.get("_args")}, lv) if inline else None
                       for n in hits]
                if any(p is None for p in pre) or not _plain(no_hits(b["c"])):
                    return False
                return overwritten([x for p in pre for x in p] + [dict(b, c=no_hits(b["c"]))] + after,
                                    lv, inline, budget)
            return overwritten(list(b["then"] or []) + after, lv, inline, budget) and \
                overwritten(list(b["else"] or []) + after, lv, inline, budget)
        if b.get("s") == "assign" and (b["l"] == lv or b["l"] in path_chain(lv)[1:]):
            # (also the field, header or struct it is in: p4c_mutate seed 168); what p4c's front-end
            # strength reduction leaves of the value: `m = (m / 5) * 0` reads nothing (seed 619)
            return not touches(reduced(b["r"]), lv)
        if not _plain(b):
            return False
        # a write into it (dead too: p4c drops it first, so what it reads does not count),
        # or setValid/setInvalid of it (a write for p4c)
        if b.get("s") == "assign" and lv in path_chain(b["l"])[1:] and id(b) in budget[1] and any(
                n.get("op") == "cond" and touches(n["c"], lv) for n in ir_dicts(b["r"])):
            return False   # (a `?:` condition: SideEffectOrdering's `if` in an inlined body reads it, as above)
        if b.get("s") == "assign" and lv in path_chain(b["l"])[1:] or \
                b.get("s") == "setvalid" and b.get("h") == lv:
            continue
        if b.get("s") == "setvalid" and not b.get("siblings") and b.get("h") in path_chain(lv)[1:]:
            continue   # (a header's validity change reads no field of it: header_init; fuzz_mutants seed 5718)
        if b.get("s") == "assign" and not touches(b["l"], lv) and touches(b["r"], lv) and not has_call(b["r"]) and \
                overwritten(rest[j + 1:], b["l"], inline, budget):
            continue   # a read by a store that is dead itself (p4c's def-use repeats: dropped first)
        if touches(b, lv):
            return False
    return False


def _past_return(b: dict, after: list) -> list:
    """The statements ``after`` an ``if`` or ``switch`` ``b`` in p4c's def-use view: where ``b`` may
    return (a control's `return` in an arm or case), RemoveReturns puts them under ``if
    (!hasReturned)``, whose flag is unknown past ``b`` -- they may not run, so a store before ``b``
    that they overwrite stays (``sa.apply(hdr); switch (..) { 1: { hdr.u.x = hdr.h2; return; } .. }
    hdr.u.x = hdr.h2;``: BMv2 ran sa's store to u.x, its sibling u.w invalid; fuzz_mutants seed 4654).
    (An action body's own ``return``, marked ``_ret``, goes on with the call site's rest; a
    sub-control body's, marked ``_sub`` by :func:`inlined_body`, ends that body only.)"""
    if after and any(n.get("s") == "return" and "_ret" not in n and "_sub" not in n for n in ir_dicts(b)):
        return [{"s": "if", "c": dict(_ANY), "then": list(after), "else": []}]
    return after


def _emptied(b: dict, after: list, inline, budget: list) -> bool:
    """Whether ``if`` statement ``b`` holds only stores that ``after`` (and the rest of their arm)
    overwrite before a read, its condition calling nothing: p4c's def-use drops them, and the
    empty ``if`` goes with its condition's reads (``h.c = c ? u.x.c : h.c; if (h.c == 2) { h.c = 7; }``
    before ``h.c`` is written again: fuzz_mutants ``--kinds mux_expr`` seed 1878, helper mutz42)."""
    if has_call(b["c"]) or any(n.get("op") == "table_hit" for n in ir_dicts(b["c"])):
        return False
    def flat(sts):
        return [y for x in sts for y in (flat(x["body"]) if x.get("s") == "block" else [x])]
    for arm in (flat(b["then"] or []), flat(b["else"] or [])):
        for k, x in enumerate(arm):
            if x.get("s") != "assign" or has_call(x["r"]) or x["l"].get("op") == "slice" or \
                    not overwritten(list(arm[k + 1:]) + after, x["l"], inline, budget):
                return False
    return True


def _param_sets_valid(blk: dict, call: dict, arg: dict) -> bool:
    """Whether sub-control ``blk``'s body may make the parameter that ``arg`` of ``call`` is
    passed to valid other than by an assignment (a setValid, a call it is passed to): those
    p4c keeps, in place, so their sibling invalidation stays even when the copy-back is dead."""
    py = arg.get("py")

    def mine(e) -> bool:
        root = path_chain(e)[-1]
        return isinstance(root, dict) and root.get("op") == "var" and root.get("n") == py
    for n in ir_dicts(list(blk.get("locals") or []) + list(blk["body"])):
        if n.get("s") == "setvalid" and n.get("v") and mine(n.get("h")):
            return True
        if n.get("s") == "assign" and n["r"].get("op") == "mk" and mine(n["l"]):
            return True   # an initializer: setValid and field writes for p4c (the setValid stays)
        if n.get("s") in ("call_action", "apply_control", "call_fn") and \
                any(x.get("dir") in ("out", "inout") and mine(x["e"]) for x in n.get("args") or ()):
            return True
    return False


def walk_rest(stmts: list, cont: list, visit) -> None:
    """``visit(b, rest)`` for each statement ``b`` of ``stmts`` at any depth (in blocks, ``if``
    branches and ``switch`` cases), ``rest`` being what runs after it: the rest of its own list,
    then of the enclosing ones, then ``cont``."""
    for j, b in enumerate(stmts):
        rest = list(stmts[j + 1:]) + cont
        visit(b, rest)
        if b.get("s") == "if":
            walk_rest(b["then"] or [], rest, visit)
            walk_rest(b["else"] or [], rest, visit)
        elif b.get("s") == "block":
            walk_rest(b["body"], rest, visit)
        elif b.get("s") in _SWITCHES:
            for c in b["cases"]:
                walk_rest(c["body"], rest, visit)


def _body_stores(stmts: list, cont: list, inline, found: list, inlined: bool = False) -> None:
    """Each union-member store (``sid`` set) in ``stmts`` -- also in its ifs and blocks -- with
    whether ``stmts`` after it and then ``cont`` overwrite it before any read (``found``);
    ``inlined``: ``stmts`` is a sub-control's body, whose ifs (and ``?:`` conditions) the caller's stores
    do not empty in time (:func:`overwritten`)."""
    ifs = {id(x) for x in ir_dicts(stmts) if "s" in x} if inlined else set()

    def visit(b, rest):
        if b.get("s") == "assign" and b.get("sid") is not None:
            found.append((b["sid"], overwritten(rest, b["l"], inline, [_BUDGET, set(ifs)])))
    walk_rest(stmts, cont, visit)


def in_place_structs(call: dict) -> dict:
    """The struct arguments of sub-control apply ``call`` that p4c's inliner uses in place
    (``inout``, not a union member), by the body's parameter variable."""
    return {a["py"]: a["e"] for a in call["args"]
            if "py" in a and a["dir"] == "inout" and (a["e"].get("t") or [None])[0] == "struct"
            and not a.get("siblings")}


def body_store_verdicts(blk: dict, call: dict, rest: list, inline) -> list:
    """p4c's def-use pass after inlining sub-control ``blk`` at ``call``: which union-member
    stores of its body the caller's statements ``rest`` overwrite before any read -- p4c drops
    those (so BMv2 keeps the member's siblings valid).  Only stores into a struct argument that
    p4c uses in place (``inout``, not a copy); ``[(sid, dead)]``, each such store marked with a
    ``sid`` (its own dict, in ``blk``) for :func:`settle_body_stores`."""
    subst = in_place_structs(call)
    if not subst:
        return []
    mine = set()
    for k, n in enumerate(n for n in ir_dicts(blk["body"]) if n.get("s") == "assign" and "siblings" in n):
        n.setdefault("sid", f"{blk['fn']}#{k}")
        root = path_chain(n["l"])[-1]
        # (an initializer is setValid and field writes for p4c: the setValid stays)
        if n["siblings"] and n["r"].get("op") != "mk" and isinstance(root, dict) and root.get("op") == "var" and root.get("n") in subst:
            mine.add(n["sid"])
    found: list = []
    _body_stores(in_place(list(blk["body"]), subst), list(rest), inline, found, inlined=True)
    return [(sid, dead) for sid, dead in found if sid in mine]


def settle_body_stores(subcontrols: list, verdicts: dict, ir, key: int = 0) -> int:
    """Drop the sub-control body stores that call sites make dead (``verdicts``: sid -> {site:
    dead}, from :func:`body_store_verdicts`; ``ir``: every block): dropping one only skips its
    value and sibling invalidation (the value is overwritten unread, but a setValid of the member
    in between sees whether it was valid before).  Dead at every call site: the store goes; at
    some: the store gets a ``dead_key`` and those ``apply_control`` statements list it in
    ``dead_stores`` (the generated body then skips the store when its caller says so; keys
    numbered from ``key``).  A call site left unseen keeps the store.  The ``sid``/``site``
    marks go (the device config has no such keys).  A site whose arguments p4c copies through
    temporaries (``copy_args``, :mod:`.subcontrol_args`) keeps the store: the body writes the
    temporary, which the copy-back reads."""
    sites: dict = {}
    calls_at: dict = {}
    copied = set()   # sites whose arguments go through temporaries: no in-place view
    for n in ir_dicts(ir):
        if n.get("s") == "apply_control":
            site = n.pop("site", None)
            sites.setdefault(n["fn"], set()).add(site)
            calls_at.setdefault(site, []).append(n)
            if n.get("copy_args"):
                copied.add(site)
    for blk in subcontrols:
        for n in ir_dicts(blk["body"]):
            sid = n.pop("sid", None) if n.get("s") == "assign" else None
            if sid is None:
                continue
            seen = verdicts.get(sid, {})
            calls = sites.get(blk["fn"], set())
            dead = [c for c in calls if seen.get(c) and c not in copied]
            # dead at every call site: p4c drops the store itself -- a setValid of the member kept
            # before the caller's overwrite then finds it as it was (fuzz_headers seed 3028)
            key = _kill_store(n, bool(calls) and len(dead) == len(calls), [calls_at[c] for c in dead], key)
    return key   # (the next dead_key: settle_action_stores)


def _after_inlining(inline, sub, copied: set, deps: set):
    """The view of p4c's second def-use pass (after its Inline, InlineActions and
    RemoveActionParameters: the one that sees an action's copy-back as an assignment) for
    ``inline``: a sub-control applied with ``lv`` in place as its ``out`` header argument starts
    with ``lv.setInvalid()`` -- a write of the validity alone, no overwrite -- and runs its body
    on ``lv`` (``a(hdr.u.x); s2.apply(hdr.u.x);`` with ``s2`` leaving the parameter unwritten
    keeps the action's copy-back).  An instance in ``copied`` (its applies differ:
    :mod:`.subcontrol_args`) copies the parameter back after the body instead, an overwrite;
    ``deps`` collects the instances taken as in place (not known before every block is
    elaborated: :func:`settle_copy_backs`)."""
    def view(call, lv):
        blk = sub(call) if call.get("s") == "apply_control" and sub is not None else None
        outs = [a for a in call["args"] if a["dir"] == "out" and a["e"] == lv] if blk else []
        if len(outs) != 1 or (lv.get("t") or [None])[0] != "header" or "py" not in outs[0] or \
                any(touches(a["e"], lv) for a in call["args"] if a is not outs[0]):
            return inline(call, lv)
        if call["fn"] in copied:
            return [{"s": "assign", "l": lv, "r": {"op": "var", "n": None}}]
        deps.add(call["fn"])
        return [{"s": "setvalid", "h": lv, "v": False, "siblings": []}] + \
            in_place(list(blk.get("locals") or []) + list(blk["body"]), {outs[0]["py"]: lv})
    return view


def action_copy_back_dead(rest: list, lv, inline, sub) -> tuple[bool, dict | None]:
    """Whether p4c's def-use pass after inlining drops an action's copy-back into ``lv`` that
    the statements ``rest`` follow: the verdict with every sub-control taken as in place, and
    when it hangs on that, ``{"fns": [...], "dead": verdict}`` for those being copied."""
    deps: set = set()
    verdict = overwritten(rest, lv, _after_inlining(inline, sub, set(), deps))
    if not deps:
        return verdict, None
    other = overwritten(rest, lv, _after_inlining(inline, sub, set(deps), set()))
    return verdict, (None if other == verdict else {"fns": sorted(deps), "dead": other})


def settle_copy_backs(ir) -> None:
    """Settle the action copy-back verdicts that hang on whether a sub-control is applied in
    place (:func:`action_copy_back_dead`), once ``copy_args`` is marked on every apply
    (:func:`.subcontrol_args.mark_copied_applies`)."""
    copied = {n["fn"] for n in ir_dicts(ir) if n.get("s") == "apply_control" and n.get("copy_args")}
    for n in ir_dicts(ir):
        alt = n.pop("dead_if_copied", None) if "e" in n and "dir" in n else None
        if alt is not None and copied & set(alt["fns"]):
            n.pop("dead", None)
            n.pop("siblings", None)
            n.update({"dead": True} if alt["dead"] else {"siblings": alt["siblings"]})


def mark_action_stores(name: str, body: list) -> list:
    """``body`` (of action ``name``) with each union-member store it makes marked with a ``sid``
    (an initializer's setValid stays: not judged)."""
    k = 0
    for n in ir_dicts(body):
        if n.get("s") == "assign" and n.get("siblings") and n["r"].get("op") != "mk":
            n.setdefault("sid", f"A:{name}#{k}")
            k += 1
    return body


def action_store_verdicts(name: str, body: list, rest: list, inline) -> list:
    """p4c's def-use at one call site of action ``name`` (a direct call or an apply of a table
    listing it): which union-member stores of its ``body`` the statements ``rest`` after the site
    overwrite before any read, ``[(sid, dead)]`` (each store marked with a ``sid`` for
    :func:`settle_action_stores`; an initializer's setValid stays: not judged)."""
    mark_action_stores(name, body)
    found: list = []
    # (a `return` of the body goes on with the site's rest: fuzz_mutants --kinds action_if seed 4381)
    body = ir_replace(list(body), lambda d: {"s": "return", "_ret": list(rest)} if d.get("s") == "return" else None)
    _body_stores(body, list(rest), inline, found)
    return [(sid, dead) for sid, dead in found if str(sid).startswith("A:")]


def settle_action_stores(actions: dict, table_actions: dict, verdicts: dict, ir, key: int,
                         by_caller: dict | None = None) -> None:
    """Drop the union-member stores of action bodies that a call site makes dead (p4c's
    def-use sees an action's body where it runs, and p4c gives every direct call and every
    table its own copy of the action: ``a(); hdr.u.x = hdr.h2;`` drops the store in that
    copy, so BMv2 keeps ``u.w`` valid).  ``table_actions``: table -> its action names;
    ``verdicts``: sid -> {site: dead} (:func:`action_store_verdicts`).  A table's copy is
    dead when every apply of the table is (also one in a ``switch`` on its ``action_run``, or
    alone in an ``if`` condition); a site not judged (one of several tables applied in a
    condition) keeps the store.  ``by_caller``: action -> [(a direct call node in a sub-control
    body, [(an apply_control of that body, dead(sid))])] -- such a call's copies are one per apply
    of the body (``elab_unions.by_caller_units``).  Dead in every copy: the store goes; in some: it
    gets a ``dead_key`` K (numbered from ``key``, after :func:`settle_body_stores`' keys) listed in
    those sites' ``dead_stores`` (the generated code skips it while the call runs); a call in a
    body whose copy is dead for some applies lists ``[K, F]`` (a fresh F: the flag is set while it
    runs when its body's caller set F), and those applies list F."""
    by_caller = by_caller or {}
    units: dict = {}   # action -> [([site nodes of one copy], dead(sid))]
    tables: dict = {}

    def judged(nodes):
        return nodes, lambda sid: all(n.get("asite") is not None and verdicts.get(sid, {}).get(n["asite"])
                                      for n in nodes)
    per_apply = {id(n) for calls in by_caller.values() for n, _ in calls}
    for n in ir_dicts(ir):
        if n.get("s") == "call_action" and id(n) not in per_apply:
            units.setdefault(n["action"], []).append(judged([n]))
        elif n.get("s") in ("apply", "switch_action") or n.get("op") == "table_hit":
            tables.setdefault(n.get("table"), []).append(n)
    for t, nodes in tables.items():
        for a in table_actions.get(t, ()):
            units.setdefault(a, []).append(judged(nodes))
    for q, act in actions.items():
        copies, calls = units.get(q, []), by_caller.get(q, [])
        for n in ir_dicts(act.get("body")):
            sid = n.pop("sid", None) if n.get("s") == "assign" else None
            if sid is None or not str(sid).startswith("A:") or not copies and not calls:
                continue
            gone = [nodes for nodes, dead in copies if dead(sid)]
            some = [(c, [a for a, dead in applies if dead(sid)], len(applies)) for c, applies in calls]
            gone += [[c] for c, dead_at, n_applies in some if len(dead_at) == n_applies]
            some = [(c, dead_at) for c, dead_at, n_applies in some if dead_at and len(dead_at) < n_applies]
            everywhere = len(gone) == len(copies) + len(calls) and not some
            k = _kill_store(n, everywhere, gone, key)
            if some and k == key:   # (only partly dead copies: the store needs its key all the same)
                n["dead_key"], k = key, key + 1
            for c, dead_at in some:
                c.setdefault("dead_stores", []).append([n["dead_key"], k])
                for a in dead_at:
                    a.setdefault("dead_stores", []).append(k)
                k += 1
            key = k
    for n in ir_dicts(ir):
        n.pop("asite", None)


def _drop_nested(stmts: list, cont: list, inline, record=None, sub=None) -> list:
    """``stmts`` (a block's or a branch's) without the union-member stores that their rest and
    then ``cont`` overwrite before any read (p4c's def-use sees through blocks and branches:
    ``{ h_t t = hdr.h; hdr.u.x = t; } hdr.u.x = hdr.s[3];`` drops the inner store, fuzz_headers
    seed 3515), at any depth; ``record`` is told each call there with all that follows it (see
    :func:`drop_dead_union_stores`)."""
    out = []
    for j, b in enumerate(stmts):
        rest = list(stmts[j + 1:]) + cont
        if b.get("s") == "assign" and b.get("siblings") and overwritten(rest, b["l"], inline):
            continue
        if record is not None:
            note_call_site(record, b, rest)
        if b.get("s") in _COPYING:
            b = _judge_call(b, rest, inline, sub)
        elif b.get("s") == "block":
            b = {**b, "body": _drop_nested(b["body"], rest, inline, record, sub)}
        elif b.get("s") == "if":
            b = {**b, "then": _drop_nested(b["then"] or [], rest, inline, record, sub),
                 "else": None if b["else"] is None else _drop_nested(b["else"], rest, inline, record, sub)}
        elif b.get("s") in _SWITCHES:
            b = {**b, "cases": [{**c, "body": _drop_nested(c["body"], rest, inline, record, sub)} for c in b["cases"]]}
        out.append(b)
    return out


_RECORDED = ("apply_control", "call_action", "apply", "switch_action")


def _table_hits(b: dict) -> list:
    return [n for n in ir_dicts(b["c"]) if n.get("op") == "table_hit"] if b.get("s") == "if" else []


def note_call_site(record, b: dict, rest: list) -> None:
    """Tell ``record`` about the call or table apply ``b`` with the statements ``rest`` after it:
    a table applied in an ``if`` condition (the only one there) is followed by the ``if`` itself
    (its branches after the table's actions, as p4c's def-use sees them)."""
    if b.get("s") in _RECORDED:
        record(b, rest)
    elif len(hits := _table_hits(b)) == 1:
        record(hits[0], [dict(b, c=no_hits(b["c"]))] + list(rest))


_COPYING = ("call_action", "apply_control", "call_fn")


def _nested_interest(n: dict, record) -> bool:
    """Whether ``n``, inside a block or branch, is judged again with what follows the block."""
    return n.get("s") == "assign" and bool(n.get("siblings")) or \
        record is not None and (n.get("s") in _RECORDED or len(_table_hits(n)) == 1) or \
        n.get("s") in _COPYING and any(x.get("siblings") for x in n.get("args") or ())


def _judge_call(call: dict, rest: list, inline, sub) -> dict:
    """``call`` (an action, function or sub-control call followed by ``rest``) with each
    argument whose copy-back into a union member p4c's def-use drops marked ``dead`` (and its
    ``siblings`` gone): p4c drops the copy-back whole, so a setValid of the member before the
    overwrite finds it as it was before the call (probe: ``a(hdr.u.x); hdr.u.x.setValid();
    hdr.u.x = ...``).  For a sub-control, nothing but assignments in its body may make the
    parameter valid (p4c keeps a setValid); an action's or a function's is judged as p4c sees
    it after inlining (:func:`action_copy_back_dead`)."""
    def dead(x):
        if not x.get("siblings"):
            return False
        if call.get("s") in ("call_action", "call_fn") and sub is not None:
            return action_copy_back_dead(rest, x["e"], inline, sub)
        if not overwritten(rest, x["e"], inline):
            return False
        blk = sub(call) if call.get("s") == "apply_control" and sub is not None else None
        return blk is None or not _param_sets_valid(blk, call, x)

    def judged(x):
        v = dead(x)
        verdict, alt = v if isinstance(v, tuple) else (v, None)
        y = dict({k: v for k, v in x.items() if k != "siblings"}, dead=True) if verdict else x
        if alt is not None:   # settled by settle_copy_backs
            y = dict(y, dead_if_copied=dict(alt, siblings=x["siblings"]))
        return y
    args = [judged(x) for x in call["args"]]
    return {**call, "args": args} if any(y is not x for x, y in zip(call["args"], args)) else call


def drop_dead_union_stores(stmts: list, inline=None, sub=None, record=None) -> list:
    """p4c's def-use pass (SimplifyDefUse) drops an assignment to a header union member that
    a later assignment to the same member overwrites before anything reads that member --
    without seeing that it also invalidated the member's siblings, which BMv2 then keeps
    valid.  Only the plain case: both in one statement list, nothing between them but
    assignments, declarations, setValid/setInvalid and ifs of those that do not read it
    (writes into it, themselves dead, may read it).  The copy-back of an action's or a
    sub-control's out/inout argument that is a union member (p4c inlines both) is such an
    assignment too: it is then not made (the argument is marked ``dead``).  ``inline``: see :func:`overwritten`
    (p4c inlines sub-controls before its def-use pass, so a body that starts by overwriting
    the member makes the assignment before the call dead); ``sub(call)``: the sub-control
    instance an ``apply_control`` runs (a dead copy-back of a parameter its body also
    setValid's keeps the siblings' invalidation: p4c keeps the setValid); ``record(call,
    rest)``: told each ``apply_control`` and the statements after it (see
    :func:`body_store_verdicts`)."""
    drop = set()
    out = []
    for i, a in enumerate(stmts):
        if record is not None:
            note_call_site(record, a, stmts[i + 1:])
        if a.get("s") == "assign" and a.get("siblings") and overwritten(stmts[i + 1:], a["l"], inline):
            drop.add(i)
        elif a.get("s") in ("block", "if") + _SWITCHES and any(_nested_interest(n, record) for n in ir_dicts(a)):
            a = _drop_nested([a], list(stmts[i + 1:]), inline, record, sub)[0]
        elif a.get("s") in _COPYING:
            a = _judge_call(a, stmts[i + 1:], inline, sub)
        out.append(a)
    return [x for i, x in enumerate(out) if i not in drop]
