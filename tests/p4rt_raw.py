"""A raw P4Runtime client for the tests that talk to a switch process over gRPC.

The project's own controller (``controller/``) is under test elsewhere; these tests drive the switch
with hand-built protobufs -- malformed, unauthorised, out-of-order -- so they use the generated stub
directly.  One client for every such test folder (switch_proc, reliability).
"""
from __future__ import annotations

import queue
import threading
import time

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc


def pipeline_config(p4info, device_config: bytes) -> p4runtime_pb2.ForwardingPipelineConfig:
    """A ForwardingPipelineConfig from its two parts."""
    return p4runtime_pb2.ForwardingPipelineConfig(p4info=p4info, p4_device_config=device_config)


class RawClient:
    """A P4Runtime client on the raw stub: unary calls plus a StreamChannel read by a thread.

    ``election_id=None`` in a call means this client's own id (the last one it arbitrated with), and
    no id at all when it never arbitrated."""

    def __init__(self, addr, device_id=0):
        self.device_id = device_id
        self.channel = grpc.insecure_channel(addr)
        grpc.channel_ready_future(self.channel).result(timeout=10)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._out: queue.Queue = queue.Queue()
        self._in: queue.Queue = queue.Queue()
        self.election_id = None
        self.stream = None
        self.stream_error = None

    def open_stream(self):
        def reqs():
            while True:
                m = self._out.get()
                if m is None:
                    return
                yield m
        self.stream = self.stub.StreamChannel(reqs())

        def reader():
            try:
                for msg in self.stream:
                    self._in.put(msg)
            except grpc.RpcError as e:
                self.stream_error = e
                self._in.put(e)
        threading.Thread(target=reader, daemon=True).start()

    def arbitrate(self, election_id=None, device_id=None, role=None, timeout=6.0):
        if self.stream is None:
            self.open_stream()
        m = p4runtime_pb2.StreamMessageRequest()
        m.arbitration.device_id = self.device_id if device_id is None else device_id
        if election_id is not None:
            m.arbitration.election_id.high, m.arbitration.election_id.low = election_id >> 64, election_id & (2**64 - 1)
            self.election_id = election_id
        if role is not None:
            m.arbitration.role.name = role
        self._out.put(m)
        return self.expect("arbitration", timeout)

    def send(self, **kw):
        self._out.put(p4runtime_pb2.StreamMessageRequest(**kw))

    def expect(self, kind, timeout=6.0):
        """Next stream message of ``kind`` (others are skipped); raises on stream error."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} message within {timeout}s")
            try:
                m = self._in.get(timeout=left)
            except queue.Empty:
                continue
            if isinstance(m, grpc.RpcError):
                if kind == "rpc_error":
                    return m
                raise m
            if m.WhichOneof("update") == kind:
                return getattr(m, kind)

    def no_message(self, kind, wait=0.3):
        try:
            self.expect(kind, wait)
        except AssertionError:
            return True
        return False

    def _eid(self, req, election_id):
        eid = self.election_id if election_id is None else election_id
        if eid is not None:
            req.election_id.high, req.election_id.low = eid >> 64, eid & (2**64 - 1)

    def set_pipeline(self, config, action="VERIFY_AND_COMMIT", election_id=None):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.Action.Value(action)
        if config is not None:
            req.config.CopyFrom(config)
        self._eid(req, election_id)
        return self.stub.SetForwardingPipelineConfig(req, timeout=20)

    def write(self, *updates, election_id=None, atomicity=0):
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, updates=updates, atomicity=atomicity)
        self._eid(req, election_id)
        return self.stub.Write(req, timeout=10)

    def read(self, *entities):
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id, entities=entities)
        return [e for resp in self.stub.Read(req, timeout=10) for e in resp.entities]

    def close(self):
        self._out.put(None)
        if self.stream is not None:
            self.stream.cancel()
        self.channel.close()


def update(kind, **entity):
    """Update(type=kind, entity=Entity(**entity))."""
    return p4runtime_pb2.Update(type=p4runtime_pb2.Update.Type.Value(kind),
                                entity=p4runtime_pb2.Entity(**entity))


def write_errors(exc: grpc.RpcError):
    """Decode the per-update p4.v1.Error list of a failed Write: [(code name, message)]."""
    from google.rpc import code_pb2, status_pb2
    md = dict(exc.trailing_metadata() or ())
    st = status_pb2.Status.FromString(md["grpc-status-details-bin"])
    out = []
    for d in st.details:
        e = p4runtime_pb2.Error()
        assert d.Unpack(e), "detail is not a p4.v1.Error"
        out.append((code_pb2.Code.Name(e.canonical_code), e.message))
    return out
