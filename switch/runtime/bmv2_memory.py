"""What simple_switch allocates when it loads a program, and where that exceeds the machine.

p4c 1.2.4.8 compiles any bit<32> size of a ``counter``, ``meter`` or ``register`` (``-1`` is
2**32-1 in its JSON) and any table ``size`` up to INT_MAX, and simple_switch 1.15.5 allocates every
cell of every array and every entry slot of every table when it loads the JSON: a vector of
``Counter`` (16 bytes each), of ``Meter`` (about 211 bytes with its rate state), of ``Register``
(about 117 bytes, a GMP number each) and, per table with a key, the match unit's entry slots
(about 148 bytes for exact/lpm keys, 234 for ternary, 258 for range; a direct meter adds a meter
per slot; a keyless table allocates nothing).  Measured on simple_switch 1.15.5 (helper errs31,
/work/errs31 ``gen_m.py``/``gen_s.py``: the resident size of 2**20 and 2**24 cells, linear).  When
that does not fit the machine -- Linux's default overcommit refuses one allocation larger than RAM
plus swap, and a sum larger than them is killed later -- simple_switch dies loading it
("terminate called after throwing an instance of 'std::bad_alloc'"); below, it loads (slowly).
checkmate-switch allocates cells lazily (externs.SparseCells) and could load anything, so
:func:`refuse_unallocatable` refuses such a program as BMv2 does on the same machine (the
threshold is the machine's, as BMv2's is).  An action profile's size is only a limit in BMv2
(nothing allocated); a size past INT_MAX is a Json::LogicError there, refused by the compiler
and the JSON loader.
"""
from __future__ import annotations

import os

from .errors import InvalidEntry

#: bytes simple_switch 1.15.5 allocates per cell / entry slot (measured; see the module docstring)
CELL_BYTES = {"counters": 16, "meters": 211, "registers": 117}
ENTRY_BYTES = {"exact": 148, "lpm": 141, "ternary": 234, "range": 258, "optional": 234, "selector": 148}
METER_BYTES = CELL_BYTES["meters"]
BAD_ALLOC = "simple_switch dies loading it: terminate called after throwing an instance of 'std::bad_alloc'"


def machine_bytes() -> int:
    """RAM plus swap: the largest allocation Linux's default (heuristic) overcommit grants."""
    try:
        with open("/proc/meminfo") as f:
            kb = {ln.split(":")[0]: int(ln.split()[1]) for ln in f if ln.split()[1:2] and ln.split()[1].isdigit()}
        return (kb["MemTotal"] + kb.get("SwapTotal", 0)) * 1024
    except (OSError, KeyError, ValueError, IndexError):
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _table_bytes(t: dict) -> int:
    kinds = [k.get("match") or k.get("kind") for k in t.get("keys") or []]
    if not kinds:
        return 0
    per = max(ENTRY_BYTES.get(k, ENTRY_BYTES["ternary"]) for k in kinds)
    if t.get("direct_meter") is not None:
        per += METER_BYTES
    return per * max(0, int(t.get("size") or 0))


def bmv2_load_bytes(ir: dict) -> tuple[int, dict | None]:
    """The bytes simple_switch allocates for ``ir``'s arrays and tables, and the largest array or
    table (the one to name)."""
    total, biggest, most = 0, None, -1
    for key, per in CELL_BYTES.items():
        for o in ir.get(key, ()):
            n = per * max(0, int(o.get("size") or 0))
            total += n
            if n > most:
                biggest, most = dict(o, kind=key[:-1]), n
    for t in ir.get("tables", ()):
        if t.get("midend_removed"):
            continue
        n = _table_bytes(t)
        total += n
        if n > most:
            biggest, most = dict(t, kind="table"), n
    return total, biggest


def refuse_unallocatable(ir: dict, limit: int | None = None) -> None:
    """Raise :class:`InvalidEntry` where simple_switch cannot allocate ``ir``'s arrays on this
    machine (``limit``: bytes, default :func:`machine_bytes`)."""
    total, biggest = bmv2_load_bytes(ir)
    limit = machine_bytes() if limit is None else limit
    if biggest is None or total <= limit:
        return
    where = f"{biggest['where']}: " if biggest.get("where") else ""
    raise InvalidEntry(f"device config: {where}{biggest['kind']} {biggest['name']} of size {biggest.get('size')}: "
                       f"{total} bytes, more than this machine's {limit} (RAM + swap): {BAD_ALLOC}")
