"""The P4Runtime gRPC service (``p4.v1.P4Runtime``) of checkmate-switch.

One :class:`P4RuntimeService` serves one device.  It talks to the data plane only
through a small *device* object (the switch daemon, or a test double):

``device.install(pipeline_or_None)``  make a pipeline live (atomic swap)
``device.packet_out(frame)``          inject a frame on the CPU port
``device.packet_in_handler = fn``     fn(frame) for every frame sent to the CPU port

RPCs and their checks, in the order they are applied:

* every RPC that names a device id must name this one (NOT_FOUND otherwise);
* Write / Read / GetForwardingPipelineConfig need a committed pipeline
  (FAILED_PRECONDITION);
* Write and SetForwardingPipelineConfig need the primary's election id for the
  role (PERMISSION_DENIED), see :mod:`.arbitration`;
* Write supports CONTINUE_ON_ERROR only (the default); ROLLBACK_ON_ERROR and
  DATAPLANE_ATOMIC are UNIMPLEMENTED.  Updates are applied in order and a failed
  update does not stop the batch; errors are reported per update (:mod:`.errors`).

Control-plane writes are serialised by one lock; packets keep flowing because the
pipeline holds its own lock only for the duration of each call.
"""
from __future__ import annotations

import logging
import queue
import threading
import time

import grpc
from grpc import StatusCode
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from switch.runtime import CounterData

from . import codec, translate
from .arbitration import Arbiter, Client, election_int, role_key
from .digests import DigestEngine
from .errors import P4RTError, abort, abort_with_update_errors, from_pipeline_error, grpc_code_value
from .packetio import build_packet_out, split_packet_in
from .state import ForwardingState, build_state

log = logging.getLogger("checkmate.switch.p4rt")

API_VERSION = "1.4.1"
_READ_BATCH = 512
_END = object()

Update = p4runtime_pb2.Update
SetReq = p4runtime_pb2.SetForwardingPipelineConfigRequest
GetReq = p4runtime_pb2.GetForwardingPipelineConfigRequest


def _role_of(req) -> str:
    if req.role:
        return req.role
    return str(req.role_id) if getattr(req, "role_id", 0) else ""


class P4RuntimeService(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, device, device_id: int = 0):
        self.device = device
        self.device_id = device_id
        self.arbiter = Arbiter(device_id)
        self.digests = DigestEngine(self._send_to_primary)
        self._state: ForwardingState | None = None
        self._saved: ForwardingState | None = None
        self._write_lock = threading.Lock()
        self.packet_in_dropped = 0
        device.packet_in_handler = self._on_packet_in

    # ================================================================== helpers
    def _check_device(self, device_id: int) -> None:
        if device_id != self.device_id:
            raise P4RTError(StatusCode.NOT_FOUND,
                            f"device id {device_id} is not this switch (device id {self.device_id})")

    def _need_state(self) -> ForwardingState:
        st = self._state
        if st is None:
            raise P4RTError(StatusCode.FAILED_PRECONDITION,
                            "no forwarding pipeline: call SetForwardingPipelineConfig first")
        return st

    def _send_to_primary(self, resp) -> bool:
        prim = self.arbiter.primary("")
        if prim is None:
            return False
        prim.send(resp)
        return True

    def _on_packet_in(self, frame: bytes) -> None:
        st = self._state
        if st is None:
            return
        prim = self.arbiter.primary("")
        if prim is None:
            self.packet_in_dropped += 1
            return
        resp = p4runtime_pb2.StreamMessageResponse()
        resp.packet.CopyFrom(split_packet_in(st.index.packet_in, frame))
        prim.send(resp)

    def _on_digest(self, digest_id: int, values: tuple) -> None:
        self.digests.offer(digest_id, values)

    # ================================================================== Capabilities
    def Capabilities(self, request, context):
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    # ================================================================== pipeline config
    def SetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            eid = election_int(request.election_id) if request.HasField("election_id") else None
            self.arbiter.check_primary(_role_of(request), eid, "SetForwardingPipelineConfig")
            with self._write_lock:
                self._set_config(request)
        except P4RTError as err:
            log.info("SetForwardingPipelineConfig refused: %s", err)
            abort(context, err)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def _set_config(self, request) -> None:
        action = request.action
        if action == SetReq.UNSPECIFIED:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, "SetForwardingPipelineConfig: action is UNSPECIFIED")
        if action == SetReq.COMMIT:
            if self._saved is None:
                raise P4RTError(StatusCode.FAILED_PRECONDITION,
                                "COMMIT: no saved config (send VERIFY_AND_SAVE first)")
            self._commit(self._saved)
            self._saved = None
            return
        if not request.HasField("config"):
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"{SetReq.Action.Name(action)}: no config given")
        new = build_state(request.config)
        if action == SetReq.VERIFY:
            return
        if action == SetReq.VERIFY_AND_SAVE:
            self._saved = new
            return
        if action == SetReq.VERIFY_AND_COMMIT:
            self._commit(new)
            return
        if action == SetReq.RECONCILE_AND_COMMIT:
            if self._state is not None:
                self._reconcile(self._state, new)
            self._commit(new, keep_digests=True)
            return
        raise P4RTError(StatusCode.UNIMPLEMENTED, f"SetForwardingPipelineConfig action {action} not supported")

    def _commit(self, new: ForwardingState, keep_digests: bool = False) -> None:
        if not keep_digests:
            self.digests.reset()
        else:
            for did in self.digests.configured_ids():
                if did not in new.index.digests:
                    self.digests.remove(did)
        new.pipeline.on_digest = self._on_digest
        self._state = new
        self.device.install(new.pipeline)
        log.info("pipeline committed: %s (%d tables)", new.pipeline.name, len(new.index.tables))

    def _reconcile(self, old: ForwardingState, new: ForwardingState) -> None:
        """Carry forwarding state over to ``new``; fail (keeping ``old``) if something does not fit."""
        op, np_ = old.pipeline, new.pipeline
        try:
            for tid, tinfo in old.index.tables.items():
                if tid not in new.index.tables:
                    if op.table_entries(tid):
                        raise P4RTError(StatusCode.FAILED_PRECONDITION,
                                        f"RECONCILE_AND_COMMIT: table '{tinfo.name}' has entries but is not in the new program")
                    continue
                for e in op.table_entries(tid):
                    if not e.is_const:
                        np_.table_insert(tid, e)
                d = op.table_get_default(tid)
                nd = np_.table_get_default(tid)
                if (d.action_id, d.params) != (nd.action_id, nd.params) and not new.index.tables[tid].const_default_action_id:
                    np_.table_set_default(tid, d.action_id, d.params)
            for gid, reps in op.mcast_groups.items():
                np_.mcast_group_set(gid, reps)
            for sid, (reps, cos, plen) in op.clone_sessions.items():
                np_.clone_session_set(sid, reps, cos, plen)
        except P4RTError:
            raise
        except Exception as exc:  # a pipeline error: the state does not fit the new program
            raise P4RTError(StatusCode.FAILED_PRECONDITION,
                            f"RECONCILE_AND_COMMIT: cannot carry state over: {from_pipeline_error(exc).message}") from None

    def load_initial(self, config) -> None:
        """Commit a config given on the command line (as VERIFY_AND_COMMIT, no arbitration)."""
        with self._write_lock:
            self._commit(build_state(config))

    def GetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            st = self._need_state()
        except P4RTError as err:
            abort(context, err)
        resp = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        cfg = resp.config
        rt = request.response_type
        if st.cookie or rt == GetReq.COOKIE_ONLY:
            cfg.cookie.cookie = st.cookie
        if rt in (GetReq.ALL, GetReq.P4INFO_AND_COOKIE):
            cfg.p4info.CopyFrom(st.p4info)
        if rt in (GetReq.ALL, GetReq.DEVICE_CONFIG_AND_COOKIE):
            cfg.p4_device_config = st.device_config
        return resp

    # ================================================================== Write
    def Write(self, request, context):
        try:
            self._check_device(request.device_id)
            st = self._need_state()
            eid = election_int(request.election_id) if request.HasField("election_id") else None
            self.arbiter.check_primary(_role_of(request), eid, "Write")
            if request.atomicity != p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR:
                raise P4RTError(StatusCode.UNIMPLEMENTED,
                                f"Write atomicity {p4runtime_pb2.WriteRequest.Atomicity.Name(request.atomicity)} "
                                f"is not supported (only CONTINUE_ON_ERROR)")
        except P4RTError as err:
            abort(context, err)
        results: list[P4RTError | None] = []
        with self._write_lock:
            for upd in request.updates:
                try:
                    self._apply(st, upd)
                    results.append(None)
                except Exception as exc:  # every failure becomes that update's p4.v1.Error
                    err = from_pipeline_error(exc)
                    if err.code == StatusCode.INTERNAL:
                        log.exception("Write: internal error")
                    results.append(err)
        if any(r is not None for r in results):
            log.info("Write: %s", "; ".join(str(r) for r in results if r is not None))
            abort_with_update_errors(context, results)
        return p4runtime_pb2.WriteResponse()

    def _apply(self, st: ForwardingState, upd) -> None:
        if upd.type == Update.UNSPECIFIED:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, "update type is UNSPECIFIED")
        ent = upd.entity
        kind = ent.WhichOneof("entity")
        handler = getattr(self, f"_write_{kind}", None) if kind else None
        if handler is None:
            raise P4RTError(StatusCode.UNIMPLEMENTED if kind else StatusCode.INVALID_ARGUMENT,
                            f"Write of {kind} is not supported" if kind else "update has no entity")
        handler(st, upd.type, getattr(ent, kind))

    def _write_table_entry(self, st, op, te) -> None:
        table, entry = translate.decode_table_entry(st.index, te, need_action=op != Update.DELETE)
        p = st.pipeline
        if te.is_default_action:
            if op != Update.MODIFY:
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                f"table '{table.name}': the default entry can only be MODIFYed, not {Update.Type.Name(op)}")
            if table.const_default_action_id:
                raise P4RTError(StatusCode.PERMISSION_DENIED,
                                f"table '{table.name}': the default action is const")
            if te.HasField("action"):
                p.table_set_default(table.id, entry.action_id, entry.params)
            else:  # no action: back to the program's initial default action
                with p.lock:
                    p.tables[table.id].reset_default()
            return
        if table.is_const:
            raise P4RTError(StatusCode.PERMISSION_DENIED,
                            f"table '{table.name}' is const (entries come from the program)")
        if op == Update.INSERT:
            p.table_insert(table.id, entry)
        elif op == Update.MODIFY:
            p.table_modify(table.id, entry)
        else:
            p.table_delete(table.id, entry)

    def _write_counter_entry(self, st, op, ce) -> None:
        info = st.index.counter(ce.counter_id)
        if op != Update.MODIFY:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"counter '{info.name}': only MODIFY is allowed, not {Update.Type.Name(op)}")
        data = CounterData(packets=ce.data.packet_count, bytes=ce.data.byte_count)
        if ce.HasField("index"):
            st.pipeline.counter_write(info.id, ce.index.index, data)
        else:  # no index: every cell
            for i in range(info.size):
                st.pipeline.counter_write(info.id, i, data)

    def _write_direct_counter_entry(self, st, op, dce) -> None:
        table, entry = translate.decode_table_entry(st.index, dce.table_entry, need_action=False)
        if op != Update.MODIFY:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"direct counter of table '{table.name}': only MODIFY is allowed")
        if not table.direct_counter_id:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"table '{table.name}' has no direct counter")
        st.pipeline.direct_counter_write(table.id, entry, CounterData(dce.data.packet_count, dce.data.byte_count))

    def _write_meter_entry(self, st, op, me) -> None:
        info = st.index.meter(me.meter_id)
        if op != Update.MODIFY:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"meter '{info.name}': only MODIFY is allowed")
        cfg = translate.decode_meter_config(me.config) if me.HasField("config") else None
        idxs = [me.index.index] if me.HasField("index") else range(info.size)
        for i in idxs:
            st.pipeline.meter_set(info.id, i, cfg)

    def _write_direct_meter_entry(self, st, op, dme) -> None:
        table, entry = translate.decode_table_entry(st.index, dme.table_entry, need_action=False)
        if op != Update.MODIFY:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"direct meter of table '{table.name}': only MODIFY is allowed")
        cfg = translate.decode_meter_config(dme.config) if dme.HasField("config") else None
        st.pipeline.direct_meter_set(table.id, entry, cfg)

    def _write_register_entry(self, st, op, re_) -> None:
        info = st.index.registers.get(re_.register_id)
        if info is None:
            raise P4RTError(StatusCode.NOT_FOUND, f"register id {re_.register_id} is not in the P4Info")
        if op != Update.MODIFY:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"register '{info.name}': only MODIFY is allowed")
        if re_.data.WhichOneof("data") != "bitstring":
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"register '{info.name}': data must be a bitstring")
        width = st.pipeline.registers[info.id].width
        value = codec.decode(re_.data.bitstring, width, f"register '{info.name}'")
        idxs = [re_.index.index] if re_.HasField("index") else range(info.size)
        for i in idxs:
            st.pipeline.register_write(info.id, i, value)

    @staticmethod
    def _replicas(what: str, reps) -> list[tuple[int, int]]:
        out = []
        for r in reps:
            kind = r.WhichOneof("port_kind")
            if kind == "port":
                port = codec.decode(r.port, 32, f"{what} replica port")
            else:
                port = r.egress_port
            out.append((port, r.instance))
        return out

    def _write_packet_replication_engine_entry(self, st, op, pre) -> None:
        p = st.pipeline
        kind = pre.WhichOneof("type")
        if kind == "multicast_group_entry":
            g = pre.multicast_group_entry
            gid = g.multicast_group_id
            what = f"multicast group {gid}"
            exists = gid in p.mcast_groups
            if gid == 0:
                raise P4RTError(StatusCode.INVALID_ARGUMENT, "multicast group id 0 is reserved (no multicast)")
            if op == Update.INSERT and exists:
                raise P4RTError(StatusCode.ALREADY_EXISTS, f"{what} already exists")
            if op in (Update.MODIFY, Update.DELETE) and not exists:
                raise P4RTError(StatusCode.NOT_FOUND, f"{what} does not exist")
            if op == Update.DELETE:
                p.mcast_group_delete(gid)
            else:
                p.mcast_group_set(gid, self._replicas(what, g.replicas))
        elif kind == "clone_session_entry":
            c = pre.clone_session_entry
            sid = c.session_id
            what = f"clone session {sid}"
            exists = sid in p.clone_sessions
            if op == Update.INSERT and exists:
                raise P4RTError(StatusCode.ALREADY_EXISTS, f"{what} already exists")
            if op in (Update.MODIFY, Update.DELETE) and not exists:
                raise P4RTError(StatusCode.NOT_FOUND, f"{what} does not exist")
            if op == Update.DELETE:
                p.clone_session_delete(sid)
            else:
                p.clone_session_set(sid, self._replicas(what, c.replicas), c.class_of_service,
                                    c.packet_length_bytes)
        else:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, "PacketReplicationEngineEntry has no entry set")

    def _write_digest_entry(self, st, op, de) -> None:
        info = st.index.digest(de.digest_id)
        exists = self.digests.is_configured(info.id)
        if op == Update.INSERT and exists:
            raise P4RTError(StatusCode.ALREADY_EXISTS, f"digest '{info.name}' is already configured")
        if op in (Update.MODIFY, Update.DELETE) and not exists:
            raise P4RTError(StatusCode.NOT_FOUND, f"digest '{info.name}' is not configured")
        if op == Update.DELETE:
            self.digests.remove(info.id)
            return
        if not de.HasField("config"):
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"digest '{info.name}': config missing")
        if de.config.max_list_size < 0:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"digest '{info.name}': max_list_size {de.config.max_list_size} < 0")
        self.digests.configure(info.id, info.member_widths, de.config, insert=op == Update.INSERT)

    # ================================================================== Read
    def Read(self, request, context):
        try:
            self._check_device(request.device_id)
            st = self._need_state()
            entities = []
            for ent in request.entities:
                kind = ent.WhichOneof("entity")
                reader = getattr(self, f"_read_{kind}", None) if kind else None
                if reader is None:
                    raise P4RTError(StatusCode.UNIMPLEMENTED if kind else StatusCode.INVALID_ARGUMENT,
                                    f"Read of {kind} is not supported" if kind else "read entity has no type")
                entities.extend(reader(st, getattr(ent, kind)))
        except Exception as exc:
            abort(context, from_pipeline_error(exc))
        for i in range(0, max(len(entities), 1), _READ_BATCH):
            yield p4runtime_pb2.ReadResponse(entities=entities[i:i + _READ_BATCH])

    def _tables_for(self, st, table_id: int):
        if table_id == 0:
            return list(st.index.tables.values())
        return [st.index.table(table_id)]

    def _read_table_entry(self, st, te):
        with_counter = te.HasField("counter_data")
        out = []
        keyed = bool(te.match) or te.priority
        for table in self._tables_for(st, te.table_id):
            if te.is_default_action:
                d = st.pipeline.table_get_default(table.id)
                d.is_default = True
                out.append(p4runtime_pb2.Entity(table_entry=translate.encode_table_entry(
                    st.index, table, d, with_counter=False)))
                continue
            want = None
            if keyed:
                _, probe = translate.decode_table_entry(st.index, te, need_action=False)
                want = translate.key_of(probe)
            for e in st.pipeline.table_entries(table.id):
                if want is not None and translate.key_of(_strip(table, e)) != want:
                    continue
                out.append(p4runtime_pb2.Entity(table_entry=translate.encode_table_entry(
                    st.index, table, e, with_counter=with_counter)))
        return out

    def _read_counter_entry(self, st, ce):
        ids = [ce.counter_id] if ce.counter_id else sorted(st.index.counters)
        out = []
        for cid in ids:
            info = st.index.counter(cid)
            if ce.HasField("index"):
                cells = [(ce.index.index, st.pipeline.counter_read(cid, ce.index.index))]
            else:
                cells = enumerate(st.pipeline.counter_read(cid))
            for i, d in cells:
                e = p4runtime_pb2.CounterEntry(counter_id=info.id)
                e.index.index = i
                e.data.packet_count, e.data.byte_count = d.packets, d.bytes
                out.append(p4runtime_pb2.Entity(counter_entry=e))
        return out

    def _read_direct_counter_entry(self, st, dce):
        te = dce.table_entry
        out = []
        keyed = bool(te.match) or te.priority
        for table in self._tables_for(st, te.table_id):
            if not table.direct_counter_id:
                if te.table_id:
                    raise P4RTError(StatusCode.INVALID_ARGUMENT, f"table '{table.name}' has no direct counter")
                continue
            want = None
            if keyed:
                _, probe = translate.decode_table_entry(st.index, te, need_action=False)
                want = translate.key_of(probe)
            for e in st.pipeline.table_entries(table.id):
                if want is not None and translate.key_of(_strip(table, e)) != want:
                    continue
                d = p4runtime_pb2.DirectCounterEntry()
                d.table_entry.CopyFrom(translate.encode_table_entry(st.index, table, e, with_counter=False,
                                                                    with_meter=False))
                c = e.counter or CounterData()
                d.data.packet_count, d.data.byte_count = c.packets, c.bytes
                out.append(p4runtime_pb2.Entity(direct_counter_entry=d))
        return out

    def _read_meter_entry(self, st, me):
        ids = [me.meter_id] if me.meter_id else sorted(st.index.meters)
        out = []
        for mid in ids:
            info = st.index.meter(mid)
            idxs = [me.index.index] if me.HasField("index") else range(info.size)
            for i in idxs:
                cfg = st.pipeline.meter_get(mid, i)
                e = p4runtime_pb2.MeterEntry(meter_id=mid)
                e.index.index = i
                if cfg is not None:
                    e.config.cir, e.config.cburst, e.config.pir, e.config.pburst = cfg.cir, cfg.cburst, cfg.pir, cfg.pburst
                out.append(p4runtime_pb2.Entity(meter_entry=e))
        return out

    def _read_register_entry(self, st, re_):
        ids = [re_.register_id] if re_.register_id else sorted(st.index.registers)
        out = []
        for rid in ids:
            if rid not in st.index.registers:
                raise P4RTError(StatusCode.NOT_FOUND, f"register id {rid} is not in the P4Info")
            if re_.HasField("index"):
                cells = [(re_.index.index, st.pipeline.register_read(rid, re_.index.index))]
            else:
                cells = enumerate(st.pipeline.register_read(rid))
            for i, v in cells:
                e = p4runtime_pb2.RegisterEntry(register_id=rid)
                e.index.index = i
                e.data.bitstring = codec.encode(v)
                out.append(p4runtime_pb2.Entity(register_entry=e))
        return out

    def _read_packet_replication_engine_entry(self, st, pre):
        p = st.pipeline
        kind = pre.WhichOneof("type")
        out = []
        if kind == "multicast_group_entry" or kind is None:
            gid = pre.multicast_group_entry.multicast_group_id if kind else 0
            for g in sorted(p.mcast_groups) if gid == 0 else ([gid] if gid in p.mcast_groups else []):
                e = p4runtime_pb2.Entity()
                m = e.packet_replication_engine_entry.multicast_group_entry
                m.multicast_group_id = g
                for port, rid in p.mcast_groups[g]:
                    m.replicas.add(egress_port=port, instance=rid)
                out.append(e)
        if kind == "clone_session_entry" or kind is None:
            sid = pre.clone_session_entry.session_id if kind else 0
            for s in sorted(p.clone_sessions) if sid == 0 else ([sid] if sid in p.clone_sessions else []):
                reps, cos, plen = p.clone_sessions[s]
                e = p4runtime_pb2.Entity()
                c = e.packet_replication_engine_entry.clone_session_entry
                c.session_id, c.class_of_service, c.packet_length_bytes = s, cos, plen
                for port, rid in reps:
                    c.replicas.add(egress_port=port, instance=rid)
                out.append(e)
        return out

    def _read_digest_entry(self, st, de):
        ids = [de.digest_id] if de.digest_id else self.digests.configured_ids()
        out = []
        for did in ids:
            st.index.digest(did)
            cfg = self.digests.config(did)
            if cfg is None:
                continue
            e = p4runtime_pb2.Entity()
            e.digest_entry.digest_id = did
            e.digest_entry.config.CopyFrom(cfg)
            out.append(e)
        return out

    # ================================================================== StreamChannel
    def StreamChannel(self, request_iterator, context):
        outq: queue.Queue = queue.Queue()
        client = Client(send=outq.put, peer=context.peer())
        reader = threading.Thread(target=self._stream_reader, args=(client, request_iterator, outq),
                                  name=f"p4rt-stream-{client.id}", daemon=True)
        reader.start()
        try:
            while True:
                item = outq.get()
                if item is _END:
                    return
                if isinstance(item, P4RTError):
                    log.info("stream %s (%s) closed: %s", client.id, client.peer, item)
                    context.abort(item.code, item.message)
                yield item
        finally:
            for c, msg in self.arbiter.remove(client):
                c.send(msg)

    def _stream_reader(self, client: Client, request_iterator, outq: queue.Queue) -> None:
        try:
            for req in request_iterator:
                kind = req.WhichOneof("update")
                if kind == "arbitration":
                    try:
                        for c, msg in self.arbiter.update(client, req.arbitration):
                            c.send(msg)
                    except P4RTError as err:
                        outq.put(err)
                        return
                elif client.role is None:
                    self._stream_error(client, StatusCode.FAILED_PRECONDITION,
                                       f"{kind} before MasterArbitrationUpdate: arbitrate first", req)
                elif kind == "packet":
                    self._packet_out(client, req)
                elif kind == "digest_ack":
                    self.digests.ack(req.digest_ack.digest_id, req.digest_ack.list_id)
                else:
                    self._stream_error(client, StatusCode.UNIMPLEMENTED, f"stream message {kind} not supported", req)
        except grpc.RpcError:
            pass
        except Exception:  # never let a reader die silently: close the stream with INTERNAL
            log.exception("stream reader failed")
            outq.put(P4RTError(StatusCode.INTERNAL, "stream reader failed (see switch log)"))
            return
        outq.put(_END)

    def _packet_out(self, client: Client, req) -> None:
        if not self.arbiter.is_primary(client):
            self._stream_error(client, StatusCode.PERMISSION_DENIED,
                               "PacketOut from a client that is not the primary", req)
            return
        try:
            st = self._need_state()
            frame = build_packet_out(st.index.packet_out, req.packet)
            self.device.packet_out(frame)
        except Exception as exc:
            err = from_pipeline_error(exc)
            self._stream_error(client, err.code, err.message, req)

    @staticmethod
    def _stream_error(client: Client, code: StatusCode, message: str, req) -> None:
        resp = p4runtime_pb2.StreamMessageResponse()
        e = resp.error
        e.canonical_code = grpc_code_value(code)
        e.message = message
        if req.WhichOneof("update") == "packet":
            e.packet_out.packet_out.CopyFrom(req.packet)
        elif req.WhichOneof("update") == "digest_ack":
            e.digest_list_ack.digest_list_ack.CopyFrom(req.digest_ack)
        client.send(resp)

    def close(self) -> None:
        self.digests.close()


def _strip(table, entry):
    """Drop don't-care matches the pipeline may list, so keys compare like P4Runtime's."""
    matches = [m for m in entry.matches if not translate.is_dont_care(table, m)]
    if len(matches) == len(entry.matches):
        return entry
    from dataclasses import replace
    return replace(entry, matches=matches)
