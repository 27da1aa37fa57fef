"""Unit tests of the switch's own layers, in process: codec, arbitration, TM, digests,
controller headers, UDP ports.  The gRPC/process tests live beside this file."""
from __future__ import annotations

import socket
import time

import pytest
from google.rpc import code_pb2
from grpc import StatusCode
from p4.v1 import p4runtime_pb2

from switch.p4rt_server import codec
from switch.p4rt_server.arbitration import Arbiter, Client
from switch.p4rt_server.digests import DigestEngine
from switch.p4rt_server.errors import P4RTError
from switch.p4rt_server.p4info_index import ControllerHeader, MetadataInfo
from switch.p4rt_server.packetio import build_packet_out, split_packet_in
from switch.ports import UdpTunnelPort, parse_port_spec
from switch.tm import PortConfig, TMControlServer, TrafficManager, parse_rate, parse_tm_flag
from switch.tm_client import TMClient, TMError


# ------------------------------------------------------------------ codec
def test_codec_accepts_canonical_and_padded_and_rejects_too_wide():
    assert codec.decode(b"\x01\x02", 9, "f") == 0x102
    assert codec.decode(b"\x00\x00\x01\x02", 9, "f") == 0x102  # padded is fine
    with pytest.raises(P4RTError) as ei:
        codec.decode(b"\x02\x00", 9, "table 't' match field 'port'")
    assert ei.value.code == StatusCode.INVALID_ARGUMENT
    assert "'port'" in ei.value.message and "0x0200" in ei.value.message and "9 bits" in ei.value.message
    assert codec.decode(b"", 8, "f") == 0  # unset: zero, as PI/BMv2 (tests/differential/test_p4rt_vs_bmv2.py)


def test_codec_encodes_canonically():
    assert codec.encode(0) == b"\x00"
    assert codec.encode(0x102, 9) == b"\x01\x02"
    assert codec.encode(0x0A000001, 32) == b"\x0a\x00\x00\x01"
    assert codec.encode(1, 48) == b"\x01"
    assert codec.prefix_mask(32, 8) == 0xFF000000


# ------------------------------------------------------------------ arbitration
def _arb(device_id=0, eid=None, role=None):
    m = p4runtime_pb2.MasterArbitrationUpdate(device_id=device_id)
    if eid is not None:
        m.election_id.high, m.election_id.low = eid >> 64, eid & (2**64 - 1)
    if role is not None:
        m.role.name = role
    return m


def _codes(msgs):
    return {c.id: (m.arbitration.status.code, (m.arbitration.election_id.high << 64) | m.arbitration.election_id.low)
            for c, m in msgs}


def test_arbitration_primary_backup_and_failover():
    arb = Arbiter(device_id=7)
    a, b, c = Client(send=None), Client(send=None), Client(send=None)
    assert _codes(arb.update(a, _arb(7, 10))) == {a.id: (code_pb2.OK, 10)}
    # a lower id joins: only it is told, as a backup, with the primary's id
    assert _codes(arb.update(b, _arb(7, 5))) == {b.id: (code_pb2.ALREADY_EXISTS, 10)}
    # a higher id takes over: everyone is told
    assert _codes(arb.update(c, _arb(7, 20))) == {a.id: (code_pb2.ALREADY_EXISTS, 20),
                                                   b.id: (code_pb2.ALREADY_EXISTS, 20),
                                                   c.id: (code_pb2.OK, 20)}
    assert arb.primary() is c
    arb.check_primary(7, 20, "Write")
    with pytest.raises(P4RTError) as ei:
        arb.check_primary(7, 10, "Write")
    assert ei.value.code == StatusCode.PERMISSION_DENIED and "primary's is 20" in ei.value.message
    # the primary leaves: the next highest takes over, everyone is told
    assert _codes(arb.remove(c)) == {a.id: (code_pb2.OK, 10), b.id: (code_pb2.ALREADY_EXISTS, 10)}
    assert arb.primary() is a
    # a backup may raise its id and take over
    assert _codes(arb.update(b, _arb(7, 21))) == {a.id: (code_pb2.ALREADY_EXISTS, 21), b.id: (code_pb2.OK, 21)}
    # when the last client with an election id leaves, nobody is primary
    arb.remove(a)
    n = Client(send=None)
    arb.update(n, _arb(7))  # no election id: backup
    assert _codes(arb.remove(b)) == {n.id: (code_pb2.NOT_FOUND, 21)}
    assert arb.primary() is None


def test_arbitration_errors():
    arb = Arbiter(device_id=1)
    a, b = Client(send=None), Client(send=None)
    # another device id: an election of its own, as PI (a becomes the absent device 2's primary)
    o = Client(send=None)
    assert _codes(arb.update(o, _arb(2, 1))) == {o.id: (code_pb2.OK, 1)}
    assert arb.primary() is None and not arb.is_primary(o)
    with pytest.raises(P4RTError) as ei:
        arb.update(o, _arb(1, 1))
    assert ei.value.code == StatusCode.FAILED_PRECONDITION and "changed from 2 to 1" in ei.value.message
    arb.update(a, _arb(1, 3))
    assert _codes(arb.remove(o)) == {}
    with pytest.raises(P4RTError) as ei:
        arb.update(b, _arb(1, 3))
    assert ei.value.code == StatusCode.INVALID_ARGUMENT and "already used" in ei.value.message
    with pytest.raises(P4RTError) as ei:
        arb.update(a, _arb(9, 3))
    assert ei.value.code == StatusCode.FAILED_PRECONDITION
    # roles are ignored, as by simple_switch_grpc: "mon" competes with the default role's primary
    r = Client(send=None)
    answer = arb.update(r, _arb(1, 1, role="mon"))
    assert _codes(answer)[r.id][0] == code_pb2.ALREADY_EXISTS and not answer[0][1].arbitration.HasField("role")
    # no election id: a backup forever; it is the id 0 to PI, so a second one is refused
    n, n2 = Client(send=None), Client(send=None)
    assert _codes(arb.update(n, _arb(1)))[n.id][0] == code_pb2.ALREADY_EXISTS
    with pytest.raises(P4RTError) as ei:
        arb.update(n2, _arb(1, 0))
    assert ei.value.code == StatusCode.INVALID_ARGUMENT


def test_unauthenticated_write_only_without_clients():
    arb = Arbiter(0)
    arb.check_primary(0, None, "Write")  # nobody connected: accepted (PI behaviour)
    arb.update(Client(send=None), _arb(0, 1))
    with pytest.raises(P4RTError):
        arb.check_primary(0, None, "Write")
    arb.check_primary(3, None, "Write")   # another device id: its own clients (none)


# ------------------------------------------------------------------ controller headers
HDR_IN = ControllerHeader("packet_in", (MetadataInfo(1, "ingress_port", 9), MetadataInfo(2, "_pad", 7)))


def test_packet_in_split_and_packet_out_build():
    frame = bytes([0x01, 0x80]) + b"payload"  # port 3 in 9 bits, pad 0
    msg = split_packet_in(HDR_IN, frame)
    assert msg.payload == b"payload"
    assert {m.metadata_id: m.value for m in msg.metadata} == {1: b"\x03", 2: b"\x00"}
    out = p4runtime_pb2.PacketOut(payload=b"xyz")
    out.metadata.add(metadata_id=1, value=b"\x01\x02")  # port 258
    assert build_packet_out(HDR_IN, out) == bytes([0x81, 0x00]) + b"xyz"
    bad = p4runtime_pb2.PacketOut(payload=b"x")
    bad.metadata.add(metadata_id=9, value=b"\x01")
    with pytest.raises(P4RTError, match="unknown packet_out metadata id 9"):
        build_packet_out(HDR_IN, bad)
    wide = p4runtime_pb2.PacketOut(payload=b"x")
    wide.metadata.add(metadata_id=1, value=b"\x02\x00")
    with pytest.raises(P4RTError, match="ingress_port"):
        build_packet_out(HDR_IN, wide)


# ------------------------------------------------------------------ digests
def _cfg(timeout_ns=0, size=1, ack_ns=0):
    return p4runtime_pb2.DigestEntry.Config(max_timeout_ns=timeout_ns, max_list_size=size, ack_timeout_ns=ack_ns)


def test_digest_batching_filter_and_ack():
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        eng.offer(1, (5, 6))
        assert sent == []  # not configured: nothing
        eng.configure(1, (48, 9), _cfg(timeout_ns=10**9, size=2, ack_ns=10**10), insert=True)
        eng.offer(1, (5, 6))
        assert sent == []  # waiting for a second entry
        eng.offer(1, (5, 6))  # duplicate while pending: suppressed
        eng.offer(1, (7, 8))
        assert len(sent) == 1
        dl = sent[0].digest
        assert dl.digest_id == 1 and len(dl.data) == 2
        assert [m.bitstring for m in dl.data[1].struct.members] == [b"\x07", b"\x08"]
        eng.offer(1, (7, 8))  # sent but not acked: still suppressed
        eng.ack(1, dl.list_id)
        eng.offer(1, (7, 8))
        eng.offer(1, (9, 9))
        assert len(sent) == 2
        # timeout flush of a partial list
        eng.configure(1, (48, 9), _cfg(timeout_ns=20_000_000, size=100), insert=False)
        eng.offer(1, (1, 1))
        deadline = time.monotonic() + 2
        while len(sent) < 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert len(sent) == 3 and len(sent[2].digest.data) == 1
    finally:
        eng.close()


def test_digest_duplicate_filter_ages_by_pis_sweep():
    """fuzz_p4rt seed 3693: under a 10 ms ack timeout BMv2 (PI's digest manager) still suppressed
    a digest sent again 10+ ms later -- PI's ack sweep runs every max(ack_timeout_ns, 100 ms) from
    the DigestEntry write and drops an unacked list on its second visit, so sent data stays in the
    duplicate cache one to two sweep periods; an ack clears it at once."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        t0 = time.monotonic()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=10_000_000), insert=True)
        eng.offer(1, (5,))
        assert len(sent) == 1
        time.sleep(0.03)
        eng.offer(1, (5,))   # 30 ms later, unacked: before the second sweep (200 ms) -- suppressed
        if time.monotonic() - t0 < 0.09:   # (the first sweep, at 100 ms, only marks the list)
            assert len(sent) == 1
        deadline = time.monotonic() + 2
        while len(sent) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
            eng.offer(1, (5,))
        assert len(sent) == 2 and time.monotonic() - t0 >= 0.19   # expired at the second sweep
        eng.ack(1, sent[1].digest.list_id)
        eng.offer(1, (5,))
        assert len(sent) == 3   # acked: gone from the filter at once
    finally:
        eng.close()


def test_digest_ack_sweep_runs_from_the_digest_entry_write():
    """fuzz_p4rt seed 3011 (alone, 2 runs in 3): BMv2 sent (2, 0) again ~310 ms after its first
    list under a 10 ms ack timeout (PI's sweeps at 100 and 200 ms had dropped it), checkmate-switch
    suppressed it -- its timer thread, asleep for up to 0.5 s when the DigestEntry was written, was
    not woken, so the first sweep came late by a random part of that."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        time.sleep(0.05)   # the timer thread is in its idle wait
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=10_000_000), insert=True)
        eng.offer(1, (5,))
        time.sleep(0.3)
        eng.offer(1, (5,))
        assert len(sent) == 2
    finally:
        eng.close()


def test_digest_list_being_built_holds_each_value_once():
    """fuzz_p4rt seed 3736: BMv2's learn list drops a value already in the list it is building,
    with the duplicate filter off (ack_timeout_ns 0) and before the first DigestEntry too (the
    pending list then goes out at the INSERT with each value once)."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        eng.declare({1: ((8,), "struct")})
        for v in (5, 5, 6, 5):
            eng.offer(1, (v,))
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=0), insert=True)
        assert sorted(len(r.digest.data) for r in sent) == [2]
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=3, ack_ns=0), insert=False)
        for v in (7, 7, 8, 7, 9):
            eng.offer(1, (v,))
        assert [[m.struct.members[0].bitstring for m in r.digest.data] for r in sent[1:]] == [[b"\x07", b"\x08", b"\x09"]]
    finally:
        eng.close()


def test_digest_list_pending_at_insert_goes_out_after_the_write():
    """fuzz_p4rt seed 3895: a list pending before the first DigestEntry goes out under it -- on BMv2
    from its learn thread, after the Write; a DELETE of the entry in the same Write comes first, and
    PI drops the list (and forgets its values)."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        eng.declare({1: ((8,), "struct")})
        for v in (5, 6):
            eng.offer(1, (v,))
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=10**10), insert=True)
        eng.remove(1)
        eng.end_batch()
        assert sent == []
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=10**10), insert=True)
        eng.offer(1, (5,))   # (what the batch holds goes out at its end)
        assert sent == [] or len(sent) == 1
        eng.end_batch()
        assert [len(r.digest.data) for r in sent] == [1]   # the dropped list's values were forgotten
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=10, ack_ns=0), insert=False)
        eng.remove(1)
        eng.offer(1, (7,))
        eng.offer(1, (8,))
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=0), insert=True)
        assert len(sent) == 1
        eng.end_batch()
        assert [len(r.digest.data) for r in sent] == [1, 2]
    finally:
        eng.close()


def test_a_digest_list_a_size_limit_completes_in_a_write_leaves_the_learn_engine():
    """fuzz_p4rt seed 4833: a pending list the INSERT's size limit (1) completes leaves BMv2's learn
    engine then -- a MODIFY lifting the limit later in the same Write does not keep it pending: with a
    DELETE after it the list is dropped (BMv2 sends it in the Write or drops it, run to run; never
    after the next INSERT), without one it goes out at the Write's end."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        eng.declare({1: ((8,), "struct")})
        for v in (2, 3):
            eng.offer(1, (v,))
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=10**6, size=1, ack_ns=5 * 10**9), insert=True)
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=0, ack_ns=5 * 10**9), insert=False)
        eng.remove(1)
        eng.end_batch()
        for v in (4, 5):
            eng.offer(1, (v,))
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=1, ack_ns=5 * 10**9), insert=True)
        eng.end_batch()
        assert [[d.struct.members[0].bitstring for d in r.digest.data] for r in sent] == [[b"\x04", b"\x05"]]
        sent.clear()
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=10, ack_ns=0), insert=False)
        for v in (6, 7):
            eng.offer(1, (v,))
        eng.begin_batch()
        eng.configure(1, (8,), _cfg(timeout_ns=10**6, size=1, ack_ns=0), insert=False)
        eng.configure(1, (8,), _cfg(timeout_ns=0, size=0, ack_ns=0), insert=False)
        assert sent == []
        eng.end_batch()
        assert [len(r.digest.data) for r in sent] == [2]
    finally:
        eng.close()


def test_digest_data_has_the_p4info_kind():
    """As BMv2's P4Runtime server (PI): a struct digest -- even of one member -- sends a P4Data
    struct, a tuple digest (p4c's digest_N) a tuple, a bitstring digest one bitstring."""
    sent = []
    eng = DigestEngine(lambda r: sent.append(r) or True)
    try:
        for did, kind, widths in ((1, "struct", (8,)), (2, "tuple", (8, 16)), (3, "bitstring", (12,))):
            eng.configure(did, widths, _cfg(timeout_ns=0, size=1, ack_ns=0), insert=True, kind=kind)
        eng.offer(1, (5,))
        eng.offer(2, (6, 0x102))
        eng.offer(3, (0xABC,))
        got = {r.digest.digest_id: r.digest.data[0] for r in sent}
        assert [m.bitstring for m in got[1].struct.members] == [b"\x05"]
        assert got[2].WhichOneof("data") == "tuple"
        assert [m.bitstring for m in got[2].tuple.members] == [b"\x06", b"\x01\x02"]
        assert got[3].bitstring == b"\x0a\xbc"
    finally:
        eng.close()


# ------------------------------------------------------------------ traffic manager
class _Sink:
    def __init__(self, delay=0.0):
        self.frames, self.times, self.delay = [], [], delay

    def __call__(self, f):
        if self.delay:
            time.sleep(self.delay)
        self.frames.append(f)
        self.times.append(time.monotonic())


def test_tm_fast_path_and_unknown_port():
    tm = TrafficManager()
    sink = _Sink()
    tm.add_port(1, sink)
    assert tm.transmit(1, b"a") and sink.frames == [b"a"]
    assert not tm.transmit(9, b"b") and tm.unknown_port_drops == 1
    tm.close()


def test_tm_drop_prob_tail_drop_and_delay():
    tm = TrafficManager(seed=1)
    sink = _Sink()
    tm.add_port(1, sink)
    tm.configure(1, {"drop_prob": 1.0})
    for _ in range(20):
        tm.transmit(1, b"x")
    assert tm.stats()[1].fault_drops == 20 and sink.frames == []
    tm.configure(1, {"drop_prob": 0.0, "delay_s": 0.05})
    t0 = time.monotonic()
    tm.transmit(1, b"late")
    deadline = time.monotonic() + 2
    while not sink.frames and time.monotonic() < deadline:
        time.sleep(0.002)
    assert sink.frames == [b"late"] and sink.times[0] - t0 >= 0.045
    # tail drop on a slow, shallow queue
    tm.configure(1, {"delay_s": 0.2, "queue_depth": 3})
    for _ in range(10):
        tm.transmit(1, b"q")
    st = tm.stats()[1]
    assert st.tail_drops == 7 and st.queue_len == 3
    tm.close()


def test_tm_lossless_pauses_instead_of_dropping():
    tm = TrafficManager()
    sink = _Sink()
    tm.add_port(4, sink)
    # 1500-byte frames at 1.2 Mbit/s = 10 ms each; queue of 2 -> the sender must pause
    tm.configure(4, {"lossless": True, "queue_depth": 2, "rate_bps": 1.2e6})
    t0 = time.monotonic()
    for _ in range(12):
        assert tm.transmit(4, b"z" * 1500)
    elapsed = time.monotonic() - t0
    st = tm.stats()[4]
    assert st.tail_drops == 0 and st.pause_drops == 0
    assert st.pauses >= 5 and st.pause_s > 0.03 and elapsed > 0.05
    deadline = time.monotonic() + 3
    while len(sink.frames) < 12 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(sink.frames) == 12
    tm.close()


def test_tm_rate_limit_paces():
    tm = TrafficManager()
    sink = _Sink()
    tm.add_port(2, sink)
    tm.configure(2, {"rate": "4M", "queue_depth": 1000})  # 1000-byte frames: 2 ms each
    for _ in range(30):
        tm.transmit(2, b"r" * 1000)
    deadline = time.monotonic() + 3
    while len(sink.frames) < 30 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(sink.frames) == 30
    span = sink.times[-1] - sink.times[0]
    assert span >= 0.04  # >= (30 - burst) * 2 ms; unshaped this takes microseconds
    tm.close()


def test_tm_flags_and_config_errors():
    assert parse_rate("10G") == 1e10 and parse_rate("250k") == 250e3
    assert parse_tm_flag("4:lossless=1,depth=64") == (4, {"lossless": "1", "depth": "64"})
    assert parse_tm_flag("*:drop=0.1")[0] is None
    with pytest.raises(ValueError, match="unknown TM setting 'bogus'"):
        parse_tm_flag("1:bogus=3")
    with pytest.raises(ValueError, match="drop_prob must be in"):
        PortConfig().updated(3, {"drop_prob": 2})
    with pytest.raises(ValueError, match="bad value"):
        PortConfig().updated(3, {"lossless": "maybe"})


def test_tm_control_channel_roundtrip():
    tm = TrafficManager()
    tm.add_port(1, _Sink())
    tm.add_port(2, _Sink())
    srv = TMControlServer(tm)
    try:
        with TMClient(*srv.address) as c:
            cfg = c.set(2, lossless=True, queue_depth=8)
            assert cfg["lossless"] is True and cfg["queue_depth"] == 8
            assert tm.config(2).lossless
            assert c.get(1)["lossless"] is False
            c.set(None, delay_s=0.001)
            assert tm.config(1).delay_s == 0.001 and tm.config(2).delay_s == 0.001
            with pytest.raises(TMError, match="port 9: no such port"):
                c.set(9, rate_bps=1)
            with pytest.raises(TMError, match="unknown TM setting"):
                c.set(1, nonsense=1)
            assert set(c.stats()) == {1, 2}
    finally:
        srv.close()
        tm.close()


# ------------------------------------------------------------------ ports
def test_port_spec_parsing():
    s = parse_port_spec("3@udp:127.0.0.1:0:127.0.0.1:4000")
    assert s.kind == "udp" and s.remote == ("127.0.0.1", 4000) and s.label == "3"
    assert parse_port_spec("1@veth-a").label == "veth-a"
    for bad in ("veth0", "x@veth0", "600@veth0", "1@udp:1:2", "1@udp:h:p:h:q"):
        with pytest.raises(ValueError):
            parse_port_spec(bad)


def test_udp_tunnel_port_batches():
    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.bind(("127.0.0.1", 0))
    peer.settimeout(2)
    port = UdpTunnelPort(parse_port_spec(f"1@udp:127.0.0.1:0:127.0.0.1:{peer.getsockname()[1]}"))
    try:
        for i in range(5):
            peer.sendto(bytes([i]) * 60, port.local)
        got, deadline = [], time.monotonic() + 2
        while len(got) < 5 and time.monotonic() < deadline:
            got += port.recv_batch(64)
            time.sleep(0.001)
        assert got == [bytes([i]) * 60 for i in range(5)]
        port.send(b"\xaa" * 9000)
        assert peer.recv(65535) == b"\xaa" * 9000
    finally:
        port.close()
        peer.close()
