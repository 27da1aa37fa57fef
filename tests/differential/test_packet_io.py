"""PacketIn / PacketOut against BMv2: simple_switch_grpc and checkmate-switch, both with a CPU port
(64), each program compiled by its own compiler (p4c / checkmate-p4c) and loaded over P4Runtime.

A controller opens its own stream (election id 2, above the targets' own connection, so it is the
primary that gets the PacketIns and may send PacketOuts).  Frames that the pipeline sends to the
CPU port come back as PacketIn messages (metadata ids and values, payload; one shorter than the
packet_in header is dropped); PacketOuts enter the pipeline on the CPU port and what leaves the
data ports is collected -- one with metadata the P4Info does not list or that does not fit, from
a backup, or before a program is loaded, is dropped without a StreamError (simple_switch_grpc's
default: PI's stream error reporting is off); a field given twice takes its last value.
Everything is compared with BMv2's.

Both servers cut the ``packet_in`` header and build the ``packet_out`` header from the P4Info's
``controller_packet_metadata`` alone: p4c leaves a ``@hidden`` field out of it (helper mutz25),
so the metadata and the header the pipeline sees then no longer line up -- as on BMv2.
"""
from __future__ import annotations

import queue
import threading
import time

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as P
from p4.v1 import p4runtime_pb2_grpc

from diff_harness import Case, compile_both
from diff_targets import BMv2Target, CheckmateTarget, bmv2_available

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"needs real BMv2: {SKIP}")

CPU = 64

HIDDEN = """\
#include <core.p4>
#include <v1model.p4>
@controller_header("packet_in") header pin_t { bit<9> port; @hidden bit<7> pad; bit<8> tag; }
@controller_header("packet_out") header pout_t { @hidden bit<7> pad; bit<9> port; bit<8> x; }
header h_t { bit<8> a; bit<16> b; bit<8> c; }
struct meta_t { bit<8> x; }
struct headers { pin_t pin; pout_t pout; h_t h; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { transition select(sm.ingress_port) { 64: po; default: ph; } }
    state po { pkt.extract(hdr.pout); transition ph; }
    state ph { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.pout.isValid()) {
            sm.egress_spec = hdr.pout.port; hdr.h.a = hdr.pout.x; hdr.h.c = (bit<8>)hdr.pout.pad; hdr.pout.setInvalid();
        } else if (sm.ingress_port == 5) {
            sm.egress_spec = 64;   // (no packet_in header: a short frame is dropped by PI)
        } else {
            sm.egress_spec = 64; hdr.pin.setValid(); hdr.pin.port = sm.ingress_port; hdr.pin.pad = 0x12;
            hdr.pin.tag = hdr.h.a;
        }
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.pin); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

PLAIN = HIDDEN.replace("@hidden ", "")
PADDING = HIDDEN.replace("@hidden ", "@padding ")   # listed (with the annotation), sent as any field

_ETH = bytes.fromhex("0000000000020000000000011234")
FRAMES = [(1, _ETH + bytes([0x11, 0x22, 0x33, 0x44]) + bytes(range(8))), (3, _ETH + bytes([0xfe, 0, 1, 2]) + bytes(8)),
          (5, b"\x01\x02"), (5, b"\x01\x02\x03"), (5, _ETH)]
# PacketOut metadata {id: value bytes}: with the hidden field the P4Info packs `port` and `x` into
# 17 bits, which the parser reads as pad, port, x (ids 2 and 3 of packet_out)
OUTS = [{2: b"\x00\x04", 3: b"\x07"}, {3: b"\x06"}, {2: b"\x00\x03", 3: b"\x07"}, {},
        {9: b"\x01"}, {3: b"\x01\x00"}, {1: b"\x01"}, {2: b"\x02\x00"},
        [(2, b"\x00\x03"), (3, b"\x07"), (2, b"\x00\x04")]]   # (a field twice: PI takes the last)


class Controller:
    """A primary P4Runtime stream of its own: arbitration, then PacketIns and StreamErrors."""

    def __init__(self, addr: str):
        self.channel = grpc.insecure_channel(addr)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.requests: queue.Queue = queue.Queue()
        self.got: queue.Queue = queue.Queue()
        self.arb: queue.Queue = queue.Queue()
        stream = self.stub.StreamChannel(iter(self.requests.get, None))
        self.reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.reader.start()
        req = P.StreamMessageRequest()
        req.arbitration.device_id = 0
        req.arbitration.election_id.low = 2
        self.requests.put(req)
        self.arb.get(timeout=10)

    def _read(self, stream) -> None:
        try:
            for msg in stream:
                kind = msg.WhichOneof("update")
                if kind == "arbitration":
                    self.arb.put(msg)
                elif kind == "packet":
                    self.got.put(("in", sorted((m.metadata_id, m.value.hex()) for m in msg.packet.metadata),
                                  msg.packet.payload.hex()))
                elif kind == "error":
                    self.got.put(("error", msg.error.canonical_code))
        except grpc.RpcError:
            pass

    def set_pipeline(self, compiled) -> None:
        req = P.SetForwardingPipelineConfigRequest(device_id=0, action=P.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.election_id.low = 2
        req.config.p4info.CopyFrom(compiled.p4info)
        req.config.p4_device_config = compiled.device_config
        self.stub.SetForwardingPipelineConfig(req, timeout=30)

    def packet_out(self, payload: bytes, metadata: dict) -> None:
        req = P.StreamMessageRequest()
        req.packet.payload = payload
        for k, v in metadata.items() if isinstance(metadata, dict) else metadata:
            req.packet.metadata.add(metadata_id=k, value=v)
        self.requests.put(req)

    def drain(self, wait: float) -> list:
        out, end = [], time.monotonic() + wait
        while True:
            try:
                out.append(self.got.get(timeout=max(0.0, end - time.monotonic())))
            except queue.Empty:
                return out

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


def _observe(target, compiled) -> list:
    ctl = Controller(target.conn.addr)
    payload = bytes([0x55, 0x66, 0x77, 0x88]) + bytes(range(8))
    try:
        seen = []
        target.drain()
        ctl.packet_out(payload, {3: b"\x06"})   # (the first program: none loaded yet)
        seen.append(("before the program", ctl.drain(0.5), [(p, f.hex()) for p, f in target.collect(0.3)]))
        ctl.set_pipeline(compiled)
        for port, frame in FRAMES:
            target.drain()
            target.inject(port, frame)
            seen.append(("frame", port, ctl.drain(1.0), [(p, f.hex()) for p, f in target.collect(0.3)]))
        for md in OUTS:
            target.drain()
            ctl.packet_out(payload, md)
            seen.append(("out", md, ctl.drain(0.5), [(p, f.hex()) for p, f in target.collect(0.3)]))
        # from a backup (the target's own connection, election id 1): dropped
        target.drain()
        req = P.StreamMessageRequest()
        req.packet.payload = payload
        target.conn._requests.put(req)
        seen.append(("backup", ctl.drain(0.5), [(p, f.hex()) for p, f in target.collect(0.3)]))
        return seen
    finally:
        ctl.close()


@pytest.fixture(scope="module")
def targets():
    bm = BMv2Target(cpu_port=CPU)
    try:
        cm = CheckmateTarget(cpu_port=CPU)
    except Exception:
        bm.stop()
        raise
    try:
        yield bm, cm
    finally:
        bm.stop()
        cm.stop()


@pytest.mark.parametrize("name,source", [("hidden_fields", HIDDEN), ("plain_fields", PLAIN), ("padding_fields", PADDING)])
def test_packet_in_and_out_as_bmv2(targets, name, source):
    ref, ours = compile_both(Case(name=f"packet_io_{name}", category="packet io", source=source))
    bm, cm = targets
    want = _observe(bm, ref)
    assert any(x[0] == "frame" and any(g[0] == "in" for g in x[2]) for x in want), want   # PacketIns came
    assert _observe(cm, ours) == want


def _before_arbitration(target, compiled) -> list:
    """A second stream that sends a PacketOut and a DigestListAck before any arbitration: what comes
    back on it and what leaves the data ports."""
    ctl = Controller(target.conn.addr)
    ch = grpc.insecure_channel(target.conn.addr)
    try:
        ctl.set_pipeline(compiled)
        reqs: queue.Queue = queue.Queue()
        got: list = []
        stream = p4runtime_pb2_grpc.P4RuntimeStub(ch).StreamChannel(iter(reqs.get, None))

        def read():
            try:
                for m in stream:
                    got.append((m.WhichOneof("update"), m.error.canonical_code if m.HasField("error") else None))
            except grpc.RpcError as e:
                got.append(("ended", e.code().name))
        threading.Thread(target=read, daemon=True).start()
        target.drain()
        out = P.StreamMessageRequest()
        out.packet.payload = bytes([0x55, 0x66, 0x77, 0x88]) + bytes(8)
        ack = P.StreamMessageRequest()
        ack.digest_ack.digest_id, ack.digest_ack.list_id = 1, 1
        reqs.put(out)
        reqs.put(ack)
        time.sleep(0.7)
        frames = [(p, f.hex()) for p, f in target.collect(0.3)]
        reqs.put(None)
        return [list(got), frames]
    finally:
        ch.close()
        ctl.close()


def test_stream_messages_before_arbitration_are_ignored(targets):
    """simple_switch_grpc ignores a PacketOut or a DigestListAck on a stream that has not arbitrated
    yet: no StreamError, nothing sent (checkmate-switch answered FAILED_PRECONDITION to each)."""
    ref, ours = compile_both(Case(name="packet_io_plain", category="packet io", source=PLAIN))
    bm, cm = targets
    want = _before_arbitration(bm, ref)
    assert want == [[], []], want
    assert _before_arbitration(cm, ours) == want
