"""P4Runtime ids and aliases computed the way p4c does (control-plane/p4RuntimeSymbolTable.cpp).

An id is ``(resource_type << 24) | (jenkins_one_at_a_time(name) & 0xffffff)``; names
of one resource type are hashed in sorted order and collisions are resolved by
linear probing, so ids are stable across compiles of the same program.  ``@id(N)``
annotations win (with the type prefix added when missing).  The alias is the
shortest unique dot-separated suffix of the name among all P4Info names.
"""
from __future__ import annotations

PREFIX = {
    "action": 0x01, "table": 0x02, "value_set": 0x03, "controller_header": 0x04,
    "action_profile": 0x11, "counter": 0x12, "direct_counter": 0x13, "meter": 0x14,
    "direct_meter": 0x15, "register": 0x16, "digest": 0x17,
}


def jenkins_one_at_a_time(data: bytes) -> int:
    h = 0
    for b in data:
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def assign_ids(symbols: dict[str, dict[str, int | None]]) -> dict[str, dict[str, int]]:
    """``{type: {name: user_id_or_None}}`` -> ``{type: {name: id}}``."""
    assigned: set[int] = set()
    out: dict[str, dict[str, int]] = {}
    for kind, names in symbols.items():
        out[kind] = {}
        for name, uid in names.items():
            if uid is not None:
                uid |= PREFIX[kind] << 24
                out[kind][name] = uid
                assigned.add(uid)
    for kind, names in symbols.items():
        prefix = PREFIX[kind]
        for name in sorted(n for n, uid in names.items() if uid is None):
            h = jenkins_one_at_a_time(name.encode())
            for _ in range(1 << 24):
                cand = (prefix << 24) | (h & 0xFFFFFF)
                if cand not in assigned:
                    break
                h += 1
            assigned.add(cand)
            out[kind][name] = cand
    return out


def aliases(names: list[str]) -> dict[str, str]:
    """Shortest unique suffix (in dot-separated components) of every name."""
    counts: dict[tuple, int] = {}
    uniq = sorted(set(names))
    for n in uniq:
        comps = n.split(".")
        for k in range(1, len(comps) + 1):
            key = tuple(comps[-k:])
            counts[key] = counts.get(key, 0) + 1
    out = {}
    for n in uniq:
        comps = n.split(".")
        for k in range(1, len(comps) + 1):
            if counts[tuple(comps[-k:])] < 2:
                out[n] = ".".join(comps[-k:])
                break
        else:
            out[n] = n
    return out


def field_ids(user: list) -> list[int]:
    """The ids p4c's FieldIdAllocator gives the elements of one list (a table's key elements --
    selector ones too, which P4Info leaves out --, an action's parameters, a controller header's
    fields -- @hidden ones too): an element's ``@id(N)`` (``user[i]``, else None) is its id; the
    others are numbered in order from 1, skipping the ids taken by ``@id``s, the counter also
    stepping once for each element with its own ``@id`` (p4c_mutate seed 160: ``c: selector;
    a: exact @id(3); b: ternary;`` gives ``b`` 2)."""
    taken = {u for u in user if u is not None}
    out, index = [], 1
    for u in user:
        if u is not None:
            out.append(u)
            index += 1
            continue
        while index in taken:
            index += 1
        out.append(index)
        taken.add(index)
    return out


def user_id(anno) -> int | None:
    """An ``@id(N)`` annotation's N when it is an integer, else None."""
    v = anno[1][0] if anno and anno[1] else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None
