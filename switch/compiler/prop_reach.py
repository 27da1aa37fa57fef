"""Where p4c 1.2.4.8's LocalCopyPropagation has no path, and what that leaves unfolded (helper mutz30).

Its control-flow walk of a ``switch`` on a value visits each case from the state before the switch
and merges the results, with no path for a value no case matches; so past a switch each of whose
case bodies ends (``return``, ``exit``) it has no state at all (:func:`prop_ends`; the front end
does know that a plain ``exit``, or an ``if`` that exits both ways, ends: it removes what follows).
Measured on p4c (p4c_mutate seed 522, fuzz22's base; ``tests/p4c/test_mutants9.py``):

* a division in a control's body there folds nothing (const_index clears its constants there);
* a table applied there is visited with no state, so an action it runs folds nothing of its own
  (``h.c = 0x11; h.c = h.c / 7;``) even where a reachable apply runs it too, and the back end
  refuses the division ("could not evaluate expression at compilation time") -- in a control
  body without a ``return``: with one, RemoveReturns puts what follows under ``if (!flag)``
  with the flag true there, and it is not visited at all, as below;
* a table applied (or an action called) in statements the midend drops after a single-case switch
  that returns (``p4info_rest``, elab_common.live_prefix) is not visited at all: an action only
  those run is refused so, one a reachable statement runs too is folded there.

:func:`unfolded_action_divisions` picks, of the divisions actions' own constants folded, those.
"""
from __future__ import annotations

from .elab_common import ir_dicts


def prop_ends(st: dict, tables: dict | None = None) -> bool:
    """Whether p4c's LocalCopyPropagation finds no path past statement ``st`` that its front end
    still leaves a path past: a ``switch`` on a value each of whose case bodies ends (a ``return``,
    an ``exit``, an ``if`` both of whose branches end, ...) -- its walk merges the cases and no path
    where none matched (``switch (x) { 5: { exit; } }``: what follows gets no constant, and a table
    applied there is not visited, its actions' own constants not propagated; helper mutz30) --, a
    ``switch`` on ``action_run`` whose labels cover the table's actions (or ``default``) and whose
    cases all end, an ``if`` both of whose branches end so, or a block holding one.  (After a plain
    ``exit``, or an ``if`` that exits both ways, the front end has removed what follows.)"""
    k = st.get("s")
    if k in ("block", "if") and not any(d.get("s") in ("switch_value", "switch_action") for d in ir_dicts(st)):
        return False   # (no switch in it: linear, not exponential in the nesting -- test_robustness)
    if k == "block":
        return any(prop_ends(x, tables) for x in st["body"])
    if k == "if":
        return _case_ends(st["then"] or [], tables) and _case_ends(st["else"] or [], tables) and \
            not (_case_ends(st["then"] or [], None, True) and _case_ends(st["else"] or [], None, True))
    if k == "switch_action":
        labels = {x for c in st["cases"] for x in c["labels"]}
        acts = {a["name"] for a in ((tables or {}).get(st["table"]) or {}).get("actions") or ()}
        if "default" not in labels and not (acts and acts <= labels):
            return False
    if k in ("switch_value", "switch_action"):
        bodies = [c["body"] for c in st["cases"] if c.get("body") is not None]
        return bool(bodies) and all(_case_ends(b, tables) for b in bodies)
    return False


def _case_ends(stmts: list, tables: dict | None, front: bool = False) -> bool:
    """Whether ``stmts`` end on every path (``front``: as p4c's front end sees it -- returns and
    exits, not a switch)."""
    for st in stmts:
        k = st.get("s")
        if k in ("return", "exit") or not front and prop_ends(st, tables) or \
                k == "block" and _case_ends(st["body"], tables, front) or \
                k == "if" and _case_ends(st["then"] or [], tables, front) and _case_ends(st["else"] or [], tables, front):
            return True
    return False


def _reach_split(stmts: list, reach: bool, live: list, dead: list, rest: list, tables: dict) -> None:
    """Sort the statements ``stmts`` (and their parts) into those p4c's propagation reaches
    (``live``), those it does not (``dead``: after :func:`prop_ends`) and the ``p4info_rest`` ones
    (the midend drops them, elab_common.live_prefix)."""
    for st in stmts:
        (live if reach else dead).append({k: v for k, v in st.items()
                                          if k not in ("then", "else", "body", "cases", "p4info_rest")})
        if st.get("p4info_rest"):
            rest.append(st["p4info_rest"])
        k = st.get("s")
        if k == "block":
            _reach_split(st["body"], reach, live, dead, rest, tables)
        elif k == "if":
            _reach_split(st["then"] or [], reach, live, dead, rest, tables)
            _reach_split(st["else"] or [], reach, live, dead, rest, tables)
        elif k in ("switch_value", "switch_action"):
            for c in st["cases"]:
                _reach_split(c.get("body") or [], reach, live, dead, rest, tables)
        reach = reach and not prop_ends(st, tables)


def unfolded_action_divisions(body: list, folded: list, tables: dict, actions: dict) -> list:
    """Of ``folded`` -- (IR, loc, message, ctx) of the divisions an action's own constants folded
    (const_index) -- those p4c does not fold in control body ``body`` (the module docstring)."""
    live, dead, rest = [], [], []
    _reach_split(body, True, live, dead, rest, tables)
    if any(d.get("s") == "return" for d in ir_dicts(body)):
        # (RemoveReturns makes what follows `if (!flag)`, the flag true there: not visited at all)
        rest, dead = rest + dead, []
    if not dead and not rest:
        return []
    live, dead, rest = (_actions_run(x, tables, actions) for x in (live, dead, rest))
    return [f for f in folded if f[3]["in_action"] in dead or f[3]["in_action"] in rest and f[3]["in_action"] not in live]


def _actions_run(roots: list, tables: dict, actions: dict) -> set:
    """The actions the IR ``roots`` run (directly, through tables, through other actions)."""
    todo, seen = [roots], set()
    while todo:
        node = todo.pop()
        for d in ir_dicts(node, "p4info_rest"):
            names = [d["action"]] if d.get("s") == "call_action" else []
            if d.get("s") in ("apply", "switch_action") or d.get("op") == "table_hit":
                t = tables.get(d.get("table")) or {}
                names = [a["name"] for a in t.get("actions") or ()] + [(t.get("default") or {}).get("action")]
            for q in names:
                if q and q not in seen:
                    seen.add(q)
                    todo.append((actions.get(q) or {}).get("body") or [])
    return seen
