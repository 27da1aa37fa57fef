"""Mutation kinds of tools/p4c_mutate.py about the forms of declarations and literals (helper
mutz21; kept apart to keep p4c_mutate.py short).  Same contract as p4c_mutate_externs.py: each
kind is ``fn(rng, text) -> (new text, position of the change, description)`` or None.

* ``action_param`` -- an action's parameter given another type or direction: a directionless
  header, struct, ``error``, ``bool``, ``string``, ``int``, tuple or extern parameter (p4c
  refuses some at the declaration, the others only where a table it keeps lists the action
  or a call makes a ``string`` a variable), a directional parameter after a directionless one,
  a default value (refused where the control plane sets it);
* ``literal`` -- an integer literal rewritten: width 0 (``0w1`` is a bit<0> zero, ``0s0``
  an error), a value wider than its width (a warning), signedness swapped, a digit its base
  does not have, a width above p4c's limit, a minus inside the width prefix.
"""
from __future__ import annotations

import re

_PARAM_TYPES = ["h_t", "headers", "error", "bool", "string", "int", "tuple<bit<8>>", "counter",
                "match_kind", "bit<0>", "int<8>", "varbit<8>"]


def _action_params(t: str):
    """(start, end) of each action's parameter list text, with the action's name."""
    for m in re.finditer(r"\baction\s+(\w+)\s*\(", t):
        depth, i = 1, m.end()
        while i < len(t) and depth:
            depth += {"(": 1, ")": -1}.get(t[i], 0)
            i += 1
        yield m.group(1), m.end(), i - 1


def m_action_param(rng, t):
    acts = list(_action_params(t))
    if not acts:
        return None
    name, start, end = rng.choice(acts)
    params = [p.strip() for p in t[start:end].split(",") if p.strip()]
    op = rng.choice(["type", "type", "add", "direction", "default"] if params else ["add"])
    types = [ty for ty in _PARAM_TYPES if re.search(rf"\b{re.escape(ty.split('<')[0])}\b", t) or ty in
             ("bool", "error", "string", "int", "bit<0>", "int<8>", "tuple<bit<8>>", "match_kind")]
    if op == "add":
        new = f"{rng.choice(types)} zz_{rng.randrange(9)}"
        params = params + [new] if rng.random() < 0.7 else [f"out bit<8> zz_o"] + params
        what = f"parameter {new} added"
    else:
        i = rng.randrange(len(params))
        m = re.match(r"^((?:@\w+(?:\([^)]*\))?\s+)*)((?:in|out|inout)\s+)?(.+?)\s+(\w+)(\s*=.*)?$", params[i])
        if not m:
            return None
        annos, dirn, ty, pname, dflt = m.groups()
        if op == "type":
            ty = rng.choice([x for x in types if x != ty] or types)
        elif op == "direction":
            dirn = "" if dirn else rng.choice(["in ", "out ", "inout "])
        else:
            dflt = dflt and None or rng.choice([" = 3", " = 8w1", " = true"])
        params[i] = f"{annos or ''}{dirn or ''}{ty} {pname}{dflt or ''}"
        what = f"parameter {i} -> {params[i]}"
    return t[:start] + ", ".join(params) + t[end:], start, f"action {name}: {what}"


_LIT = re.compile(r"(?<![\w.])(\d+)([ws])(0[xXbBoOdD])?([0-9a-fA-F_]+)\b|(?<![\w.])(0[xX][0-9a-fA-F_]+|\d+)\b(?![<\w])")


def m_literal(rng, t):
    lits = [m for m in _LIT.finditer(t) if not t[max(0, m.start() - 8):m.start()].rstrip().endswith(("bit<", "int<", "@id(", "#define"))]
    lits = [m for m in lits if "#" not in t[t.rfind("\n", 0, m.start()) + 1:m.start()]]
    if not lits:
        return None
    m = rng.choice(lits)
    if m.group(1):
        w, s, base, digits = m.group(1), m.group(2), m.group(3) or "", m.group(4)
        op = rng.choice(["zero", "wide", "sign", "digit", "huge", "minus"])
        new = {"zero": f"0{s}{base}{digits}", "wide": f"{w}{s}{1 << min(int(w), 64)}",
               "sign": f"{w}{'w' if s == 's' else 's'}{base}{digits}",
               "digit": f"{w}{s}{base or '0b'}{'9' if base in ('0b', '0B', '0o', '0O', '') else 'g'}{digits}",
               "huge": f"2049{s}{base}{digits}", "minus": f"{w}{s}-{base}{digits}"}[op]
    else:
        v = m.group(5)
        op = rng.choice(["zero", "zero1", "signed0", "prefix", "digit"])
        new = {"zero": f"0w{v}", "zero1": "0w1", "signed0": "0s0", "prefix": f"4w{v}", "digit": f"0b2{v}"}[op]
    return t[:m.start()] + new + t[m.end():], m.start(), f"literal {m.group(0)} -> {new}"


KINDS = {f.__name__[2:]: f for f in [m_action_param, m_literal]}
