"""What one small send to a sleeping peer costs the sender, by transport: is a manifest relay worth it?

Rank 0 posts each iteration's compact manifest (~120 bytes) to every shadow over TCP, and on loopback
or the testbed's veths the kernel runs the receiver's side of each send -- and the wake-up of the
shadow's thread, asleep on its socket -- on the sender's CPU (docs/benchmarks/SHADOW_RANK0.md, *Rank 0's extra
CPU*).  The obvious remedy is fewer writes than shards: one datagram that the switch replicates to
every shadow, or a relay through one shadow.  This measures, in the sender's thread CPU time
(``time.thread_time_ns``), one ``send`` of that size to peers that sleep between sends, as the
trainer does once per iteration, interleaved so every variant sees the same machine:

* ``tcp x2``: two TCP connections, one write each -- what rank 0 does for two shadows today;
* ``tcp x1``: one of them -- a relay through one shadow;
* ``udp x1`` / ``udp connected x1``: one UDP datagram -- one manifest for the switch to replicate.

The peers are separate processes blocked in ``recv``; between sends the sender sleeps ``--gap``
seconds (the iteration), so the peers are asleep and the caches have moved on when it sends.

    python -m benchmarks.bench_wakeup [--rounds 2000] [--gap 0.004]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import socket
import statistics
import time

MSG = bytes(120)  #: about a compact manifest's size


def _tcp_peer(port_q) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port_q.put(srv.getsockname()[1])
    conn, _ = srv.accept()
    while conn.recv(65536):
        pass


def _udp_peer(port_q) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port_q.put(s.getsockname()[1])
    while s.recv(65536) != b"end":
        pass


def measure(rounds: int, gap: float) -> dict[str, list[int]]:
    """Sender thread CPU (ns) per send round of each variant, the variants taking turns."""
    ctx = mp.get_context("spawn")
    qs = [ctx.Queue() for _ in range(3)]
    peers = [ctx.Process(target=f, args=(q,), daemon=True) for f, q in zip((_tcp_peer, _tcp_peer, _udp_peer), qs)]
    for p in peers:
        p.start()
    ports = [q.get(timeout=30) for q in qs]
    t1, t2 = (socket.create_connection(("127.0.0.1", p)) for p in ports[:2])
    for t in (t1, t2):
        t.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as ShadowClient
    udp_addr = ("127.0.0.1", ports[2])
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    uc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    uc.connect(udp_addr)
    variants = {
        "tcp x2": lambda: (t1.send(MSG), t2.send(MSG)),
        "tcp x1": lambda: t1.send(MSG),
        "udp x1": lambda: u.sendto(MSG, udp_addr),
        "udp connected x1": lambda: uc.send(MSG),
    }
    out: dict[str, list[int]] = {k: [] for k in variants}
    names = list(variants)
    try:
        for r in range(rounds):
            name = names[r % len(names)]
            time.sleep(gap)
            c = time.thread_time_ns()
            variants[name]()
            out[name].append(time.thread_time_ns() - c)
    finally:
        u.sendto(b"end", udp_addr)
        for s in (t1, t2, u, uc):
            s.close()
        for p in peers:
            p.join(timeout=5)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000, help="sends in all, the variants taking turns")
    ap.add_argument("--gap", type=float, default=0.004, help="seconds between sends (the peers fall asleep)")
    a = ap.parse_args(argv)
    res = measure(a.rounds, a.gap)
    base = statistics.median(res["tcp x2"][5:])
    print(f"sender thread CPU per send round, {a.rounds // len(res)} rounds each, {a.gap * 1e3:g} ms apart "
          f"(median, p90; ratio of medians to tcp x2):")
    for name, v in res.items():
        v = sorted(v[5:])  # the first rounds warm up the connections
        med, p90 = statistics.median(v), v[int(len(v) * 0.9)]
        print(f"  {name:18s} {med / 1e3:6.1f} us  p90 {p90 / 1e3:6.1f} us   {med / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
