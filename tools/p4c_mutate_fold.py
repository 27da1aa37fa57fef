"""Front-end folding mutations for tools/p4c_mutate.py (helper mutz28): conditions p4c folds early.

p4c 1.2.4.8 folds a condition built from literals and constants before it type-checks the
statement's branches (and a dead branch's tables, actions and divisions never reach its P4Info
or its back end); an ``&&`` / ``||`` whose left side folds is folded whatever its right side is,
while one whose right side folds is left to the midend.  p4c_mutate seed 513 found that
checkmate-p4c took only a literal or a name on the left; these kinds make such conditions on
purpose, around what the program already has:

``fold_guard``  an ``if`` condition ``C`` rewritten to one of ``!true && (C)``, ``(8w1 == 8w2) &&
                (C)``, ``true || (C)``, ``!(!true) || (C)``, ``(C) && !true``, ``(C) || (1 == 1)``,
                ``!true || (C)`` (folded, or not, either way);
``dead_wrap``   a statement of a control body (an assignment, a call, an apply) put in the branch of
                ``if (!true && ...)`` / ``if ((1 == 2) && ...)``, or in the ``else`` of ``if (true || ...)``,
                beside a copy of it that is kept or not;
``sub_wrap``    an assignment of a control's apply block that names only the control's parameters
                moved into a sub-control of the same parameters, applied in its place (p4c inlines
                it before its def-use and constant propagation: copy-in/out), half of them with
                the value divided there (folded, or refused, by the caller's constants);
``switch_wrap`` (helper mutz35) a table's ``t.apply();`` made a ``switch (t.apply().action_run)`` or an
                ``if (t.apply().hit)`` / ``.miss`` -- cases of its listed actions, fallthrough labels,
                a ``default`` first or alone, a label twice, an unlisted action, the statement after
                the apply moved into one case, an ``exit`` in a case.

Each returns ``(text, position, description)`` as the other helper modules' kinds do.
"""
from __future__ import annotations

import re

_IF = re.compile(r"\bif\s*\(")
# a simple statement inside a body: an assignment or a call ending in `;` (no braces in it)
_STMT = re.compile(r"(?m)^[ \t]+((?:[a-z]\w*)(?:\.\w+|\[\d+\])*(?:\s*=(?!=)\s*[^;{}]+|\([^;{}]*\)));")


def _body_start(t: str) -> int:
    ms = [m.start() for m in re.finditer(r"\b(?:parser|control)\s+\w+\s*\(", t)]
    return min(ms) if ms else len(t)


def _close(t: str, i: int) -> int | None:
    """The index of the parenthesis closing the one opened just before ``i``."""
    depth = 1
    while i < len(t):
        c = t[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        elif c in ";{}":
            return None
        i += 1
    return None


def m_fold_guard(rng, t):
    start = _body_start(t)
    ms = [m for m in _IF.finditer(t) if m.start() > start]
    if not ms:
        return None
    m = rng.choice(ms)
    end = _close(t, m.end())
    if end is None:
        return None
    c = t[m.end():end].strip()
    new = rng.choice(["!true && ({c})", "(8w1 == 8w2) && ({c})", "true || ({c})", "!(!true) || ({c})",
                      "({c}) && !true", "({c}) || (1 == 1)", "!true || ({c})", "(true && false) && ({c})"]).format(c=c)
    return t[:m.end()] + new + t[end:], m.start(), f"if ({c[:40]}) -> if ({new[:60]})"


def m_dead_wrap(rng, t):
    start = _body_start(t)
    ms = [m for m in _STMT.finditer(t) if m.start() > start and not m.group(1).startswith(("transition", "return"))]
    if rng.random() < 0.8:   # (a deparser's emits are most of the matches: seed 601 found what they show)
        ms = [m for m in ms if ".emit(" not in m.group(1)] or ms
    if not ms:
        return None
    m = rng.choice(ms)
    s = m.group(1)
    guard = rng.choice(["if (!true && (1 == 1)) {{ {s}; }}", "if ((1 == 2) && (8w0 == 8w0)) {{ {s}; }}",
                        "if (true || !true) {{ }} else {{ {s}; }}", "if (!true) {{ {s}; }} {s};",
                        "if (true || (1 == 2)) {{ {s}; }} else {{ {s}; }}"]).format(s=s)
    return t[:m.start(1)] + guard + t[m.end():], m.start(1), f"{s[:40]} -> {guard[:70]}"


_CONTROL = re.compile(r"\bcontrol\s+(\w+)\s*\(([^()]*)\)\s*\{")


def m_sub_wrap(rng, t):
    picks = []
    for c in _CONTROL.finditer(t):
        params = [p.split()[-1] for p in c.group(2).split(",") if p.strip()]
        a = t.find("apply", c.end())
        nxt = _CONTROL.search(t, c.end())
        if a < 0 or (nxt and a > nxt.start()) or not params:
            continue
        body_end = nxt.start() if nxt else len(t)
        for m in _STMT.finditer(t, a, body_end):
            roots = {x.split(".")[0].split("[")[0] for x in re.findall(r"(?<![\w.])[A-Za-z_][\w.\[\]]*", m.group(1))}
            if "=" in m.group(1) and roots <= set(params) | {"true", "false"}:
                picks.append((c, params, m))
    if not picks:
        return None
    c, params, m = rng.choice(picks)
    name = f"{c.group(1)}_sub{m.start()}"
    stmt = m.group(1)
    if rng.random() < 0.5:   # (its value divided: folded or refused by the caller's constants)
        lhs, rhs = stmt.split("=", 1)
        stmt = f"{lhs.strip()} = ({rhs.strip()}) {rng.choice(['/ 3', '% 5', '/ 8w6'])}"
    sub = f"control {name}({c.group(2)}) {{ apply {{ {stmt}; }} }}\n"
    call = f"{name}_i.apply({', '.join(params)});"
    out = t[:m.start(1)] + call + t[m.end():]
    out = out[:c.end()] + f" {name}() {name}_i;" + out[c.end():]
    out = out[:c.start()] + sub + out[c.start():]
    return out, c.start(), f"{m.group(1)[:40]} -> {stmt[:50]} in sub-control {name}"


_APPLY = re.compile(r"(?m)^([ \t]+)(\w+)\.apply\(\);")


def _table_actions(t: str, name: str) -> list:
    m = re.search(r"\btable\s+" + re.escape(name) + r"\s*\{", t)
    a = m and re.search(r"\bactions\s*=\s*\{([^}]*)\}", t[m.end():])
    if not a:
        return []
    return [x.split("(")[0].strip().split()[-1] for x in a.group(1).split(";") if x.strip()]


def m_switch_wrap(rng, t):
    start = _body_start(t)
    picks = [(m, acts) for m in _APPLY.finditer(t) if m.start() > start for acts in [_table_actions(t, m.group(2))] if acts]
    if not picks:
        return None
    m, acts = rng.choice(picks)
    tname, a = m.group(2), rng.choice(acts)
    nxt = _STMT.match(t, m.end() + 1)
    stmt = nxt.group(1) + ";" if nxt and "apply" not in nxt.group(1) else ""
    other = rng.choice([x for x in acts if x != a] or ["zz_unlisted"])
    sw = f"switch ({tname}.apply().action_run) "
    new = rng.choice([sw + "{{ default: {{ }} }}", sw + "{{ {a}: {{ }} }}", sw + "{{ {a}: {o}: {{ }} default: {{ }} }}",
                      sw + "{{ {a}: {{ {s} }} default: {{ }} }}", sw + "{{ {a}: {{ exit; }} }}",
                      sw + "{{ default: {{ }} {a}: {{ }} }}", sw + "{{ {a}: {{ }} {a}: {{ }} }}",
                      sw + "{{ {o}: {{ {s} }} }}", "if ({n}.apply().hit) {{ {s} }}", "if ({n}.apply().miss) {{ {s} }} else {{ }}",
                      "if (!{n}.apply().hit) {{ exit; }}", sw + "{{ {a}: {{ }} zz_unlisted: {{ }} }}"])
    new = new.format(a=a, o=other, s=stmt, n=tname)
    end = nxt.end() if stmt and stmt in new else m.end()
    return t[:m.start(2)] + new + t[end:], m.start(2), f"{tname}.apply() -> {new[:70]}"


KINDS = {f.__name__[2:]: f for f in [m_fold_guard, m_dead_wrap, m_sub_wrap, m_switch_wrap]}
