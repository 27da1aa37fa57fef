"""Per-control copies of a top-level action with a relative ``@name`` (p4c 1.2.4.8).

p4c's front end copies a top-level action into every control that uses it (LocalizeAllActions)
before it names the control-plane objects.  A copy keeps the action's annotations, so for an
action without ``@name`` or with an absolute one (``@name(".n")``) every copy has the same
control-plane name and the P4Info lists one action.  A *relative* ``@name("n")`` is read
inside the control the copy now lives in: each top-level control that uses the action gets its
own P4Info action ``C.n`` (its own id; aliases as usual, ``n`` when only one control uses it).
The control is the V1Switch block the use is in -- a use inside a sub-control instance of
``I`` gives ``I.n`` too, not ``I.inst.n`` (probed with p4c 1.2.4.8; found with p4c's
``issue-4969-bmv2`` sample, case ``corpus7_toplevel_action_relative_name``).

:func:`localize_named_toplevel_actions` runs first in ``ElabOutput.finish``: it makes the
copies as action records of their own (same body, same parameters) and points every use of
the control at its copy -- table action lists, default actions and const entries, direct calls
in the control's blocks and in the bodies of its own actions, and ``switch`` labels on
``action_run``.  Uses it cannot place in one control (a call from another top-level action)
keep the original action.
"""
from __future__ import annotations

from .ast import annotation
from .elab_common import ir_dicts


def _relative_name(rec: dict) -> bool:
    nm = annotation(rec.get("annos") or [], "name")
    return bool(nm and nm[1] and isinstance(nm[1][0], str) and not nm[1][0].startswith("."))


def _top(control: str | None) -> str | None:
    return control.split(".", 1)[0] if control else None


def localize_named_toplevel_actions(el, blocks: dict) -> None:
    """Give each control using a top-level relatively ``@name``d action its own copy (module doc)."""
    todo = {q for q, a in el.actions.items()
            if a.get("control") is None and "#" not in q and not a.get("twin_of") and _relative_name(a)}
    if not todo:
        return
    # where each control's IR lives: its block, its sub-control instances, its own actions
    owned: dict[str, list] = {}
    for role, b in blocks.items():
        if role != "parser" and b.get("name"):
            owned.setdefault(b["name"], []).append(b)
    for sub in getattr(el, "subcontrols", None) or []:
        if _top(sub.get("name")) in owned:
            owned[_top(sub["name"])].append(sub)
    for q, a in el.actions.items():
        if _top(a.get("control")) in owned and q not in todo:
            owned[_top(a["control"])].append(a.get("body"))
    users: dict[str, set] = {q: set() for q in todo}
    for ctl, parts in owned.items():
        for n in ir_dicts(parts):
            if n.get("s") == "call_action" and n.get("action") in todo:
                users[n["action"]].add(ctl)
    for t in el.tables.values():
        for a in t["actions"]:
            if a["name"] in todo and _top(t.get("control")) in owned:
                users[a["name"]].add(_top(t["control"]))

    def copy_name(q: str, ctl: str | None) -> str:
        return f"{ctl}.{q}" if ctl in users.get(q, ()) else q

    for q in sorted(todo):
        orig = el.actions[q]
        for ctl in sorted(users[q]):
            el.actions[f"{ctl}.{q}"] = dict(orig, name=f"{ctl}.{q}", used=True, self_used=True)
    for ctl, parts in owned.items():
        for n in ir_dicts(parts):
            if n.get("s") == "call_action" and n.get("action") in todo:
                n["action"] = copy_name(n["action"], ctl)
            elif n.get("s") == "switch_action" and n.get("table") in el.tables:
                tctl = _top(el.tables[n["table"]].get("control"))
                for c in n["cases"]:
                    c["labels"] = [copy_name(lb, tctl) if lb in todo else lb for lb in c["labels"]]
    for t in el.tables.values():
        ctl = _top(t.get("control"))
        for a in t["actions"]:
            if a["name"] in todo:
                a["name"] = copy_name(a["name"], ctl)
        if t.get("default") and t["default"].get("action") in todo:
            t["default"]["action"] = copy_name(t["default"]["action"], ctl)
        for e in t.get("const_entries") or ():
            if e.get("action") in todo:
                e["action"] = copy_name(e["action"], ctl)
    # the original stays only for uses no control owns (a call from another top-level action)
    left = set()
    for q2, a in el.actions.items():
        if a.get("control") is None and q2 not in todo:
            left |= {n["action"] for n in ir_dicts(a.get("body")) if n.get("s") == "call_action"}
    for q in todo:
        if users[q] and q not in left:
            el.actions[q]["used"] = False
