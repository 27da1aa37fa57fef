"""Def-use mutations for tools/p4c_mutate.py (helper mutz26): stores p4c's def-use may drop.

p4c's BMv2 back end refuses some expressions -- a division by a constant other than a power of
two, a ``match_kind`` comparison -- only where they reach it, and its front and mid end drop a
store whose value nothing reads first (overwritten on every path, an unread local, an ``out``
argument the caller overwrites, one a later copy-out overwrites).  p4c_mutate seed 168 found one
such store by chance; these kinds make them on purpose, next to a store the program has:

``dead_store``   before an assignment ``L = R;`` the store ``L = (R) / 3;`` (or ``% 5``, or for a
                 ``bool`` a match_kind comparison): dead when the assignment does not read ``L``;
``late_store``   after it, ``L = (L) / 3;`` (or ``% 5``): live when something reads ``L`` later
                 (or ``L`` is a parameter's part), dead when it is overwritten again;
``exit_stmt``    (helper mutz35) after it, ``exit;`` or ``return;``, bare or under a condition on
                 ``L`` (in an action: p4c inlines it, so an exit ends the caller; in a parser: an error).

Each returns ``(text, position, description)`` as the other helper modules' kinds do.
"""
from __future__ import annotations

import re

# a plain assignment statement in a body: `lhs = rhs;` (no declaration, no comparison)
_ASSIGN = re.compile(r"(?m)(?:^|[;{])[ \t]*((?:hdr|meta|m|h|hh|x|sm|standard_metadata|[a-z]\w*)(?:\.\w+|\[\d+\])*)"
                     r"\s*=(?!=)\s*([^;{}]+);")
_DECL = re.compile(r"\b(?:bit|int|bool|varbit|const|typedef|header|struct|enum)\b")


def _assignments(t: str) -> list:
    start = min([m.start() for m in re.finditer(r"\b(?:parser|control|action)\s+\w+\s*\(", t)] or [len(t)])
    return [m for m in _ASSIGN.finditer(t) if m.start() > start and not _DECL.search(m.group(2))
            and not _DECL.search(t[max(t.rfind("\n", 0, m.start(1)), t.rfind(";", 0, m.start(1))) + 1:m.start(1)])]


def m_dead_store(rng, t):
    ms = _assignments(t)
    if not ms:
        return None
    m = rng.choice(ms)
    lhs, rhs = m.group(1), m.group(2).strip()
    val = rng.choice([f"({rhs}) / 3", f"({rhs}) % 5", f"({rhs}) / 8w6", "(exact == lpm)", f"(bit<8>)({rhs}) / 3"])
    new = f"{lhs} = {val}; "
    return t[:m.start(1)] + new + t[m.start(1):], m.start(1), f"dead store {lhs} = {val} before {lhs} = ..."


def m_late_store(rng, t):
    ms = _assignments(t)
    if not ms:
        return None
    m = rng.choice(ms)
    lhs = m.group(1)
    val = rng.choice([f"({lhs}) / 3", f"({lhs}) % 5", f"{lhs} / 7"])
    new = f" {lhs} = {val};"
    return t[:m.end()] + new + t[m.end():], m.end(), f"store {lhs} = {val} after {lhs} = ..."


def m_exit_stmt(rng, t):
    ms = _assignments(t)
    if not ms:
        return None
    m = rng.choice(ms)
    lhs = m.group(1)
    stmt = rng.choice(["exit;", "return;", "if ({l} == 0) {{ exit; }}", "if ({l} != 1) {{ exit; }} else {{ {l} = {l} + 1; }}",
                       "if ({l} == 2) {{ return; }} {l} = {l} + 3;", "{{ exit; }}"]).format(l=lhs)
    return t[:m.end()] + " " + stmt + t[m.end():], m.end(), f"{stmt[:60]} after {lhs} = ..."


KINDS = {f.__name__[2:]: f for f in [m_dead_store, m_late_store, m_exit_stmt]}
