"""A control or parser type applied directly (``C.apply(...)``) more than once in one block.

p4c instantiates a type afresh for every direct application (its InstantiateDirectCalls pass) and
names every such instance after the type (``ingress.C``), so when the type owns objects the P4Info
lists -- a register, counter, meter or action profile (listed even when unused), a table its
body applies that is not ``@hidden``, or a value set a parser's select uses -- the second application gives two objects of one name, and
p4c refuses the program ("Name 'ingress.C.r' is used for multiple register objects in the P4Info
message"; it names no position).  checkmate-p4c elaborates one instance per block and type and
runs it for every application (the same behaviour when the type owns no such state); this module
finds the P4Info object that makes a repeated application p4c's error, so that it is refused at the
repeated call.

A table the type applies that is ``@hidden`` (so in no P4Info) is named after the type too: p4c
compiles the program, and its BMv2 JSON holds two control nodes of one name, which simple_switch
refuses ("Duplicate objects of type 'control node' with name 'I.C.t'"; simple_switch_grpc dies of a
SIGSEGV at SetForwardingPipelineConfig -- measured by helper opens).  checkmate-p4c compiles it
too, as a load refusal at the repeated call (:func:`applied_table`), and tags that application with
``instance`` (its number, from 1): the table checks (``table_successors``) count the tables reached
through it as tables of their own, as p4c's separate instances are."""
from __future__ import annotations

from .elab_common import ir_dicts

_KINDS = (("registers", "register"), ("counters", "counter"), ("meters", "meter"),
          ("action_profiles", "action profile"))


def _applied(elab, instance, depth: int = 0) -> set:
    """The tables ``instance`` applies, in the sub-controls it applies too (``I.C.d.t``)."""
    out = {n["table"] for n in ir_dicts(instance) if isinstance(n.get("table"), str)
           and n.get("s", n.get("op")) in ("apply", "switch_action", "table_hit")}
    for n in (n for n in ir_dicts(instance) if n.get("s") == "apply_control" and depth < 16):
        if (sub := elab.subcontrol_of(n)) is not None:
            out |= _applied(elab, sub.get("body"), depth + 1)
    return out


def applied_table(elab, prefix: str, instance) -> str | None:
    """The first (by name) table of the instance named ``prefix`` that its body applies, or None."""
    return next((q for q in sorted(_applied(elab, instance)) if q.startswith(prefix + ".")), None)


def listed_object(elab, prefix: str, instance) -> tuple[str, str] | None:
    """(kind, name) of a P4Info object the instance named ``prefix`` owns, or None."""
    pre = prefix + "."
    for key, kind in _KINDS:
        for o in elab.objects.get(key, ()):
            if o["name"].startswith(pre) and not o.get("p4info_hidden"):
                return kind, o["name"]
    used_sets = {n["obj"] for n in ir_dicts(instance) if n.get("k") == "vset"}
    for v in getattr(elab, "value_sets", ()):
        if v["name"].startswith(pre) and v["py"] in used_sets and v.get("used", True):
            return "value set", v["name"]
    for q in sorted(_applied(elab, instance)):
        t = elab.tables.get(q)
        if q.startswith(pre) and t is not None and not any(a[0] == "hidden" for a in t.get("annos", ())):
            return "table", q
    return None
