"""Which sub-control applies p4c's inliner passes through temporaries.

p4c inlines a control applied from another control.  When every apply of that control
instance passes the same arguments it substitutes them for the parameters -- the body then
writes the caller's headers and fields in place; when the applies differ (in any argument,
``in`` ones too) it copies each argument into a temporary of the instance and the out/inout
ones back after the body, with assign_header for every header (BMv2: an invalid one keeps the
caller's fields) -- and an ``exit`` in the body skips that copy-back.  :func:`mark_copied_applies`
marks those ``apply_control`` statements ``copy_args`` for the code generator
(``switch.runtime.gen_subcontrol``); :mod:`.union_defuse` keeps its in-place view of the body
to the others.  That marking needs every block elaborated; :func:`differing_instances` tells the
same from a control's source while it is being elaborated (a single-case switch's entry copies,
:func:`.case_entry.entry_copies`, need it before the applies after the switch are).
"""
from __future__ import annotations

import json

from .ast import Node, walk
from .elab_common import ir_dicts
from .errors import Loc


def _signature(call: dict) -> str:
    return json.dumps([[a["dir"], a["e"]] for a in call["args"]], sort_keys=True)


def mark_copied_applies(ir) -> None:
    """Mark ``copy_args`` on every ``apply_control`` in ``ir`` (any IR value holding every block
    and sub-control body) whose instance some other apply calls with different arguments."""
    calls: dict = {}
    for n in ir_dicts(ir):
        if n.get("s") == "apply_control":
            calls.setdefault(n["fn"], []).append(n)
    for same in calls.values():
        if len({_signature(c) for c in same}) > 1:
            for c in same:
                c["copy_args"] = True


def instance_temp(call: dict, arg: dict) -> dict:
    """The variable of p4c's temporary (``x_0``) for argument ``arg`` of ``call`` (an
    ``apply_control`` marked ``copy_args``): one per instance and parameter, kept in the caller's
    ``L`` between its applies (``switch.runtime.gen_subcontrol`` names it so)."""
    attr = arg["py"][2:] if arg["py"].startswith("L.") else arg["py"]
    return {"op": "var", "n": f"L._tmp_{call['fn']}_{attr}", "t": arg["e"].get("t")}


def differing_instances(control, scope) -> set:
    """The sub-control instances (their blocks' ``fn``) that ``control`` (an AST node) applies with
    different arguments at different places -- compared as written (their AST, locations left
    out, integer literals by value, casts of them too), which is what :func:`mark_copied_applies`
    finds on the IR for all but odd spellings of one value; where it is told wrong that they
    differ, the applies that are read through temporaries keep them (``keep_temps``,
    :func:`.case_entry.expand_apply`).  ``scope``: the control's, where its instances are declared."""
    seen: dict = {}
    for n in walk(getattr(control, "body", None)):
        if n.kind == "call" and n.fn.kind == "member" and n.fn.name == "apply" and n.fn.base.kind == "name":
            ent = scope.lookup(n.fn.base.name)
            if ent is not None and ent[0] == "subcontrol":
                seen.setdefault(ent[1]["fn"], set()).add(_written(n.args))
    return {fn for fn, sigs in seen.items() if len(sigs) > 1}


def _written(v):
    """``v`` (AST nodes, lists of them) as a comparable value, locations left out, an integer
    literal by its value (``1`` is ``8w1`` for an 8-bit parameter: p4c's inliner sees them typed)."""
    while isinstance(v, Node) and v.kind == "cast" and v.a.kind in ("int", "cast"):
        v = v.a   # (`(bit<8>)1`: a constant p4c has folded)
    if isinstance(v, Node) and v.kind == "int":
        return ("int", v.value)
    if isinstance(v, Node):
        return (v.kind, tuple((k, _written(x)) for k, x in sorted(v._attrs.items()) if not isinstance(x, Loc)))
    if isinstance(v, (list, tuple)):
        return tuple(_written(x) for x in v)
    return v if isinstance(v, (str, int, bool, type(None))) else repr(v)
