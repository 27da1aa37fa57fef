"""The management connection's buffered reader (shadow/connio.py) on a real socket pair: frames that
arrive together are served from one read, a frame cut anywhere is completed from the socket (under its
timeout), a big frame longer than the buffer, the end of the connection, and short replies."""
import socket
import threading

import pytest
import torch

from shadow.connio import ConnReader, send_small
from shadow.protocol import Manifest, pack_manifest, pack_message, recv_message


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    b.settimeout(5)  # as the shadow's connections: a timeout, so the descriptor is non-blocking
    yield a, b
    a.close()
    b.close()


def _frames():
    out = [pack_manifest(Manifest(7, it, [1e-3, 2e-3], 0.5 if it % 2 else None, it == 3, None, [])) for it in range(1, 6)]
    out.append(b"".join(pack_message("status", None)))
    return out


def test_frames_together_are_served_from_one_read(pair):
    a, b = pair
    frames = _frames()
    a.sendall(b"".join(frames))
    r = ConnReader(b)
    assert r.fill() and r.pending() == sum(map(len, frames))
    got = [recv_message(r) for _ in frames]
    assert [op for op, _ in got] == ["cmanifest"] * 5 + ["status"]
    assert [m.iteration for _, m in got[:5]] == [1, 2, 3, 4, 5]
    assert got[0][1].clip_coef == 0.5 and got[2][1].skip and got[1][1].lrs == [1e-3, 2e-3]
    assert r.pending() == 0


@pytest.mark.parametrize("cut", [1, 5, 12, 20, 31])
def test_a_frame_cut_anywhere_is_completed_from_the_socket(pair, cut):
    a, b = pair
    f = _frames()[0]
    a.sendall(f[:cut])
    r = ConnReader(b)
    assert r.fill() and r.pending() == cut
    t = threading.Timer(0.05, lambda: a.sendall(f[cut:]))
    t.start()
    op, m = recv_message(r)  # the rest arrives later: read from the socket, blocking
    t.join()
    assert op == "cmanifest" and m.iteration == 1 and r.pending() == 0


def test_a_frame_longer_than_the_buffer(pair):
    a, b = pair
    big = b"".join(pack_message("bootstrap-ish", {"t": torch.arange(50_000, dtype=torch.float32)}))
    threading.Thread(target=a.sendall, args=(big + _frames()[0],), daemon=True).start()
    r = ConnReader(b, size=4096)
    assert r.fill()
    op, body = recv_message(r)
    assert op == "bootstrap-ish" and torch.equal(body["t"], torch.arange(50_000, dtype=torch.float32))
    op, m = recv_message(r)
    assert op == "cmanifest" and m.iteration == 1


def test_end_of_connection(pair):
    a, b = pair
    a.sendall(_frames()[0][:10])
    a.close()
    r = ConnReader(b)
    assert r.fill() and r.pending() == 10
    with pytest.raises(ConnectionError):
        recv_message(r)
    assert not r.fill()  # at end of file


def test_send_small_and_large(pair):
    a, b = pair
    send_small(b, b"ack!")
    assert a.recv(16) == b"ack!"
    data = bytes(range(256)) * 40000  # more than a socket buffer takes at once: the rest by sendall
    t = threading.Thread(target=send_small, args=(b, data))
    t.start()
    got = bytearray()
    while len(got) < len(data):
        got += a.recv(1 << 20)
    t.join()
    assert bytes(got) == data


def test_take_compact_decodes_whole_manifests_only(pair):
    a, b = pair
    frames = _frames()
    a.sendall(b"".join(frames[:2]) + frames[5] + frames[2][:9])
    r = ConnReader(b)
    assert r.fill()
    op, m = r.take_compact()
    assert op == "cmanifest" and m.iteration == 1 and m.clip_coef == 0.5
    assert r.take_compact()[1].iteration == 2
    assert r.take_compact() is None  # a status frame: the generic path
    assert recv_message(r)[0] == "status"
    assert r.take_compact() is None  # only 9 bytes of the next manifest
    a.sendall(frames[2][9:])
    assert recv_message(r)[1].iteration == 3


def test_take_compact_refuses_a_malformed_body(pair):
    from shadow.protocol import ProtocolError
    a, b = pair
    f = bytearray(_frames()[0])
    f[16 + 15:16 + 17] = (9).to_bytes(2, "big")  # n_lrs no longer matches the body length
    a.sendall(bytes(f))
    r = ConnReader(b)
    assert r.fill()
    with pytest.raises(ProtocolError, match="n_lrs"):
        r.take_compact()
