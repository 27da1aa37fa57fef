"""All-reduce time: the Checkmate UDP ring (what the comm hook runs per bucket) vs gloo.

Spawns ``--world-size`` ranks on loopback.  For each tensor size both collectives average the
same float32 tensor ``--reps`` times (after ``--warmup`` untimed rounds); a barrier separates
rounds so every round starts together.  Printed: the median time of each per size and the
ratio ``ring / gloo``, measured in the same run, and rank 0's ring counters (retransmissions,
congestion-window cuts, the window at the end).  The gloo side is ``dist.all_reduce`` plus the
division DDP does; the ring side is ``UdpRing`` with the hook's packet plan, i.e. exactly the
work ``checkmate_hook`` submits for a bucket of that size.

    python -m benchmarks.bench_allreduce --world-size 3 --sizes 1024,65536,1048576 --mtu 1500
"""
from __future__ import annotations

import argparse
import datetime
import json
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, args: argparse.Namespace, outq) -> None:
    from checkmate import wire
    from trainer_hooks.layout import plan_bucket
    from trainer_hooks.transport import Job, UdpRing

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    addrs: list = [None] * world
    dist.all_gather_object(addrs, sock.getsockname())
    ring = UdpRing(sock, rank, world, addrs[(rank - 1) % world], addrs[(rank + 1) % world], job_id=1,
                   window=args.window, rto=args.rto, timeout=120.0)
    max_el = wire.max_elements(args.mtu)
    results = []
    job_no = 0
    try:
        for n in args.sizes:
            # a bucket of n elements made of params of at most 64K elements, like a real model
            params = [(i, min(65536, n - off)) for i, off in enumerate(range(0, n, 65536))]
            plan = plan_bucket(params, world, max_el)
            g = torch.randn(n, generator=torch.Generator().manual_seed(rank))
            times = {"gloo": [], "ring": []}
            before = (ring.stats.acks_sent, ring.stats.batched, ring.stats.data_sent)
            for rep in range(args.warmup + args.reps):
                for kind in ("gloo", "ring"):
                    t = g.clone()
                    dist.barrier()
                    t0 = time.perf_counter()
                    if kind == "gloo":
                        t.div_(world)
                        dist.all_reduce(t)
                    else:
                        ring.submit(Job(job_no, 0, t, plan)).wait()
                        job_no += 1
                    dt = time.perf_counter() - t0
                    if rep >= args.warmup:
                        times[kind].append(dt)
            # the slowest rank defines the collective's time
            med = torch.tensor([statistics.median(times["gloo"]), statistics.median(times["ring"])],
                               dtype=torch.float64)
            dist.all_reduce(med, op=dist.ReduceOp.MAX)
            reps = args.warmup + args.reps
            results.append({"elements": n, "packets": len(plan.packets), "gloo_s": med[0].item(),
                            "ring_s": med[1].item(), "retransmits": ring.stats.retransmits,
                            # rank 0's, cumulative: resends at a selective-ack hole, congestion-window
                            # cuts, and the window at the end (a clean path keeps it at --window)
                            "fast_retransmits": ring.stats.fast_retransmits, "cwnd_cuts": ring.stats.cwnd_cuts,
                            "cwnd": ring.cwnd,
                            # rank 0's, per all-reduce: acks it sent, data packets it sent, and how many
                            # of the packets it received were taken as whole GRO batches
                            "acks_per_allreduce": (ring.stats.acks_sent - before[0]) / reps,
                            "data_per_allreduce": (ring.stats.data_sent - before[2]) / reps,
                            "batched_per_allreduce": (ring.stats.batched - before[1]) / reps})
        dist.barrier()
    finally:
        ring.close(linger=5.0)
        dist.destroy_process_group()
    if rank == 0:
        outq.put(results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--world-size", type=int, default=3)
    ap.add_argument("--sizes", default="1024,16384,262144,1048576",
                    help="comma-separated element counts (float32)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--window", type=int, default=512)
    ap.add_argument("--rto", type=float, default=0.05)
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.world_size < 2 or not args.sizes or min(args.sizes) < 1:
        ap.error("need --world-size >= 2 and positive --sizes")
    ctx = mp.get_context("spawn")
    outq = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(r, args.world_size, port, args, outq), daemon=True)
             for r in range(args.world_size)]
    for p in procs:
        p.start()
    try:
        results = outq.get(timeout=600)
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    print(f"all-reduce, {args.world_size} ranks on loopback, MTU {args.mtu}, median of {args.reps} "
          f"(slowest rank); ring = Checkmate UDP ring (the comm hook's transport)")
    print(f"{'elements':>10} {'MB':>7} {'packets':>8} {'gloo ms':>9} {'ring ms':>9} {'ring/gloo':>10} {'retx':>5} {'cuts':>5} {'cwnd':>5}")
    for r in results:
        print(f"{r['elements']:>10} {r['elements'] * 4 / 1e6:>7.2f} {r['packets']:>8} {r['gloo_s'] * 1e3:>9.2f} "
              f"{r['ring_s'] * 1e3:>9.2f} {r['ring_s'] / r['gloo_s']:>9.1f}x {r['retransmits']:>5} {r['cwnd_cuts']:>5} {r['cwnd']:>5}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": {k: v for k, v in vars(args).items() if k != "json"}, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
