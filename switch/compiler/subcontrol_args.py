"""Which sub-control applies p4c's inliner passes through temporaries.

p4c inlines a control applied from another control.  When every apply of that control
instance passes the same arguments it substitutes them for the parameters -- the body then
writes the caller's headers and fields in place; when the applies differ (in any argument,
``in`` ones too) it copies each argument into a temporary of the instance and the out/inout
ones back after the body, with assign_header for every header (BMv2: an invalid one keeps the
caller's fields) -- and an ``exit`` in the body skips that copy-back.  :func:`mark_copied_applies`
marks those ``apply_control`` statements ``copy_args`` for the code generator
(``switch.runtime.gen_subcontrol``); :mod:`.union_defuse` keeps its in-place view of the body
to the others.
"""
from __future__ import annotations

import json

from .elab_common import ir_dicts


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
