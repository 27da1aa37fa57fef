"""All differential cases, by category module.  ``KNOWN`` maps a case name to the reason it
still differs from BMv2 (listed in docs/CONFORMANCE.md; the test is a strict xfail, so a
fix makes it fail until the entry is removed)."""
from __future__ import annotations

import importlib

MODULES = ["expressions", "language", "parsers", "tables", "actions", "stacks", "externs", "replication"]


def all_cases():
    out = []
    for m in MODULES:
        out += importlib.import_module(f"diffcases.{m}").CASES
    names = [c.name for c in out]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate case names: {sorted(dup)}"
    return out


_UNION_STACK = ("compile", True, "checkmate-p4c: header stacks of header_union are not supported "
                                  "(\"header stack of non-header type\")")
_CONFR = "owned by the confr branch of issue #15: "

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
    **{f"union_{n}": _UNION_STACK for n in ("read", "switch_member", "set_invalid", "stack_of_unions",
                                             "stack_of_unions_push", "assign_member_header")},
    "parse_sel_no_default": ("runtime", False, _CONFR + "a select with no matching case and no default "
                             "ends in accept on BMv2 (p4c emits no reject transition); checkmate sets NoMatch"),
    "parse_sel_no_default_then_more": ("runtime", False, _CONFR + "select without default, as above"),
    "resubmit": ("runtime", False, _CONFR + "a resubmitted packet starts with BMv2's reset standard_metadata "
                 "(ingress_port 0) except the preserved field list"),
    "resubmit_std_meta_reset": ("runtime", False, _CONFR + "resubmit standard_metadata reset, as above"),
    "recirculate": ("runtime", False, _CONFR + "a recirculated packet has ingress_port 0 on BMv2; checkmate "
                    "keeps the original port"),
}
