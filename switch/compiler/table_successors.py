"""p4c's BMv2 back end and the table graph: one successor per table outcome
(:func:`check_table_successors`), no table applied twice on one execution path
(:func:`check_single_apply`); both moved out of elab_tables."""
from __future__ import annotations

from .elab_common import always_returns, E, has_enum_cast_cmp, ir_dicts, may_return
from .errors import Loc


def enum_folded(st: dict, fold) -> bool | None:
    """The branch p4c's midend keeps of an ``if`` on an enum-cast comparison (``(E)4w5 !=
    E.C``; its front end keeps the ``if``, has_enum_cast_cmp), or None.  EliminateSerEnums and
    ConstantFolding decide it before the constant propagation that also folds the flag of a
    ``return`` in it (p4c_mutate seed 137: ``if ((En_t)4w5 != En_t.C) { return; } t3.apply();
    t3.apply();`` compiles; a return under a local's constant ends nothing, probed)."""
    if st.get("s") != "if" or not (has_enum_cast_cmp(st["c"]) or _serenum_cmp(st["c"])):
        return None
    v = fold(st["c"])
    return None if v is None else bool(v)


def _serenum_cmp(c) -> bool:
    """A comparison of serializable-enum values (``En_t.B != En_t.C``): p4c's front end keeps it as
    well, its midend's EliminateSerEnums makes it one of bit constants (the fuzz21 case's t2)."""
    return any(d.get("op") == "bin" and d.get("o") in ("==", "!=") and isinstance(d.get("a"), dict)
               and (d["a"].get("t") or [None])[0] == "serenum" for d in ir_dicts(c))


def mid_returns(st: dict, fold, marks: bool = True) -> bool:
    """Statement ``st`` always returns once p4c's midend has folded the enum-cast ``if``s
    (:func:`enum_folded`): what follows it is gone before the BMv2 back end.  ``marks``: a
    single-case switch marked ``returns`` counts (not behind an earlier statement that may return:
    the join of RemoveReturns' ``if (!flag)`` loses the mid end's flag, elab_common.live_prefix)."""
    v = enum_folded(st, fold)
    if v is not None:
        return any(mid_returns(x, fold, marks) for x in (st["then"] if v else st["else"]) or [])
    if st.get("s") == "block":
        return any(mid_returns(x, fold, marks) for x in st["body"])
    if st.get("s") == "if":
        return any(mid_returns(x, fold, marks) for x in st["then"] or []) and \
            any(mid_returns(x, fold, marks) for x in st["else"] or [])
    return always_returns(st, front=not marks)


def check_table_successors(body: list, subcontrols: list, table_locs: dict, source, exit_locs=None,
                           folded=None, fold=None) -> None:
    """p4c's BMv2 back end gives each table one successor per outcome: a table applied (as a
    statement) at two places whose next step differs -- ``if (c) { t.apply(); x = 1; } else
    { t.apply(); x = 2; }`` -- is refused ("table t has multiple successors"); when both are
    followed by the same statement (the end of the ``if``, say) it is fine.  The next step of
    an apply is the first statement after it, or, at the end of a branch or block, whatever
    follows the enclosing statement (sub-control bodies inlined).  An ``exit`` is a step of
    its own; a ``return`` is one too unless nothing follows it (p4c turns it into a flag only
    then; "follows" as its front end sees it, while what follows a return that p4c's midend
    makes unconditional -- :func:`mid_returns`, with ``fold`` -- applies no table).  Tables
    applied in a ``switch`` on its ``action_run`` or as an ``if`` condition (``t.apply().hit``) have
    a successor per action or per outcome (:func:`_differ`); those applied in other expressions are
    left to :func:`check_single_apply`.

    An ``exit`` statement of a control inlined at two places (two instances applied, or one
    applied twice) is refused too: p4c 1.2.4.8 fails on every such program measured, with
    "table tbl_<prog>l<line> has multiple successors" (the copies share the exit's hidden
    table; fuzzt seed 187), "a path from table ... back to itself", or a "Compiler Bug:
    Overwriting definitions at <ExitStatement>" in its def-use pass."""
    subs = {b.get("fn"): b for b in subcontrols}
    exit_locs = exit_locs or {}
    folded = folded or {}   # ifs p4c's midend folds (const_index): only the branch kept counts
    exit_uses: dict = {}

    def exits(stmts):
        for x in stmts:
            if x.get("s") == "exit" and id(x) in exit_locs:
                yield exit_locs[id(x)]
            for key in ("body", "then", "else"):
                if isinstance(x.get(key), list):
                    yield from exits(x[key])
            for c in x.get("cases") or ():
                yield from exits(c.get("body") or [])
    sites: dict[str, list] = {}
    unsafe: set = set()

    inst = [""]   # (a repeated direct application's tables are tables of their own: direct_apply)

    def mark(e):
        if isinstance(e, dict):
            if e.get("op") == "table_hit":
                unsafe.add(e.get("table") + inst[0])
            for v in e.values():
                mark(v)
        elif isinstance(e, list):
            for v in e:
                mark(v)

    def always_exits(st, depth=0) -> bool:
        k = st.get("s")
        if k == "exit":
            return True
        if k == "block":
            return any(always_exits(x, depth) for x in st["body"])
        if k == "if":
            c = st["c"]
            v = folded[id(st)] if id(st) in folded else c.get("v") if c.get("op") == "const" else \
                fold(c) if fold is not None else None
            arms = [st["then"] if v else st["else"]] if v is not None else [st["then"], st["else"]]
            return all(any(always_exits(x, depth) for x in a or []) for a in arms)
        if k == "apply_control" and depth < 16 and st.get("fn") in subs:
            return any(always_exits(x, depth + 1) for x in subs[st["fn"]]["body"])
        return False

    def walk(stmts, cont, end, depth):
        cut = next((i for i, st in enumerate(stmts) if fold is not None and mode[0] != "front" and mid_returns(st, fold)), None)
        xcut = next((i for i, st in enumerate(stmts) if always_exits(st)), None)
        for i, st in reversed(list(enumerate(stmts if cut is None else stmts[:cut + 1]))):   # (what follows is dead)
            # an `if` (a `switch`) after a statement that always exits: p4c's def-use does not visit it, so an
            # exit of a control applied again there is no second definition (fuzz_exprs seed 14771:
            # `s1.apply(); if (c) { s0.apply(); }`, s1 and s0 instances of a control whose body
            # always exits, compiles; a second apply on the straight path, or in a plain block, is
            # p4c's "Overwriting definitions at <ExitStatement>" -- measured)
            skip = xcut is not None and i > xcut and st.get("s") in ("if", "switch_value", "switch_action")
            dead_if[0] += skip
            cont = visit(st, cont, end, depth)
            dead_if[0] -= skip
        return cont
    dead_if = [0]

    def visit(st, cont, end, depth):
        k = st.get("s")
        if k == "nop" or (k == "decl" and st.get("init") is None):
            return cont
        if k == "block":
            return walk(st["body"], cont, end, depth)
        if k == "apply":
            sites.setdefault(st["table"] + inst[0], []).append(cont)
            return ("table", st["table"] + inst[0])
        if k == "if" and id(st) in folded:
            return walk(st["then"] if folded[id(st)] else st["else"], cont, end, depth)
        if mode[0] == "mid" and (v := enum_folded(st, fold)) is not None:
            return walk((st["then"] if v else st["else"]) or [], cont, end, depth)
        if k == "if":
            c, neg = _hit_cond(st["c"])
            hit = c.get("op") == "table_hit"
            if not hit:
                mark(c)
            a, b = walk(st["then"], cont, end, depth), walk(st["else"], cont, end, depth)
            if hit:   # `if (t.apply().hit)`: one successor on a hit, one on a miss
                sites.setdefault(c["table"] + inst[0], []).append(("per_action", "hit", (("__HIT__", b if neg else a),),
                                                         a if neg else b))
                return ("if", id(st))
            return cont if a == cont and b == cont else ("if", id(st))
        if k in ("switch_action", "switch_value"):
            mark(st.get("e"))
            nexts, other = {}, cont
            for c in st["cases"]:
                first = walk(c.get("body") or [], cont, end, depth)
                for lab in c["labels"]:
                    if lab == "default":
                        other = first
                    else:
                        nexts.setdefault(lab, first)
            if k == "switch_action":   # (one successor per action: its case's first step)
                sites.setdefault(st["table"] + inst[0], []).append(("per_action", "switch", tuple(sorted(nexts.items(), key=str)), other))
            return (k, id(st))
        if k == "apply_control" and depth < 16 and st.get("fn") in subs:
            mark(st.get("args"))
            for loc in exits(subs[st["fn"]]["body"]) if not dead_if[0] else ():
                exit_uses.setdefault((loc.line, loc.col), []).append(loc)
            saved = inst[0]
            inst[0] = _instance(saved, st)
            try:
                return walk(subs[st["fn"]]["body"], cont, cont, depth + 1)
            finally:
                inst[0] = saved
        if k == "return":
            if mode[0] == "front":
                flagged[id(st)] = cont != end
            elif mode[0] == "live":
                flagged["live"] = flagged.get("live") or cont != end
            return ("return", id(st)) if flagged.get(id(st), cont != end) and flagged.get("live", True) else end
        mark(st)
        return ("stmt", id(st))

    # With ``fold`` (p4c's midend folding the enum-cast ifs, :func:`mid_returns`): p4c's front end
    # gives a return a flag (hasReturned = true, a step) where something follows it as the front end
    # sees it ("front"), and the flag stays where some statement after a return still reads it -- one
    # not past a return the midend makes unconditional ("live"; probes d9, d10: `if (c) { t.apply();
    # return; } else { t.apply(); } if ((E)4w5 == E.C) { ... }` is refused, `if ((E)4w5 != E.C) {
    # return; } t.apply(); t.apply();` compiles); the tables then as the back end sees them ("mid").
    flagged: dict = {}
    mode = ["mid"]
    if fold is not None:
        for mode[0] in ("front", "live"):
            walk(body, ("end",), ("end",), 0)
            sites.clear()
            unsafe.clear()
            exit_uses.clear()
        mode[0] = "mid"
    walk(body, ("end",), ("end",), 0)
    for uses in exit_uses.values():
        if len(uses) > 1:
            raise E(uses[0], "exit in a control that is applied at two places (two instances, or one applied "
                             "twice): p4c 1.2.4.8 for BMv2 cannot compile it (\"table tbl_... has multiple "
                             "successors\", or \"Compiler Bug: Overwriting definitions at <ExitStatement>\")")
    for t, nexts in sites.items():
        if t in unsafe or not _differ(nexts):
            continue
        t = t.split("#")[0]
        raise E(table_locs.get(t, Loc(source, 1, 1)),
                f"table {t} is applied at places followed by different statements, so it has multiple "
                f"successors; p4c for BMv2 rejects this (\"Program is not supported by this target, because "
                f"table {t} has multiple successors\")")


def _hit_cond(c: dict) -> tuple[dict, bool]:
    """An ``if`` condition with its ``!``s taken off a table's hit/miss, and whether it is negated:
    p4c's BMv2 back end makes ``if (!t.apply().hit)`` (``!!``, ``!t.apply().miss``) the table's
    ``__HIT__``/``__MISS__`` successors swapped, as ``if (t.apply().miss)`` (fuzz_headers seed 9222:
    `if (t0.apply().hit) {} else {}` in one branch and `if (!t0.apply().hit) {..} else {..}` in the
    other is refused, "table t0 has multiple successors"; `if (t0.apply().hit) {}` and
    `if (!t0.apply().hit) {}` ending one `if`'s two branches compiles -- probed).  Other conditions
    come back as they are (``neg`` False)."""
    orig, flips = c, 0
    while c.get("op") == "un" and c.get("o") == "!" and isinstance(c.get("a"), dict):
        c, flips = c["a"], flips + 1
    if c.get("op") != "table_hit":
        return orig, False
    return c, bool(c.get("neg")) != bool(flips % 2)


def _differ(nexts: list) -> bool:
    """Whether the successors of a table's applies differ: a plain apply's is one step for every
    action; one in ``switch (t.apply().action_run)`` has the first step of each action's case, one
    in ``if (t.apply().hit)`` a step on a hit and one on a miss (``("per_action", kind, ((label,
    step), ...), step of the others)``).  p4c refuses a table applied two of these ways (fuzz_headers
    seed 6354: `t0.apply();` in one case of a switch, `switch (t0.apply().action_run) {..}` in
    another; also when every case or branch is empty), and two applies of one way that go on
    differently; two whose cases all go on after them compile (probed, helper fuzz23)."""
    def kind(n):
        return n[1] if isinstance(n, tuple) and n[:1] == ("per_action",) else "plain"
    if len({kind(n) for n in nexts}) > 1:
        return True
    labels = {a for n in nexts if kind(n) != "plain" for a, _ in n[2]}

    def at(n, a):
        return n if kind(n) == "plain" else dict(n[2]).get(a, n[3])
    return any(len({repr(at(n, a)) for n in nexts}) > 1 for a in labels | {None})


def midend_kept_tables(bodies: list, subcontrols: list, fold, folded: dict, keys: dict) -> set:
    """The tables p4c's midend keeps in its BMv2 JSON; one its P4Info lists but not kept here was
    applied only in the branch of an ``if`` it folds away (``folded``, const_index; an enum-cast
    or serializable-enum comparison, :func:`enum_folded`) or after a return it makes unconditional
    (:func:`mid_returns`; also one the front end's RemoveReturns already dropped).  Erring towards
    keeping: a table named anywhere in a statement that stays (a condition, a ``switch``, a
    sub-control body applied there), or in the key of a table kept (``keys``: table -> its key
    expressions; `k = { t2.apply().hit: exact; }`), is kept.  checkmate-switch answers P4Runtime
    writes to the others as BMv2 does (p4rt_server.writes)."""
    subs = {b.get("fn"): b for b in subcontrols}
    live, dead = set(), set()

    def names(node, into):
        if isinstance(node, list):
            for x in node:
                names(x, into)
        elif isinstance(node, dict):
            if node.get("s") in ("apply", "switch_action") or node.get("op") == "table_hit":
                into.add(node.get("table"))
            for k, v in node.items():
                # (what a returning single-case switch drops, elab_common.live_prefix: p4c's mid end
                # removes a table applied only there -- mutz40/mutz41 programs, helper p4rt53)
                names(v, dead if k == "p4info_rest" else into)

    def walk(stmts, alive: bool, depth: int) -> None:
        # (a single-case switch marked ``returns`` behind a statement that may return keeps what
        # follows it: fuzz_samples on diffcase mutz39_..._conditional_expression, seed 114 -- p4c's
        # JSON has the table applied after `if (..) { return; } switch (..) { 5: { return; } }`)
        cut = next((i for i, st in enumerate(stmts)
                    if mid_returns(st, fold, marks=not any(may_return(x) for x in stmts[:i]))), None) if alive else None
        for i, st in enumerate(stmts):
            here = alive and (cut is None or i <= cut)
            k = st.get("s")
            v = folded.get(id(st)) if k == "if" and id(st) in folded else enum_folded(st, fold) if k == "if" else None
            if k == "if" and v is not None:
                names(st["c"], live if here else dead)
                walk(st["then"] or [], here and v, depth)
                walk(st["else"] or [], here and not v, depth)
            elif k == "if":
                names(st["c"], live if here else dead)
                walk(st["then"] or [], here, depth)
                walk(st["else"] or [], here, depth)
            elif k == "block":
                walk(st["body"], here, depth)
            elif k in ("switch_action", "switch_value"):
                names({kk: vv for kk, vv in st.items() if kk != "cases"}, live if here else dead)
                for c in st["cases"]:
                    walk(c.get("body") or [], here, depth)
            elif k == "apply_control" and st.get("fn") in subs and depth < 16:
                names(st.get("args"), live if here else dead)
                walk(subs[st["fn"]]["body"], here, depth + 1)
            else:
                names(st, live if here else dead)
    for body in bodies:
        walk(body, True, 0)
    todo = list(live)
    while todo:
        found: set = set()
        names(keys.get(todo.pop()) or [], found)
        todo += [t for t in found if t not in live]
        live |= found
    return live


def _front_exits(st: dict) -> bool:
    """Whether statement ``st`` always exits as p4c's front end sees it: an ``exit``, a block holding
    one, an ``if`` with a constant condition or whose both arms do (not an action call that exits:
    measured, p4c 1.2.4.8)."""
    k = st.get("s")
    if k == "exit":
        return True
    if k == "block":
        return any(_front_exits(x) for x in st["body"])
    if k == "if":
        c = st["c"]
        arms = [st["then"] if c.get("v") else st["else"]] if c.get("op") == "const" else [st["then"], st["else"]]
        return all(any(_front_exits(x) for x in a or []) for a in arms)
    return False


def _instance(name: str, apply: dict) -> str:
    """``name`` (a table's, or a suffix) as seen through sub-control application ``apply``: a
    repeated direct application (``instance``, :mod:`.direct_apply`) is p4c's instance of its own."""
    return f"{name}#{apply['instance']}" if apply.get("instance") else name


def check_single_apply(body: list, subcontrols: list, table_locs: dict, source, folded=None, fold=None) -> None:
    """p4c for BMv2 rejects a program in which one execution path applies a table twice
    ("contains a path from table T back to itself"): count, per table, the most applies
    on any path (if/else and switch branches are alternatives, sequences add up)."""
    subs = {b.get("fn"): b for b in subcontrols}
    folded = folded or {}   # (const_index's midend_folded_ifs)

    def merge_max(a, b):   # (in a's order, then b's: no set order, the message is reproducible)
        return {k: max(a.get(k, 0), b.get(k, 0)) for k in [*a, *(k for k in b if k not in a)]}

    again: list = []   # tables in the order their second apply on a path is met

    def add(a, b):
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + v
            if out[k] > 1 and k not in again:
                again.append(k)
        return out

    def expr(e):
        got = {}
        if isinstance(e, dict):
            if e.get("op") == "table_hit":
                got = {e["table"]: 1}
            for v in e.values():
                got = add(got, expr(v))
        elif isinstance(e, list):
            for v in e:
                got = add(got, expr(v))
        return got

    def seq(stmts, depth=0):
        total = {}
        exited = unfolded[0]
        for st in stmts:
            total = add(total, one(st, depth))
            if mid_returns(st, fold):   # (the rest is dead for the back end: table_successors)
                break
            if _front_exits(st):   # (p4c's midend folds no `if` after it: fuzz_mutants seed 2049,
                unfolded[0] = True   # `exit; if (v <= 5) {..} else { t.apply(); t.apply(); }` refused)
        unfolded[0] = exited
        return total
    unfolded = [False]

    def one(st, depth):
        k = st.get("s")
        if k == "apply":
            return {st["table"]: 1}
        if k == "if" and id(st) in folded and not unfolded[0]:   # p4c's midend removed the other branch
            return seq(st["then"] if folded[id(st)] else st["else"], depth)
        if (v := enum_folded(st, fold)) is not None:
            return seq((st["then"] if v else st["else"]) or [], depth)
        if k == "if":
            return add(expr(st["c"]), merge_max(seq(st["then"], depth), seq(st["else"], depth)))
        if k == "switch_action":
            best = {}
            for c in st["cases"]:
                best = merge_max(best, seq(c.get("body") or [], depth))
            return add({st["table"]: 1}, best)
        if k == "switch_value":
            best = {}
            for c in st["cases"]:
                best = merge_max(best, seq(c.get("body") or [], depth))
            return add(expr(st["e"]), best)
        if k == "block":
            return seq(st["body"], depth)
        if k == "apply_control" and depth < 16 and st.get("fn") in subs:
            return {_instance(t, st): n for t, n in seq(subs[st["fn"]]["body"], depth + 1).items()}
        return expr({kk: v for kk, v in st.items() if kk not in ("then", "else", "body", "cases")})

    twice = {t for t, n in seq(body).items() if n > 1}
    for t in [t.split("#")[0] for t in again if t in twice][:1]:
        # p4c names the table applied again first in program order (stratum's complex_hits.p4:
        # table1; `t2; t1; t2; t1` names t2); the set order made it vary from run to run
        raise E(table_locs.get(t, Loc(source, 1, 1)),
                f"table {t} is applied more than once on one execution path; p4c for BMv2 "
                f"rejects this (\"a path from table {t} back to itself\")")
