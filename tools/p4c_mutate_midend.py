"""Mutations for tools/p4c_mutate.py that reach what p4c's mid end rewrites (helper mutz36).

No earlier kind put a condition inside an action body (p4c's ``Predication`` turns an ``if`` there
into ternary assignments, BMv2 has no branches inside an action), shifted a header stack
(``push_front``/``pop_front``: p4c's BMv2 back end writes ``push``/``pop`` primitives, its def-use and
copy propagation must treat them as writes of every element), or made a header union member valid,
invalid or copied (BMv2 invalidates the other members; p4c's ``HandleHeaderUnion``-like passes and
copy propagation must follow).  Three kinds, and a fourth for ``?:``:

``action_if``  an assignment of an action body put under a condition on a field it writes or reads or
               on an action parameter: ``if (C) { S }``, with an ``else`` writing the same or another
               field, nested in a second ``if``, with a write of the condition's field in the branch
               (``if (L == 0) { L = 1; S }``), or with a ``return;`` in the branch;
``stack_op``   a statement of a control's apply block or an action next to a header stack of the
               headers struct: ``X.push_front(n)``/``X.pop_front(n)`` (0, 1, the size, past it),
               ``X[i].setValid()``/``setInvalid()``, ``X[i] = X[j]``, a read of ``X[i]`` after a shift;
``union_op``   the same next to a header union: a member made valid or invalid, one member copied into
               a local header then back, the union copied through a local union, a member's field
               written or read after another member was made valid, an ``isValid()`` of each member.

``mux_expr``   (helper mutz37) an assignment in a control, action or parser state given a ``?:`` right-hand
               side -- ``L = (C) ? (R) : L``, the arms swapped or one ``L + 1``, nested, under ``~``, followed
               by an ``if`` reading ``L``, an ``if`` whose condition is a ``?:``: p4c's front-end
               SideEffectOrdering dismantles each such ``?:`` into an ``if`` on a temporary, which its mid end
               then predicates in an action (Predication) or splits a parser state at
               (RemoveParserControlFlow); its constant folding and strength reduction fold one on a
               constant condition.

Each returns ``(text, position, description)`` as the other helper modules' kinds do.
"""
from __future__ import annotations

import re

from tools.p4c_mutate_externs import closing

_ACTION = re.compile(r"\baction\s+(\w+)\s*\(([^()]*)\)\s*\{")
_ASSIGN = re.compile(r"(?m)(?<=[;{\s])((?:[a-z]\w*)(?:\.\w+|\[\d+\])+)\s*=(?!=)\s*([^;{}]+);")
_STMT = re.compile(r"(?m)^[ \t]+((?:[a-z]\w*)(?:\.\w+|\[\d+\])*(?:\s*=(?!=)\s*[^;{}]+|\([^;{}]*\)));")
_CONTROL = re.compile(r"\bcontrol\s+(\w+)\s*\(([^()]*)\)\s*\{")


def _params(sig: str) -> list[tuple[str, str]]:
    """(type, name) of the plain ``bit<N>``/``int<N>`` parameters of a list."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"(?:\b(?:in|inout)\s+)?((?:bit|int)<\d+>)\s+(\w+)", sig)]


def m_action_if(rng, t):
    picks = []
    for a in _ACTION.finditer(t):
        end = closing(t, a.end())
        for m in _ASSIGN.finditer(t, a.end(), end):
            if not re.search(r"\b(?:bit|int|bool|varbit)\b", t[t.rfind("\n", 0, m.start()):m.start()]):
                picks.append((a, m))
    if not picks:
        return None
    a, m = rng.choice(picks)
    lhs, rhs, stmt = m.group(1), m.group(2).strip(), m.group(0)
    ps = _params(a.group(2))
    p = rng.choice(ps)[1] if ps else lhs
    c = rng.choice([f"{lhs} == 0", f"{lhs} != 1", f"{p} == 2", f"{p} != 0", f"({rhs}) == {lhs}", f"{lhs} < 8"])
    c2 = rng.choice([f"{p} != 3", f"{lhs} == 1", f"{lhs} != {p}"])
    new = rng.choice(["if ({c}) {{ {s} }}", "if ({c}) {{ {s} }} else {{ {l} = {l} + 1; }}",
                      "if ({c}) {{ if ({c2}) {{ {s} }} }}", "if ({c}) {{ {l} = 1; {s} }}",
                      "if ({c}) {{ {s} {l} = {l} + 2; }} else {{ {s} }}", "if ({c}) {{ {s} }} else if ({c2}) {{ {l} = 3; }}",
                      "if ({c}) {{ return; }} {s}", "if ({c}) {{ {s} return; }} {l} = {l} + 5;",
                      "if ({c}) {{ {l} = {l} + 1; }} if ({c}) {{ {s} }}", "{s} if ({c}) {{ {l} = 7; }}"])
    new = new.format(c=c, c2=c2, s=stmt, l=lhs)
    return t[:m.start()] + new + t[m.end():], m.start(), f"{a.group(1)}: {stmt[:40]} -> {new[:70]}"


def _struct_fields(t: str, type_names: set) -> list[tuple[str, str, str, str]]:
    """(struct, type, field, '[N]' or '') for every field of a struct whose type is in ``type_names``."""
    out = []
    for s in re.finditer(r"\bstruct\s+(\w+)\s*\{([^}]*)\}", t):
        for f in re.finditer(r"\b(\w+)\s*(\[\d+\])?\s+(\w+)\s*;", s.group(2)):
            if f.group(1) in type_names:
                out.append((s.group(1), f.group(1), f.group(3), f.group(2) or ""))
    return out


def _sites(t: str, struct: str):
    """(position of a statement's start, the parameter naming ``struct``) in controls that take it."""
    out = []
    for c in _CONTROL.finditer(t):
        if "packet_out" in c.group(2):
            continue
        pm = re.search(r"\b" + re.escape(struct) + r"\s+(\w+)", c.group(2))
        if not pm:
            continue
        end = closing(t, c.end())
        out += [(m.start(1), pm.group(1)) for m in _STMT.finditer(t, c.end(), end)
                if not m.group(1).startswith(("return", "transition"))]
    return out


def _header_fields(t: str, htype: str) -> list[str]:
    m = re.search(r"\bheader\s+" + re.escape(htype) + r"\s*\{([^}]*)\}", t)
    return re.findall(r"\bbit<\d+>\s+(\w+)\s*;", m.group(1)) if m else []


def m_stack_op(rng, t):
    htypes = set(re.findall(r"\bheader\s+(\w+)\s*\{", t))
    stacks = [f for f in _struct_fields(t, htypes) if f[3]]
    if not stacks:
        return None
    struct, htype, name, size = rng.choice(stacks)
    sites = _sites(t, struct)
    if not sites:
        return None
    pos, root = rng.choice(sites)
    n = int(size[1:-1])
    x = f"{root}.{name}"
    i, j = rng.randrange(n), rng.randrange(n)
    fs = _header_fields(t, htype)
    f = rng.choice(fs) if fs else None
    stmt = rng.choice([f"{x}.push_front(1);", f"{x}.pop_front(1);", f"{x}.push_front({n});", f"{x}.pop_front({n + 1});",
                       f"{x}.push_front(0);", f"{x}[{i}].setValid();", f"{x}[{i}].setInvalid();", f"{x}[{i}] = {x}[{j}];",
                       f"{x}.pop_front(1); {x}.push_front(1);", f"{x}[{i}].setValid(); {x}.push_front(1);"]
                      + ([f"{x}.push_front(1); {x}[0].{f} = {x}[{min(1, n - 1)}].{f};",
                          f"{x}.pop_front(1); {root}.{name}[{i}].{f} = {x}[{i}].{f} + 1;"] if f else []))
    return t[:pos] + stmt + " " + t[pos:], pos, f"{stmt[:70]} before a statement"


def m_union_op(rng, t):
    unions = {m.group(1): re.findall(r"\b(\w+)\s+(\w+)\s*;", m.group(2))
              for m in re.finditer(r"\bheader_union\s+(\w+)\s*\{([^}]*)\}", t)}
    fields = [f for f in _struct_fields(t, set(unions)) if not f[3]]
    if not fields:
        return None
    struct, utype, name, _ = rng.choice(fields)
    sites = _sites(t, struct)
    members = unions[utype]
    if not sites or not members:
        return None
    pos, root = rng.choice(sites)
    u = f"{root}.{name}"
    (ta, a), (_, b) = rng.choice(members), rng.choice(members)
    fa = _header_fields(t, ta)
    f = rng.choice(fa) if fa else None
    stmts = [f"{u}.{a}.setValid();", f"{u}.{a}.setInvalid();", f"{u}.{a}.setValid(); {u}.{b}.setValid();",
             f"{{ {ta} tmp_h = {u}.{a}; {u}.{b}.setInvalid(); {u}.{a} = tmp_h; }}",
             f"{{ {utype} tmp_u = {u}; {u}.{a}.setInvalid(); {u} = tmp_u; }}",
             f"{{ {utype} tmp_u; tmp_u.{a}.setValid(); {u} = tmp_u; }}",
             f"if ({u}.{a}.isValid()) {{ {u}.{b}.setValid(); }}", f"{u}.{a} = {u}.{b};"]
    if f:
        stmts += [f"{u}.{b}.setValid(); {u}.{a}.{f} = 1;", f"{u}.{a}.setValid(); {u}.{a}.{f} = {u}.{a}.{f} + 1;",
                  f"{u}.{a}.{f} = 3; {u}.{b}.setValid();"]
    stmt = rng.choice(stmts)
    return t[:pos] + stmt + " " + t[pos:], pos, f"{stmt[:70]} before a statement"


_BLOCK = re.compile(r"\b(?:control|parser)\s+\w+\s*\([^()]*\)\s*\{")


def m_mux_expr(rng, t):
    picks = []
    for b in _BLOCK.finditer(t):
        if "packet_out" in b.group(0):
            continue
        end = closing(t, b.end())
        for m in _ASSIGN.finditer(t, b.end(), end):
            # (not the skeletons' `sm.egress_spec = 1;`, which every program starts with)
            if not re.search(r"\b(?:bit|int|bool|varbit|const)\b", t[t.rfind("\n", 0, m.start()):m.start()]) \
                    and not m.group(1).endswith("egress_spec"):
                picks.append(m)
    if not picks:
        return None
    m = rng.choice(picks)
    lhs, rhs, stmt = m.group(1), m.group(2).strip(), m.group(0)
    c = rng.choice([f"{lhs} == 0", f"{lhs} != 1", f"({rhs}) == {lhs}", f"{lhs} < 8"])
    c2 = rng.choice([f"{lhs} == 1", f"{lhs} != 3", f"({rhs}) != 2"])
    new = rng.choice(["{l} = ({c}) ? ({r}) : {l};", "{l} = ({c}) ? {l} : ({r});", "{l} = ({c}) ? ({r}) : {l} + 1;",
                      "{l} = ({c}) ? (({c2}) ? ({r}) : {l}) : {l};", "{l} = ({c}) ? ({r}) : {l}; if ({l} == 2) {{ {l} = 7; }}",
                      "{l} = {r}; {l} = ({c}) ? {l} : {l} + 3;", "{l} = ~(({c}) ? ({r}) : {l});",
                      "if (({c}) ? ({c2}) : false) {{ {s} }}", "{l} = (true) ? ({r}) : {l};",
                      "{l} = ({c}) ? ({r}) : {l}; {l} = ({c2}) ? {l} + 1 : {l};"])
    new = new.format(c=c, c2=c2, r=rhs, l=lhs, s=stmt)
    return t[:m.start()] + new + t[m.end():], m.start(), f"{stmt[:40]} -> {new[:80]}"


KINDS = {f.__name__[2:]: f for f in [m_action_if, m_stack_op, m_union_op, m_mux_expr]}
