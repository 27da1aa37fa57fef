"""The shadow's compiled receive loop (shadow/ingest_native.c) against the Python path, on real sockets.

The same datagram stream goes over loopback UDP to two sockets; one reassembler drains its socket
through ``shadow_drain`` (:class:`shadow.ingest_native.NativeDrain`), the other through the Python
``Reassembler.drain``.  After every drain both must agree on everything: the returned tuple, every
slot's iteration, bytes, coverage map and count, the counters (packets, bytes, duplicates, rejections
and their last message, losses, probes, misrouted params), the head and the newest iteration seen.
The streams mix every kind of datagram the Python path decides about -- valid chunks cut two ways and
shuffled, duplicates, partial overlaps, another job's, another shard's param, bad version / flags /
dtype / offset, RETX, truncated payloads, short and empty datagrams, probes (iteration 0), stale
iterations, iterations far ahead (the window sliding, a loss) -- with batch limits small and large.
"""
from __future__ import annotations

import random
import socket

import pytest
import torch

from checkmate import wire
from shadow import ingest_native
from shadow.ingest import Counters, Reassembler
from shadow.layout import ShardLayout
from shadow.packets import gradient_packets
from shadow.protocol import ParamSpec

LIB = ingest_native.load()
pytestmark = pytest.mark.skipif(LIB is None, reason="shadow/ingest_native.c is not built here (no C compiler, or CHECKMATE_NATIVE=0)")

JOB = 5
PARAMS = [ParamSpec(0, "a", (10, 10), "float32"), ParamSpec(1, "b", (7,), "float32"),
          ParamSpec(2, "c", (33,), "bfloat16"), ParamSpec(3, "d", (5,), "float32")]
OWNER = {0: 0, 1: 1, 2: 0, 3: 0}


def _grads(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    return {0: torch.randn(10, 10, generator=g), 2: torch.randn(33, generator=g).to(torch.bfloat16),
            3: torch.randn(5, generator=g)}


def _edit(p: bytes, **fields) -> bytes:
    """``p`` with header fields replaced (by name, as ``checkmate.wire`` names them)."""
    names = [n for n, _ in wire.FIELDS]
    vals = list(wire.HEADER.unpack_from(p))
    for k, v in fields.items():
        vals[names.index(k)] = v
    return wire.HEADER.pack(*vals) + p[wire.HEADER_LEN:]


def _stream(seed: int) -> list[bytes]:
    rnd = random.Random(seed)
    out = []
    for it in range(1, 9):
        g = _grads(seed * 100 + it)
        pk = gradient_packets(JOB, it, g, elems=9) + gradient_packets(JOB, it, g, elems=13)[::2]
        good = list(pk)
        pk += [good[0], good[3]]  # duplicates
        pk += gradient_packets(JOB, it, g, elems=9, retx=True)[:2]  # retransmitted copies
        pk += gradient_packets(JOB, it, {1: torch.randn(7)}, elems=4)  # another shard's param
        pk.append(_edit(good[1], job_id=JOB + 1))
        pk.append(_edit(good[2], version=2))
        pk.append(_edit(good[2], flags=wire.FLAG_ACK))
        pk.append(_edit(good[2], flags=wire.FLAG_FINAL | wire.FLAG_CTRL))
        pk.append(_edit(good[4], dtype=wire.DTYPE_FP16))
        pk.append(_edit(good[4], offset=98))  # past the param's end
        pk.append(_edit(good[4], param_id=9))  # no such param
        pk.append(good[5][:-4])  # payload shorter than its count
        pk.append(good[5][:wire.HEADER_LEN - 3])  # shorter than a header
        pk.append(b"")
        pk.append(_edit(good[6], iteration=0))  # a shard-map probe
        if it >= 4:
            pk += gradient_packets(JOB, it - 3, g, elems=9)[:3]  # stale (or still buffered)
        if it in (3, 6):
            pk += gradient_packets(JOB, it + 4, g, elems=9)[:2]  # far ahead
        rnd.shuffle(pk)
        out += pk
    return out


def _state(r: Reassembler) -> tuple:
    c = r.c
    slots = {it: (s.iteration, bytes(s.buf), bytes(s.cov), s.filled, s.total) for it, s in r.slots.items()}
    return (slots, c.packets, c.bytes_received, c.duplicates, c.rejected, c.losses, c.last_error, c.misrouted,
            sorted(c.misrouted_ids), sorted(c.probed), r.head, r.newest_seen, r.needs_resync, r.grown,
            sorted(r.slots))


@pytest.mark.parametrize("seed, limit", [(1, 64), (2, 5), (3, 1), (4, 300)])
def test_native_drain_is_the_python_drain(seed, limit):
    lay = ShardLayout.build(PARAMS, OWNER, 0)
    socks = []
    for _ in range(2):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        socks.append(s)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        bufs = [bytearray(65536), bytearray(65536)]
        # a window of 3 buffers that may grow to 4: iterations far ahead slide it (a loss), or grow it
        rs = [Reassembler(lay, JOB, 1, 3, Counters(), max_ring=4) for _ in range(2)]
        rs[0].native = ingest_native.NativeDrain(LIB, socks[0].fileno(), lay, JOB, bufs[0])
        stream = _stream(seed)
        rnd = random.Random(seed)
        i = 0
        while i < len(stream):
            burst = stream[i:i + rnd.randint(1, 40)]
            i += len(burst)
            for p in burst:
                for s in socks:
                    tx.sendto(p, s.getsockname())
            while True:
                res = [r.drain(s.recv_into, b, memoryview(b), limit) for r, s, b in zip(rs, socks, bufs)]
                assert res[0] == res[1]
                assert _state(rs[0]) == _state(rs[1])
                if res[0][3]:  # the socket ran empty
                    break
            head = rs[0].slots.get(rs[0].head)
            if rnd.random() < 0.3 and head is not None and head.complete:
                for r in rs:  # the head applied: its buffer goes back, the head moves on
                    r.release(r.take(r.head))
            elif rs[0].needs_resync and rnd.random() < 0.5:
                at = max(rs[0].head, rs[0].newest_seen - 1)
                for r in rs:  # a resync bootstrap: keep the later iterations
                    r.restart(at)
        assert _state(rs[0])[1] == len(stream)  # every datagram was received and counted
        assert rs[0].c.rejected and rs[0].c.duplicates and rs[0].c.probed
        assert rs[0].native.taken > len(stream) // 8  # the compiled loop took many (the stream is mostly odd ones)
    finally:
        for s in socks + [tx]:
            s.close()


def test_a_receive_error_is_reported_as_the_python_path_reports_it():
    """An ICMP port-unreachable queued on a connected socket: both paths return the same error text."""
    lay = ShardLayout.build(PARAMS, OWNER, 0)
    out = []
    for use_native in (True, False):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        dead.bind(("127.0.0.1", 0))
        addr = dead.getsockname()
        dead.close()
        s.connect(addr)
        s.send(b"x")  # nobody listens: the kernel queues ECONNREFUSED on s
        s.setblocking(False)
        buf = bytearray(65536)
        r = Reassembler(lay, JOB, 1, 3, Counters())
        if use_native:
            r.native = ingest_native.NativeDrain(LIB, s.fileno(), lay, JOB, buf)
        out.append(r.drain(s.recv_into, buf, memoryview(buf), 64))
        s.close()
    assert out[0] == out[1] and "udp receive" in out[0][4] and "refused" in out[0][4].lower()


def test_layout_names_match_the_c_source(tmp_path):
    from checkmate import native
    native.check_enums(ingest_native.SOURCE, ingest_native.ENUMS)
    bad = tmp_path / "ingest_native.c"
    bad.write_text(ingest_native.SOURCE.read_text().replace("ST_PENDING,", ""))
    with pytest.raises(RuntimeError, match="ST_LEN"):
        native.check_enums(bad, ingest_native.ENUMS)
    assert native.load(bad, ingest_native.CFLAGS, "a kernel whose enums moved", ingest_native.ENUMS) is None
