"""P4Info index: the bottom layer of the controller (no gRPC, no topology).

Everything above this module speaks P4 *names*; this module turns them into P4Info
ids, bit widths and P4Runtime byte strings, and back.  The same code therefore drives
the embedded ``checkmate-switch`` and real BMv2, whose numeric ids may differ.

* :class:`P4InfoIndex` -- built from a ``p4.config.v1.P4Info`` (or loaded from a
  ``.txtpb`` / ``.bin`` file).  Lookups accept the full name
  (``CheckmateIngress.ipv4_route``), the P4Info alias, or any unique dotted suffix
  (``ipv4_route``), the way p4runtime-shell does; an unknown or ambiguous name raises
  :class:`P4InfoError` listing what exists.
* :func:`encode` / :func:`decode` -- P4Runtime canonical byte strings (big endian,
  no leading zero bytes, ``b"\\x00"`` for zero).  ``encode`` accepts ints and the
  strings users type: ``"10.0.0.1"`` (32-bit fields), ``"08:00:00:00:00:01"`` (48-bit),
  ``"0x1f"``, ``"42"``; a value that does not fit names the field and its width.
* :func:`format_value` -- the reverse for humans (IPv4 for 32-bit fields whose name
  says addr/ip, MAC for 48-bit, decimal otherwise).
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

_MAC_RE = re.compile(r"^[0-9a-fA-F]{1,2}(:[0-9a-fA-F]{1,2}){5}$")

#: P4Info entity kinds this index knows, keyed by the P4Info repeated field name.
KINDS = ("tables", "actions", "counters", "direct_counters", "meters", "direct_meters",
         "registers", "digests", "action_profiles", "controller_packet_metadata", "value_sets")


class P4InfoError(LookupError):
    """A name, id or value that the loaded P4Info does not have or cannot carry."""


@dataclass(frozen=True)
class FieldInfo:
    """One match field or action parameter: what encoding needs."""

    id: int
    name: str
    bitwidth: int
    match_type: str = ""  # "exact", "lpm", "ternary", "range", "optional" (match fields only)


def encode(value, bitwidth: int, what: str = "value") -> bytes:
    """Canonical P4Runtime bytes of ``value`` for a ``bit<bitwidth>`` field (see module doc)."""
    n = to_int(value, bitwidth, what)
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def to_int(value, bitwidth: int, what: str = "value") -> int:
    """Parse ``value`` (int, bytes, or a string as users type it) and check it fits."""
    if isinstance(value, bool):
        n = int(value)
    elif isinstance(value, int):
        n = value
    elif isinstance(value, (bytes, bytearray)):
        n = int.from_bytes(value, "big")
    elif isinstance(value, str):
        s = value.strip()
        try:
            if _MAC_RE.match(s):
                n = int("".join(p.zfill(2) for p in s.split(":")), 16)
            elif s.count(".") == 3:
                n = int(ipaddress.IPv4Address(s))
            elif ":" in s:
                n = int(ipaddress.IPv6Address(s))
            else:
                n = int(s, 0)
        except ValueError:
            raise P4InfoError(f"{what}: cannot read {value!r} as a number, IPv4 or MAC address") from None
    else:
        raise P4InfoError(f"{what}: {value!r} ({type(value).__name__}) is not a number or address")
    if n < 0:
        raise P4InfoError(f"{what}: {value!r} is negative")
    if bitwidth and n >> bitwidth:
        raise P4InfoError(f"{what}: {value!r} does not fit in {bitwidth} bits (max {(1 << bitwidth) - 1})")
    return n


def decode(data: bytes) -> int:
    return int.from_bytes(data, "big")


def format_value(n: int, bitwidth: int, name: str = "") -> str:
    """Human form of a field value: MAC for 48 bits, dotted quad for 32-bit addresses."""
    low = name.lower()
    if bitwidth == 48 and ("mac" in low or "addr" in low or low.endswith(("sha", "tha"))):
        return ":".join(f"{b:02x}" for b in n.to_bytes(6, "big"))
    if bitwidth == 32 and ("addr" in low or low.endswith((".ip", "ip", "tpa", "spa"))):
        return str(ipaddress.IPv4Address(n))
    return str(n)


def load_p4info(path: str | Path) -> p4info_pb2.P4Info:
    """Read a P4Info from ``.txtpb``/``.txt`` (text format) or ``.bin``/``.pb`` (binary)."""
    path = Path(path)
    info = p4info_pb2.P4Info()
    data = path.read_bytes()
    if path.suffix in (".bin", ".pb"):
        info.ParseFromString(data)
    else:
        try:
            text_format.Parse(data.decode(), info)
        except text_format.ParseError as e:
            raise P4InfoError(f"{path}: not a P4Info in text format: {e}") from None
    return info


class P4InfoIndex:
    """Names <-> ids, widths and kinds of every entity of one P4Info."""

    def __init__(self, p4info: p4info_pb2.P4Info):
        self.p4info = p4info
        self._by_id: dict[int, tuple[str, object]] = {}
        self._names: dict[str, dict[str, object]] = {k: {} for k in KINDS}
        for kind in KINDS:
            for ent in getattr(p4info, kind):
                pre = ent.preamble
                self._by_id[pre.id] = (kind, ent)
                self._names[kind][pre.name] = ent
        self._structs = {name: spec for name, spec in p4info.type_info.structs.items()}

    @classmethod
    def from_file(cls, path: str | Path) -> "P4InfoIndex":
        return cls(load_p4info(path))

    # -- entities -----------------------------------------------------------------
    def names(self, kind: str) -> list[str]:
        return sorted(self._names[kind])

    def get(self, kind: str, name: str):
        """The P4Info message of ``kind`` (e.g. ``"tables"``) called ``name`` (full, alias or suffix)."""
        table = self._names[kind]
        if name in table:
            return table[name]
        hits = [ent for full, ent in table.items()
                if ent.preamble.alias == name or full.endswith("." + name)]
        if len(hits) == 1:
            return hits[0]
        singular = kind.rstrip("s").replace("_", " ")
        if not hits:
            known = ", ".join(self.short(kind, n) for n in self.names(kind)) or "none"
            raise P4InfoError(f"no {singular} named {name!r} in the P4Info (known: {known})")
        raise P4InfoError(f"{singular} name {name!r} is ambiguous: "
                          + ", ".join(h.preamble.name for h in hits))

    def id(self, kind: str, name: str) -> int:
        return self.get(kind, name).preamble.id

    def by_id(self, entity_id: int):
        """``(kind, message)`` for a P4Info id; raises :class:`P4InfoError` when unknown."""
        try:
            return self._by_id[entity_id]
        except KeyError:
            raise P4InfoError(f"id {entity_id} (0x{entity_id:08x}) is not in the P4Info") from None

    def name_of(self, entity_id: int) -> str:
        return self.by_id(entity_id)[1].preamble.name

    def short(self, kind: str, full: str) -> str:
        """Shortest unique dotted suffix of ``full`` among entities of ``kind``."""
        parts = full.split(".")
        for i in range(len(parts) - 1, -1, -1):
            cand = ".".join(parts[i:])
            if sum(1 for n in self._names[kind] if n == cand or n.endswith("." + cand)) == 1:
                return cand
        return full

    # -- tables -----------------------------------------------------------------------
    def match_fields(self, table: str) -> list[FieldInfo]:
        t = self.get("tables", table)
        kinds = p4info_pb2.MatchField.MatchType
        return [FieldInfo(m.id, m.name, m.bitwidth, kinds.Name(m.match_type).lower()) for m in t.match_fields]

    def match_field(self, table: str, name: str) -> FieldInfo:
        fields = self.match_fields(table)
        for f in fields:
            if f.name == name:
                return f
        hits = [f for f in fields if f.name.endswith("." + name)]
        if len(hits) == 1:
            return hits[0]
        tname = self.get("tables", table).preamble.name
        raise P4InfoError(f"table {tname} has no match field {name!r} "
                          f"(fields: {', '.join(f.name for f in fields)})")

    def match_field_by_id(self, table: str, field_id: int) -> FieldInfo:
        for f in self.match_fields(table):
            if f.id == field_id:
                return f
        raise P4InfoError(f"table {self.get('tables', table).preamble.name} has no match field id {field_id}")

    def table_actions(self, table: str) -> list[str]:
        t = self.get("tables", table)
        return [self.name_of(ref.id) for ref in t.action_refs]

    def table_needs_priority(self, table: str) -> bool:
        return any(f.match_type in ("ternary", "range", "optional") for f in self.match_fields(table))

    # -- actions ------------------------------------------------------------------------
    def action_params(self, action: str) -> list[FieldInfo]:
        a = self.get("actions", action)
        return [FieldInfo(p.id, p.name, p.bitwidth) for p in a.params]

    def action_param(self, action: str, name: str) -> FieldInfo:
        for p in self.action_params(action):
            if p.name == name:
                return p
        aname = self.get("actions", action).preamble.name
        raise P4InfoError(f"action {aname} has no parameter {name!r} "
                          f"(parameters: {', '.join(p.name for p in self.action_params(action)) or 'none'})")

    def action_in_table(self, table: str, action: str):
        """The action message, checked to be one the table may run."""
        a = self.get("actions", action)
        t = self.get("tables", table)
        if a.preamble.id not in [r.id for r in t.action_refs]:
            raise P4InfoError(f"action {a.preamble.name} is not an action of table {t.preamble.name} "
                              f"(actions: {', '.join(self.table_actions(table))})")
        return a

    # -- digests ---------------------------------------------------------------------
    def digest_fields(self, digest: str) -> list[tuple[str, int]]:
        """``[(member name, bitwidth)]`` of a digest whose type is a struct of bit<W>."""
        d = self.get("digests", digest)
        spec = d.type_spec
        if spec.WhichOneof("type_spec") != "struct":
            raise P4InfoError(f"digest {d.preamble.name}: type is not a struct")
        struct = self._structs.get(spec.struct.name)
        if struct is None:
            raise P4InfoError(f"digest {d.preamble.name}: struct {spec.struct.name} missing from type_info")
        out = []
        for m in struct.members:
            ts = m.type_spec
            if ts.WhichOneof("type_spec") != "bitstring":
                raise P4InfoError(f"digest {d.preamble.name}: member {m.name} is not a bit<W>")
            bs = ts.bitstring
            out.append((m.name, getattr(bs, bs.WhichOneof("type_spec")).bitwidth))
        return out
