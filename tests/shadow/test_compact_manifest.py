"""Compact manifest / ack frames (shadow.protocol.pack_manifest, pack_ack): bit-exact round trips,
malformed frames refused with the field named, and posted manifests over a real node's TCP
connection -- acks read later, in order, interleaved with ordinary requests -- replaying bit for bit."""
import math
import socket
import struct

import pytest

from shadow import protocol
from shadow.protocol import Manifest, ManifestAck, ProtocolError


def _roundtrip(frame: bytes):
    got = protocol.parse_frame(frame)
    assert got is not None and got[0] == len(frame)
    assert protocol.parse_frame(frame[:-1]) is None  # incomplete: wait for more
    return got[1], got[2]


@pytest.mark.parametrize("m", [
    Manifest(7, 3, [1e-3, 0.1 + 0.2], None),
    Manifest(7, 2**40, [5e-324, math.nextafter(1.0, 2.0), -0.0], 0.123456789, skip=True, no_grad=[0, 5, 2**31]),
    Manifest(1, 1, [], 1.0),
])
def test_manifest_roundtrip_is_bit_exact(m):
    op, got = _roundtrip(protocol.pack_manifest(m))
    assert op == "cmanifest" and got == m
    assert [struct.pack("!d", x) for x in got.lrs] == [struct.pack("!d", x) for x in m.lrs]


def test_ack_roundtrip():
    a = ManifestAck(7, 1, 9, True, None, "loss: iteration 9 incomplete", losses=2, misrouted=3,
                    misrouted_params=[4, 5])
    op, got = _roundtrip(protocol.pack_ack(a))
    assert op == "ok" and got == a
    b = ManifestAck(7, 0, 9, False, 8)
    assert _roundtrip(protocol.pack_ack(b))[1] == b


def test_cumulative_ack_and_sync_roundtrip():
    a = ManifestAck(7, 1, 9, True, None, "loss: iteration 9 incomplete", losses=2, misrouted=3,
                    misrouted_params=[4, 5])
    op, got = _roundtrip(protocol.pack_cum_ack(a, 5))
    assert op == "cack" and got == (5, False, a)
    op, got = _roundtrip(protocol.pack_cum_ack(a, 0, sync=True))  # a sync answered with nothing held
    assert op == "cack" and got == (0, True, a)
    assert _roundtrip(protocol.SYNC_FRAME) == ("sync", None)
    with pytest.raises(ProtocolError, match="covers"):
        protocol.pack_cum_ack(a, 0)  # only a sync's answer may cover no manifest
    f = bytearray(protocol.pack_cum_ack(a, 5))
    struct.pack_into("!I", f, 16, 0)
    with pytest.raises(ProtocolError, match="covers"):
        protocol.parse_frame(bytes(f))
    with pytest.raises(ProtocolError, match="body_len"):
        protocol.parse_frame(protocol.FRAME.pack(protocol.SYNC_MAGIC, 1, 0) + b"x")


def test_malformed_compact_frames_are_refused():
    f = bytearray(protocol.pack_manifest(Manifest(7, 3, [1e-3, 2e-3], None)))
    struct.pack_into("!H", f, 16 + 4 + 1 + 8, 3)  # n_lrs says 3, the body holds 2
    with pytest.raises(ProtocolError, match="n_lrs"):
        protocol.parse_frame(bytes(f))
    with pytest.raises(ProtocolError, match="buffers"):
        protocol.pack_manifest(Manifest(7, 3, [1e-3], None, buffers={}))
    huge = protocol.FRAME.pack(protocol.MAN_MAGIC, 1 << 30, 1)
    with pytest.raises(ProtocolError, match="body_len"):
        protocol.parse_frame(huge)


@pytest.mark.timeout(60)
def test_posted_manifests_over_a_real_node(reference_run, cluster):
    """Manifests posted without waiting: acks come back in order (also when another request reads
    them on its way), the node replays each iteration bit for bit, and a bad manifest's error reply
    is surfaced as an error ack, not a desynchronised stream."""
    run = reference_run(False)
    c = cluster(run, shards=1)
    c.bootstrap(0)
    cl = c.clients[0]
    n, sent = len(run.steps), 0
    for it in range(1, n + 1):
        pk = c.packets(it, 0)
        c.send(0, pk)
        sent += len(pk)
        assert c.nodes[0].wait_for(lambda nd: nd.counters.packets >= sent, 10)  # copies ahead of the manifest
        cl.post_manifest(protocol.pack_manifest(run.steps[it - 1].manifest))
        if it == 2:
            assert cl.status().job_id == c.nodes[0].cfg.job_id  # reads the posted acks first
    assert c.wait_latest(n)
    acks = cl.take_acks(block=True)
    assert [a.iteration for a in acks] == list(range(1, n + 1))
    assert not any(a.needs_resync for a in acks)
    c.check(n)
    # a manifest of another job: an error reply in the ack stream, the connection stays usable
    bad = run.steps[0].manifest
    cl.post_manifest(protocol.pack_manifest(Manifest(bad.job_id + 1, n + 1, bad.lrs, None)))
    (err,) = cl.take_acks(block=True)
    assert isinstance(err, protocol.ShadowError) and "job_id" in str(err)
    assert cl.status().latest_iteration == n


def test_nonblocking_take_does_not_wait():
    """take_acks(block=False) returns at once when no ack arrived (the socket's timeout must not apply)."""
    import time
    from shadow.client import ShadowClient
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cl = ShadowClient(*srv.getsockname(), timeout=5)
    try:
        cl.post_manifest(protocol.pack_manifest(Manifest(1, 1, [1e-3], None)))
        peer, _ = srv.accept()
        t = time.monotonic()
        assert cl.take_acks() == [] and cl.posted == 1
        assert time.monotonic() - t < 1.0
        peer.sendall(protocol.pack_ack(ManifestAck(1, 0, 1, False, 1)))
        (a,) = cl.take_acks(block=True)
        assert a.iteration == 1 and cl.posted == 0
        peer.close()
    finally:
        cl.close()
        srv.close()


def test_try_post_never_waits():
    """The training thread's post: False (nothing sent) when the client is busy or not connected, and
    against a peer that stopped reading it returns False once the socket is full instead of blocking."""
    import threading
    import time
    from shadow.client import ShadowClient
    frame = protocol.pack_manifest(Manifest(1, 1, [1e-3], None))
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cl = ShadowClient(*srv.getsockname(), timeout=5)
    try:
        assert not cl.try_post(frame)  # not connected: the link thread connects
        cl.post_manifest(frame)
        peer, _ = srv.accept()
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        held = threading.Event()
        release = threading.Event()

        def hold():
            with cl._lock:
                held.set()
                release.wait(5)
        t = threading.Thread(target=hold)
        t.start()
        held.wait(5)
        assert not cl.try_post(frame)  # busy with another call
        release.set()
        t.join()
        sent, t0 = 1, time.monotonic()
        while cl.try_post(frame):  # the peer never reads: the send buffer fills up
            sent += 1
            assert time.monotonic() - t0 < 20, "try_post kept going (or blocked)"
        assert sent > 1 and cl.posted == sent
        t0 = time.monotonic()
        assert cl.take_acks(block=False) == []  # a non-blocking read never flushes a partial frame (no wait)
        assert time.monotonic() - t0 < 3.0  # (the socket's timeout is 5 s)
        peer.close()
    finally:
        cl.close()
        srv.close()


def test_cumulative_acks_out_of_step_are_refused():
    """A client that asked for cumulative acks counts posted manifests down by ``covers``; a peer whose
    ack covers more than was posted (or answers a sync nobody sent) desynchronised the stream: the
    client refuses it and drops the connection instead of miscounting."""
    import threading
    from shadow.client import ShadowClient
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cl = ShadowClient(*srv.getsockname(), timeout=5, ack_every=4)
    seen = []

    def peer():
        conn, _ = srv.accept()
        with conn:
            op, body = protocol.recv_message(conn)
            seen.append((op, body))
            protocol.send_message(conn, "ok", {"ack_every": 4})
            for _ in range(3):  # the three manifests, then the sync of take_acks(block=True)
                seen.append(protocol.recv_message(conn)[0])
            seen.append(protocol.recv_message(conn)[0])
            conn.sendall(protocol.pack_cum_ack(ManifestAck(1, 0, 3, False, 3), 2))  # fine: 2 of 3
            conn.sendall(protocol.pack_cum_ack(ManifestAck(1, 0, 3, False, 3), 5, sync=True))  # 5 > the 1 left
            conn.recv(1)  # until the client hangs up
    t = threading.Thread(target=peer)
    t.start()
    try:
        frame = protocol.pack_manifest(Manifest(1, 1, [1e-3], None))
        for _ in range(3):
            cl.post_manifest(frame)
        assert cl.acked_every == 4 and cl.posted == 3
        with pytest.raises(ProtocolError, match="out of step"):
            cl.take_acks(block=True)
        assert cl.posted == 0 and cl.acked_every == 1  # dropped: the next call reconnects and asks again
        assert seen == [("hello", {"ack_every": 4}), "cmanifest", "cmanifest", "cmanifest", "sync"]
    finally:
        cl.close()
        t.join(10)
        srv.close()
