"""What a receive timestamp costs a UDP tunnel port (helper p4rt73, fuzz_p4rt 7294).

    python -m benchmarks.bench_rx_timestamps [--frames 2000] [--rounds 20]

fuzz_p4rt 7294 sent a burst on ports 1, 5, 1, 1 whose 2nd and 4th frames share a meter cell: BMv2
takes the frames from its one nanomsg packet socket in the order sent, checkmate-switch drains each
ready port's batch in turn (``switch/daemon.py``), so port 1's three frames ran first.  Merging the
ready ports' frames by kernel receive time needs the time of each frame: a UDP port (what the
harness and the no-Mininet path use) would read it with ``recvmsg`` and ``SO_TIMESTAMPNS`` instead
of ``recv``.  This times both on one loopback socket, frames already queued, best of ``--rounds``:
the per-frame receive cost the data plane would pay.  No root, no network.
"""
from __future__ import annotations

import argparse
import socket
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def _pair(stamped: bool) -> tuple[socket.socket, socket.socket]:
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(("127.0.0.1", 0))
    r.setblocking(False)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    if stamped:
        r.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(r.getsockname())
    return r, s


def per_frame(stamped: bool, frames: int, rounds: int, size: int = 100) -> float:
    """Best time over ``rounds`` to receive one queued frame, in seconds."""
    r, s = _pair(stamped)
    frame = bytes(size)
    space = socket.CMSG_SPACE(16)  # struct timespec
    best = float("inf")
    try:
        for _ in range(rounds):
            for _ in range(frames):
                s.send(frame)
            out, stamps = [], []
            t = time.perf_counter()
            if stamped:
                recvmsg = r.recvmsg
                for _ in range(frames):
                    data, anc, _flags, _addr = recvmsg(65535, space)
                    out.append(data)
                    stamps.append(anc[0][2] if anc else None)
            else:
                recv = r.recv
                for _ in range(frames):
                    out.append(recv(65535))
            best = min(best, (time.perf_counter() - t) / frames)
    finally:
        r.close()
        s.close()
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args(argv)
    plain = per_frame(False, a.frames, a.rounds)
    stamped = per_frame(True, a.frames, a.rounds)
    print(f"recv                     {plain * 1e6:6.2f} us/frame")
    print(f"recvmsg + SO_TIMESTAMPNS {stamped * 1e6:6.2f} us/frame  (+{(stamped - plain) * 1e6:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
