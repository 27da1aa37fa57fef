"""Table-entry and value-set mutations for tools/p4c_mutate.py (helper mutz29).

The earlier kinds touch a ``const entries`` list only as a whole (``entries_arity`` adds a key,
``entries_priority`` toggles ``const`` or adds a priority); the keysets themselves, the entries'
action calls and the parser value sets were never mutated.  p4c checks them in several passes --
the keyset's form against the key's match kind (a mask on an exact key, a range on a ternary one,
``_``/``default`` anywhere), each value's width (a literal too wide is a warning and truncated, a
typed one of another width an error), the action call against the table's action list and its
parameters -- and what it accepts ends in the P4Info only as ``is_const_table`` (the entries go to
BMv2's JSON), so most of these mutants are judged on their verdict:

``entry_key``     one key element of one entry rewritten: ``_``, ``default``, a mask (``&&& 0``,
                  ``&&& -1``, a mask wider than the key), a range (reversed, empty, wider than
                  the key), a literal too wide or negative, a typed literal of another width, a
                  cast, a ``bool``, an expression of constants;
``entry_action``  one entry's action call changed: an argument too wide, negative, a ``bool``,
                  dropped or added, another action of the program (listed in the table or not),
                  ``NoAction()``, no parentheses;
``entry_order``   two entries of one list swapped, or one entry given twice (p4c warns or
                  refuses where the keys are equal), or a priority given to one entry of a list
                  whose others have none;
``select_key``    one element of one parser ``select`` case's keyset rewritten as ``entry_key`` does;
``value_set``     a parser ``value_set``'s size (0, negative, an expression, a non-constant) or
                  element type (a wider ``bit``, a ``bool``, a header, a tuple) changed, or its use
                  in a ``select`` given a mask or a range.

Each returns ``(text, position, description)`` as the other helper modules' kinds do.

Since p4c's P4Info does not show the entries, a mutant both compilers accept is also judged on
them (:func:`entries_differ`, ``ENTRIES`` in the result file, for every kind): each table's const
entries in p4c's BMv2 JSON and in checkmate-p4c's program, as the sets of keys they match (an
exact, lpm, optional or ternary match as value and mask, a range as its bounds, a wildcard as
nothing compared), their action by name and its data -- in the order BMv2 tries them where the
table has a ternary, range or optional key (p4c's JSON priority ascending, checkmate-p4c's
descending), else as a set.
"""
from __future__ import annotations

import re

from tools.p4c_mutate_externs import closing, split_top

_ENTRIES = re.compile(r"\bentries\s*=\s*\{")
_PRIO = re.compile(r"^\s*(?:const\s+)?(?:priority\s*=\s*[^:]+:\s*)?")


def _top_colon(s: str) -> int:
    """The index of the first ``:`` of ``s`` outside brackets, or -1."""
    depth = 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            return i
    return -1


def _entries(t: str) -> list:
    """Every entry of every ``entries`` list: (start, end, keyset start, keyset end, action start),
    positions in ``t``; ``end`` is that of the entry's ``;``."""
    out = []
    for m in _ENTRIES.finditer(t):
        end = closing(t, m.end())
        if end is None:
            continue
        body, off, depth, start = t[m.end():end], m.end(), 0, 0
        for i, c in enumerate(body):
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == ";" and depth == 0:
                raw = body[start:i]
                p = _PRIO.match(raw).end()
                colon = _top_colon(raw[p:])
                if colon > 0:
                    s0 = start + len(raw) - len(raw.lstrip())
                    out.append((off + s0, off + i, off + start + p, off + start + p + colon, off + start + p + colon + 1))
                start = i + 1
    return out


def _elements(t: str, ks: int, ke: int) -> list:
    """(start, end) of each key element of the keyset ``t[ks:ke]`` (a tuple's, or the one)."""
    s = t[ks:ke]
    inner = s.strip()
    lead = ks + len(s) - len(s.lstrip())
    if inner[:1] in "({" and inner[-1:] in ")}" and closing(inner.replace("(", "{").replace(")", "}"), 1) == len(inner) - 1:
        lead += 1
        inner = inner[1:-1]
    out, pos = [], lead
    for part in split_top(inner) if inner.strip() else []:
        a = pos + len(part) - len(part.lstrip())
        out.append((a, a + len(part.strip())))
        pos += len(part) + 1
    return out


def m_entry_key(rng, t):
    ents = _entries(t)
    if not ents:
        return None
    _, _, ks, ke, _ = rng.choice(ents)
    els = _elements(t, ks, ke)
    if not els:
        return None
    a, b = rng.choice(els)
    e = t[a:b]
    v = e.split("&&&")[0].split("..")[0].strip()
    new = rng.choice(["_", "default", f"{v} &&& 0", f"{v} &&& -1", f"{v} &&& 0x1ff", f"{v} &&& {v}", f"{v} .. {v}",
                      f"({v}) + 1 .. {v}", f"0 .. 0x1ff", "0x1ff", "-1", "16w1", "4w1", f"(bit<4>)({v})", "true",
                      f"({v}) + 1", f"{v} &&& 0xf0", f"1 .. 0", "8w256", "(int<8>)-1", f"{v}, {v}"])
    return t[:a] + new + t[b:], a, f"entry key {e[:30]} -> {new}"


_SELECT = re.compile(r"\bselect\s*\(")


def _select_cases(t: str) -> list:
    """(keyset start, keyset end) of every case of every ``select``, ``default`` ones too."""
    out = []
    for m in _SELECT.finditer(t):
        b = t.find("{", m.end())
        end = closing(t, b + 1) if b >= 0 else None
        if end is None:
            continue
        pos = b + 1
        for part in t[b + 1:end].split(";"):
            c = _top_colon(part)
            if c > 0:
                a = pos + len(part) - len(part.lstrip())
                out.append((a, pos + c))
            pos += len(part) + 1
    return out


def m_select_key(rng, t):
    """One element of one ``select`` case's keyset rewritten as ``entry_key`` does an entry's."""
    cases = _select_cases(t)
    if not cases:
        return None
    ks, ke = rng.choice(cases)
    els = _elements(t, ks, ke) or [(ks, ke)]
    a, b = rng.choice(els)
    e = t[a:b].strip()
    if not e:
        return None
    v = "1" if e in ("default", "_") else e.split("&&&")[0].split("..")[0].strip()
    new = rng.choice(["_", "default", f"{v} &&& 0", f"{v} &&& 0x1ff", f"{v} .. {v}", f"({v}) + 1 .. {v}", "0 .. 0x1ff",
                      "0x1ffff", "-1", "4w1", "true", f"{v} &&& 0xf0", "1 .. 0", "(int<8>)-1", f"{v}, {v}", f"({v})",
                      f"{v} .. ({v}) + 3"])
    return t[:a] + new + t[a + len(t[a:b].rstrip()):], a, f"select case {e[:30]} -> {new}"


def _actions(t: str) -> list:
    return [m.group(1) for m in re.finditer(r"\baction\s+(\w+)\s*\(", t)]


def m_entry_action(rng, t):
    ents = _entries(t)
    if not ents:
        return None
    s, end, _, _, a0 = rng.choice(ents)
    call = t[a0:end]
    m = re.match(r"\s*(\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$", call)
    if not m:
        return None
    name, args = m.group(1), split_top(m.group(2)) if m.group(2).strip() else []
    op = rng.choice(["wide", "neg", "bool", "drop", "add", "other", "noaction", "bare"])
    if op in ("wide", "neg", "bool") and args:
        i = rng.randrange(len(args))
        args[i] = {"wide": "0x1ffffffffff", "neg": "-1", "bool": "true"}[op]
        new = f"{name}({', '.join(x.strip() for x in args)})"
    elif op == "drop" and args:
        new = f"{name}({', '.join(x.strip() for x in args[:-1])})"
    elif op == "add":
        new = f"{name}({', '.join([x.strip() for x in args] + ['8w1'])})"
    elif op == "other" and len(set(_actions(t))) > 1:
        new = f"{rng.choice([x for x in dict.fromkeys(_actions(t)) if x != name])}({', '.join(x.strip() for x in args)})"
    elif op == "bare":
        new = name
    else:
        new = "NoAction()"
    return t[:a0] + " " + new + t[end:], a0, f"entry action {call.strip()[:30]} -> {new}"


def m_entry_order(rng, t):
    ents = _entries(t)
    if not ents:
        return None
    i = rng.randrange(len(ents))
    s, end = ents[i][:2]
    one = t[s:end + 1]
    op = rng.choice(["dup", "swap", "prio"])
    if op == "swap":
        same = [e for e in ents if e is not ents[i] and abs(e[0] - s) < 400 and t[min(e[0], s):max(e[0], s)].count("}") == 0]
        if not same:
            op = "dup"
        else:
            j = rng.choice(same)
            (s1, e1), (s2, e2) = sorted([(s, end + 1), (j[0], j[1] + 1)])
            return t[:s1] + t[s2:e2] + t[e1:s2] + t[s1:e1] + t[e2:], s1, "entries swapped"
    if op == "prio":
        if "priority" in one:
            return None
        k = rng.choice(["1", "10", "0", "100"])
        return t[:s] + f"priority={k}: " + t[s:], s, f"entry given priority={k}"
    return t[:end + 1] + " " + one + t[end + 1:], s, f"entry duplicated: {one[:40]}"


_VSET = re.compile(r"\bvalue_set\s*<\s*([^>]*?>?)\s*>\s*\(([^()]*)\)\s*(\w+)\s*;")


def m_value_set(rng, t):
    vs = list(_VSET.finditer(t))
    if not vs:
        return None
    m = rng.choice(vs)
    op = rng.choice(["size", "type", "use"])
    if op == "size":
        k = rng.choice(["0", "-1", "2 + 2", "8w4", "true", "1", "32w0x100000000"])
        return t[:m.start(2)] + k + t[m.end(2):], m.start(), f"value_set size {m.group(2)} -> {k}"
    if op == "type":
        k = rng.choice(["bit<32>", "bit<4>", "bool", "int<8>", "tuple<bit<8>, bit<8>>", "bit<8>", "bit<16>"])
        return t[:m.start(1)] + k + t[m.end(1):], m.start(), f"value_set type {m.group(1)} -> {k}"
    uses = [u for u in re.finditer(r"\b" + m.group(3) + r"\s*:", t) if u.start() > m.end()]
    if not uses:
        return None
    u = rng.choice(uses)
    k = rng.choice([f"{m.group(3)} &&& 0xf", f"{m.group(3)} .. 5", f"({m.group(3)}, _)", f"{m.group(3)} + 1"])
    return t[:u.start()] + k + t[u.start() + len(m.group(3)):], u.start(), f"value_set use -> {k}"


KINDS = {f.__name__[2:]: f for f in [m_entry_key, m_entry_action, m_entry_order, m_value_set, m_select_key]}


# ------------------------------------------------------------------ judging: the const entries
def _p4c_match(m: dict, w: int) -> tuple:
    full = (1 << w) - 1
    kind, v = m["match_type"], int(m.get("key", "0"), 16) if "key" in m else 0
    if kind == "range":
        return ("range", int(m["start"], 16), int(m["end"], 16))
    if kind == "lpm":
        p = m["prefix_length"]
        mask = full ^ ((1 << (w - p)) - 1) if p else 0
        return ("mask", v & mask, mask)
    if kind in ("ternary", "optional") and "mask" in m:
        mask = int(m["mask"], 16) & full
        return ("mask", v & mask, mask)
    return ("mask", v & full, full)


def _our_match(m: dict | None, kind: str, w: int) -> tuple:
    full = (1 << w) - 1
    if m is None:
        return ("range", 0, full) if kind == "range" else ("mask", 0, 0)
    if m["kind"] == "range":
        return ("range", m["value"], m["high"])
    if m["kind"] == "lpm":
        p = m["prefix_len"]
        mask = full ^ ((1 << (w - p)) - 1) if p else 0
        return ("mask", m["value"] & mask, mask)
    mask = full if m.get("mask") is None else m["mask"] & full
    return ("mask", m["value"] & mask, mask)


def _in_order(entries: list, ranked: bool, better) -> list:
    """The entries as BMv2 tries them (by priority where the table has one), else as a sorted set."""
    if not ranked:
        return sorted(map(repr, (e for _, e in entries)))
    return [repr(e) for _, e in sorted(entries, key=better)]


def entries_differ(path, cache_root) -> str:
    """For a mutant both compilers accept: '' when every table's const entries (keys, action,
    action data, the order BMv2 tries them in) are the same in p4c's JSON and checkmate-p4c's
    program, else the first table that differs."""
    import hashlib
    import json

    from switch.bmv2json.p4c import run_p4c_cached
    from switch.compiler import compile_file
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    r = run_p4c_cached(path, cache_root / f"p4c-{digest}")
    if isinstance(r, str):
        return ""
    ref = json.loads(r[0])
    ours = compile_file(str(path)).device_config
    acts = {a["id"]: a["name"] for a in ref["actions"]}
    our_acts = {a["id"]: a["name"] for a in ours["actions"]}
    mine = {t["name"]: t for t in ours["tables"]}
    for pipe in ref["pipelines"]:
        for t in pipe["tables"]:
            if "entries" not in t or t["name"] not in mine:
                continue
            o = mine[t["name"]]
            widths = [k["width"] for k in o["keys"]]
            kinds = [k["match"] for k in o["keys"]]
            ranked = any(k in ("ternary", "range", "optional") for k in kinds)
            a = [(e.get("priority", 0), (tuple(_p4c_match(m, w) for m, w in zip(e["match_key"], widths)),
                  acts.get(e["action_entry"]["action_id"]), tuple(int(x, 16) for x in e["action_entry"]["action_data"])))
                 for e in t["entries"]]
            b = []
            for e in o.get("const_entries") or ():
                by_id = {m["id"]: m for m in e["matches"]}
                b.append((e.get("priority", 0), (tuple(_our_match(by_id.get(k["id"]), k["match"], k["width"]) for k in o["keys"]),
                          our_acts.get(e["action"]), tuple(e["params"]))))
            x, y = _in_order(a, ranked, lambda p: p[0]), _in_order(b, ranked, lambda p: -p[0])
            if x != y:
                i = next((i for i, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
                return (f"table {t['name']} entry {i}: p4c {x[i] if i < len(x) else '(none)'} "
                        f"ours {y[i] if i < len(y) else '(none)'}")
    return ""
