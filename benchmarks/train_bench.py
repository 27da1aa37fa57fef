#!/usr/bin/env python
"""The trainer of ``checkmate bench``: examples/ddp_train.py's model, data and transport, one process
per rank, running a *schedule* of checkpointing methods back to back so that every method is measured
in the same processes, on the same network, interleaved (the machine is noisy)::

    python -m benchmarks.train_bench --rank R --world-size N --master ADDR:PORT --bind-ip IP \\
        --method none,checkmate,host,torch-save,checkfreq,dcp-async --every 1,10 --iters 60 --rounds 3 \\
        --job-id 1 --shadows 10.77.0.101:48881,... --host-job-id 2 --host-shadows 10.77.0.101:48981:48982,... \\
        --out-dir results/bench/<ts>/ckpt --segments results/bench/<ts>/segments.jsonl

Methods (``--every k`` applies to the periodic ones; the others run once per round):

``none``        the hook's UDP ring across the switch, job id not programmed in the switch: no copies.
``checkmate``   the same ring, the programmed job id: the switch copies every FINAL chunk to the shadows.
``host``        the ring plus copies sent by the trainers themselves (``attach(mode="host")``), under a
                job id the switch does not copy (so the shadows are not fed twice).
``torch-save`` / ``checkfreq`` / ``dcp-async``  the ``none`` ring plus ``benchmarks.baselines``.

Each segment = a fresh model/optimizer/DDP (``examples/ddp_train.build``), ``attach`` for its mode,
``--warmup`` iterations, ``--iters`` timed iterations (a multiple of every k), then the method's
background work and the shadows are awaited (not timed) and the hook closed.  Rank 0 appends one JSON
line per segment boundary to ``--segments`` (``begin`` / ``end`` with the iteration times and stalls),
sleeping ``--settle`` seconds after each so that the bench can read the port counters in between.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import trainer_hooks  # noqa: E402

from benchmarks import shadow_check  # noqa: E402
from benchmarks.baselines import PERIODIC, make_method  # noqa: E402

ALL_METHODS = ("none", "checkmate", "host", *PERIODIC)
PROMISE = ("checkmate", "host")  #: the methods whose trainer-side cost answers the paper's claim


def _ring_counters(st) -> tuple:
    """The ring's counters a segment reports (summed over ranks): resends (all / at a selective-ack
    hole), data sent, congestion-window cuts, duplicates received (resends of what had arrived)."""
    if st is None:
        return (0, 0, 0, 0, 0)
    return (st.retransmits, st.data_sent, st.fast_retransmits, st.cwnd_cuts, st.duplicates)


def load_example():
    """examples/ddp_train.py as a module (examples/ is not a package): build_all, load_data, models."""
    path = ROOT / "examples" / "ddp_train.py"
    spec = importlib.util.spec_from_file_location("checkmate_example_ddp_train", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name in ("build_all", "load_data", "batch_indices", "parse_args", "models"):
        if not hasattr(mod, name):
            raise ImportError(f"{path} has no {name}()")
    return mod


def schedule(methods, everys, rounds: int, none_every: int = 2, promise_rounds: int = 0) -> list[tuple[int, str, int]]:
    """(round, method, k) in run order: every configuration once per round, the order rotated each
    round so that no method always runs first or last, and a ``none`` segment before the first and
    after every ``none_every`` configurations, so that each configuration has a no-checkpointing
    segment right next to it in time (its control: the machine is noisy and drifts).

    ``promise_rounds`` more rounds follow, numbered on, with only the methods of the promise
    (:data:`PROMISE`: ``checkmate`` and ``host`` of ``methods``) between their ``none`` segments: the
    figure the paper's claim rests on (trainer CPU with Checkmate against none, a few per cent) gets
    more samples than the periodic baselines' coarser ones, at a few segments per round."""
    configs = [(m, k) for m in methods if m != "none" for k in (everys if m in PERIODIC else [1])]
    promise = [(m, 1) for m in methods if m in PROMISE]
    with_none = "none" in methods
    out = []
    for r in range(rounds + (promise_rounds if promise else 0)):
        these = configs if r < rounds else promise
        s = r % len(these) if these else 0
        rot = these[s:] + these[:s]
        if with_none and r == 0:
            out.append((r, "none", 1))
        for i, (m, k) in enumerate(rot):
            out.append((r, m, k))
            if with_none and ((i + 1) % none_every == 0 or i == len(rot) - 1):
                out.append((r, "none", 1))
    return out


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rank", type=int, default=int(os.environ.get("RANK", 0)))
    ap.add_argument("--world-size", type=int, default=int(os.environ.get("WORLD_SIZE", 1)))
    ap.add_argument("--master", required=True, help="ADDR:PORT of rank 0's c10d store")
    ap.add_argument("--bind-ip", default=None)
    ap.add_argument("--method", default="none", help="comma list of " + "|".join(ALL_METHODS))
    ap.add_argument("--every", default="1", help="comma list of k for the periodic methods")
    ap.add_argument("--iters", type=int, default=60, help="timed iterations per segment")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--promise-rounds", type=int, default=0, help="more rounds of none, checkmate and host "
                    "only, after --rounds (see schedule)")
    ap.add_argument("--job-id", type=int, default=1, help="the job id the switch copies (checkmate)")
    ap.add_argument("--host-job-id", type=int, default=None, help="job id for host mode (default job+1)")
    ap.add_argument("--off-job-id", type=int, default=None, help="job id for the rest (default job+2)")
    ap.add_argument("--shadows", default="", help="HOST:MGMT[:DATA],... shadows of --job-id")
    ap.add_argument("--host-shadows", default="", help="HOST:MGMT:DATA,... shadows of --host-job-id")
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--udp-port", type=int, default=None, help="ring UDP port (0: ephemeral, one host)")
    ap.add_argument("--out-dir", default="/tmp/checkmate-bench-ckpt", help="where baselines persist")
    ap.add_argument("--segments", default=None, help="rank 0: JSON lines per segment boundary")
    ap.add_argument("--settle", type=float, default=0.4, help="idle seconds after each boundary")
    ap.add_argument("--shadow-wait", type=float, default=30.0)
    ap.add_argument("--manifest-batch", type=int, default=1, help="rank 0: compact manifests per write "
                    "(ShadowLink.manifest_batch)")
    ap.add_argument("--train-arg", action="append", default=[], help="passed to ddp_train's parser")
    a = ap.parse_args(argv)
    a.methods = [m for m in a.method.split(",") if m]
    bad = [m for m in a.methods if m not in ALL_METHODS]
    if bad:
        ap.error(f"unknown method(s) {bad}; choose from {ALL_METHODS}")
    a.everys = sorted({int(k) for k in a.every.split(",") if k})
    if not a.everys or min(a.everys) < 1:
        ap.error("--every needs k >= 1")
    if a.iters % max(a.everys):
        a.iters += max(a.everys) - a.iters % max(a.everys)  # whole checkpoint intervals only
    a.host_job_id = a.job_id + 1 if a.host_job_id is None else a.host_job_id
    a.off_job_id = a.job_id + 2 if a.off_job_id is None else a.off_job_id
    if "checkmate" in a.methods and not a.shadows:
        ap.error("checkmate needs --shadows")
    if "host" in a.methods and not a.host_shadows:
        ap.error("host needs --host-shadows")
    return a


class SegmentLog:
    def __init__(self, path, rank):
        self.f = open(path, "a", buffering=1) if (path and rank == 0) else None

    def write(self, **rec):
        if self.f is not None:
            self.f.write(json.dumps({"t": time.time(), **rec}) + "\n")
            self.f.flush()
            os.fsync(self.f.fileno())


def thread_cpu() -> dict[int, tuple[str, int, int, int]]:
    """Per thread of this process (``/proc/self/task/*/schedstat``): its name -- the Python thread name
    where it has one, else ``native`` (torch's and gloo's threads) --, CPU nanoseconds so far,
    nanoseconds spent runnable but waiting for a CPU (contention), and the number of times it was
    put on a CPU (its wake-ups, roughly)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                ns, wait, slices = (int(x) for x in f.read().split()[:3])
        except (OSError, ValueError):
            continue
        out[int(tid)] = (names.get(int(tid), "native"), ns, wait, slices)
    return out


def thread_cpu_delta(before: dict, after: dict, iters: int) -> dict[str, float]:
    """CPU ms per iteration by thread name between two :func:`thread_cpu` readings (threads of one
    name summed; a thread that ended in between is not counted)."""
    return {k: v[0] for k, v in thread_sched_delta(before, after, iters).items()}


def thread_sched_delta(before: dict, after: dict, iters: int) -> dict[str, list[float]]:
    """Per thread name, per iteration between two :func:`thread_cpu` readings: ``[CPU ms, ms waiting
    for a CPU, times scheduled in]`` (threads of one name summed; the heaviest first)."""
    out: dict[str, list[float]] = {}
    for tid, (name, ns, wait, slices) in after.items():
        _, ns0, wait0, slices0 = before.get(tid, (name, 0, 0, 0))
        acc = out.setdefault(name, [0.0, 0.0, 0.0])
        acc[0] += (ns - ns0) / 1e6 / iters
        acc[1] += (wait - wait0) / 1e6 / iters
        acc[2] += (slices - slices0) / iters
    return {k: [round(x, 4) for x in v] for k, v in sorted(out.items(), key=lambda kv: -kv[1][0])}


def run_segment(a, ex, bargs, data, rnd, method, k, dcp_pg, log: SegmentLog, seq: int = 0) -> dict:
    task, opt, sched = ex.build_all(bargs, data)  # --train-arg=--model=cnn|gpt picks the model
    model = task.model
    ddp = DDP(model, bucket_cap_mb=bargs.bucket_cap_mb)
    if method == "checkmate":
        mode, job, shadows = "switch", a.job_id, [s for s in a.shadows.split(",") if s]
    elif method == "host":
        mode, job, shadows = "host", a.host_job_id, [s for s in a.host_shadows.split(",") if s]
    else:
        mode, job, shadows = "switch", a.off_job_id, []
    ring = {"bind_ip": a.bind_ip} if a.bind_ip else {}
    if a.udp_port is not None:
        ring["udp_port"] = a.udp_port
    ckpt = trainer_hooks.attach(ddp, opt, mode=mode, job_id=job, shadows=shadows, mtu=a.mtu,
                                seed=a.rank, **ring)
    out_dir = Path(a.out_dir) / f"{method}-k{k}"
    m = make_method(method if method in PERIODIC else "none", every=k, out_dir=out_dir, rank=a.rank,
                    model=model, optimizer=opt, process_group=dcp_pg)
    if ckpt.link is not None:
        ckpt.link.manifest_batch = a.manifest_batch
    before = shadow_check.counts(ckpt.link) if ckpt.link is not None else None
    dist.barrier()
    seg = {"seq": seq, "round": rnd, "method": method, "every": k, "rank": a.rank, "job_id": job, "mode": mode}
    log.write(event="begin", **seg)
    time.sleep(a.settle)
    times, stalls = [], []
    total = a.warmup + a.iters
    t_first = None
    phases = [0.0, 0.0, 0.0, 0.0]  # the training thread's CPU: forward, backward, clip + step, the rest
    for it in range(1, total + 1):
        if it == a.warmup + 1:
            t_first = time.perf_counter()
            cpu_first = time.process_time()
            threads0 = thread_cpu()
            tr0 = ckpt.ring.stats if ckpt.ring is not None else None
            ring0 = _ring_counters(tr0)
        t0 = time.perf_counter()
        c0 = time.thread_time()
        x, y = task.batch(it, a.rank, a.world_size, bargs.batch)
        loss = task.loss(ddp(x), y)
        c1 = time.thread_time()
        loss.backward()
        c2 = time.thread_time()
        if bargs.clip > 0:
            ckpt.clip_grad_norm_(bargs.clip)
        opt.step()
        c3 = time.thread_time()
        sched.step()
        opt.zero_grad(set_to_none=True)
        # the checkpoint counts iterations from the first timed one, so every segment has iters/k of them
        stall = m.after_step(it - a.warmup) if it > a.warmup else 0.0
        if it > a.warmup:
            times.append(time.perf_counter() - t0)
            stalls.append(stall)
            for i, d in enumerate((c1 - c0, c2 - c1, c3 - c2, time.thread_time() - c3)):
                phases[i] += d
    wall = time.perf_counter() - t_first
    cpu = time.process_time() - cpu_first  # this trainer's CPU (all its threads) over the timed iterations
    threads1 = thread_cpu()
    sched = thread_sched_delta(threads0, threads1, a.iters)
    threads = thread_cpu_delta(threads0, threads1, a.iters) if a.rank == 0 else None
    tr1 = ckpt.ring.stats if ckpt.ring is not None else None
    ring1 = _ring_counters(tr1)
    latest_at_end = shadow_check.latest(ckpt.link) if ckpt.link is not None else None
    t_fin = time.perf_counter()
    m.finish()
    finish_s = time.perf_counter() - t_fin
    caught_up = shadows = None
    if ckpt.link is not None:
        caught_up = bool(ckpt.wait_for_shadows(total, timeout=a.shadow_wait))
        shadows = shadow_check.record(ckpt.link, total, caught_up, before, latest_at_end)
    ckpt.close()
    # every trainer's CPU of the timed iterations, summed over ranks (what the design promises to keep)
    # (and the ring's retransmissions: spurious ones on a starved machine cost the trainers CPU too)
    cpus = torch.tensor([cpu] + [b - a for a, b in zip(ring0, ring1)]
                        + [ckpt.ring.cwnd if ckpt.ring is not None else 0], dtype=torch.float64)
    dist.all_reduce(cpus)
    sched["phases"] = [round(x / a.iters * 1e3, 4) for x in phases]
    sched_by_rank = [None] * dist.get_world_size()
    dist.all_gather_object(sched_by_rank, sched)  # (after the timed iterations: not timed)
    ck_stalls = [s for s in m.stalls]
    rec = dict(seg, iters=a.iters, warmup=a.warmup, wall_s=wall, iter_s=wall / a.iters,
               iter_median_s=statistics.median(times), iter_times=[round(t, 6) for t in times],
               checkpoints=m.checkpoints, stall_total_s=sum(ck_stalls),
               stall_median_s=statistics.median(ck_stalls) if ck_stalls else 0.0,
               stall_max_s=max(ck_stalls) if ck_stalls else 0.0, finish_s=finish_s,
               bytes_written=m.bytes_written,
               trainer_cpu_s=float(cpus[0]), trainer_cpu_own_s=cpu, ring_retransmits=int(cpus[1]),
               ring_data_sent=int(cpus[2]), ring_fast_retransmits=int(cpus[3]), ring_cwnd_cuts=int(cpus[4]),
               ring_duplicates=int(cpus[5]), ring_cwnd_mean=float(cpus[6]) / dist.get_world_size(),
               shadows_caught_up=caught_up, shadows=shadows, rank0_thread_cpu_ms_per_iter=threads,
               thread_sched_per_iter=sched_by_rank,
               final_loss=float(loss.item()))
    log.write(event="end", **rec)
    time.sleep(a.settle)
    del ddp, model, opt, ckpt
    return rec


def main(argv=None) -> int:
    a = parse_args(argv)
    torch.set_num_threads(1)
    ex = load_example()
    bargs = ex.parse_args(["--rank", str(a.rank), "--world-size", str(a.world_size), "--iters", "1",
                           "--mtu", str(a.mtu)] + list(a.train_arg))
    os.environ.setdefault("MASTER_ADDR", a.master.rpartition(":")[0])
    dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank, world_size=a.world_size,
                            timeout=datetime.timedelta(seconds=120))
    # DCP's background collectives get their own group: never interleaved with the job's barriers
    dcp_pg = dist.new_group(backend="gloo") if "dcp-async" in a.methods else None
    data = ex.models.load_corpus(bargs.corpus) if bargs.model == "gpt" else ex.load_data()
    log = SegmentLog(a.segments, a.rank)
    plan = schedule(a.methods, a.everys, a.rounds, promise_rounds=a.promise_rounds)
    log.write(event="start", segments=len(plan), methods=a.methods, everys=a.everys, iters=a.iters,
              warmup=a.warmup, rounds=a.rounds, promise_rounds=a.promise_rounds, world_size=a.world_size)
    for i, (rnd, method, k) in enumerate(plan):
        rec = run_segment(a, ex, bargs, data, rnd, method, k, dcp_pg, log, seq=i)
        if a.rank == 0:
            print(f"[{i + 1}/{len(plan)}] round {rnd} {method:10s} k={k:<3d} {1e3 * rec['iter_s']:7.2f} ms/it "
                  f"stall {1e3 * rec['stall_median_s']:6.2f} ms", flush=True)
    log.write(event="done")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
