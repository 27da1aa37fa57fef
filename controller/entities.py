"""User-facing P4Runtime objects, by name: the middle layer of the controller.

These small dataclasses are what the programmer, the reconciler and the CLI handle;
:class:`~controller.p4info.P4InfoIndex` turns them into protobuf messages and back.

* :class:`Entry` -- a table entry: ``table``, ``match`` ``{field: value}``, ``action``,
  ``params`` ``{name: value}``, ``priority``.  Match values by kind:
  exact/optional ``v``; lpm ``(v, prefix_len)`` or ``"10.0.0.1/32"``; ternary
  ``(v, mask)`` or ``"v&&&mask"``; range ``(lo, hi)`` or ``"lo..hi"``.  Values may be
  ints or strings (IPv4, MAC, hex).  :meth:`Entry.canonical` resolves names to full P4Info
  names and values to ints, so two entries compare equal exactly when the switch would
  treat them as the same entry with the same action; :meth:`Entry.key` is the match part.
  P4Runtime "don't care" rules are applied on encode (a zero-length prefix, an all-zero
  ternary mask or a full range is left out), and lpm/ternary values are masked.
* :class:`McastGroup` -- multicast group id and ``(port, rid)`` replicas (order-free; written
  instance 0 first -- a Checkmate group's forward --, see :meth:`McastGroup.to_proto`).
* :class:`CounterValue` -- one counter cell read back.
* :class:`Heartbeat` -- one digest member list decoded by name.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from .p4info import P4InfoError, P4InfoIndex, decode, encode, to_int


@dataclass(frozen=True)
class Entry:
    table: str
    match: dict = field(default_factory=dict)
    action: str = ""
    params: dict = field(default_factory=dict)
    priority: int = 0
    is_default: bool = False

    # -- canonical form -------------------------------------------------------------
    def canonical(self, index: P4InfoIndex) -> "Entry":
        t = index.get("tables", self.table)
        tname = t.preamble.name
        match = {}
        for name, value in self.match.items():
            f = index.match_field(tname, name)
            what = f"table {tname}, field {f.name}"
            m = _canon_match(f, value, what)
            if m is not None:
                match[f.name] = m
        action, params = "", {}
        if self.action:
            a = index.action_in_table(tname, self.action)
            action = a.preamble.name
            given = dict(self.params)
            for p in index.action_params(action):
                if p.name not in given:
                    raise P4InfoError(f"table {tname}, action {action}: parameter {p.name} missing")
                params[p.name] = to_int(given.pop(p.name), p.bitwidth,
                                        f"table {tname}, action {action}, parameter {p.name}")
            if given:
                raise P4InfoError(f"table {tname}, action {action}: unknown parameter(s) {', '.join(given)} "
                                  f"(parameters: {', '.join(p.name for p in index.action_params(action)) or 'none'})")
        if self.priority and not index.table_needs_priority(tname):
            raise P4InfoError(f"table {tname}: priority {self.priority} given but the table has no "
                              "ternary/range/optional field")
        if not self.is_default and index.table_needs_priority(tname) and self.priority <= 0:
            raise P4InfoError(f"table {tname}: ternary/range/optional match needs a priority > 0")
        return Entry(tname, match, action, params, self.priority, self.is_default)

    def key(self) -> tuple:
        """Identity of a (canonical) entry on the switch: table, match, priority."""
        return (self.table, tuple(sorted(self.match.items())), self.priority, self.is_default)

    # -- protobuf ---------------------------------------------------------------------
    def to_proto(self, index: P4InfoIndex) -> p4runtime_pb2.TableEntry:
        c = self.canonical(index)
        msg = p4runtime_pb2.TableEntry()
        msg.table_id = index.id("tables", c.table)
        msg.priority = c.priority
        msg.is_default_action = c.is_default
        for name, value in c.match.items():
            f = index.match_field(c.table, name)
            fm = msg.match.add()
            fm.field_id = f.id
            w = f.bitwidth
            if f.match_type == "exact":
                fm.exact.value = encode(value, w)
            elif f.match_type == "lpm":
                fm.lpm.value, fm.lpm.prefix_len = encode(value[0], w), value[1]
            elif f.match_type == "ternary":
                fm.ternary.value, fm.ternary.mask = encode(value[0], w), encode(value[1], w)
            elif f.match_type == "range":
                fm.range.low, fm.range.high = encode(value[0], w), encode(value[1], w)
            elif f.match_type == "optional":
                fm.optional.value = encode(value, w)
            else:
                raise P4InfoError(f"table {c.table}, field {f.name}: match kind {f.match_type} not supported")
        if c.action:
            act = msg.action.action
            act.action_id = index.id("actions", c.action)
            for p in index.action_params(c.action):
                pp = act.params.add()
                pp.param_id, pp.value = p.id, encode(c.params[p.name], p.bitwidth)
        return msg

    @classmethod
    def from_proto(cls, index: P4InfoIndex, msg: p4runtime_pb2.TableEntry) -> "Entry":
        """Canonical entry of a read-back message (full names, int values)."""
        kind, t = index.by_id(msg.table_id)
        if kind != "tables":
            raise P4InfoError(f"id {msg.table_id} is a {kind[:-1]}, not a table")
        tname = t.preamble.name
        match = {}
        for fm in msg.match:
            f = index.match_field_by_id(tname, fm.field_id)
            which = fm.WhichOneof("field_match_type")
            if which == "exact":
                match[f.name] = decode(fm.exact.value)
            elif which == "lpm":
                match[f.name] = (decode(fm.lpm.value), fm.lpm.prefix_len)
            elif which == "ternary":
                match[f.name] = (decode(fm.ternary.value), decode(fm.ternary.mask))
            elif which == "range":
                match[f.name] = (decode(fm.range.low), decode(fm.range.high))
            elif which == "optional":
                match[f.name] = decode(fm.optional.value)
        action, params = "", {}
        if msg.HasField("action") and msg.action.WhichOneof("type") == "action":
            a = msg.action.action
            action = index.name_of(a.action_id)
            by_id = {p.id: p.name for p in index.action_params(action)}
            params = {by_id.get(p.param_id, str(p.param_id)): decode(p.value) for p in a.params}
        return cls(tname, match, action, params, msg.priority, msg.is_default_action)

    def to_json(self, index: P4InfoIndex | None = None) -> dict:
        """JSON-friendly dict (tuples -> lists; ints kept as ints)."""
        def j(v):
            return list(v) if isinstance(v, tuple) else v
        return {"table": self.table, "match": {k: j(v) for k, v in self.match.items()},
                "action": self.action, "params": dict(self.params), "priority": self.priority,
                **({"is_default": True} if self.is_default else {})}


def _canon_match(f, value, what):
    """Int form of a match value for field ``f``; ``None`` when it is a don't-care."""
    w, mt = f.bitwidth, f.match_type
    full = (1 << w) - 1
    if mt in ("exact", "optional"):
        return to_int(value, w, what)
    if mt == "lpm":
        if isinstance(value, str) and "/" in value:
            v, plen = value.rsplit("/", 1)
            value = (v, int(plen))
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            value = (value, w)
        v, plen = to_int(value[0], w, what), int(value[1])
        if not 0 <= plen <= w:
            raise P4InfoError(f"{what}: prefix length {plen} outside 0..{w}")
        if plen == 0:
            return None
        mask = full ^ ((1 << (w - plen)) - 1)
        return (v & mask, plen)
    if mt == "ternary":
        if isinstance(value, str) and "&&&" in value:
            value = tuple(value.split("&&&", 1))
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            value = (value, full)
        v, m = to_int(value[0], w, what), to_int(value[1], w, what + " (mask)")
        return None if m == 0 else (v & m, m)
    if mt == "range":
        if isinstance(value, str) and ".." in value:
            value = tuple(value.split("..", 1))
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise P4InfoError(f"{what}: a range match needs (low, high), got {value!r}")
        lo, hi = to_int(value[0], w, what + " (low)"), to_int(value[1], w, what + " (high)")
        if lo > hi:
            raise P4InfoError(f"{what}: range low {lo} > high {hi}")
        return None if (lo, hi) == (0, full) else (lo, hi)
    raise P4InfoError(f"{what}: match kind {mt!r} not supported")


@dataclass(frozen=True)
class McastGroup:
    group_id: int
    replicas: tuple = ()  # sorted ((port, rid), ...)

    @classmethod
    def of(cls, group_id: int, replicas) -> "McastGroup":
        return cls(int(group_id), tuple(sorted((int(p), int(r)) for p, r in replicas)))

    def written(self) -> list[tuple[int, int]]:
        """The replicas in the order :meth:`to_proto` writes them: by instance, then port.  A
        Checkmate group's forward (instance 0) comes first whatever its port: checkmate-switch runs
        the copies of a group that sit on different egress threads (port % 4) in written order
        (switch/runtime/replication.py), so the forward's egress pass runs before its shadow
        copy's unless both ports share a thread (then BMv2's node order puts instance 0 last)."""
        return sorted(self.replicas, key=lambda r: (r[1], r[0]))

    def to_proto(self) -> p4runtime_pb2.PacketReplicationEngineEntry:
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        g = pre.multicast_group_entry
        g.multicast_group_id = self.group_id
        for port, rid in self.written():
            r = g.replicas.add()
            r.egress_port, r.instance = port, rid
        return pre

    @classmethod
    def from_proto(cls, g: p4runtime_pb2.MulticastGroupEntry) -> "McastGroup":
        reps = []
        for r in g.replicas:
            port = decode(r.port) if r.WhichOneof("port_kind") == "port" else r.egress_port
            reps.append((port, r.instance))
        return cls.of(g.multicast_group_id, reps)

    def to_json(self) -> dict:
        return {"group_id": self.group_id, "replicas": [{"port": p, "rid": r} for p, r in self.replicas]}


@dataclass(frozen=True)
class CounterValue:
    counter: str
    index: int | None  # None for direct counters
    packets: int
    bytes: int
    match: dict | None = None  # direct counters: the entry's match

    def to_json(self) -> dict:
        d = {"counter": self.counter, "index": self.index, "packets": self.packets, "bytes": self.bytes}
        if self.match is not None:
            d["match"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.match.items()}
        return d


@dataclass(frozen=True)
class Heartbeat:
    """A heartbeat digest: (job, rank) reached ``iteration``; ``device`` is the switch seen on."""

    job_id: int
    rank: int
    iteration: int
    device: str = ""
