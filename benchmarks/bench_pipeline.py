"""In-process packet rate of the embedded v1model pipeline, against a bare bytes copy.

    python -m benchmarks.bench_pipeline [--packets N] [--repeat R]

Runs, in the same process and the same run:

* ``copy``      -- the floor: a loop that only copies each frame (``bytes(bytearray(f))``)
  and builds the ``[(port, frame)]`` result a switch hands back;
* ``basic.p4``  -- Ethernet/IPv4 LPM forwarding with TTL decrement and IPv4 checksum
  (tests/pipeline/programs/basic.p4);
* ``checkmate.p4`` -- p4src/checkmate.p4 (if present): a FINAL gradient chunk from a
  trainer port, replicated to a shadow (2 output frames per input); the same chunk with a
  multicast group of the forward port only (1 frame: every table and action but the copy);
  a chunk of a job the switch does not copy (a plain forward); a plain IPv4/UDP datagram.

For each it prints packets per CPU second (best of R runs) and the ratio to the copy loop, then the
replica's marginal cost -- the PRE copy, its egress pass (rewrite to the shadow, checksum)
and deparse: group of 2 minus group of 1 -- as a ratio to a forwarded chunk.
"""
from __future__ import annotations

import argparse
import os
import struct
import time

from checkmate.wire import CHECKMATE_UDP_PORT, FLAG_FINAL, ChunkHeader, encode
from switch.compiler import compile_file
from switch.runtime import Pipeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASIC = os.path.join(ROOT, "tests", "pipeline", "programs", "basic.p4")
CHECKMATE = os.path.join(ROOT, "p4src", "checkmate.p4")


def ipv4_udp(dst_ip: bytes, dport: int, payload: bytes, ttl: int = 64) -> bytes:
    udp = struct.pack("!HHHH", 40000, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, ttl, 17, 0,
                     bytes([10, 77, 0, 1]), dst_ip)
    eth = bytes.fromhex("080000000002" "080000000001" "0800")
    return eth + ip + udp


def rate(fn, frame: bytes, port: int, n: int, repeat: int) -> float:
    """Packets per second of this thread's CPU time (best of ``repeat``): on a shared machine wall
    time would also count the time other processes held the core."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.thread_time()
        for _ in range(n):
            fn(port, frame)
        best = min(best, time.thread_time() - t0)
    return n / max(best, 1e-9)


def copy_loop(port: int, frame: bytes):
    return [(port, bytes(bytearray(frame)))]


def basic_pipeline() -> Pipeline:
    pl = Pipeline(compile_file(BASIC).device_config)
    pl.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.77.0.0", 24)},
              "MyIngress.ipv4_forward", {"dstAddr": "08:00:00:00:00:02", "port": 2})
    return pl


def checkmate_pipeline() -> Pipeline:
    pl = Pipeline(compile_file(CHECKMATE).device_config)
    pl.insert("ipv4_route", {"hdr.ipv4.dstAddr": ("10.77.0.2", 32)}, "forward",
              {"port": 2, "smac": "00:00:00:00:aa:01", "dmac": "08:00:00:00:00:02"})
    pl.insert("trainer_port", {"standard_metadata.ingress_port": 1}, "mark_trainer")
    pl.insert("heartbeat_slot", {"hdr.checkmate.job_id": 1, "hdr.checkmate.rank": 0},
              "set_heartbeat_slot", {"slot": 0})
    pl.insert("shard_map", {"hdr.checkmate.job_id": 1, "hdr.checkmate.param_id": (0, 1 << 20)},
              "set_shard", {"rid": 1}, priority=1)
    pl.insert("replication", {"meta.out_port": 2, "meta.shard_rid": 1}, "replicate", {"group": 1})
    pl.insert("shadow_rewrite", {"standard_metadata.egress_rid": 1}, "to_shadow",
              {"mac": "08:00:00:00:01:01", "ip": "10.77.0.101", "udp_port": 48880})
    pl.mcast_group_set(1, [(2, 0), (4, 1)])
    pl.on_digest = lambda *_: None
    return pl


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n, r = args.packets, args.repeat
    grad = bytes(4 * 256)
    final = ipv4_udp(bytes([10, 77, 0, 2]), CHECKMATE_UDP_PORT,
                     encode(ChunkHeader(flags=FLAG_FINAL, job_id=1, iteration=3, rank=0, bucket=0,
                                        param_id=5, offset=0, count=256, seq=1), grad))
    plain = ipv4_udp(bytes([10, 77, 0, 2]), 9999, grad)
    base = rate(copy_loop, plain, 1, n, r)
    rows = [("copy (bytes copy loop)", base, 1)]
    bp = basic_pipeline()
    assert len(bp.process(1, plain)) == 1, "basic.p4 did not forward the benchmark frame"
    rows.append(("basic.p4 ipv4 forward", rate(bp.process, plain, 1, n, r), 1))
    if os.path.exists(CHECKMATE):
        cp = checkmate_pipeline()
        outs = cp.process(1, final)
        assert [p for p, _ in outs] == [2, 4], f"checkmate.p4 did not replicate: {outs!r}"
        rows.append(("checkmate.p4 FINAL chunk (+replica)", rate(cp.process, final, 1, n, r), 2))
        # the same chunk, same tables, a multicast group with the forward port only: all but the replica
        one = checkmate_pipeline()
        one.mcast_group_set(1, [(2, 0)])
        assert [p for p, _ in one.process(1, final)] == [2]
        rows.append(("checkmate.p4 FINAL chunk, group of 1", rate(one.process, final, 1, n, r), 1))
        # a chunk of a job the switch does not copy: a plain forward of a Checkmate packet
        other = final[:42 + 4] + (2).to_bytes(4, "big") + final[42 + 8:]  # job_id 2: no shard_map entry
        assert [p for p, _ in cp.process(1, other)] == [2], "an unmapped job must not be copied"
        rows.append(("checkmate.p4 chunk of an uncopied job", rate(cp.process, other, 1, n, r), 1))
        assert len(cp.process(3, plain)) == 1
        rows.append(("checkmate.p4 plain datagram", rate(cp.process, plain, 3, n, r), 1))
    print(f"{'case':40s} {'packets/s':>12s} {'frames out/s':>13s} {'ratio vs copy':>14s}")
    for name, pps, fan in rows:
        print(f"{name:40s} {pps:12,.0f} {pps * fan:13,.0f} {pps / base:14.4f}")
    t = {name: 1e6 / pps for name, pps, _ in rows}
    if "checkmate.p4 chunk of an uncopied job" in t:
        # the replica's marginal cost: the same packet through the same tables, a group of 2 vs of 1
        rep = t["checkmate.p4 FINAL chunk (+replica)"] - t["checkmate.p4 FINAL chunk, group of 1"]
        fwd = t["checkmate.p4 chunk of an uncopied job"]
        print(f"replica (PRE copy + egress rewrite + checksum + deparse): {rep:.1f} us = "
              f"{rep / fwd:.2f}x a forwarded chunk ({fwd:.1f} us), "
              f"{rep / t['basic.p4 ipv4 forward']:.2f}x a basic.p4 forward")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
