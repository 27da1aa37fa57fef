"""Seeded single mutations of valid v1model programs, judged by real p4c and checkmate-p4c.

    PYTHONPATH=. .venv/bin/python tools/p4c_mutate.py DIR [DIR ...] -n 500 [--seed S] [-o OUT]

p4c's error tests (``p4_16_errors``, ``p4_16_bmv_errors``) are valid programs with one small
mistake each.  This tool makes such programs from valid ones (a corpus kept outside the
repository): every mutant is one base program plus ONE mutation of a kind those tests use --
a width or type changed, two arguments swapped, a declaration dropped or duplicated, a use
renamed to an undeclared name, an action or table renamed to a type's name, a table applied
inside an action, an ``in`` parameter assigned, a duplicate key / action, a select keyset
of the wrong width, a transition to an unknown state, a value returned from an action, a bad
annotation argument, a default action that is not listed, a shift by a negative amount, a
slice out of range, a table applied twice, a constant stack index out of bounds,
``isValid()`` on a struct, a deparser emitting a non-header, ``verify`` in a control, a header
field declared ``bool``, an assignment's value divided by a constant, a bad ``V1MODEL_VERSION``, a
complex table key without ``@name``, an action, table or state named like a keyword, entry
priorities where p4c refuses them, an extern instance's type or constructor arguments or an
extern call's arguments changed, two objects given one control-plane name, an action parameter's
type or direction changed, an integer literal rewritten, an operator swapped or added, ... (:data:`MUTATORS`;
the extern kinds are in ``p4c_mutate_externs.py``, the action-parameter and literal kinds in
``p4c_mutate_forms.py``, the operator kinds in ``p4c_mutate_ops.py``, the def-use kinds in ``p4c_mutate_defuse.py``,
the front-end folding kinds in ``p4c_mutate_fold.py``, the table-entry and value-set kinds in
``p4c_mutate_entries.py``, the kinds reaching p4c's mid-end rewrites (a condition in an action, a
header stack shift, a header union member, a ``?:`` right-hand side) in ``p4c_mutate_midend.py``;
the judging of one mutant is in ``p4c_mutate_judge.py``).

Real p4c (``--target bmv2 --arch v1model``, output cached by the mutant's hash) decides
whether the mutant is valid; checkmate-p4c then compiles it in-process.  Each mutant is one
line of the result file:

``agree-accept`` / ``agree-reject``  both accept / both reject with ``file:line:col`` (``near``
                                     when the line is within 3 lines of the mutation, else
                                     ``p4cline`` when it is a line p4c names, else ``far``)
``INVALID-ACCEPTED``                 p4c rejects, checkmate-p4c accepts
``REJECT``                           p4c accepts, checkmate-p4c rejects
``P4INFO``                           both accept, the P4Infos differ (p4c_mutate_p4info)
``ENTRIES``                          both accept, a table's const entries differ from p4c's JSON
                                     (p4c_mutate_entries)
``CRASH``                            checkmate-p4c raised something else than a compile error
``NOLOC``                            both reject, checkmate-p4c's message has no position

Mutants that p4c rejects only as a syntax error are kept (they count as agreement or not like
every other).  A base program must be accepted by both compilers (checked once, cached).
The mutant texts go to ``--keep`` (default ``/work/corpus/mutz/mutants`` when ``/work/corpus``
exists) for the disagreeing ones only.  Needs p4c (exits 2 without it).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import os
import random
import re
import sys
import tempfile
from pathlib import Path

from switch.bmv2json.p4c import p4c_path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.p4c_mutate_defuse import KINDS as DEFUSE_KINDS  # noqa: E402
from tools.p4c_mutate_entries import KINDS as ENTRY_KINDS  # noqa: E402
from tools.p4c_mutate_externs import KINDS as EXTERN_KINDS, split_top  # noqa: E402
from tools.p4c_mutate_fold import KINDS as FOLD_KINDS  # noqa: E402
from tools.p4c_mutate_forms import KINDS as FORM_KINDS  # noqa: E402
from tools.p4c_mutate_ops import KINDS as OP_KINDS  # noqa: E402
from tools.p4c_mutate_judge import bases, judge, ours_verdict, p4c_verdict  # noqa: E402
from tools.p4c_mutate_midend import KINDS as MIDEND_KINDS  # noqa: E402
from tools.p4c_mutate_p4info import KINDS as P4INFO_KINDS  # noqa: E402

IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
KEYWORDS = set("""action apply bit bool const control default else enum error exit extern false header
header_union if in inout int out package parser return select state struct switch table transition true
tuple type typedef value_set varbit void key actions size entries packet_in packet_out match_kind
accept reject verify list string""".split())


class Mutant:
    __slots__ = ("text", "line", "desc")

    def __init__(self, text: str, pos: int, desc: str):
        self.text, self.desc = text, desc
        self.line = text.count("\n", 0, pos) + 1


def _replace(text: str, start: int, end: int, new: str, desc: str) -> Mutant:
    return Mutant(text[:start] + new + text[end:], start, desc)


def _pick(rng, pattern, text, flags=0):
    ms = list(re.finditer(pattern, text, flags))
    return rng.choice(ms) if ms else None


def _blocks(text: str, head: str) -> list[tuple[str, int, int]]:
    """(name, position just after the opening ``{`` of the body, position of the closing ``}``)
    for every ``head NAME(...) {`` (actions, controls, parsers, functions)."""
    out = []
    for m in re.finditer(head, text):
        depth, i = 0, m.end()
        # skip the parameter list
        while i < len(text) and text[i] != "{":
            i += 1
        start, depth = i + 1, 1
        i += 1
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), start, i - 1))
    return out


def _params(sig: str) -> list[tuple[str, str, str]]:
    """(direction, type, name) of a parameter list's text."""
    out = []
    for p in split_top(sig):
        m = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s*)*(inout|in|out)?\b\s*(.+?)\s+(\w+)\s*(?:=.*)?$", p, re.S)
        if m:
            out.append((m.group(1) or "", m.group(2).strip(), m.group(3)))
    return out


def _insert_in(rng, text, head, stmt_fn, desc):
    blocks = _blocks(text, head)
    rng.shuffle(blocks)
    for name, start, _end in blocks:
        stmt = stmt_fn(name, start)
        if stmt:
            return Mutant(text[:start] + " " + stmt + " " + text[start:], start + 1, desc + f" in {name}")
    return None


def _apply_pos(text, rng, which=("control",)):
    """Position just after ``apply {`` of a random control."""
    ms = list(re.finditer(r"\bapply\s*\{", text))
    return rng.choice(ms).end() if ms else None


def _names(text, kind):
    return re.findall(rf"\b{kind}\s+(\w+)\s*[({{]", text)


# ---- the mutations ---------------------------------------------------------------------------

def m_width(rng, t):
    m = _pick(rng, r"\bbit<(\d+)>", t)
    if not m:
        return None
    w = int(m.group(1))
    nw = rng.choice([w + 1, max(1, w - 1), w * 2, 1])
    return _replace(t, m.start(), m.end(), f"bit<{nw}>", f"width bit<{w}> -> bit<{nw}>")


def m_type(rng, t):
    m = _pick(rng, r"\bbit<(\d+)>", t)
    if not m:
        return None
    new = rng.choice(["bool", f"int<{m.group(1)}>", f"varbit<{m.group(1)}>", "error", "int"])
    return _replace(t, m.start(), m.end(), new, f"type {m.group(0)} -> {new}")


def m_swap_args(rng, t):
    cands = []
    for m in re.finditer(r"\b(\w+(?:\.\w+)*)\s*\(", t):
        if m.group(1) in KEYWORDS or m.group(1) in ("if", "switch", "select", "control", "parser", "action"):
            continue
        depth, i = 1, m.end()
        while i < len(t) and depth:
            depth += {"(": 1, ")": -1}.get(t[i], 0)
            i += 1
        inner = t[m.end():i - 1]
        parts = split_top(inner)
        if len(parts) >= 2 and "\n" not in inner and not re.search(r"\b(in|out|inout)\s", inner):
            cands.append((m, i - 1, parts))
    if not cands:
        return None
    m, end, parts = rng.choice(cands)
    a, b = rng.sample(range(len(parts)), 2)
    parts[a], parts[b] = parts[b], parts[a]
    return _replace(t, m.end(), end, ",".join(parts), f"swap args {a},{b} of {m.group(1)}")


def m_drop_decl(rng, t):
    m = _pick(rng, r"^[ \t]*(?:const\s+|@\w+(?:\([^)\n]*\))?\s*)*(?:bit<\d+>|bool|int<\d+>|\w+_t|\w+)\s+\w+\s*(?:=[^;\n]*)?;[^\n]*$",
              t, re.M)
    if not m or re.match(r"\s*(return|exit|transition)\b", m.group(0)):
        return None
    return _replace(t, m.start(), m.end(), "", f"drop line {m.group(0).strip()[:50]!r}")


def m_dup_decl(rng, t):
    m = _pick(rng, r"^[ \t]*(?:(?:action|table|state|const|header|struct|register|counter|meter|direct_counter)\b[^\n]*|[ \t]*(?:bit<\d+>|bool|\w+_t)\s+\w+\s*;)[^\n]*$",
              t, re.M)
    if not m:
        return None
    line = m.group(0)
    if line.rstrip().endswith("{"):  # a block: duplicate the whole block
        depth, i = 0, m.start()
        while i < len(t):
            depth += {"{": 1, "}": -1}.get(t[i], 0)
            i += 1
            if depth == 0 and t[i - 1] == "}":
                break
        block = t[m.start():i]
        return Mutant(t[:i] + "\n" + block + t[i:], i + 1, f"duplicate block {line.strip()[:40]!r}")
    return Mutant(t[:m.end()] + "\n" + line + t[m.end():], m.end() + 1, f"duplicate line {line.strip()[:50]!r}")


def m_rename_use(rng, t):
    body_start = t.find("parser ")
    ms = [m for m in IDENT.finditer(t) if m.start() > body_start and m.group(0) not in KEYWORDS
          and not t[m.start() - 1:m.start()] in ".@#" and not t[:m.start()].rstrip().endswith(("bit<", "#include"))]
    if not ms:
        return None
    m = rng.choice(ms)
    return _replace(t, m.start(), m.end(), m.group(0) + "_undeclared", f"rename use {m.group(0)}")


def m_member_rename(rng, t):
    m = _pick(rng, r"(?<=\.)[a-z]\w*\b(?!\s*\()", t[t.find("control "):])
    if not m:
        return None
    off = t.find("control ")
    return _replace(t, off + m.start(), off + m.end(), m.group(0) + "_x", f"rename member .{m.group(0)}")


def m_type_name(rng, t):
    """An action or table renamed (declaration and every use) to a type's name -- a header's,
    a struct's, or the enclosing control's: p4c's lexer reads the name as the type wherever it
    is visible, so each use is a syntax error (an unused one is only a shadowing warning)."""
    decls = [m for m in re.finditer(r"\b(action|table)\s+(\w+)\s*[({]", t) if m.group(2) != "NoAction"]
    types = re.findall(r"\b(?:header|struct)\s+(\w+)", t)
    if not decls:
        return None
    m = rng.choice(decls)
    ctl = [c.group(1) for c in re.finditer(r"\bcontrol\s+(\w+)", t[:m.start()])][-1:]
    if not types + ctl:
        return None
    return _rename_all(t, m, rng.choice(types + ctl), "type name ")


def _rename_all(t, m, new: str, what: str = "") -> Mutant:
    """Declaration match ``m`` (group 1 its kind, 2 its name) and every use renamed to ``new``."""
    use = re.compile(rf"(?<![.\w]){re.escape(m.group(2))}\b")
    return Mutant(use.sub(new, t), len(use.sub(new, t[:m.start(2)])), f"{m.group(1)} {m.group(2)} renamed to {what}{new}")


def m_table_in_action(rng, t):
    tables = _names(t, "table")
    if not tables:
        return None
    tb = rng.choice(tables)
    return _insert_in(rng, t, r"\baction\s+(\w+)\s*\(", lambda n, s: f"{tb}.apply();", f"{tb}.apply() in action")


def m_action_arity(rng, t):
    acts = re.findall(r"\baction\s+(\w+)\s*\(([^)]*)\)", t)
    if not acts:
        return None
    name, sig = rng.choice(acts)
    n = len(_params(sig))
    args = ", ".join(["8w1"] * (n + 1 if rng.random() < 0.5 or n == 0 else n - 1))
    pos = _apply_pos(t, rng)
    if pos is None:
        return None
    return Mutant(t[:pos] + f" {name}({args}); " + t[pos:], pos + 1, f"call {name} with {len(args.split(',')) if args else 0} args")


def m_assign_in(rng, t):
    cands = []
    for m in re.finditer(r"\b(action|control)\s+(\w+)\s*\(([^)]*)\)", t):
        for d, ty, n in _params(m.group(3)):
            if d == "in" and not ty.startswith(("packet", "standard")):
                cands.append((m, n, ty))
            if m.group(1) == "action" and d == "" and re.match(r"bit<", ty):
                cands.append((m, n, ty))
    if not cands:
        return None
    m, n, ty = rng.choice(cands)
    if m.group(1) == "action":
        i = t.index("{", m.end()) + 1
    else:
        am = re.compile(r"\bapply\s*\{").search(t, m.end())
        if not am:
            return None
        i = am.end()
    lhs = n if ty.startswith(("bit", "int", "bool")) else f"{n} = {n}; {n}"
    return Mutant(t[:i] + f" {n} = {n}; " + t[i:], i + 1, f"assign in-param {n}") if lhs else None


def m_assign_const(rng, t):
    cs = re.findall(r"\bconst\s+[\w<>]+\s+(\w+)\s*=", t)
    pos = _apply_pos(t, rng)
    if not cs or pos is None:
        return None
    c = rng.choice(cs)
    return Mutant(t[:pos] + f" {c} = {c}; " + t[pos:], pos + 1, f"assign const {c}")


def m_read_out(rng, t):
    cands = []
    for m in re.finditer(r"\baction\s+(\w+)\s*\(([^)]*)\)", t):
        for d, ty, n in _params(m.group(2)):
            if d == "out" and ty.startswith("bit"):
                cands.append((m, n, ty))
    if not cands:
        return None
    m, n, ty = rng.choice(cands)
    i = t.index("{", m.end()) + 1
    return Mutant(t[:i] + f" {n} = {n} + 1; " + t[i:], i + 1, f"read out-param {n}")


def m_direction(rng, t):
    m = _pick(rng, r"\b(inout|in|out)(\s+\w+(?:<[^>]*>)?\s+\w+\s*[,)])", t)
    if not m:
        return None
    new = rng.choice([d for d in ("in", "out", "inout", "") if d != m.group(1)])
    return _replace(t, m.start(), m.start() + len(m.group(1)), new, f"direction {m.group(1)} -> {new or 'none'}")


def _table_bodies(t):
    out = []
    for m in re.finditer(r"\btable\s+(\w+)\s*\{", t):
        depth, i = 1, m.end()
        while i < len(t) and depth:
            depth += {"{": 1, "}": -1}.get(t[i], 0)
            i += 1
        out.append((m.group(1), m.end(), i - 1))
    return out


def _prop_list(t, start, end, prop):
    m = re.compile(rf"\b{prop}\s*=\s*\{{").search(t, start, end)
    if not m:
        return None
    j = t.index("}", m.end())
    return m.end(), j


def _key_matches(t, pattern) -> list:
    """(start, end, match, table name) of ``pattern`` in every table's key list."""
    return [(r[0] + km.start(), r[0] + km.end(), km, name) for name, s, e in _table_bodies(t)
            if (r := _prop_list(t, s, e, "key")) for km in re.finditer(pattern, t[r[0]:r[1]])]


def m_dup_key(rng, t):
    cands = []
    for name, s, e in _table_bodies(t):
        r = _prop_list(t, s, e, "key")
        if r:
            for km in re.finditer(r"[^;{}]+:\s*\w+[^;]*;", t[r[0]:r[1]]):
                cands.append((r[0] + km.start(), r[0] + km.end(), name))
    if not cands:
        return None
    a, b, name = rng.choice(cands)
    return Mutant(t[:b] + " " + t[a:b].strip() + t[b:], b + 1, f"duplicate key of {name}")


def m_dup_action(rng, t):
    cands = []
    for name, s, e in _table_bodies(t):
        r = _prop_list(t, s, e, "actions")
        if r:
            for am in re.finditer(r"[^;{}]+;", t[r[0]:r[1]]):
                cands.append((r[0] + am.start(), r[0] + am.end(), name))
    if not cands:
        return None
    a, b, name = rng.choice(cands)
    return Mutant(t[:b] + " " + t[a:b].strip() + t[b:], b + 1, f"duplicate action of {name}")


def m_match_kind(rng, t):
    m = _pick(rng, r":\s*(exact|lpm|ternary|range|selector|optional)\b", t)
    if not m:
        return None
    new = rng.choice(["lpm", "fuzzy", "selector", "range", "exact"])
    if new == m.group(1):
        new = "fuzzy"
    return _replace(t, m.start(1), m.end(1), new, f"match kind {m.group(1)} -> {new}")


def m_key_type(rng, t):
    cands = _key_matches(t, r"([\w.\[\]]+)\.(\w+)(\s*:\s*\w+)")
    if not cands:
        return None
    a, b, km, name = rng.choice(cands)
    return _replace(t, a, b, km.group(1) + km.group(3), f"key {km.group(1)}.{km.group(2)} -> {km.group(1)} in {name}")


def m_select_width(rng, t):
    m = _pick(rng, r"\b(\d+)w(0x[0-9a-fA-F]+|\d+)(?=[^;{]*:)", t)
    if m:
        w = int(m.group(1))
        nw = rng.choice([w + 8, max(1, w // 2)])
        return _replace(t, m.start(), m.end(), f"{nw}w{m.group(2)}", f"keyset width {w} -> {nw}")
    m = _pick(rng, r"select\s*\(([^;{]*)\)\s*\{", t)
    if not m:
        return None
    # add a second key to a select: every keyset now has the wrong arity
    return _replace(t, m.start(1), m.end(1), m.group(1) + ", 8w0", "select with one more key")


def m_transition(rng, t):
    m = _pick(rng, r"(\btransition\s+|:\s*)(\w+)\s*;", t[t.find("parser "):] if "parser " in t else "")
    if not m:
        return None
    off = t.find("parser ")
    if m.group(2) in ("accept", "reject") and rng.random() < 0.5:
        new = "rejected"
    else:
        new = m.group(2) + "_nostate"
    return _replace(t, off + m.start(2), off + m.end(2), new, f"transition {m.group(2)} -> {new}")


def m_return_value(rng, t):
    return _insert_in(rng, t, r"\baction\s+(\w+)\s*\(", lambda n, s: "return 8w1;", "return value")


def m_exit_in_function(rng, t):
    r = _insert_in(rng, t, r"\b(?:bit<\d+>|void|bool)\s+(\w+)\s*\([^)]*\)\s*\{", lambda n, s: "exit;", "exit in function")
    return r


def m_missing_return(rng, t):
    m = _pick(rng, r"\breturn\s+[^;]+;", t)
    if not m:
        return None
    return _replace(t, m.start(), m.end(), "", "drop a return")


def m_annotation(rng, t):
    m = _pick(rng, r'@name\("([^"]*)"\)', t)
    if m and rng.random() < 0.5:
        new = rng.choice(["@name(1)", '@name("a", "b")', "@name()", '@name("")'])
        return _replace(t, m.start(), m.end(), new, f"annotation -> {new}")
    m = _pick(rng, r"\b(action|table)\s+\w+", t)
    if not m:
        return None
    new = rng.choice(['@priority("x") ', "@priority(1, 2) ", "@name(3) ", "@id(\"a\") ", "@hidden(1) "])
    return _replace(t, m.start(), m.start(), new, f"add {new.strip()}")


def m_entries_arity(rng, t):
    m = _pick(rng, r"(\(([^()\n;]*)\)|\b\d+\w*|\w+)(\s*:\s*\w+\s*\()", t[t.find("entries"):] if "entries" in t else "")
    if not m:
        return None
    off = t.find("entries")
    return _replace(t, off + m.start(1), off + m.end(1), f"({m.group(2) if m.group(2) is not None else m.group(1)}, 0)",
                    "const entry with one more key")


def m_default_action(rng, t):
    m = _pick(rng, r"\bdefault_action\s*=\s*(\w+)", t)
    if not m:
        return None
    acts = [a for a in dict.fromkeys(re.findall(r"\baction\s+(\w+)", t)) if a != m.group(1)] + ["NoAction"]
    new = rng.choice(acts)
    if new == m.group(1):
        return None
    return _replace(t, m.start(1), m.end(1), new, f"default_action {m.group(1)} -> {new}")


def m_switch_case(rng, t):
    m = _pick(rng, r"\bswitch\s*\([^{]*\)\s*\{", t)
    if not m:
        return None
    cm = re.compile(r"\s*(\w+)\s*:").match(t, m.end())
    if not cm:
        return None
    label = rng.choice([cm.group(1), "NoAction", "undeclared_action", "default"])
    return Mutant(t[:m.end()] + f" {label}: {{ }}" + t[m.end():], m.end() + 1, f"switch case {label} added")


def m_shift_neg(rng, t):
    m = _pick(rng, r"(<<|>>)\s*(\d+)", t)
    if not m:
        return None
    return _replace(t, m.start(2), m.end(2), "-" + m.group(2), "shift by negative")


def m_slice(rng, t):
    m = _pick(rng, r"\[(\d+)\s*:\s*(\d+)\]", t)
    if not m:
        return None
    hi, lo = int(m.group(1)), int(m.group(2))
    new = rng.choice([f"[{hi + 64}:{lo}]", f"[{lo}:{hi}]" if lo != hi else f"[{hi}:{hi + 1}]", f"[{hi}:-1]"])
    return _replace(t, m.start(), m.end(), new, f"slice [{hi}:{lo}] -> {new}")


def m_cast(rng, t):
    m = _pick(rng, r"\((bit<\d+>)\)", t)
    if m:
        new = rng.choice(["(bool)", "(error)", "(standard_metadata_t)", "(int)", "(varbit<8>)"])
        return _replace(t, m.start(), m.end(), new, f"cast {m.group(0)} -> {new}")
    return None


def m_compare_hs(rng, t):
    hm = _hdr_meta_control(t)
    if not hm:
        return None
    cm = hm[4]
    hs = re.findall(rf"\bstruct\s+{cm.group(1)}\s*\{{([^}}]*)\}}", t)
    members = re.findall(r"(\w+)\s+(\w+)\s*;", hs[0]) if hs else []
    if not members:
        return None
    hname = rng.choice(members)[1]
    am = re.compile(r"\bapply\s*\{").search(t, cm.end())
    if not am:
        return None
    other = rng.choice([cm.group(4), "8w1", "true"])
    stmt = f"if ({cm.group(2)}.{hname} == {other}) {{ }}"
    return Mutant(t[:am.end()] + " " + stmt + t[am.end():], am.end() + 1, f"compare header with {other}")


def m_extern_in_parser(rng, t):
    ext = re.findall(r"\b(counter|register<[^>]*>|meter|direct_counter)\s*\([^)]*\)\s*(\w+)\s*;", t)
    st = _pick(rng, r"\bstate\s+\w+\s*\{", t)
    if not st:
        return None
    if ext:
        kind, n = rng.choice(ext)
        stmt = f"{n}.count(0);" if kind.startswith("counter") else f"{n}.write(0, 0);" if kind.startswith("register") else f"{n}.read();"
    else:
        stmt = rng.choice(["mark_to_drop();", "hdr.apply();", "clone(CloneType.I2E, 32w1);", "exit;"])
    return Mutant(t[:st.end()] + " " + stmt + t[st.end():], st.end() + 1, f"{stmt} in parser state")


def m_token(rng, t):
    body = t.find("parser ")
    toks = [m for m in re.finditer(r"[A-Za-z_]\w*|\d+|[^\sA-Za-z0-9_]", t) if m.start() > body]
    if not toks:
        return None
    m = rng.choice(toks)
    op = rng.choice(["del", "dup", "num"])
    if op == "del":
        return _replace(t, m.start(), m.end(), "", f"delete token {m.group(0)!r}")
    if op == "dup":
        return _replace(t, m.end(), m.end(), " " + m.group(0), f"duplicate token {m.group(0)!r}")
    if not m.group(0).isdigit():
        return None
    n = str(rng.choice([0, 1, 7, 255, 65536, 2 ** 40]))
    return _replace(t, m.start(), m.end(), n, f"number {m.group(0)} -> {n}")


def _hdr_meta_control(t):
    """(headers type, headers name, metadata type, metadata name, match) of a control
    ``(inout H hdr, inout M meta, ...)``, or None."""
    cm = re.search(r"\bcontrol\s+\w+\s*\(\s*inout\s+(\w+)\s+(\w+)\s*,\s*inout\s+(\w+)\s+(\w+)", t)
    return (*cm.groups(), cm) if cm else None


def m_dup_apply(rng, t):
    """A table applied a second time right after its first ``t.apply();`` (p4c: a table may be
    invoked once)."""
    tables = set(_names(t, "table"))
    ms = [m for m in re.finditer(r"\b(\w+)\.apply\(\)\s*;", t) if m.group(1) in tables]
    if not ms:
        return None
    m = rng.choice(ms)
    return Mutant(t[:m.end()] + f" {m.group(1)}.apply();" + t[m.end():], m.end() + 1, f"{m.group(1)} applied twice")


def m_stack_index(rng, t):
    """A constant header-stack index equal to the stack's size (out of bounds)."""
    sizes = {n: int(k) for k, n in re.findall(r"\b\w+\s*\[\s*(\d+)\s*\]\s+(\w+)\s*;", t)}
    ms = [m for m in re.finditer(r"\.(\w+)\[(\d+)\]", t) if m.group(1) in sizes]
    if not ms:
        return None
    m = rng.choice(ms)
    return _replace(t, m.start(2), m.end(2), str(sizes[m.group(1)]), f"{m.group(1)}[{sizes[m.group(1)]}] out of bounds")


def m_valid_on_struct(rng, t):
    """``isValid()`` / ``setValid()`` on a struct (only headers have a validity bit)."""
    hm = _hdr_meta_control(t)
    am = hm and re.compile(r"\bapply\s*\{").search(t, hm[4].end())
    if not am:
        return None
    stmt = rng.choice([f"if ({hm[3]}.isValid()) {{ }}", f"{hm[1]}.setValid();"])
    return Mutant(t[:am.end()] + " " + stmt + t[am.end():], am.end() + 1, f"{stmt} on a struct")


def m_deparser_op(rng, t):
    """A deparser emitting a value that is no header, or extracting from its packet_out."""
    dm = re.search(r"\bcontrol\s+\w+\s*\(\s*packet_out\s+(\w+)\s*,\s*in\s+\w+\s+(\w+)\s*\)", t)
    am = dm and re.compile(r"\bapply\s*\{").search(t, dm.end())
    if not am:
        return None
    stmt = rng.choice([f"{dm.group(1)}.emit(8w7);", f"{dm.group(1)}.emit(true);", f"{dm.group(1)}.extract({dm.group(2)});"])
    return Mutant(t[:am.end()] + " " + stmt + t[am.end():], am.end() + 1, f"{stmt} in the deparser")


def m_verify_in_control(rng, t):
    """``verify`` (a parser statement) in a control's apply block."""
    pos = _apply_pos(t, rng)
    if pos is None:
        return None
    stmt = "verify(true, error.NoError);"
    return Mutant(t[:pos] + " " + stmt + t[pos:], pos + 1, f"{stmt} in a control")


def m_bool_field(rng, t):
    """A header field declared ``bool`` instead of ``bit<N>`` (p4c then types every use of it as
    a bool: no arithmetic, no bit<N> argument or variable, no slice, ...)."""
    ms = [(h.start(1) + f.start(), h.start(1) + f.end(), f.group(1), f.group(2))
          for h in re.finditer(r"\bheader\s+\w+\s*\{([^}]*)\}", t)
          for f in re.finditer(r"\bbit<(\d+)>\s+(\w+)\s*;", h.group(1))]
    if not ms:
        return None
    start, end, w, name = rng.choice(ms)
    return _replace(t, start, end, f"bool {name};", f"field {name}: bit<{w}> -> bool")


def m_div(rng, t):
    """The right-hand side of an assignment divided (``/``, ``%``) by a constant: p4c's BMv2 back
    end takes a power of two only, and only in code it keeps (not in an unused action or function,
    an unapplied table or sub-control); by zero is a front-end error."""
    ms = [m for m in re.finditer(r"(?<![=!<>])=(?!=)\s*([^;{}=]+?)\s*;", t)
          if "(" not in m.group(1) and not re.search(r"\b(?:const|bit|int|bool)\b", t[max(0, m.start() - 40):m.start()])]
    if not ms:
        return None
    m = rng.choice(ms)
    op, k = rng.choice(["/", "%"]), rng.choice([3, 4, 5, 8, 0, 1])
    return _replace(t, m.start(1), m.end(1), f"({m.group(1)}) {op} {k}", f"rhs {op} {k}")


def m_v1model_version(rng, t):
    """``V1MODEL_VERSION`` defined (before the includes) as no decimal literal, or a valid one."""
    if "V1MODEL_VERSION" in t:
        return None
    v = rng.choice(["-1", "09", "20200408 + 1", '"20200408"', "32w20200408", "2020x", "20180101", "20200408", "0x1343C48", "(20200408)"])
    return Mutant(f"#define V1MODEL_VERSION {v}\n" + t, 0, f"V1MODEL_VERSION {v}")


def m_key_expr(rng, t):
    """A table key made an expression, with or without ``@name`` (p4c wants one when complex)."""
    cands = _key_matches(t, r"([\w.\[\]]+)(\s*:\s*\w+)(\s*@name\([^)]*\))?")
    if not cands:
        return None
    a, b, km, name = rng.choice(cands)
    x = km.group(1)
    new = rng.choice([f"{x} + 1", f"(bit<16>)({x})", f"{x}[0:0]", f"{x} ^ {x}", "8w3", f"{x} == {x}", f"-{x}"])
    anno = rng.choice(["", "", ' @name("kx")', " @name(3)", ' @name("")'])
    return _replace(t, a, b, f"{new}{km.group(2)}{anno}", f"key {x} -> {new}{anno} in {name}")


def m_reserved_name(rng, t):
    """An action, table or state renamed (and its uses) to a keyword or an architecture name."""
    decls = [m for m in re.finditer(r"\b(action|table|state)\s+(\w+)\s*[({]", t)
             if m.group(2) not in ("NoAction", "start")]
    if not decls:
        return None
    return _rename_all(t, rng.choice(decls), rng.choice(["default", "apply", "key", "actions", "entries", "size", "exact",
                                                         "accept", "reject", "NoAction", "main", "error", "packet_in",
                                                         "mark_to_drop", "hash", "verify"]))


def m_entries_priority(rng, t):
    """``const entries`` <-> ``entries``, ``priority=`` on an entry, or a priority property."""
    m = _pick(rng, r"\b(const\s+)?entries\s*=\s*\{", t)
    if not m:
        return None
    op = rng.choice(["toggle", "prio", "prop"])
    if op == "toggle":
        new = "entries = {" if m.group(1) else "const entries = {"
        return _replace(t, m.start(), m.end(), new, f"{m.group(0).strip()} -> {new}")
    if op == "prio":
        k = rng.choice(["1", "0", "-1", "true", "8w2"])
        return _replace(t, m.end(), m.end(), f" priority={k}: ", f"entry priority={k}")
    prop = rng.choice(["largest_priority_wins = false;", "priority_delta = 0;", "largest_priority_wins = 1;", "priority_delta = -2;"])
    return _replace(t, m.start(), m.start(), prop + " ", f"table property {prop}")


MUTATORS = {f.__name__[2:]: f for f in [
    m_width, m_type, m_swap_args, m_drop_decl, m_dup_decl, m_rename_use, m_member_rename, m_type_name, m_table_in_action,
    m_action_arity, m_assign_in, m_assign_const, m_read_out, m_direction, m_dup_key, m_dup_action,
    m_match_kind, m_key_type, m_select_width, m_transition, m_return_value, m_exit_in_function,
    m_missing_return, m_annotation, m_entries_arity, m_default_action, m_switch_case, m_shift_neg,
    m_slice, m_cast, m_compare_hs, m_extern_in_parser, m_token, m_dup_apply, m_stack_index,
    m_valid_on_struct, m_deparser_op, m_verify_in_control, m_bool_field, m_div, m_v1model_version, m_key_expr,
    m_reserved_name, m_entries_priority]}
# extern instances and calls, control-plane names (tools/p4c_mutate_externs.py); action parameters
# and literals (tools/p4c_mutate_forms.py); operators (tools/p4c_mutate_ops.py); stores p4c's def-use
# may drop (tools/p4c_mutate_defuse.py); conditions p4c folds early (tools/p4c_mutate_fold.py); const
# entries' keysets and actions, value sets (tools/p4c_mutate_entries.py); conditions in actions,
# header stack shifts and header union members (tools/p4c_mutate_midend.py)
MUTATORS.update({k: (lambda fn: lambda rng, t: (lambda r: r and Mutant(*r))(fn(rng, t)))(fn)
                 for k, fn in {**EXTERN_KINDS, **FORM_KINDS, **P4INFO_KINDS, **OP_KINDS, **DEFUSE_KINDS,
                               **FOLD_KINDS, **ENTRY_KINDS, **MIDEND_KINDS}.items()})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("-n", type=int, default=200, help="number of mutants")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-k", "--kinds", default="", help="comma-separated mutation kinds (default: all)")
    ap.add_argument("-o", "--out", type=Path, default=None, help="result lines (appended)")
    ap.add_argument("--keep", type=Path, default=Path("/work/corpus/mutz/mutants") if Path("/work/corpus").is_dir() else None)
    args = ap.parse_args(argv)
    if p4c_path() is None:
        print("p4c is not installed (see ../shared/p4ref/README.md)", file=sys.stderr)
        return 2
    cache_root = Path(os.environ.get("CHECKMATE_CORPUS_CACHE") or Path(tempfile.gettempdir()) / f"cmcorpus-p4c-{os.getuid()}")
    work = Path(tempfile.mkdtemp(prefix="mutz-"))
    kinds = [k for k in args.kinds.split(",") if k] or list(MUTATORS)
    rng = random.Random(args.seed)
    pool = bases(args.dirs)
    good: dict[Path, bool] = {}
    counts, by_kind = collections.Counter(), collections.defaultdict(collections.Counter)
    out = args.out.open("a") if args.out else None
    done = tries = 0
    while done < args.n and tries < args.n * 20:
        tries += 1
        base = rng.choice(pool)
        kind = rng.choice(kinds)
        text = base.read_text(errors="replace")
        mut = MUTATORS[kind](rng, text)
        if mut is None or mut.text == text:
            continue
        if base not in good:
            good[base] = p4c_verdict(base, cache_root) is None and ours_verdict(base)[0] == "ok"
        if not good[base]:
            continue
        h = hashlib.sha256(mut.text.encode()).hexdigest()[:12]
        path = work / f"{base.stem}-{kind}-{h}.p4"
        path.write_text(mut.text)
        verdict, ref, ours = judge(path, mut.line, cache_root)
        done += 1
        counts[verdict.split()[0]] += 1
        by_kind[kind][verdict.split()[0]] += 1
        if verdict.startswith(("INVALID", "REJECT", "CRASH", "NOLOC", "P4INFO", "ENTRIES")) and args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / path.name).write_text(mut.text)
        line = f"{verdict:18} {kind:16} {base.name}:{mut.line} {mut.desc} | p4c: {ref} | ours: {ours} | {path.name}"
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()
        path.unlink()
    rej = sum(v for k, v in counts.items() if k not in ("agree-accept", "REJECT", "P4INFO", "ENTRIES")) - counts["CRASH"]
    agree = counts["agree-accept"] + counts["agree-reject"]
    print(f"\nmutants {done}; p4c rejects {rej} ({100 * rej / max(done, 1):.0f} %); agreement {agree} "
          f"({100 * agree / max(done, 1):.0f} %); " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for k, c in sorted(by_kind.items()):
        print(f"  {k:16} " + ", ".join(f"{a} {b}" for a, b in sorted(c.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
