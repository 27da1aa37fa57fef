"""When a forward leaves the switch's data plane, and what the loop costs: in process, no sockets.

    python -m benchmarks.bench_dataplane [--baseline DIR] [--batch 32] [--batches 300]

The data-plane loop of ``switch/daemon.py`` (:meth:`Switch._process_batch`) runs batches of
Checkmate FINAL chunks through the real ``p4src/checkmate.p4`` pipeline and traffic manager,
half of them of a copied job (a forward to port 2 plus a replica to the lossless shadow port 4)
and half of a job the switch does not copy; the ports only note the time of each send.  It
prints, per loop variant:

* the data plane's CPU per input frame (``time.thread_time``, median over rounds);
* when the forwards leave, counted from the start of their batch: mean, first and last
  (medians over batches) -- the latency the loop adds before the kernel sees a forward.

Variants: this tree's loop with ``send_order="frame"`` and ``"batch"`` (the default), and with
``--baseline DIR`` the loop of ``DIR/switch/daemon.py`` (a checkout before a change, e.g. ``git
archive REV | tar -x -C DIR``) over this tree's pipeline and TM, alternating round by round.  In
process the sends reach no socket, so the kernel's side of the trade-off (a receiver woken per
frame rather than per batch) is ``bench_replica``'s.  No root, no network; on a shared machine
only the same-run comparison means anything.
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import struct
import sys
import time
from pathlib import Path

from checkmate.wire import CHECKMATE_UDP_PORT, FLAG_FINAL, ChunkHeader, encode

REPO = Path(__file__).resolve().parents[1]
PROGRAM = REPO / "p4src" / "checkmate.p4"
IN_PORT, FORWARD, OTHER, SHADOW = 1, 2, 3, 4


def frame(dport: int, payload: bytes, dst: bytes = bytes([10, 77, 0, 2])) -> bytes:
    """Ethernet/IPv4/UDP from 10.77.0.1 (port 40000) to ``dst``:``dport`` carrying ``payload``."""
    udp = struct.pack("!HHHH", 40000, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 77, 0, 1]), dst)
    return bytes.fromhex("080000000002" "080000000001" "0800") + ip + udp


def chunk(seq: int, job: int, count: int = 350, offset: int | None = None) -> bytes:
    """A FINAL fp32 chunk of ``count`` values (350: the testbed's MTU-1500 size) from 10.77.0.1 to 10.77.0.2."""
    payload = encode(ChunkHeader(flags=FLAG_FINAL, job_id=job, iteration=3, rank=0, bucket=0, param_id=5,
                                 offset=seq * count if offset is None else offset, count=count, seq=seq),
                     bytes(4 * count))
    return frame(CHECKMATE_UDP_PORT, payload)


def pipeline(compiled):
    """``checkmate.p4`` programmed as the testbed does for one copied job: 10.77.0.2 -> port 2 (``FORWARD``),
    10.77.0.3 -> port 3 (``OTHER``), port 1 a trainer port, job 1 copied (group 1: the forward, then rid 1 ->
    the shadow port 4, rewritten to 10.77.0.101:48880)."""
    from switch.runtime import Pipeline
    pl = Pipeline(compiled.device_config)
    pl.insert("ipv4_route", {"hdr.ipv4.dstAddr": ("10.77.0.2", 32)}, "forward",
              {"port": FORWARD, "smac": "00:00:00:00:aa:01", "dmac": "08:00:00:00:00:02"})
    pl.insert("ipv4_route", {"hdr.ipv4.dstAddr": ("10.77.0.3", 32)}, "forward",
              {"port": OTHER, "smac": "00:00:00:00:aa:01", "dmac": "08:00:00:00:00:03"})
    pl.insert("trainer_port", {"standard_metadata.ingress_port": IN_PORT}, "mark_trainer")
    pl.insert("shard_map", {"hdr.checkmate.job_id": 1, "hdr.checkmate.param_id": (0, 1 << 20)},
              "set_shard", {"rid": 1}, priority=1)
    pl.insert("replication", {"meta.out_port": FORWARD, "meta.shard_rid": 1}, "replicate", {"group": 1})
    pl.insert("shadow_rewrite", {"standard_metadata.egress_rid": 1}, "to_shadow",
              {"mac": "08:00:00:00:01:01", "ip": "10.77.0.101", "udp_port": 48880})
    pl.mcast_group_set(1, [(FORWARD, 0), (SHADOW, 1)])
    return pl


class _Spec:
    def __init__(self, n: int):
        self.number, self.label = n, str(n)


class TimingPort:
    """A port that notes when a forward is sent (nothing reaches a socket)."""

    def __init__(self, n: int, marks: list):
        self.spec, self.number, self._marks = _Spec(n), n, marks

    def send(self, frame: bytes) -> None:
        if self.number == FORWARD:
            self._marks.append(time.perf_counter())

    def send_wait(self, frame: bytes, timeout: float) -> None:
        self.send(frame)


def load_daemon(root: Path):
    """``root/switch/daemon.py`` as a module of this tree's ``switch`` package."""
    name = f"switch._daemon_{abs(hash(str(root)))}"
    spec = importlib.util.spec_from_file_location(name, root / "switch" / "daemon.py")
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "switch"
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class Variant:
    def __init__(self, daemon, compiled, **opts):
        from switch.tm import TrafficManager
        self.marks: list[float] = []
        self.tm = TrafficManager()
        self.sw = daemon.Switch([TimingPort(n, self.marks) for n in (IN_PORT, FORWARD, OTHER, SHADOW)], self.tm,
                                **opts)
        self.tm.configure(SHADOW, {"lossless": True})  # as the testbed configures a shadow's port
        self.sw.install(pipeline(compiled))
        self.cpu_us: list[float] = []
        self.leave: list[tuple[float, float, float]] = []

    def round(self, batch: list[bytes], batches: int) -> None:
        run, marks = self.sw._process_batch, self.marks
        cpu = 0.0
        for _ in range(batches):
            marks.clear()
            c0, t0 = time.thread_time(), time.perf_counter()
            run(IN_PORT, batch)
            cpu += time.thread_time() - c0
            self.leave.append((statistics.fmean(m - t0 for m in marks) * 1e6, (marks[0] - t0) * 1e6,
                               (marks[-1] - t0) * 1e6))
        self.cpu_us.append(cpu / (batches * len(batch)) * 1e6)

    def summary(self) -> dict:
        return {"cpu_us_per_frame": statistics.median(self.cpu_us),
                **{k: statistics.median(x[i] for x in self.leave)
                   for i, k in enumerate(("leave_mean_us", "leave_first_us", "leave_last_us"))}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="a checkout whose switch/daemon.py loop to compare")
    ap.add_argument("--batch", type=int, default=32, help="frames per batch (the daemon takes up to 64)")
    ap.add_argument("--batches", type=int, default=300, help="batches per round")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    from switch import daemon
    from switch.compiler import compile_file
    compiled = compile_file(str(PROGRAM))
    variants = {"frame": Variant(daemon, compiled, send_order="frame"),
                "batch": Variant(daemon, compiled, send_order="batch")}
    if args.baseline is not None:
        if not (args.baseline / "switch" / "daemon.py").exists():
            ap.error(f"--baseline {args.baseline}: no switch/daemon.py there")
        variants["baseline"] = Variant(load_daemon(args.baseline.resolve()), compiled)
    half = args.batch // 2
    batch = [chunk(i, 1) for i in range(half)] + [chunk(i, 2) for i in range(args.batch - half)]
    batch = [f for pair in zip(batch[:half], batch[half:]) for f in pair] + batch[2 * half:]  # interleaved
    try:
        for r in range(args.rounds):
            for v in (list(variants.values()) if r % 2 == 0 else list(variants.values())[::-1]):
                v.round(batch, args.batches)
    finally:
        for v in variants.values():
            v.tm.close()
    print(f"data-plane loop, checkmate.p4, batches of {args.batch} FINAL chunks ({half} copied), "
          f"{args.rounds} rounds x {args.batches} batches (medians)")
    for name, v in variants.items():
        s = v.summary()
        print(f"  {name:9s} CPU {s['cpu_us_per_frame']:6.2f} us/frame   a forward leaves after: mean "
              f"{s['leave_mean_us']:6.0f} us, first {s['leave_first_us']:6.0f}, last {s['leave_last_us']:6.0f} "
              f"(from the start of its batch)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
