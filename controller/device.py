"""A switch by names: :class:`Device` = :class:`SwitchConnection` + :class:`P4InfoIndex`.

This is the object the programmer, the reconciler, the watchdog and the CLI use.
Every method takes and returns user objects from :mod:`controller.entities`; ids and
byte strings never leave this layer.  Write errors are decoded per update into
sentences that name the table, the match fields with their values and the action
(:meth:`Device.describe`).
"""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from .client import SwitchConnection
from .entities import CounterValue, Entry, Heartbeat, McastGroup
from .p4info import P4InfoError, P4InfoIndex, decode, format_value

INSERT, MODIFY, DELETE = p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY, p4runtime_pb2.Update.DELETE
_UPDATE_NAMES = {INSERT: "INSERT", MODIFY: "MODIFY", DELETE: "DELETE"}

# Digest batching.  Every rank's heartbeat is one digest per iteration; every list (a gRPC stream
# message and its ack, through several threads of a software switch) costs the switch a few hundred
# us of CPU whatever it holds.  The watchdog's timeouts are seconds (its lag test counts iterations
# and a list keeps the digests' order), so a heartbeat up to 50 ms late changes nothing it decides
# (in fact 150-250 ms: a list due by its timeout waits for two of PI's 100 ms sweeps, on BMv2 and
# checkmate-switch alike), while a list then carries ~5 iterations of heartbeats at the testbed's ~10 ms iterations:
# benchmarks.bench_replica, off the data plane, 72 us per heartbeat with 50 ms against 207 with 5 ms
# (and 215 with one list per iteration, max_list_size = the ranks).
DIGEST_MAX_LIST_SIZE = 64
DIGEST_MAX_TIMEOUT_NS = 50_000_000


class Device:
    def __init__(self, conn: SwitchConnection, index: P4InfoIndex):
        self.conn, self.index = conn, index

    @property
    def name(self) -> str:
        return self.conn.name

    # -- describing updates (for error sentences) -----------------------------------------
    def format_match(self, e: Entry) -> str:
        """``{field=value, ...}`` with addresses shown as addresses."""
        ix = self.index
        parts = []
        for name, v in e.match.items():
            try:
                f = ix.match_field(e.table, name)
                w, kind = f.bitwidth, f.match_type
            except P4InfoError:
                w, kind = 0, "?"
            if isinstance(v, tuple):
                a, b = v
                sep = {"lpm": "/", "ternary": " &&& ", "range": ".."}.get(kind, ",")
                b_s = str(b) if kind == "lpm" else format_value(b, w, name)
                parts.append(f"{name}={format_value(a, w, name)}{sep}{b_s}")
            else:
                parts.append(f"{name}={format_value(v, w, name)}")
        return "{" + ", ".join(parts) + "}"

    def format_action(self, e: Entry, short: bool = False) -> str:
        if not e.action:
            return ""
        pw = {p.name: p.bitwidth for p in self.index.action_params(e.action)}
        ps = ", ".join(f"{k}={format_value(v, pw.get(k, 0), k)}" for k, v in e.params.items())
        name = self.index.short("actions", e.action) if short else e.action
        return f"{name}({ps})"

    def format_entry(self, e: Entry) -> str:
        s = f"table {e.table} match {self.format_match(e)}" if e.match else f"table {e.table} (default entry)"
        if e.priority:
            s += f" priority {e.priority}"
        if e.action:
            s += f" action {self.format_action(e)}"
        return s

    def describe(self, update: p4runtime_pb2.Update) -> str:
        kind = _UPDATE_NAMES.get(update.type, str(update.type))
        ent = update.entity
        which = ent.WhichOneof("entity")
        try:
            if which == "table_entry":
                return f"{kind} {self.format_entry(Entry.from_proto(self.index, ent.table_entry))}"
            if which == "packet_replication_engine_entry":
                g = McastGroup.from_proto(ent.packet_replication_engine_entry.multicast_group_entry)
                return f"{kind} multicast group {g.group_id} replicas {list(g.replicas)}"
            if which == "digest_entry":
                return f"{kind} digest config {self.index.name_of(ent.digest_entry.digest_id)}"
        except P4InfoError as e:
            return f"{kind} {which} ({e})"
        return f"{kind} {which}"

    # -- writes ----------------------------------------------------------------------------
    def _update(self, kind, **entity) -> p4runtime_pb2.Update:
        u = p4runtime_pb2.Update(type=kind)
        for k, v in entity.items():
            getattr(u.entity, k).CopyFrom(v)
        return u

    def write(self, updates: list[p4runtime_pb2.Update], summary: str = "") -> None:
        self.conn.write(updates, self.describe, summary)

    def entry_update(self, kind, entry: Entry) -> p4runtime_pb2.Update:
        return self._update(kind, table_entry=entry.to_proto(self.index))

    def group_update(self, kind, group: McastGroup) -> p4runtime_pb2.Update:
        return self._update(kind, packet_replication_engine_entry=group.to_proto())

    def insert(self, *entries: Entry) -> None:
        self.write([self.entry_update(INSERT, e) for e in entries], "insert")

    def modify(self, *entries: Entry) -> None:
        self.write([self.entry_update(MODIFY, e) for e in entries], "modify")

    def delete(self, *entries: Entry) -> None:
        self.write([self.entry_update(DELETE, e) for e in entries], "delete")

    def digest_update(self, kind, digest: str, max_timeout_ns: int = DIGEST_MAX_TIMEOUT_NS,
                      max_list_size: int = DIGEST_MAX_LIST_SIZE,
                      ack_timeout_ns: int = 1_000_000_000) -> p4runtime_pb2.Update:
        """A DigestEntry update.  The defaults batch: a list leaves the switch when it holds
        :data:`DIGEST_MAX_LIST_SIZE` digests or its first one is :data:`DIGEST_MAX_TIMEOUT_NS` old, so
        the ranks' heartbeats of several iterations travel (and are acknowledged) together."""
        d = p4runtime_pb2.DigestEntry(digest_id=self.index.id("digests", digest))
        d.config.max_timeout_ns = max_timeout_ns
        d.config.max_list_size = max_list_size
        d.config.ack_timeout_ns = ack_timeout_ns
        return self._update(kind, digest_entry=d)

    # -- reads ------------------------------------------------------------------------------
    def read_entries(self, table: str | None = None) -> list[Entry]:
        te = p4runtime_pb2.TableEntry()
        if table is not None:
            te.table_id = self.index.id("tables", table)
        out = [Entry.from_proto(self.index, ent.table_entry)
               for ent in self.conn.read([p4runtime_pb2.Entity(table_entry=te)])]
        return [e for e in out if not e.is_default]

    def read_groups(self) -> list[McastGroup]:
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        pre.multicast_group_entry.multicast_group_id = 0
        ents = self.conn.read([p4runtime_pb2.Entity(packet_replication_engine_entry=pre)])
        return sorted((McastGroup.from_proto(e.packet_replication_engine_entry.multicast_group_entry)
                       for e in ents), key=lambda g: g.group_id)

    def read_counter(self, name: str, index: int | None = None) -> list[CounterValue]:
        kind = "counters"
        try:
            c = self.index.get("counters", name)
        except P4InfoError:
            try:
                c = self.index.get("direct_counters", name)
                kind = "direct_counters"
            except P4InfoError:
                raise P4InfoError(f"no counter named {name!r} (counters: "
                                  f"{', '.join(self.index.names('counters') + self.index.names('direct_counters'))})") from None
        full = c.preamble.name
        if kind == "direct_counters":
            dce = p4runtime_pb2.DirectCounterEntry()
            dce.table_entry.table_id = c.direct_table_id
            return [CounterValue(full, None, e.direct_counter_entry.data.packet_count,
                                 e.direct_counter_entry.data.byte_count,
                                 Entry.from_proto(self.index, e.direct_counter_entry.table_entry).match)
                    for e in self.conn.read([p4runtime_pb2.Entity(direct_counter_entry=dce)])]
        ce = p4runtime_pb2.CounterEntry(counter_id=c.preamble.id)
        if index is not None:
            if not 0 <= index < c.size:
                raise P4InfoError(f"counter {full}: index {index} outside 0..{c.size - 1}")
            ce.index.index = index
        out = [CounterValue(full, e.counter_entry.index.index, e.counter_entry.data.packet_count,
                            e.counter_entry.data.byte_count)
               for e in self.conn.read([p4runtime_pb2.Entity(counter_entry=ce)])]
        return sorted(out, key=lambda v: v.index)

    def read_digest_config(self, digest: str) -> p4runtime_pb2.DigestEntry | None:
        d = p4runtime_pb2.DigestEntry(digest_id=self.index.id("digests", digest))
        for e in self.conn.read([p4runtime_pb2.Entity(digest_entry=d)]):
            return e.digest_entry
        return None

    # -- digests ------------------------------------------------------------------------------
    def decode_digest(self, dl: p4runtime_pb2.DigestList) -> list[Heartbeat | dict]:
        """Members of each digest by name; heartbeat digests become :class:`Heartbeat`."""
        name = self.index.name_of(dl.digest_id)
        fields = self.index.digest_fields(name)
        out = []
        for data in dl.data:
            members = data.struct.members if data.WhichOneof("data") == "struct" else [data]
            vals = {fname: decode(m.bitstring) for (fname, _), m in zip(fields, members)}
            if {"job_id", "rank", "iteration"} <= vals.keys():
                out.append(Heartbeat(vals["job_id"], vals["rank"], vals["iteration"], self.name))
            else:
                out.append(vals)
        return out
