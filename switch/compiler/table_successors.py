"""p4c's BMv2 back end: one successor per table outcome (moved out of elab_tables; see
:func:`check_table_successors`)."""
from __future__ import annotations

from .elab_common import E
from .errors import Loc


def check_table_successors(body: list, subcontrols: list, table_locs: dict, source, exit_locs=None,
                           folded=None) -> None:
    """p4c's BMv2 back end gives each table one successor per outcome: a table applied (as a
    statement) at two places whose next step differs -- ``if (c) { t.apply(); x = 1; } else
    { t.apply(); x = 2; }`` -- is refused ("table t has multiple successors"); when both are
    followed by the same statement (the end of the ``if``, say) it is fine.  The next step of
    an apply is the first statement after it, or, at the end of a branch or block, whatever
    follows the enclosing statement (sub-control bodies inlined).  An ``exit`` is a step of
    its own; a ``return`` is one too unless nothing follows it (p4c turns it into a flag only
    then).  Tables also applied in an expression or a ``switch`` are left to
    :meth:`check_single_apply`.

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

    def mark(e):
        if isinstance(e, dict):
            if e.get("op") == "table_hit":
                unsafe.add(e.get("table"))
            for v in e.values():
                mark(v)
        elif isinstance(e, list):
            for v in e:
                mark(v)

    def walk(stmts, cont, end, depth):
        for st in reversed(stmts):
            cont = visit(st, cont, end, depth)
        return cont

    def visit(st, cont, end, depth):
        k = st.get("s")
        if k == "nop" or (k == "decl" and st.get("init") is None):
            return cont
        if k == "block":
            return walk(st["body"], cont, end, depth)
        if k == "apply":
            sites.setdefault(st["table"], []).append(cont)
            return ("table", st["table"])
        if k == "if" and id(st) in folded:
            return walk(st["then"] if folded[id(st)] else st["else"], cont, end, depth)
        if k == "if":
            mark(st["c"])
            a, b = walk(st["then"], cont, end, depth), walk(st["else"], cont, end, depth)
            return cont if a == cont and b == cont else ("if", id(st))
        if k in ("switch_action", "switch_value"):
            if k == "switch_action":
                unsafe.add(st["table"])
            mark(st.get("e"))
            for c in st["cases"]:
                walk(c.get("body") or [], cont, end, depth)
            return (k, id(st))
        if k == "apply_control" and depth < 16 and st.get("fn") in subs:
            mark(st.get("args"))
            for loc in exits(subs[st["fn"]]["body"]):
                exit_uses.setdefault((loc.line, loc.col), []).append(loc)
            return walk(subs[st["fn"]]["body"], cont, cont, depth + 1)
        if k == "return":
            return end if cont == end else ("return", id(st))
        mark(st)
        return ("stmt", id(st))

    walk(body, ("end",), ("end",), 0)
    for uses in exit_uses.values():
        if len(uses) > 1:
            raise E(uses[0], "exit in a control that is applied at two places (two instances, or one applied "
                             "twice): p4c 1.2.4.8 for BMv2 cannot compile it (\"table tbl_... has multiple "
                             "successors\", or \"Compiler Bug: Overwriting definitions at <ExitStatement>\")")
    for t, nexts in sites.items():
        if t in unsafe or len(set(nexts)) < 2:
            continue
        raise E(table_locs.get(t, Loc(source, 1, 1)),
                f"table {t} is applied at places followed by different statements, so it has multiple "
                f"successors; p4c for BMv2 rejects this (\"Program is not supported by this target, because "
                f"table {t} has multiple successors\")")
