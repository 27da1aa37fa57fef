"""A small in-process P4Runtime server for controller unit tests (a fake: no data plane).

Stores table entries (keyed by table, match, priority), multicast groups and digest
configs from Write; answers Read, Get/SetForwardingPipelineConfig, and arbitration on
StreamChannel (highest election id is primary); reports per-update errors the way
P4Runtime does (status UNKNOWN + one p4.v1.Error per update in the details).
``push_digest(DigestList)`` sends a digest to the primary's stream.  The integration
tests run the real ``checkmate-switch`` instead.
"""
from __future__ import annotations

import queue
import threading
from concurrent import futures

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

U = p4runtime_pb2.Update


class FakeP4Runtime(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, device_id: int = 0):
        self.device_id = device_id
        self.config = None
        self.entries: dict[bytes, p4runtime_pb2.TableEntry] = {}
        self.groups: dict[int, p4runtime_pb2.MulticastGroupEntry] = {}
        self.digests: dict[int, p4runtime_pb2.DigestEntry] = {}
        self.streams: dict[int, queue.Queue] = {}  # election id -> outbound queue
        self.writes = 0
        self.acks: list[tuple[int, int]] = []
        self.lock = threading.Lock()

    def _check_device(self, device_id, context):
        if device_id != self.device_id:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no device {device_id}")

    @staticmethod
    def _key(te) -> bytes:
        k = p4runtime_pb2.TableEntry(table_id=te.table_id, priority=te.priority)
        k.match.extend(sorted(te.match, key=lambda m: m.field_id))
        return k.SerializeToString(deterministic=True)

    def SetForwardingPipelineConfig(self, request, context):
        self._check_device(request.device_id, context)
        with self.lock:
            self.config = request.config
            self.entries.clear()
            self.groups.clear()
            self.digests.clear()
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        self._check_device(request.device_id, context)
        resp = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        if self.config is not None:
            resp.config.p4info.CopyFrom(self.config.p4info)
            resp.config.cookie.CopyFrom(self.config.cookie)
        return resp

    def _apply(self, u) -> tuple[int, str]:
        which = u.entity.WhichOneof("entity")
        if which == "table_entry":
            te = u.entity.table_entry
            k = self._key(te)
            if u.type == U.INSERT and k in self.entries:
                return code_pb2.ALREADY_EXISTS, "entry exists"
            if u.type in (U.MODIFY, U.DELETE) and k not in self.entries:
                return code_pb2.NOT_FOUND, "no such entry"
            if u.type == U.DELETE:
                del self.entries[k]
            else:
                self.entries[k] = te
        elif which == "packet_replication_engine_entry":
            g = u.entity.packet_replication_engine_entry.multicast_group_entry
            gid = g.multicast_group_id
            if u.type == U.INSERT and gid in self.groups:
                return code_pb2.ALREADY_EXISTS, f"group {gid} exists"
            if u.type in (U.MODIFY, U.DELETE) and gid not in self.groups:
                return code_pb2.NOT_FOUND, f"group {gid} missing"
            if u.type == U.DELETE:
                del self.groups[gid]
            else:
                self.groups[gid] = g
        elif which == "digest_entry":
            d = u.entity.digest_entry
            if u.type == U.INSERT and d.digest_id in self.digests:
                return code_pb2.ALREADY_EXISTS, "digest configured"
            self.digests[d.digest_id] = d
        else:
            return code_pb2.UNIMPLEMENTED, which
        return code_pb2.OK, ""

    def Write(self, request, context):
        self._check_device(request.device_id, context)
        with self.lock:
            self.writes += 1
            results = [self._apply(u) for u in request.updates]
        if any(c != code_pb2.OK for c, _ in results):
            st = status_pb2.Status(code=code_pb2.UNKNOWN, message="write failed")
            for c, m in results:
                a = any_pb2.Any()
                a.Pack(p4runtime_pb2.Error(canonical_code=c, message=m))
                st.details.append(a)
            context.abort_with_status(_RichStatus(st))
        return p4runtime_pb2.WriteResponse()

    def Read(self, request, context):
        self._check_device(request.device_id, context)
        resp = p4runtime_pb2.ReadResponse()
        with self.lock:
            for ent in request.entities:
                which = ent.WhichOneof("entity")
                if which == "table_entry":
                    tid = ent.table_entry.table_id
                    for te in self.entries.values():
                        if tid in (0, te.table_id):
                            resp.entities.add().table_entry.CopyFrom(te)
                elif which == "packet_replication_engine_entry":
                    for g in self.groups.values():
                        resp.entities.add().packet_replication_engine_entry.multicast_group_entry.CopyFrom(g)
                elif which == "digest_entry":
                    d = self.digests.get(ent.digest_entry.digest_id)
                    if d is not None:
                        resp.entities.add().digest_entry.CopyFrom(d)
        yield resp

    def StreamChannel(self, request_iterator, context):
        out: queue.Queue = queue.Queue()
        eid_holder = {}

        def reader():
            try:
                for req in request_iterator:
                    if req.WhichOneof("update") == "arbitration":
                        arb = req.arbitration
                        if arb.device_id != self.device_id:
                            out.put(("abort", f"no device {arb.device_id}"))
                            return
                        eid = (arb.election_id.high << 64) | arb.election_id.low
                        eid_holder["id"] = eid
                        with self.lock:
                            self.streams[eid] = out
                            top = max(self.streams)
                        resp = p4runtime_pb2.StreamMessageResponse()
                        resp.arbitration.device_id = self.device_id
                        resp.arbitration.election_id.low = top
                        resp.arbitration.status.code = code_pb2.OK if eid == top else code_pb2.ALREADY_EXISTS
                        out.put(resp)
                    elif req.WhichOneof("update") == "digest_ack":
                        self.acks.append((req.digest_ack.digest_id, req.digest_ack.list_id))
            except grpc.RpcError:
                pass  # the client went away
            finally:
                out.put(None)
        threading.Thread(target=reader, daemon=True).start()
        try:
            while True:
                item = out.get()
                if item is None:
                    return
                if isinstance(item, tuple):
                    context.abort(grpc.StatusCode.NOT_FOUND, item[1])
                yield item
        finally:
            with self.lock:
                self.streams.pop(eid_holder.get("id"), None)

    def push_digest(self, dl: p4runtime_pb2.DigestList) -> None:
        with self.lock:
            if self.streams:
                resp = p4runtime_pb2.StreamMessageResponse()
                resp.digest.CopyFrom(dl)
                self.streams[max(self.streams)].put(resp)


class _RichStatus(grpc.Status):
    def __init__(self, st: status_pb2.Status):
        self.code = grpc.StatusCode.UNKNOWN
        self.details = st.message
        self.trailing_metadata = (("grpc-status-details-bin", st.SerializeToString()),)


def serve_fake(device_id: int = 0):
    """Start a fake on 127.0.0.1:<free port>; returns (server, servicer, 'addr')."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    fake = FakeP4Runtime(device_id)
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, fake, f"127.0.0.1:{port}"
