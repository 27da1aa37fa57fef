"""All-reduce time: the Checkmate UDP ring (what the comm hook runs per bucket) vs gloo.

Spawns ``--world-size`` ranks on loopback.  For each tensor size both collectives average the
same float32 tensor ``--reps`` times (after ``--warmup`` untimed rounds); a barrier separates
rounds so every round starts together.  Printed: the median time of each per size and the
ratio ``ring / gloo``, measured in the same run, and what was lost or resent during the timed
repetitions, so that a figure shows whether losses made it: ``drops`` -- datagrams the ring's
receiving sockets dropped because their buffer was full (``/proc/net/udp``, all ranks; on loopback
the only way a datagram is lost), ``retx`` -- resends (after a timeout or at a selective-ack hole),
``dup`` -- resends that the receiver already had (a spurious timeout: a rank was descheduled past
it), ``cuts`` -- congestion-window cuts, ``snmp`` -- the host's ``Udp: RcvbufErrors`` meanwhile (any
socket of the machine), and rank 0's window at the end.  The gloo side is ``dist.all_reduce`` plus the
division DDP does; the ring side is ``UdpRing`` with the hook's packet plan, i.e. exactly the
work ``checkmate_hook`` submits for a bucket of that size.  ``ring cpu`` is the CPU time of the
ring's thread per all-reduce (median per rank, the largest rank's; ``sum`` adds the ranks' medians):
on a machine with fewer cores than ranks the ring's wall time follows the ranks' CPU added up.

``--baseline DIR`` compares with another checkout (``git archive main | tar -x -C /tmp/old``): this
file runs ``--rounds`` times with each tree's ``checkmate`` / ``trainer_hooks`` (``PYTHONPATH``),
alternately, each run measuring gloo and that tree's ring in the same processes with the same
harness, and the medians over the rounds of each tree are printed side by side.

    python -m benchmarks.bench_allreduce --world-size 3 --sizes 1024,65536,1048576 --mtu 1500
    python -m benchmarks.bench_allreduce --sizes 1048576 --reps 20 --mtu 9000 --baseline /tmp/old --rounds 5
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SUMMED = ("socket_drops", "retransmits", "duplicates", "cwnd_cuts", "cwnd_undos", "fast_retransmits",
           "buffer_limited")


def _snmp_udp() -> dict:
    """The host's ``Udp:`` counters of ``/proc/net/snmp`` (empty where there is none)."""
    try:
        with open("/proc/net/snmp") as f:
            rows = [line.split() for line in f if line.startswith("Udp:")]
        return {k: int(v) for k, v in zip(rows[0][1:], rows[1][1:])}
    except (OSError, IndexError, ValueError):
        return {}


def socket_drops(sock) -> int | None:
    """Datagrams the kernel dropped at ``sock`` (its receive buffer was full): the ``drops`` column of
    its row in ``/proc/net/udp``, found by the socket's inode; None where that cannot be read."""
    try:
        ino = str(os.fstat(sock.fileno()).st_ino)
        with open("/proc/net/udp") as f:
            for line in f:
                cols = line.split()
                if len(cols) > 12 and cols[9] == ino:
                    return int(cols[-1])
    except (OSError, ValueError):
        pass
    return None


def _counters(ring) -> dict:
    """This rank's ring counters, its socket's drops, and the host's UDP receive errors (now)."""
    st = ring.stats
    snmp = _snmp_udp()
    drops = socket_drops(ring.sock)
    return {"socket_drops": drops if drops is not None else 0, "retransmits": st.retransmits,
            "duplicates": st.duplicates, "cwnd_cuts": st.cwnd_cuts, "fast_retransmits": st.fast_retransmits,
            "buffer_limited": getattr(st, "buffer_limited", 0), "cwnd_undos": getattr(st, "cwnd_undos", 0),
            "acks_sent": st.acks_sent, "data_sent": st.data_sent, "batched": st.batched, "runs": getattr(st, "runs", 0),
            "snmp_rcvbuf": snmp.get("RcvbufErrors", 0), "snmp_in": snmp.get("InErrors", 0)}


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
    if args.rcvbuf:  # a smaller receive buffer, as on a host with the default net.core.rmem_max
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
        ring.rcvbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)  # (before the first job plans)
    try:  # the ring thread's CPU clock (Linux)
        cpu_clock = time.pthread_getcpuclockid(ring._thread.ident)
    except (AttributeError, OSError):
        cpu_clock = None
    max_el = wire.max_elements(args.mtu)
    results = []
    job_no = 0
    try:
        for n in args.sizes:
            # a bucket of n elements made of params of at most 64K elements, like a real model
            params = [(i, min(65536, n - off)) for i, off in enumerate(range(0, n, 65536))]
            plan = plan_bucket(params, world, max_el)
            g = torch.randn(n, generator=torch.Generator().manual_seed(rank))
            times = {"gloo": [], "ring": [], "cpu": [], "pcpu_gloo": [], "pcpu_ring": []}
            for rep in range(args.warmup + args.reps):
                if rep == args.warmup:  # counters over the timed repetitions only
                    before = _counters(ring)
                for kind in ("gloo", "ring"):
                    t = g.clone()
                    dist.barrier()
                    c0 = time.clock_gettime(cpu_clock) if cpu_clock is not None else 0.0
                    p0 = time.process_time()
                    t0 = time.perf_counter()
                    if kind == "gloo":
                        t.div_(world)
                        dist.all_reduce(t)
                    else:
                        ring.submit(Job(job_no, 0, t, plan)).wait()
                        job_no += 1
                    dt = time.perf_counter() - t0
                    pc = time.process_time() - p0
                    if rep >= args.warmup:
                        times[kind].append(dt)
                        times["pcpu_" + kind].append(pc)
                        if kind == "ring" and cpu_clock is not None:
                            times["cpu"].append(time.clock_gettime(cpu_clock) - c0)
            dist.barrier()  # every rank's timed repetitions are over before the counters are read
            delta = {k: v - before[k] for k, v in _counters(ring).items()}
            # the slowest rank defines the collective's time
            cpu = statistics.median(times["cpu"]) if times["cpu"] else float("nan")
            med = torch.tensor([statistics.median(times["gloo"]), statistics.median(times["ring"]), cpu],
                               dtype=torch.float64)
            dist.all_reduce(med, op=dist.ReduceOp.MAX)
            # summed over the ranks: ring CPU, and the loss / resend counts of the timed repetitions
            # the whole process's CPU (every thread: gloo works on its own threads) per all-reduce, both
            # collectives: with fewer cores than ranks, wall time tends to the ranks' CPU added up, so
            # their ratio is the one a loaded machine converges to, whatever else runs on it
            pcpu = [statistics.median(times["pcpu_gloo"]), statistics.median(times["pcpu_ring"])]
            tot = torch.tensor([cpu] + pcpu + [float(delta[k]) for k in _SUMMED], dtype=torch.float64)
            dist.all_reduce(tot)
            summed = dict(zip(_SUMMED, (int(x) for x in tot[3:].tolist())))
            reps = args.reps
            results.append({"elements": n, "packets": len(plan.packets), "gloo_s": med[0].item(),
                            "ring_s": med[1].item(), "ring_cpu_s": med[2].item(), "ring_cpu_sum_s": tot[0].item(),
                            "gloo_proc_cpu_sum_s": tot[1].item(), "ring_proc_cpu_sum_s": tot[2].item(),
                            # all ranks, timed repetitions only: datagrams the receiving sockets dropped
                            # (their buffer was full: /proc/net/udp), resends (after a timeout or at a
                            # selective-ack hole), resends that arrived as duplicates (the timeout was
                            # spurious), congestion-window cuts; the machine's Udp RcvbufErrors /
                            # InErrors over the same time (/proc/net/snmp: every UDP socket of the host)
                            "socket_drops": summed["socket_drops"], "retransmits": summed["retransmits"],
                            "duplicates": summed["duplicates"], "cwnd_cuts": summed["cwnd_cuts"],
                            "cwnd_undos": summed["cwnd_undos"],  # cuts undone: the timeout was spurious
                            "fast_retransmits": summed["fast_retransmits"],
                            # sends held back because the receiver's buffer (not cwnd) was the limit
                            "buffer_limited": summed["buffer_limited"],
                            "snmp_rcvbuf_errors": delta["snmp_rcvbuf"], "snmp_in_errors": delta["snmp_in"],
                            "cwnd": ring.cwnd, "window": ring.window,
                            "rcvbuf": ring.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
                            # rank 0's, per all-reduce: acks it sent, data packets it sent, and how many
                            # of the packets it received were taken as whole GRO batches (and of those by the O(1) run check)
                            "acks_per_allreduce": delta["acks_sent"] / reps,
                            "data_per_allreduce": delta["data_sent"] / reps,
                            "batched_per_allreduce": delta["batched"] / reps,
                            "runs_per_allreduce": delta["runs"] / reps})  # of those, by the O(1) path
        dist.barrier()
    finally:
        ring.close(linger=5.0)
        dist.destroy_process_group()
    if rank == 0:
        outq.put(results)


_COMMON = ("world_size", "sizes", "reps", "warmup", "mtu", "window", "rto", "rcvbuf")  # what a --baseline run is given


def _compare(args: argparse.Namespace) -> int:
    """The benchmark in this tree and in ``args.baseline``, ``args.rounds`` times each, alternately
    (which tree goes first alternates too), as separate runs; medians over the rounds."""
    trees = {"baseline": Path(args.baseline).resolve(), "this": Path(__file__).resolve().parents[1]}
    if not (trees["baseline"] / "trainer_hooks" / "transport.py").is_file():
        raise SystemExit(f"--baseline {args.baseline}: no trainer_hooks/transport.py there")
    flags = []
    for k in _COMMON:
        v = getattr(args, k)
        flags += [f"--{k.replace('_', '-')}", ",".join(map(str, v)) if k == "sizes" else str(v)]
    runs: dict = {label: [] for label in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for label in (("baseline", "this") if r % 2 == 0 else ("this", "baseline")):
                out = os.path.join(tmp, f"{label}-{r}.json")
                env = dict(os.environ, PYTHONPATH=str(trees[label]))
                # this harness, that tree's ring (the script's own folder holds neither package)
                subprocess.run([sys.executable, str(Path(__file__).resolve()), *flags, "--json", out],
                               cwd=trees[label], env=env, check=True, stdout=subprocess.DEVNULL)
                with open(out) as f:
                    runs[label].append(json.load(f)["results"])
                res = runs[label][-1]
                print(f"round {r} {label:>8}: " + "  ".join(
                    f"{x['elements']}: ring/gloo {x['ring_s'] / x['gloo_s']:.2f}x" for x in res), flush=True)

    def med(label, i, f):
        vals = [f(run[i]) for run in runs[label] if f(run[i]) is not None]
        return statistics.median(vals) if vals else float("nan")

    print(f"all-reduce, {args.world_size} ranks on loopback, MTU {args.mtu}; medians over {args.rounds} alternating "
          f"runs per tree (each the median of {args.reps}, slowest rank); baseline = {trees['baseline']}")
    print(f"{'elements':>10} {'tree':>8} {'gloo ms':>8} {'ring ms':>8} {'ring/gloo':>10} {'(min..max)':>13} "
          f"{'ring cpu ms':>11} {'cpu sum ms':>10} {'cpu ratio':>9} {'drops':>6} {'retx':>6} {'cuts':>5} {'undos':>5}  "
          f"cwnd at the end of each run")
    summary = []
    for i, n in enumerate(args.sizes):
        for label in trees:
            ratios = [run[i]["ring_s"] / run[i]["gloo_s"] for run in runs[label]]
            row = {"elements": n, "tree": label, "gloo_s": med(label, i, lambda x: x["gloo_s"]),
                   "ring_s": med(label, i, lambda x: x["ring_s"]), "ratio": statistics.median(ratios),
                   "ratio_min": min(ratios), "ratio_max": max(ratios),
                   "ring_cpu_s": med(label, i, lambda x: x.get("ring_cpu_s")),
                   "ring_cpu_sum_s": med(label, i, lambda x: x.get("ring_cpu_sum_s")),
                   "cpu_ratio": med(label, i, lambda x: x["ring_proc_cpu_sum_s"] / x["gloo_proc_cpu_sum_s"]
                                    if x.get("gloo_proc_cpu_sum_s") else None),
                   # over all rounds: datagrams dropped at the ring's sockets, resends (None: an old harness)
                   "socket_drops": sum(run[i].get("socket_drops", 0) for run in runs[label]),
                   "retransmits": sum(run[i].get("retransmits", 0) for run in runs[label]),
                   "cwnd_cuts": sum(run[i].get("cwnd_cuts", 0) for run in runs[label]),
                   "cwnd_undos": sum(run[i].get("cwnd_undos", 0) for run in runs[label]),
                   "cwnd": [run[i].get("cwnd") for run in runs[label]]}
            summary.append(row)
            print(f"{n:>10} {label:>8} {row['gloo_s'] * 1e3:>8.2f} {row['ring_s'] * 1e3:>8.2f} {row['ratio']:>9.2f}x "
                  f"{row['ratio_min']:>6.2f}..{row['ratio_max']:<5.2f} {row['ring_cpu_s'] * 1e3:>11.2f} "
                  f"{row['ring_cpu_sum_s'] * 1e3:>10.2f} {row['cpu_ratio']:>8.2f}x {row['socket_drops']:>6} "
                  f"{row['retransmits']:>6} {row['cwnd_cuts']:>5} {row['cwnd_undos']:>5}  {row['cwnd']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": {k: v for k, v in vars(args).items() if k != "json"}, "summary": summary,
                       "runs": runs}, f, indent=1)
    return 0


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
    ap.add_argument("--rcvbuf", type=int, default=0, metavar="BYTES",
                    help="shrink each ring socket's receive buffer to this after the ring sized it (212992: a "
                         "host with the default net.core.rmem_max, the ring not allowed past it)")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--baseline", default=None, metavar="DIR",
                    help="another checkout to compare with: both run --rounds times, alternately")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline: runs per tree")
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.world_size < 2 or not args.sizes or min(args.sizes) < 1:
        ap.error("need --world-size >= 2 and positive --sizes")
    if args.baseline:
        if args.rounds < 1:
            ap.error("--rounds must be at least 1")
        return _compare(args)
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
    print(f"{'elements':>10} {'MB':>7} {'packets':>8} {'gloo ms':>9} {'ring ms':>9} {'ring/gloo':>10} "
          f"{'ring cpu ms':>11} {'cpu sum ms':>10} {'cpu ratio':>9} {'drops':>5} {'retx':>5} {'dup':>5} {'cuts':>5} "
          f"{'undo':>5} {'snmp':>5} {'cwnd':>5}")
    for r in results:
        print(f"{r['elements']:>10} {r['elements'] * 4 / 1e6:>7.2f} {r['packets']:>8} {r['gloo_s'] * 1e3:>9.2f} "
              f"{r['ring_s'] * 1e3:>9.2f} {r['ring_s'] / r['gloo_s']:>9.1f}x {r['ring_cpu_s'] * 1e3:>11.2f} "
              f"{r['ring_cpu_sum_s'] * 1e3:>10.2f} {r['ring_proc_cpu_sum_s'] / r['gloo_proc_cpu_sum_s']:>8.2f}x "
              f"{r['socket_drops']:>5} {r['retransmits']:>5} {r['duplicates']:>5} "
              f"{r['cwnd_cuts']:>5} {r['cwnd_undos']:>5} {r['snmp_rcvbuf_errors']:>5} {r['cwnd']:>5}")
    print("cpu ratio: the ranks' process CPU per ring all-reduce over the same for gloo (what the wall-time "
          "ratio tends to when the ranks share too few cores)")
    print(f"drops/retx/dup/cuts/undo: all ranks, the {args.reps} timed all-reduces (drops: datagrams the ring's "
          "sockets dropped, buffer full; dup: resends that had arrived; undo: cuts undone, every resend a "
          "duplicate); snmp: the host's Udp RcvbufErrors meanwhile (any socket); ring receive buffer "
          f"{results[0]['rcvbuf'] if results else '?'} bytes, window {results[0]['window'] if results else '?'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": {k: v for k, v in vars(args).items() if k != "json"}, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
