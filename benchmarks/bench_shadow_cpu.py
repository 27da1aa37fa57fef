"""Shadow CPU per iteration and when idle: this tree's ``checkmate-shadow`` against a baseline tree's, same run.

What ``checkmate bench`` charges to the shadows -- the CPU time (every thread, the process's nanosecond
CPU clock) of the shadow processes per training iteration -- reproduced without Mininet:

* two real ``python -m shadow.cli`` processes per variant (shards 0 and 1 of ``examples/ddp_train.py``'s
  default model: 17,226 float32 parameters in 6 tensors, AdamW over two param groups, as the bench trains);
* a driver in this process plays the trainers and the switch: per iteration it sends each shard its
  FINAL chunks (350 elements, a 1500-byte MTU: 53 datagrams for both shards) to the shadow's UDP data
  port -- two at a time, spread over ``--spread`` of the iteration as the switch emits them while the
  ring runs -- then rank 0's manifest through a real :class:`trainer_hooks.shadow_link.ShadowLink`
  (this tree's), paced at ``--period`` seconds per iteration like a training loop;
* the baseline variant runs the processes from ``--baseline`` (a source tree, e.g.
  ``git worktree add /tmp/base <rev>``); its link sends the manifests in the form that tree understands
  (the compact frame when its ``shadow/protocol.py`` knows ``cmanifest``, else the JSON frame,
  ``ShadowLink.compact = False``);
* the variants alternate round by round (both stay up all along, so both see the same machine), and the
  figures are medians over rounds: busy CPU per iteration (from the first datagram until both shards
  published the last iteration; the processes' nanosecond CPU clocks) and idle CPU per second (nothing arrives; the testbed's status poller
  is not running here unless ``--poll`` is given).

``--persist-every K`` gives both variants' shadows the testbed's persistence (``checkmate bench`` runs
them with ``--persist-every 10``: a checksummed file every K-th iteration, its thread shown as
``persist`` in the per-thread split); ``--poll S`` asks each shadow for its status every S seconds from
a thread of this process, as the testbed's pollers do (``topologies/monitor.py``, 0.2 s).

``python -m benchmarks.bench_shadow_cpu --baseline DIR [--iters 300] [--rounds 5] [--period 0.009] [--idle 2]
[--persist-every 10] [--poll 0.2]``
(``--baseline`` omitted: this tree alone).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

from shadow.packets import gradient_packets
from trainer_hooks.iteration import IterationRecord
from trainer_hooks.layout import shard_plan
from topologies.procs import proc_cpu
from shadow.client import ShadowClient
from trainer_hooks.shadow_link import ShadowAddr, ShadowLink

JOB = 23
ELEMS = 350
ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    """CPU time of process ``pid``, all its threads (exited ones too), nanosecond resolution: its CPU-time
    clock (:func:`topologies.procs.proc_cpu`, as ``checkmate bench`` reads the shadows)."""
    got = proc_cpu(pid)
    if got is None:
        raise RuntimeError(f"process {pid} is gone")
    return got[0]


def thread_sched(pid: int) -> dict[int, tuple[str, int, int]]:
    """Per live thread of ``pid``: its role (the OS thread name the shadow gives it, ``shadow0-ingest``
    -> ``ingest``; ``other`` for unnamed ones: torch's, the main thread, an older tree's), CPU ns and
    the times it was put on a CPU (``/proc/PID/task/TID/schedstat``: its wake-ups, roughly)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns, _wait, slices = (int(x) for x in f.read().split()[:3])
        except (OSError, ValueError):
            continue
        role = comm.split("-", 1)[1] if comm.startswith("shadow") and "-" in comm else "other"
        out[int(tid)] = (role, ns, slices)
    return out


def threads_delta(before: dict, after: dict, iters: int) -> dict[str, tuple[float, float]]:
    """Per role, summed over threads alive at both readings: (CPU us per iteration, wake-ups per iteration)."""
    out: dict[str, list[float]] = {}
    for tid, (role, ns, sl) in after.items():
        if tid in before:
            d = out.setdefault(role, [0.0, 0.0])
            d[0] += (ns - before[tid][1]) / 1e3 / iters
            d[1] += (sl - before[tid][2]) / iters
    return {k: (v[0], v[1]) for k, v in sorted(out.items(), key=lambda kv: -kv[1][0])}


def _thread_cpu(tid: int) -> float:
    with open(f"/proc/self/task/{tid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def guard_compare(baseline: Path | None, model, rounds: int, reps: int = 300) -> dict:
    """Rank 0's GradGuard per iteration (capture of the reduced bucket + check at the step), thread CPU
    in microseconds, this tree's class against the baseline tree's (loaded from its file), alternated."""
    import importlib.util
    classes = {}
    if baseline is not None:
        spec = importlib.util.spec_from_file_location("_baseline_grad_guard", baseline / "trainer_hooks/grad_guard.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # (dataclasses look their module up)
        spec.loader.exec_module(mod)
        classes["baseline"] = mod.GradGuard
    from trainer_hooks.grad_guard import GradGuard
    classes["this"] = GradGuard
    params = list(model.parameters())
    meta = [(i, p.numel()) for i, p in reversed(list(enumerate(params)))]  # one DDP bucket, reversed order
    bucket = torch.randn(sum(n for _, n in meta))
    at = 0
    for pid, n in meta:
        params[pid].grad = bucket[at:at + n].clone().view(params[pid].shape)
        at += n
    guards = {k: cls({}) for k, cls in classes.items()}
    res = {k: [] for k in classes}
    it = 0
    for _ in range(rounds):
        for k, g in guards.items():
            t = time.thread_time()
            for _ in range(reps):
                it += 1
                g.capture(it, meta, bucket)
                if g.check(it, params).kind != "unchanged":
                    raise RuntimeError(f"{k}: GradGuard saw a change where there is none")
            res[k].append((time.thread_time() - t) / reps * 1e6)
    return {k: statistics.median(v) for k, v in res.items()}


def default_model():
    sys.path.insert(0, str(ROOT / "examples"))
    import ddp_train
    model, opt, _ = ddp_train.build(ddp_train.parse_args(["--iters", "1"]))
    return model, opt


class Variant:
    """Two shadow processes (shards 0, 1) from one source tree, and this tree's link to them."""

    def __init__(self, name: str, tree: Path, model, opt, tmp: Path, compact: bool, persist_every: int = 0):
        self.name = name
        self.procs, addrs = [], []
        env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        for shard in (0, 1):
            p = subprocess.Popen([sys.executable, "-m", "shadow.cli", "--job-id", str(JOB), "--shard", str(shard),
                                  "--data", "127.0.0.1:0", "--mgmt", "127.0.0.1:0", "--ckpt-dir",
                                  str(tmp / f"{name}-{shard}"), "--no-final-persist",
                                  "--persist-every", str(persist_every)],
                                 cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.procs.append(p)
            line = p.stdout.readline()
            if not line.startswith("shadow ready"):
                raise RuntimeError(f"{name} shard {shard}: no ready line ({line!r})")
            kv = dict(x.split("=", 1) for x in line.split()[2:])
            dh, dp = kv["data"].rsplit(":", 1)
            mh, mp = kv["mgmt"].rsplit(":", 1)
            addrs.append(ShadowAddr(mh, int(mp), int(dp)))
        self.owner = shard_plan(model, 2)
        self.link = ShadowLink(JOB, addrs, model, opt, self.owner, timeout=30)
        self.link.compact = compact
        self.link.bootstrap_all(0)
        self.addrs = addrs
        self.it = 0

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.procs)

    def close(self):
        self.link.close(5)
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:  # a loaded machine, or an old tree slow to stop: its
                p.kill()                         # CPU was read already; don't lose the run for it
                p.wait(10)


def speaks_compact(tree: Path) -> bool:
    """Does the shadow of source tree ``tree`` take the compact manifest (``cmanifest``)?  Then the
    baseline is sent the same frames as this tree, and only the shadow's own work differs."""
    try:
        return "cmanifest" in (tree / "shadow" / "protocol.py").read_text()
    except OSError:
        return False


class Poller(threading.Thread):
    """Asks every shadow of ``variants`` for its status every ``interval`` seconds (the testbed's
    pollers, one connection per shadow) until :meth:`stop`."""

    def __init__(self, variants: list[Variant], interval: float):
        super().__init__(daemon=True, name="poller")
        self.addrs = [a for v in variants for a in v.addrs]
        self.interval, self.halt, self.error = interval, threading.Event(), ""

    def run(self) -> None:
        clients = [ShadowClient(a.host, a.mgmt_port, timeout=5.0) for a in self.addrs]
        try:
            while not self.halt.wait(self.interval):
                for c in clients:
                    c.status()
        except Exception as e:  # noqa: BLE001 -- reported after the run
            self.error = f"{type(e).__name__}: {e}"
        finally:
            for c in clients:
                c.close()

    def stop(self) -> None:
        self.halt.set()
        self.join(10)


def run(variants: list[Variant], model, iters: int, rounds: int, period: float, idle: float,
        spread: float = 0.5, poll: float = 0.0) -> dict:
    import socket
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    poller = Poller(variants, poll) if poll > 0 else None
    if poller is not None:
        poller.start()
    grads = {pid: torch.randn(p.shape) * 1e-3 for pid, p in enumerate(model.parameters())}
    res = {v.name: {"busy_ms_per_it": [], "idle_ms_per_s": [], "rank0_us_per_it": []} for v in variants}
    per_thread: dict[str, list[dict]] = {v.name: [] for v in variants}
    lrs = (1e-3, 1e-3)
    try:
        for rnd in range(rounds):
            order = variants if rnd % 2 == 0 else variants[::-1]
            for v in order:
                per_shard = []
                for k, a in enumerate(v.addrs):
                    own = {pid: g for pid, g in grads.items() if v.owner[pid] == k}
                    per_shard.append(a.data)
                    per_shard.append(own)
                c0 = v.cpu()
                th0 = {p.pid: thread_sched(p.pid) for p in v.procs}
                link_tid = v.link._thread.native_id
                l0, t_rec = _thread_cpu(link_tid), 0.0
                t_next = time.monotonic()
                for _ in range(iters):
                    v.it += 1
                    pkts = [(pkt, per_shard[2 * k]) for k in range(2)
                            for pkt in gradient_packets(JOB, v.it, per_shard[2 * k + 1], elems=ELEMS)]
                    # the switch emits the copies one by one while the ring runs: spread them over
                    # `spread` of the period, a few at a time (a burst would favour the receiver)
                    t_pkt = time.monotonic()
                    groups = [pkts[i:i + 2] for i in range(0, len(pkts), 2)]
                    for i, grp in enumerate(groups):
                        for pkt, dest in grp:
                            tx.sendto(pkt, dest)
                        if spread:
                            d = t_pkt + spread * period * (i + 1) / len(groups) - time.monotonic()
                            if d > 0:
                                time.sleep(d)
                    t0 = time.thread_time()
                    v.link.on_record(IterationRecord(v.it, lrs, None, False))
                    t_rec += time.thread_time() - t0
                    t_next += period
                    d = t_next - time.monotonic()
                    if d > 0:
                        time.sleep(d)
                t0 = time.thread_time()
                v.link.flush()
                t_rec += time.thread_time() - t0
                res[v.name]["rank0_us_per_it"].append((t_rec + _thread_cpu(link_tid) - l0) / iters * 1e6)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    if all((c.status().latest_iteration or 0) >= v.it for c in v.link.clients):
                        break
                    time.sleep(0.05)
                else:
                    raise RuntimeError(f"{v.name}: the shadows did not publish iteration {v.it}")
                res[v.name]["busy_ms_per_it"].append((v.cpu() - c0) / iters * 1e3)
                both: dict[str, list[float]] = {}
                for p in v.procs:  # the two shards together, per thread role
                    for role, (us, wk) in threads_delta(th0[p.pid], thread_sched(p.pid), iters).items():
                        d = both.setdefault(role, [0.0, 0.0])
                        d[0] += us
                        d[1] += wk
                per_thread[v.name].append(both)
                if idle > 0:
                    c0 = v.cpu()
                    time.sleep(idle)
                    res[v.name]["idle_ms_per_s"].append((v.cpu() - c0) / idle * 1e3)
    finally:
        tx.close()
        if poller is not None:
            poller.stop()
            if poller.error:
                raise RuntimeError(f"status poller: {poller.error}")
    out = {k: {m: statistics.median(x) if x else float("nan") for m, x in r.items()} | {"rounds": r}
           for k, r in res.items()}
    for k, rounds_ in per_thread.items():  # per role: medians over rounds of (CPU us/it, wake-ups/it)
        roles = {role for r in rounds_ for role in r}
        out[k]["threads"] = {role: tuple(statistics.median(r.get(role, [0.0, 0.0])[i] for r in rounds_)
                                         for i in (0, 1)) for role in sorted(roles)}
    return out



def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench_shadow_cpu", description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="source tree of the baseline shadow (omitted: this tree alone)")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--period", type=float, default=0.009, help="seconds per iteration (the bench's none: ~8.5 ms)")
    ap.add_argument("--idle", type=float, default=2.0, help="seconds of idle measurement per round")
    ap.add_argument("--manifest-batch", type=int, default=1, help="this tree's link: compact manifests per write "
                    "(ShadowLink.manifest_batch)")
    ap.add_argument("--spread", type=float, default=0.5, help="fraction of the period over which an iteration's "
                    "datagrams are sent, two at a time (0: one burst)")
    ap.add_argument("--persist-every", type=int, default=0, metavar="K",
                    help="the shadows persist every K-th iteration (the testbed: 10; 0: never)")
    ap.add_argument("--poll", type=float, default=0.0, metavar="S",
                    help="ask each shadow for its status every S seconds, as the testbed does (0.2; 0: never)")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    model, opt = default_model()
    variants = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if a.baseline:
                variants.append(Variant("baseline", Path(a.baseline), model, opt, Path(tmp),
                                        compact=speaks_compact(Path(a.baseline)), persist_every=a.persist_every))
            variants.append(Variant("this", ROOT, model, opt, Path(tmp), compact=True,
                                    persist_every=a.persist_every))
            variants[-1].link.manifest_batch = a.manifest_batch
            variants_compact = {v.name: v.link.compact for v in variants}
            res = run(variants, model, a.iters, a.rounds, a.period, a.idle, a.spread, a.poll)
        finally:
            for v in variants:
                v.close()
    guard = guard_compare(Path(a.baseline) if a.baseline else None, model, a.rounds)
    print(f"== shadow CPU, 2 shadow processes together, {a.iters} iterations x {a.rounds} rounds at "
          f"{a.period * 1e3:.1f} ms/it, datagrams spread over {a.spread:.0%} of it (median over rounds); "
          f"persist every {a.persist_every or 'never'}, status poll {f'every {a.poll:g} s' if a.poll else 'off'}")
    for name, r in res.items():
        print(f"  {name:9s} busy {r['busy_ms_per_it']:6.3f} ms/it   idle {r['idle_ms_per_s']:6.2f} ms/s   "
              f"rounds {[round(x, 3) for x in r['rounds']['busy_ms_per_it']]}")
    if a.baseline:
        b, t = res["baseline"], res["this"]
        print(f"  ratio this/baseline: busy {t['busy_ms_per_it'] / b['busy_ms_per_it']:.2f}   "
              + (f"idle {t['idle_ms_per_s'] / b['idle_ms_per_s']:.2f}" if b['idle_ms_per_s'] >= 0.05
                 else f"idle {t['idle_ms_per_s']:.2f} ms/s vs baseline under 0.05"))
    print("  per thread role, both shards (us CPU / wake-ups per iteration; 'other': unnamed threads -- a "
          "tree without thread names shows only these)")
    for name, r in res.items():
        print(f"  {name:9s} " + "   ".join(f"{role} {us:.0f} us / {wk:.1f}" for role, (us, wk)
                                            in sorted(r["threads"].items(), key=lambda kv: -kv[1][0])))
    print("== rank 0, per iteration (median over rounds): the manifest to both shards (CPU of the training "
          "thread in on_record + the link thread), GradGuard capture + check (thread CPU)")
    for name, r in res.items():
        how = "compact, posted" if variants_compact[name] else "JSON, one round trip"
        print(f"  {name:9s} manifest ({how}) {r['rank0_us_per_it']:7.1f} us   GradGuard {guard[name]:6.1f} us")
    if a.baseline:
        b, t = res["baseline"], res["this"]
        print(f"  ratio this/baseline: manifest {t['rank0_us_per_it'] / b['rank0_us_per_it']:.2f}   "
              f"GradGuard {guard['this'] / guard['baseline']:.2f}   both "
              f"{(t['rank0_us_per_it'] + guard['this']) / (b['rank0_us_per_it'] + guard['baseline']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
