"""Name -> id lookups over the IR, and value parsing for the name-based helpers.

Names are P4Info names (``MyIngress.ipv4_lpm``); a unique suffix (the P4Info alias,
e.g. ``ipv4_lpm``) is accepted too.  Values may be ints, ``bytes``, dotted IPv4,
IPv6 or colon-separated MAC strings.
"""
from __future__ import annotations

import ipaddress

from .entries import FieldMatch, TableEntry
from .errors import InvalidEntry


def parse_value(v, what: str) -> int:
    """An int from an int, bytes, or an IPv4/IPv6/MAC string."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, (bytes, bytearray)):
        return int.from_bytes(v, "big")
    if isinstance(v, str):
        s = v.strip()
        try:
            return int(s, 0)
        except ValueError:
            pass
        if s.count(":") == 5 and all(len(p) <= 2 for p in s.split(":")):
            try:
                return int(s.replace(":", ""), 16)
            except ValueError:
                pass
        try:
            return int(ipaddress.ip_address(s))
        except ValueError:
            pass
    raise InvalidEntry(f"{what}: cannot parse value {v!r} (int, bytes, IPv4/IPv6 or MAC string)")


class NameIndex:
    """Lookups by name (or unique suffix) for tables, actions, counters, registers, meters."""

    KINDS = ("table", "action", "counter", "register", "meter", "digest", "direct_counter",
             "direct_meter", "value_set", "action_profile")

    def __init__(self, ir: dict):
        self._by_kind: dict[str, dict[str, dict]] = {}
        for kind, key in (("table", "tables"), ("action", "actions"), ("counter", "counters"),
                          ("register", "registers"), ("meter", "meters"), ("digest", "digests"),
                          ("direct_counter", "direct_counters"), ("direct_meter", "direct_meters"),
                          ("value_set", "value_sets"), ("action_profile", "action_profiles")):
            self._by_kind[kind] = {o["name"]: o for o in ir.get(key, [])}

    def obj(self, kind: str, name: str) -> dict:
        objs = self._by_kind[kind]
        if name in objs:
            return objs[name]
        cands = [o for n, o in objs.items() if n.endswith("." + name)]
        if len(cands) == 1:
            return cands[0]
        if not cands:
            raise InvalidEntry(f"no {kind} named {name!r} (have: {', '.join(sorted(objs)) or 'none'})")
        raise InvalidEntry(f"{kind} name {name!r} is ambiguous: {', '.join(o['name'] for o in cands)}")

    def id(self, kind: str, name: str) -> int:
        return self.obj(kind, name)["id"]

    def table_id(self, name: str) -> int:
        return self.id("table", name)

    def action_params(self, action: str, params: dict | None) -> tuple[int, dict[int, int]]:
        a = self.obj("action", action)
        params = dict(params or {})
        out = {}
        for p in a["params"]:
            if p["name"] not in params:
                raise InvalidEntry(f"action {a['name']}: parameter {p['name']} missing")
            out[p["id"]] = parse_value(params.pop(p["name"]), f"action {a['name']} parameter {p['name']}")
        if params:
            raise InvalidEntry(f"action {a['name']}: unknown parameter(s) {', '.join(params)}")
        return a["id"], out

    def entry(self, table: str, match: dict, action: str | None, params: dict | None,
              priority: int) -> tuple[int, TableEntry]:
        t = self.obj("table", table)
        keys = {k["name"]: k for k in t["keys"]}
        matches = []
        for fname, v in (match or {}).items():
            k = keys.get(fname)
            if k is None:
                raise InvalidEntry(f"table {t['name']}: no match field {fname!r} "
                                   f"(have: {', '.join(keys)})")
            what = f"table {t['name']} field {fname}"
            kind = k["match"]
            if kind in ("exact", "optional"):
                matches.append(FieldMatch(k["id"], kind, parse_value(v, what)))
            else:
                if not isinstance(v, (tuple, list)) or len(v) != 2:
                    raise InvalidEntry(f"{what}: {kind} match needs a pair, got {v!r}")
                a, b = parse_value(v[0], what), parse_value(v[1], what)
                if kind == "lpm":
                    matches.append(FieldMatch.lpm(k["id"], a, b))
                elif kind == "ternary":
                    matches.append(FieldMatch.ternary(k["id"], a, b))
                else:
                    matches.append(FieldMatch.range(k["id"], a, b))
        aid, p = (0, {}) if action is None else self.action_params(action, params)
        return t["id"], TableEntry(matches, aid, p, priority)
