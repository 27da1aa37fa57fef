"""A lossless, unshaped TM port sends straight from the data-plane thread while the socket buffer has
room, and falls back to its queue and thread (back-pressure, order kept) when the buffer is full."""
from __future__ import annotations

import socket
import threading
import time

from switch.tm import TrafficManager


class _Port:
    """Records who sent each frame; refuses (``BlockingIOError``) while ``full`` is set."""

    def __init__(self):
        self.frames, self.threads, self.full = [], [], threading.Event()

    def send(self, f):
        if self.full.is_set():
            raise BlockingIOError
        self.frames.append(f)
        self.threads.append(threading.current_thread().name)

    def send_wait(self, f, timeout):
        deadline = time.monotonic() + timeout
        while self.full.is_set():
            if time.monotonic() > deadline:
                raise BlockingIOError
            time.sleep(0.002)
        self.send(f)


def _wait(cond, s=3.0):
    end = time.monotonic() + s
    while not cond() and time.monotonic() < end:
        time.sleep(0.002)
    return cond()


def test_lossless_port_direct_then_queued_then_direct_in_order():
    tm = TrafficManager()
    port = _Port()
    tm.add_port(4, port.send, transmit_wait=port.send_wait)
    tm.configure(4, {"lossless": True, "queue_depth": 64})
    me = threading.current_thread().name
    for i in range(5):
        assert tm.transmit(4, b"%d" % i)
    assert port.frames == [b"0", b"1", b"2", b"3", b"4"] and set(port.threads) == {me}  # no hand-off
    port.full.set()  # the socket buffer is full: frames queue behind the port's thread
    for i in range(5, 10):
        assert tm.transmit(4, b"%d" % i)
    assert tm.stats()[4].queue_len == 5 and len(port.frames) == 5
    assert tm.transmit(4, b"10")  # queued too: never overtakes the queue even if the buffer had room
    port.full.clear()
    assert _wait(lambda: len(port.frames) == 11)
    assert port.frames == [b"%d" % i for i in range(11)]
    assert set(port.threads[5:]) == {"tm-port4"}
    assert _wait(lambda: tm.stats()[4].queue_len == 0)
    assert tm.transmit(4, b"11") and port.threads[-1] == me  # empty again: direct
    st = tm.stats()[4]
    assert st.enqueued == st.sent == 12 and st.tail_drops == st.pause_drops == st.tx_errors == 0
    tm.close()


def test_lossless_port_on_a_real_socket():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.setblocking(False)
    tm = TrafficManager()
    tm.add_port(1, a.send)
    tm.configure(1, {"lossless": True})
    for i in range(20):
        assert tm.transmit(1, b"frame%d" % i)
    assert [b.recv(100) for _ in range(20)] == [b"frame%d" % i for i in range(20)]
    tm.close()
    a.close()
    b.close()
