"""Mutation kinds of tools/p4c_mutate.py about v1model's extern objects and functions and the
control-plane names p4c derives (helper mutz20; kept apart to keep p4c_mutate.py short).

Each kind is ``fn(rng, text) -> (new text, position of the change, description)`` or None (the
program has nothing it can change); p4c_mutate.py wraps them as its other kinds.  The classes of
invalid program they make, each a family of p4c's errors on v1model programs:

* ``extern_ctor`` -- an extern instance (or a block's parameter of an extern type) with its type
  arguments dropped, added or changed, or its constructor arguments dropped, added or of the
  wrong type (``register(8)``, ``counter<bit<32>>`` before V1MODEL_VERSION 20200408,
  ``register<bit<8>>(true)``, ``counter(8, MeterType.packets)``, ``(register r)``: "Type
  parameters needed for r");
* ``extern_call`` -- a call of a v1model extern function or method (``mark_to_drop``, ``clone``,
  ``hash``, ``digest``, ``r.read``, ``c.count``, ...) with an argument dropped, added or replaced
  by a value of another type (a bool, a header, a wider constant);
* ``name_clash`` -- an ``@name`` that gives two tables, actions or extern instances one
  control-plane name, or a name p4c refuses (``@name(".")``, a dotted relative name);
* ``extern_operand`` -- an extern call's argument replaced by a value of another kind (an
  error, an enum member, a list, a struct, a negative or 1-bit constant): hash's result, base
  and max and a meter's result take many of them (helper mutz23).
"""
from __future__ import annotations

import re

_OBJECTS = r"register|counter|meter|direct_counter|direct_meter|action_profile|action_selector"
_FUNCS = ("mark_to_drop|clone|clone3|clone_preserving_field_list|hash|random|digest|resubmit|"
          "resubmit_preserving_field_list|recirculate|recirculate_preserving_field_list|truncate|"
          "verify_checksum|update_checksum|verify_checksum_with_payload|update_checksum_with_payload|"
          "log_msg|assert|assume")
_METHODS = r"count|read|write|execute_meter|execute"


def closing(t: str, i: int, pair: str = "{}") -> int | None:
    """The index of the ``pair[1]`` closing the ``pair[0]`` just before ``i`` (None: never closed)."""
    depth = 1
    for j in range(i, len(t)):
        depth += {pair[0]: 1, pair[1]: -1}.get(t[j], 0)
        if depth == 0:
            return j
    return None


def split_top(s: str) -> list[str]:
    """``s`` split at the commas outside any brackets."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def _new_args(rng, parts: list[str]) -> tuple[list[str], str]:
    parts = [p.strip() for p in parts]
    op = rng.choice(["drop", "add", "bool", "header", "wide"] if parts else ["add"])
    if op == "drop":
        return parts[:-1], "last argument dropped"
    if op == "add":
        return parts + ["8w1"], "an argument added"
    i = rng.randrange(len(parts))
    new = {"bool": "true", "header": "hdr", "wide": "64w0xfffffffff"}[op]
    return parts[:i] + [new] + parts[i + 1:], f"argument {i} -> {new}"


def m_extern_ctor(rng, t):
    insts = list(re.finditer(rf"(?<![\w.])({_OBJECTS})\s*(<[^;()]*>)?\s*\(", t))
    params = list(re.finditer(rf"\b({_OBJECTS})\s*(<[^;()]*>)?\s+(\w+)\s*(?=[,)])", t))
    if params and (not insts or rng.random() < 0.25):
        m = rng.choice(params)
        if m.group(2):
            return t[:m.start(2)] + t[m.end(2):], m.start(), f"parameter {m.group(3)}: type arguments of {m.group(1)} dropped"
        new = rng.choice(["<bit<32>>", "<bit<8>, bit<32>>", "<bool>"])
        return t[:m.end(1)] + new + t[m.end(1):], m.start(), f"parameter {m.group(3)}: {m.group(1)}{new}"
    if not insts:
        return None
    m = rng.choice(insts)
    op = rng.choice(["targs", "targs", "args", "args", "enum"])
    if op == "targs":
        if m.group(2) and rng.random() < 0.5:
            return t[:m.start(2)] + t[m.end(2):], m.start(), f"type arguments of {m.group(1)} dropped"
        new = rng.choice(["<bit<32>>", "<bit<8>, bit<32>>", "<bool>", "<int<8>>", "<bit<8>, bit<32>, bit<8>>"])
        start, end = (m.start(2), m.end(2)) if m.group(2) else (m.end(1), m.end(1))
        return t[:start] + new + t[end:], m.start(), f"{m.group(1)} type arguments -> {new}"
    end = closing(t, m.end(), "()")
    if op == "enum":
        inner = t[m.end():end]
        swapped = re.sub(r"\b(CounterType|MeterType)\.(\w+)",
                         lambda e: ("MeterType" if e.group(1) == "CounterType" else "CounterType") + ".packets", inner, 1)
        if swapped == inner:
            swapped = re.sub(r"^\s*\w+", rng.choice(["-1", "0", "true", "32w0"]), inner, 1)
        if swapped == inner:
            return None
        return t[:m.end()] + swapped + t[end:], m.start(), f"{m.group(1)} arguments {inner.strip()} -> {swapped.strip()}"
    parts, what = _new_args(rng, split_top(t[m.end():end]))
    return t[:m.end()] + ", ".join(parts) + t[end:], m.start(), f"{m.group(1)} constructor: {what}"


def m_extern_call(rng, t):
    calls = list(re.finditer(rf"(?<![\w.])({_FUNCS})\s*(<[^;()]*>)?\s*\(|\.({_METHODS})\s*\(", t))
    if not calls:
        return None
    m = rng.choice(calls)
    end = closing(t, m.end(), "()")
    parts, what = _new_args(rng, split_top(t[m.end():end]))
    return t[:m.end()] + ", ".join(parts) + t[end:], m.start(), f"call {m.group(1) or m.group(3)}: {what}"


def m_name_clash(rng, t):
    decls = list(re.finditer(rf"\b(table|action|{_OBJECTS})\b[^;{{]*?\b(\w+)\s*[({{;]", t))
    decls = [d for d in decls if d.group(2) not in ("NoAction", "apply", "key", "actions")]
    names = [d.group(2) for d in decls]
    if not decls:
        return None
    d = rng.choice(decls)
    other = rng.choice(names)
    new = rng.choice([f'@name("{other}") ', f'@name(".{other}") ', '@name(".") ', f'@name("{other}.x") ',
                      f'@name("{d.group(2)}") @name("{other}") '])
    return t[:d.start()] + new + t[d.start():], d.start(), f"{d.group(1)} {d.group(2)}: add {new.strip()}"


def m_extern_operand(rng, t):
    """An argument of an extern call replaced by a value of another kind -- an error, an enum
    member p4c types, a list, a struct or header value, a negative or 1-bit constant (the
    operand families of hash's base/max/result and meter results that p4c takes; helper mutz23)."""
    calls = list(re.finditer(rf"(?<![\w.])({_FUNCS})\s*(<[^;()]*>)?\s*\(|\.({_METHODS})\s*\(", t))
    if not calls:
        return None
    m = rng.choice(calls)
    end = closing(t, m.end(), "()")
    parts = [p.strip() for p in split_top(t[m.end():end])]
    if not parts:
        return None
    i = rng.randrange(len(parts))
    new = rng.choice(["error.NoError", "HashAlgorithm.crc16", "{ 8w1, 8w2 }", "{ }", "hdr", "-8s1", "1w1",
                      "(bit<4>)1", "false"])
    return (t[:m.end()] + ", ".join(parts[:i] + [new] + parts[i + 1:]) + t[end:], m.start(),
            f"call {m.group(1) or m.group(3)}: argument {i} -> {new}")


KINDS = {f.__name__[2:]: f for f in [m_extern_ctor, m_extern_call, m_name_clash, m_extern_operand]}
