"""Read RPC: the entities a (possibly wildcard) read request selects.

:class:`EntityReader` has one method per entity kind (``_read_<kind>``) returning the
``p4.v1.Entity`` answers: a list, or for every cell of a counter, meter or register array an
iterator the Read RPC sends batch by batch (any bit<32> size loads; its errors -- an unknown id,
an index out of range -- are raised when the method is called, before anything is sent).
Wildcards follow the spec: id 0 selects every object of the kind, a table entry without match
fields selects all entries of its table(s), an unset index selects every cell.  Values are
canonical byte strings.
"""
from __future__ import annotations

from dataclasses import replace

from grpc import StatusCode
from p4.v1 import p4runtime_pb2

from switch.runtime import CounterData
from switch.runtime.replication import node_order
from switch.runtime.tables import lpm_mask

from . import codec, translate
from .digests import DigestEngine
from .errors import P4RTError
from .state import ForwardingState


class EntityReader:
    def __init__(self, digests: DigestEngine):
        self.digests = digests

    def read(self, st: ForwardingState, ent) -> list:
        """The entities selected by one ``p4.v1.Entity`` of a ReadRequest."""
        kind = ent.WhichOneof("entity")
        reader = getattr(self, f"_read_{kind}", None) if kind else None
        if reader is None:
            raise P4RTError(StatusCode.UNIMPLEMENTED if kind else StatusCode.INVALID_ARGUMENT,
                            f"Read of {kind} is not supported" if kind else "read entity has no type")
        return reader(st, getattr(ent, kind))

    def _tables_for(self, st, table_id: int):
        if table_id == 0:
            # a P4Info table p4c's mid end removed (absent from its BMv2 JSON: state.py) fails a read
            # of every table as it fails a read of itself: PI asks BMv2 for each P4Info table
            # (simple_switch_grpc 1.15.5: UNKNOWN; probed, helper p4rt39)
            gone = [t.name for t in st.index.tables.values() if t.id not in st.pipeline.tables]
            if gone:
                raise P4RTError(StatusCode.INVALID_ARGUMENT, f"table '{gone[0]}' of the P4Info is not in the "
                                                             "device config (p4c's mid end removed it)")
            return list(st.index.tables.values())
        return [st.index.table(table_id)]

    @staticmethod
    def _selected(st, table, te, pi_read: bool = False):
        """The entries of ``table`` that ``te`` selects: all of them, or the one with its key.
        ``pi_read``: a TableEntry read, which PI answers from what BMv2 gives back: of a table whose
        key BMv2 masks, the entry the key finds under the masks, or INTERNAL (Table.read_key)."""
        want, probe = None, None
        if te.match:
            _, probe = translate.decode_table_entry(st.index, te, need_action=False, read=True)
            st.pipeline.table_check_key(table.id, probe)   # a key no entry could have: the Read fails (BMv2)
            want = translate.key_of(_compared(table, probe))
        if pi_read and st.pipeline.table_masked(table.id):
            found = st.pipeline.table_read_key(table.id, probe)
            if probe is not None:
                if found is None:
                    return
                want = translate.key_of(_compared(table, _strip(table, found)))
        for e in st.pipeline.table_entries(table.id):
            if want is not None and translate.key_of(_compared(table, _strip(table, e))) != want:
                continue
            if pi_read and e.from_program and not e.is_const:
                # an initial entry of a table that is not const (p4c's `entries = {..}`): PI maps each
                # entry BMv2 gives back to one written through it, and has none for it (probed on
                # simple_switch_grpc 1.15.5, helper p4rt39; Table._pi_known: MODIFY/DELETE NOT_FOUND)
                raise P4RTError(StatusCode.INTERNAL, f"table '{table.name}': Table state out-of-sync with "
                                                     "target (an initial entry of the program)")
            yield e   # (no match fields: every entry, whatever priority is given: BMv2)

    @staticmethod
    def _cells(entry, read, kind, obj_id, pipeline):
        """``[(index, value)]``: the one cell ``entry.index`` names, or an iterator over every cell
        of the array (Pipeline.array_cells: read as it is sent)."""
        if entry.HasField("index"):
            return [(entry.index.index, read(obj_id, entry.index.index))]
        return pipeline.array_cells(kind, obj_id)

    def _read_table_entry(self, st, te):
        with_counter = te.HasField("counter_data")
        with_meter = te.HasField("meter_config")   # direct meter configs only when asked for (BMv2)
        with_elapsed = te.HasField("time_since_last_hit")
        tables = self._tables_for(st, te.table_id)
        if with_elapsed:   # PI's answers (probed on simple_switch_grpc 1.15.5, helper corpus10)
            if any(not t.supports_idle_timeout for t in tables):
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                "Do not set time_since_last_hit for a ReadRequest if the table does not "
                                "support idle timeout; yes, that includes wildcard reads")
            if te.is_default_action:
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                "Default table entries do not support entry ageing, do not set "
                                "'time_since_last_hit' in your ReadRequest")
        out = []
        for table in tables:
            if te.is_default_action:
                d = st.pipeline.table_get_default(table.id)
                d.is_default = True
                d.is_const = False   # BMv2 never marks a default entry const (even a const default_action)
                if table.implementation_id and d.member_id is None and d.group_id is None:
                    d.action_id, d.params = 0, {}   # an indirect table's default entry: no action (BMv2)
                _check_p4info_params(st, table, d, "default action")
                out.append(p4runtime_pb2.Entity(table_entry=translate.encode_table_entry(
                    st.index, table, d, with_counter=False)))
                continue
            for e in self._selected(st, table, te, pi_read=True):
                _check_p4info_params(st, table, e, "const entry")
                out.append(p4runtime_pb2.Entity(table_entry=translate.encode_table_entry(
                    st.index, table, e, with_counter=with_counter, with_meter=with_meter,
                    with_elapsed=with_elapsed)))
        return out

    def _read_counter_entry(self, st, ce):
        ids = [ce.counter_id] if ce.counter_id else sorted(st.index.counters)
        cells = [(st.index.counter(cid).id, self._cells(ce, st.pipeline.counter_read, "counter", cid, st.pipeline))
                 for cid in ids]

        def answers():
            for cid, of in cells:
                for i, d in of:
                    e = _answer_of(ce, p4runtime_pb2.CounterEntry(counter_id=cid))
                    e.index.index = i
                    e.data.packet_count, e.data.byte_count = d.packets, d.bytes
                    yield p4runtime_pb2.Entity(counter_entry=e)
        return answers()

    def _read_direct(self, st, te, kind: str, fill, has_entry: bool) -> list:
        """One ``Direct<kind>Entry`` per selected entry of every table with a direct ``kind``
        ("counter" / "meter") that ``te`` names: the entry's key only, then ``fill(message,
        installed entry)`` sets the data; naming a table without one is INVALID_ARGUMENT, and so is a
        request without a table entry; table id 0 (every table) is UNIMPLEMENTED, as in PI."""
        out, request = [], te
        if not has_entry:   # PI: "Missing table_entry field in Direct...Entry"
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"Direct{kind.capitalize()}Entry has no table_entry")
        if not te.table_id:   # PI: "Reading all direct ...s for ALL tables is not supported yet"
            raise P4RTError(StatusCode.UNIMPLEMENTED, f"a read of the direct {kind}s of all tables (table id 0)")
        for table in self._tables_for(st, te.table_id):
            if not getattr(table, f"direct_{kind}_id"):
                raise P4RTError(StatusCode.INVALID_ARGUMENT, f"table '{table.name}' has no direct {kind}")
            keyed = bool(te.match)
            if keyed:   # (named by its key: an action or idle timeout in it is ignored, as BMv2)
                te = p4runtime_pb2.TableEntry()
                te.CopyFrom(request)
                te.ClearField("action")
                te.idle_timeout_ns = 0
            found = list(self._selected(st, table, te))
            if keyed and not found:   # PI maps the key to an entry handle first (fuzz_p4rt seed 4195)
                raise P4RTError(StatusCode.INVALID_ARGUMENT, f"table '{table.name}': no entry with that key")
            for e in found:
                d = getattr(p4runtime_pb2, f"Direct{kind.capitalize()}Entry")()
                if keyed:   # PI answers with the request's table entry as it was sent
                    d.table_entry.CopyFrom(request)
                else:
                    d.table_entry.CopyFrom(translate.encode_table_entry(st.index, table, e, with_counter=False,
                                                                        with_meter=False))
                    _key_only(d.table_entry)
                fill(d, e)
                out.append(p4runtime_pb2.Entity(**{f"direct_{kind}_entry": d}))
        return out

    def _read_direct_counter_entry(self, st, dce):
        def fill(d, e):
            c = e.counter or CounterData()
            d.data.packet_count, d.data.byte_count = c.packets, c.bytes
        return self._read_direct(st, dce.table_entry, "counter", fill, dce.HasField("table_entry"))

    def _read_direct_meter_entry(self, st, dme):
        """One DirectMeterEntry per selected entry; its config only when one was set (BMv2)."""
        def fill(d, e):
            if e.meter is not None:
                c = e.meter
                d.config.cir, d.config.cburst, d.config.pir, d.config.pburst = c.cir, c.cburst, c.pir, c.pburst
        return self._read_direct(st, dme.table_entry, "meter", fill, dme.HasField("table_entry"))

    def _read_meter_entry(self, st, me):
        ids = [me.meter_id] if me.meter_id else sorted(st.index.meters)
        cells = []
        for mid in ids:
            info = st.index.meter(mid)
            if me.HasField("index"):   # the one cell, read now (an index out of range fails the read)
                cells.append((mid, [(me.index.index, st.pipeline.meter_get(mid, me.index.index))]))
            else:   # every cell, read as it is sent
                cells.append((mid, _meter_cells(st.pipeline, mid, info.size)))

        def answers():
            for mid, of in cells:
                for i, cfg in of:
                    e = _answer_of(me, p4runtime_pb2.MeterEntry(meter_id=mid))
                    e.index.index = i
                    if cfg is not None:
                        e.config.cir, e.config.cburst, e.config.pir, e.config.pburst = \
                            cfg.cir, cfg.cburst, cfg.pir, cfg.pburst
                    yield p4runtime_pb2.Entity(meter_entry=e)
        return answers()

    def _read_register_entry(self, st, re_):
        ids = [re_.register_id] if re_.register_id else sorted(st.index.registers)
        cells = []
        for rid in ids:
            if rid not in st.index.registers:
                raise P4RTError(StatusCode.NOT_FOUND, f"register id {rid} is not in the P4Info")
            cells.append((rid, self._cells(re_, st.pipeline.register_read, "register", rid, st.pipeline)))

        def answers():
            for rid, of in cells:
                for i, v in of:
                    e = p4runtime_pb2.RegisterEntry(register_id=rid)
                    e.index.index = i
                    e.data.bitstring = codec.encode(v)
                    yield p4runtime_pb2.Entity(register_entry=e)
        return answers()

    def _read_value_set_entry(self, st, vse):
        ids = [vse.value_set_id] if vse.value_set_id else sorted(st.index.value_sets)
        out = []
        for vid in ids:
            info = st.index.value_set(vid)
            e = p4runtime_pb2.ValueSetEntry(value_set_id=vid)
            for mem in st.pipeline.value_set_read(vid):
                pm = e.members.add()
                for fm in mem:
                    translate.encode_match(info, fm, pm.match.add())
            out.append(p4runtime_pb2.Entity(value_set_entry=e))
        return out

    def _read_packet_replication_engine_entry(self, st, pre):
        p = st.pipeline
        kind = pre.WhichOneof("type")
        if kind is None:   # PI: "Invalid PRE operation" -- not a read of both kinds
            raise P4RTError(StatusCode.INVALID_ARGUMENT, "PacketReplicationEngineEntry has no entry set")
        out = []
        if kind == "multicast_group_entry":
            gid = pre.multicast_group_entry.multicast_group_id
            if gid and gid not in p.mcast_groups:   # one named group that does not exist: the Read fails (BMv2)
                raise P4RTError(StatusCode.NOT_FOUND, f"multicast group {gid} does not exist")
            for g in sorted(p.mcast_groups) if gid == 0 else [gid]:
                e = p4runtime_pb2.Entity()
                m = e.packet_replication_engine_entry.multicast_group_entry
                m.multicast_group_id = g
                for port, rid in node_order(p.mcast_groups[g]):
                    m.replicas.add(egress_port=port, instance=rid)
                out.append(e)
        if kind == "clone_session_entry":
            sid = pre.clone_session_entry.session_id
            if sid and sid not in p.clone_sessions:
                raise P4RTError(StatusCode.NOT_FOUND, f"clone session {sid} does not exist")
            for s in sorted(p.clone_sessions) if sid == 0 else [sid]:
                reps, cos, plen = p.clone_sessions[s]
                e = p4runtime_pb2.Entity()
                c = e.packet_replication_engine_entry.clone_session_entry
                c.session_id, c.class_of_service, c.packet_length_bytes = s, cos, plen
                for port, rid in node_order(reps):   # BMv2 keeps a session as a multicast group
                    c.replicas.add(egress_port=port, instance=rid)
                out.append(e)
        return out

    def _profile_ids(self, st, profile_id: int) -> list[int]:
        if profile_id:
            st.pipeline.action_profile_members(profile_id)  # NOT_FOUND/INVALID for an unknown profile
            return [profile_id]
        return sorted(st.pipeline.action_profiles)

    def _read_action_profile_member(self, st, m):
        """By member id.  A wildcard read lists a member once per BMv2 member handle it holds, as
        simple_switch_grpc does: PI programs a weight ``w`` as ``w - 1`` extra copies of the member and
        maps each copy back to its id (a member of weight 3 in some group is read three times); a
        read of one member id lists it once."""
        out = []
        for pid in self._profile_ids(st, m.action_profile_id):
            handles = st.pipeline.action_profile_member_handles(pid) if not m.member_id else {}
            for mid, (aid, params) in sorted(st.pipeline.action_profile_members(pid).items()):
                if m.member_id and mid != m.member_id:
                    continue
                e = p4runtime_pb2.ActionProfileMember(action_profile_id=pid, member_id=mid)
                translate.encode_action(st.index, aid, params, e.action)
                out += [p4runtime_pb2.Entity(action_profile_member=e)] * handles.get(mid, 1)
        return out

    def _read_action_profile_group(self, st, g):
        out = []
        for pid in self._profile_ids(st, g.action_profile_id):
            for gid, members in sorted(st.pipeline.action_profile_group_weights(pid).items()):
                if g.group_id and gid != g.group_id:
                    continue
                e = p4runtime_pb2.ActionProfileGroup(action_profile_id=pid, group_id=gid,
                                                     max_size=st.group_max_size.get((pid, gid), 0))
                for mid in sorted(members):   # by member id, as BMv2 (not the selection order)
                    e.members.add(member_id=mid, weight=members[mid])
                out.append(p4runtime_pb2.Entity(action_profile_group=e))
        return out

    def _read_digest_entry(self, st, de):
        ids = [de.digest_id] if de.digest_id else self.digests.configured_ids()
        out = []
        for did in ids:
            st.index.digest(did)
            entry = self.digests.entry(did)
            if entry is None:
                if de.digest_id:   # one named digest that is not configured: the Read fails (BMv2)
                    raise P4RTError(StatusCode.NOT_FOUND, f"digest id {did} is not configured")
                continue
            out.append(p4runtime_pb2.Entity(digest_entry=entry))
        return out


def _check_p4info_params(st, table, entry, what: str) -> None:
    """Refuse to read an entry whose action, as this table's body has it, takes another number of
    parameters than the P4Info lists (two table actions sharing a name: compiler/action_twins) --
    only the program's own default action and const entries can hold one (writes refuse it).  Its
    data cannot be written as the P4Info's action; simple_switch_grpc 1.15.5 dies on such a read
    (PI's dump_action_data asserts ``num_params == action_data.size()``; helper opens4), so the
    read fails with a status that names the table and the action instead."""
    rt = st.pipeline.tables.get(table.id)
    if rt is not None and entry.action_id in rt.cp_mismatch:
        raise P4RTError(StatusCode.UNIMPLEMENTED,
                        f"table '{table.name}': its {what} runs action id {entry.action_id} with "
                        f"{len(entry.params)} parameter(s), but the P4Info's action of that id lists "
                        "another number (two table actions sharing a name, other parameters); such an "
                        "entry cannot be read (simple_switch_grpc dies on this read)")


def _answer_of(request, fresh):
    """The entity answering a read of a counter / meter array: ``fresh`` (its id set) when the
    request reads every cell, but a copy of the request as sent when it names one index -- PI
    copies the request there and then sets the cell's data (both counts) or the cell's config
    (cir, cburst, pir, pburst, where the cell has one).  So an id of 0 (every array) with an index
    answers each array's cell without an id, and whatever else the request carried (a meter's
    config where the cell has none, its eburst, its counter_data) comes back (simple_switch_grpc
    1.15.5, helper p4rt36's probe: test_p4rt_p4rt36.py)."""
    if request.HasField("index"):
        fresh.CopyFrom(request)
    return fresh


def _key_only(te) -> None:
    """A direct counter/meter entry names its table entry by the key alone (BMv2: no action, no
    is_const)."""
    te.ClearField("action")
    te.is_const = False
    te.idle_timeout_ns = 0


def _compared(table, entry):
    """``entry`` with each lpm value cut to the bits BMv2 compares (runtime.tables.lpm_mask: a
    prefix counted from the top of the field's byte container): BMv2 finds a program's const entry
    ``96 &&& 480`` of a bit<9> field (/4: no bit compared) by the key ``0/4`` (fuzz_p4rt seed 4277;
    a key with bits below that, ``0x60/4``, is no key: INVALID_ARGUMENT before the lookup)."""
    matches = [replace(m, value=m.value & lpm_mask(table.match_fields[m.field_id].bitwidth, m.prefix_len))
               if m.kind == "lpm" and m.prefix_len is not None and m.field_id in table.match_fields else m
               for m in entry.matches]
    return replace(entry, matches=matches)


def _strip(table, entry):
    """Drop don't-care matches the pipeline may list, so keys compare like P4Runtime's."""
    matches = [m for m in entry.matches if not translate.is_dont_care(table, m)]
    if len(matches) == len(entry.matches):
        return entry
    return replace(entry, matches=matches)


def _meter_cells(pipeline, mid: int, size: int):
    """``(index, config)`` for every cell of meter ``mid``, read as they are iterated."""
    for i in range(size):
        yield i, pipeline.meter_get(mid, i)
