"""P4Runtime gRPC client: the top layer of the controller's plumbing.

One :class:`SwitchConnection` per switch.  ``connect()`` opens the channel, opens the
StreamChannel and sends a MasterArbitrationUpdate with our device id and election id;
it returns once the switch answered (primary, or backup when ``primary=False`` is
acceptable) and raises :class:`~controller.errors.ConnectionFailed` -- naming the
address, device id and election id and the reason -- when nothing answers, the switch
refuses the device id (NOT_FOUND: not simple_switch_grpc nor checkmate-switch, which
arbitrate any device id as PI does; a wrong one fails at the first pipeline push), or
someone with a higher election id is primary.

A background thread drains the stream: arbitration answers, ``DigestList`` messages
(queued for :meth:`digests`, acknowledged by :meth:`ack`) and stream errors (logged).
Writes carry our election id; a refused batch raises
:class:`~controller.errors.WriteFailed` with one sentence per failed update, produced by
the ``describe`` callback the caller passes (the layer that knows P4 names).

This module knows nothing about P4 names: the P4Info index and user objects live in
:mod:`controller.p4info` and :mod:`controller.entities`.
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Callable, Iterable, Iterator

import grpc
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from .errors import ConnectionFailed, ReadFailed, WriteFailed, decode_write_error, rpc_reason

log = logging.getLogger("checkmate.controller")

_STOP = object()


def _uint128(value: int) -> p4runtime_pb2.Uint128:
    return p4runtime_pb2.Uint128(high=value >> 64, low=value & ((1 << 64) - 1))


class SwitchConnection:
    """A P4Runtime session with one switch (see module docstring)."""

    def __init__(self, addr: str, device_id: int = 0, election_id: int = 1, *, name: str | None = None,
                 timeout: float = 5.0, credentials: grpc.ChannelCredentials | None = None):
        self.addr, self.device_id, self.election_id = addr, device_id, election_id
        #: TLS (``grpc.ssl_channel_credentials``) for a switch serving P4Runtime over TLS; None: plaintext
        self.credentials = credentials
        self.name = name or addr
        self.timeout = timeout
        self.channel: grpc.Channel | None = None
        self.stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self.is_primary = False
        self._requests: queue.Queue = queue.Queue()
        self._arbitration: queue.Queue = queue.Queue()
        self._digests: queue.Queue = queue.Queue()
        self._stream_error: grpc.RpcError | None = None
        self._reader: threading.Thread | None = None
        self._closed = False
        self.stream_ended = threading.Event()

    # -- lifecycle ------------------------------------------------------------------
    def fail(self, reason: str) -> ConnectionFailed:
        return ConnectionFailed(self.addr, self.device_id, self.election_id, reason)

    def connect(self, *, primary: bool = True, arbitrate: bool = True) -> "SwitchConnection":
        """Open the session.  ``arbitrate=False`` opens no stream (read-only use: Read and
        GetForwardingPipelineConfig need no arbitration), so it never disturbs the primary."""
        self.channel = grpc.secure_channel(self.addr, self.credentials) if self.credentials \
            else grpc.insecure_channel(self.addr)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.timeout)
        except grpc.FutureTimeoutError:
            self.close()
            raise self.fail(f"no gRPC server answered within {self.timeout:g}s -- is the switch running and "
                            "listening on that address?") from None
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        if not arbitrate:
            return self
        stream = self.stub.StreamChannel(self._request_iter())
        self._reader = threading.Thread(target=self._read_stream, args=(stream,),
                                        name=f"p4rt-stream-{self.name}", daemon=True)
        self._reader.start()
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.CopyFrom(_uint128(self.election_id))
        self._requests.put(req)
        try:
            arb = self._arbitration.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise self.fail(f"no arbitration answer within {self.timeout:g}s") from None
        if arb is _STOP:
            err = self._stream_error
            self.close()
            reason = rpc_reason(err) if err is not None else "the switch closed the stream"
            if err is not None and err.code() == grpc.StatusCode.NOT_FOUND:
                reason = f"the switch has no device {self.device_id} ({err.details()})"
            raise self.fail(reason)
        self.is_primary = arb.status.code == code_pb2.OK
        if primary and not self.is_primary:
            held = (arb.election_id.high << 64) | arb.election_id.low
            self.close()
            raise self.fail(f"another controller is primary with election id {held} "
                            f"(ours is lower); retry with --election-id {held + 1}")
        return self

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._requests.put(_STOP)
        if self.channel is not None:
            self.channel.close()
        if self._reader is not None:
            self._reader.join(timeout=2)
        self.stream_ended.set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _request_iter(self):
        while True:
            item = self._requests.get()
            if item is _STOP:
                return
            yield item

    def _read_stream(self, stream) -> None:
        try:
            for msg in stream:
                kind = msg.WhichOneof("update")
                if kind == "arbitration":
                    self._arbitration.put(msg.arbitration)
                    self.is_primary = msg.arbitration.status.code == code_pb2.OK
                elif kind == "digest":
                    self._digests.put(msg.digest)
                elif kind == "error":
                    log.warning("switch %s stream error: %s", self.name, msg.error)
        except grpc.RpcError as e:
            if not self._closed and e.code() != grpc.StatusCode.CANCELLED:
                self._stream_error = e
                log.warning("switch %s stream ended: %s", self.name, rpc_reason(e))
        finally:
            self.stream_ended.set()
            self._arbitration.put(_STOP)
            self._digests.put(_STOP)

    # -- pipeline --------------------------------------------------------------------
    def set_pipeline(self, p4info: p4info_pb2.P4Info, device_config: bytes, cookie: int = 0) -> None:
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, election_id=_uint128(self.election_id),
            action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = device_config
        req.config.cookie.cookie = cookie
        try:
            self.stub.SetForwardingPipelineConfig(req, timeout=max(self.timeout, 30))
        except grpc.RpcError as e:
            raise self.fail(f"the switch refused the pipeline: {rpc_reason(e)}") from None

    def get_pipeline(self) -> tuple[p4info_pb2.P4Info | None, int]:
        """``(P4Info, cookie)`` installed on the switch, ``(None, 0)`` when there is none."""
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE)
        try:
            resp = self.stub.GetForwardingPipelineConfig(req, timeout=self.timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                return None, 0
            if e.code() == grpc.StatusCode.NOT_FOUND:
                raise self.fail(f"the switch has no device {self.device_id} ({e.details()})") from None
            raise self.fail(f"cannot read the pipeline: {rpc_reason(e)}") from None
        if not resp.config.HasField("p4info") or not resp.config.p4info.tables:
            return None, resp.config.cookie.cookie
        return resp.config.p4info, resp.config.cookie.cookie

    # -- write / read ------------------------------------------------------------------
    def write(self, updates: list[p4runtime_pb2.Update],
              describe: Callable[[p4runtime_pb2.Update], str] = str, summary: str = "") -> None:
        if not updates:
            return
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, election_id=_uint128(self.election_id),
                                         atomicity=p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR)
        req.updates.extend(updates)
        try:
            self.stub.Write(req, timeout=max(self.timeout, 30))
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise self.fail(rpc_reason(e)) from None
            raise WriteFailed(self.addr, decode_write_error(e, updates, describe), summary) from None

    def read(self, entities: Iterable[p4runtime_pb2.Entity]) -> Iterator[p4runtime_pb2.Entity]:
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.extend(entities)
        try:
            for resp in self.stub.Read(req, timeout=max(self.timeout, 30)):
                yield from resp.entities
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise self.fail(f"read failed: {rpc_reason(e)}") from None
            raise ReadFailed(f"switch {self.name} ({self.addr}, device {self.device_id}) refused a read: "
                             f"{rpc_reason(e)}") from None

    # -- digests --------------------------------------------------------------------------
    def digests(self, timeout: float | None = None) -> Iterator[p4runtime_pb2.DigestList]:
        """Yield DigestLists as they arrive; stop after ``timeout`` s of silence or when the stream ends."""
        while True:
            try:
                item = self._digests.get(timeout=timeout)
            except queue.Empty:
                return
            if item is _STOP:
                self._digests.put(_STOP)
                return
            yield item

    def ack(self, digest_list: p4runtime_pb2.DigestList) -> None:
        req = p4runtime_pb2.StreamMessageRequest()
        req.digest_ack.digest_id = digest_list.digest_id
        req.digest_ack.list_id = digest_list.list_id
        self._requests.put(req)
