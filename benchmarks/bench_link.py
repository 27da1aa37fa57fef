"""Rank 0's own per-iteration Checkmate work, outside the testbed: the manifest and the gradient check.

What rank 0's training thread does per iteration that a ``none`` rank does not, measured piece by piece
in thread CPU time (``time.thread_time``), with a cache-evicting pass between iterations (in training,
9 ms of other work run in between: the hot cost would flatter the Python):

* ``on_record``: :meth:`trainer_hooks.shadow_link.ShadowLink.on_record` -- pack and post the compact
  manifest to two real ``shadow.cli`` processes on loopback (``benchmarks.bench_shadow_cpu.Variant``),
  which are fed each iteration's FINAL chunks of ``examples/ddp_train.py``'s default model as the switch
  would, and read the acks;
* ``guard unchanged`` / ``guard clipped``: :class:`trainer_hooks.grad_guard.GradGuard` capture + check of
  one bucket of the default model's shapes, the gradients as reduced, or scaled by the coefficient
  ``ckpt.clip_grad_norm_`` recorded (the default run clips about half of its steps).

Each variant runs in its own process with its source tree first on ``sys.path``; ``--baseline DIR`` (a
tree, e.g. ``git archive <rev> | tar -x -C DIR``) alternates with this tree round by round, medians::

    python -m benchmarks.bench_link [--baseline DIR] [--iters 300] [--rounds 3]
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIECES = ("on_record", "guard_unchanged", "guard_clipped")


def _evict(junk) -> None:
    junk.mul_(1.0000001)  # 16 MB touched: the caches hold none of the link's or the guard's data after it


def _guard(torch, GradGuard, iters: int, clipped: bool, junk) -> float:
    sizes = [8192, 64, 8192, 128, 640, 10]  # examples/ddp_train.py's default MLP, 17,226 parameters
    meta = list(enumerate(sizes))
    bucket = torch.randn(sum(sizes))
    params = [torch.nn.Parameter(torch.zeros(n)) for n in sizes]
    coef = float(torch.tensor(0.37, dtype=torch.float32))
    g = GradGuard({})
    # as the hook calls it for a CPU bucket of a default DDP model: by reference where the tree can
    kw = {"copy": False} if "copy" in inspect.signature(g.capture).parameters else {}
    total = 0.0
    for it in range(1, iters + 1):
        at = 0
        for pid, n in meta:
            params[pid].grad = bucket[at:at + n].clone()
            at += n
        if clipped:
            torch._foreach_mul_([p.grad for p in params], torch.tensor(coef))
        _evict(junk)
        t = time.thread_time()
        g.capture(it, meta, bucket, **kw)
        v = g.check(it, params, coef if clipped else None)
        total += time.thread_time() - t
        if v.kind != ("scaled" if clipped else "unchanged"):
            raise RuntimeError(f"GradGuard said {v.kind} for a {'clipped' if clipped else 'unchanged'} step")
    return total / iters * 1e6


def worker(tree: Path, iters: int) -> dict:
    sys.path.insert(0, str(tree))
    import socket
    import tempfile

    import torch

    from benchmarks.bench_shadow_cpu import ELEMS, JOB, Variant, default_model
    from shadow.packets import gradient_packets
    from trainer_hooks.grad_guard import GradGuard
    from trainer_hooks.iteration import IterationRecord
    torch.set_num_threads(1)
    junk = torch.randn(4 << 20)
    out = {"guard_unchanged": _guard(torch, GradGuard, iters, False, junk),
           "guard_clipped": _guard(torch, GradGuard, iters, True, junk)}
    model, opt = default_model()
    v = Variant("link", tree, model, opt, Path(tempfile.mkdtemp(prefix="bench-link-")), True)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        grads = {pid: torch.randn(p.shape) * 1e-3 for pid, p in enumerate(model.parameters())}
        shards = [(a.data, {pid: g for pid, g in grads.items() if v.owner[pid] == k}) for k, a in enumerate(v.addrs)]
        total = 0.0
        for it in range(1, iters + 1):
            for dest, own in shards:
                for pkt in gradient_packets(JOB, it, own, elems=ELEMS):
                    tx.sendto(pkt, dest)
            time.sleep(0.004)  # the shadows ingest and replay, as during the next forward
            _evict(junk)
            t = time.thread_time()
            v.link.on_record(IterationRecord(it, (1e-3, 1e-3), None, False))
            total += time.thread_time() - t
        out["on_record"] = total / iters * 1e6
        if v.link.stats.errors or v.link.stats.resyncs:
            raise RuntimeError(f"the shadows were not in step: {v.link.stats}")
    finally:
        tx.close()
        v.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, default=None, help="source tree to compare with")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker is not None:
        print(json.dumps(worker(a.worker, a.iters)))
        return 0
    trees = {"this": ROOT} | ({"baseline": a.baseline.resolve()} if a.baseline else {})
    res = {k: {p: [] for p in PIECES} for k in trees}
    for rnd in range(a.rounds):
        for name in (list(trees) if rnd % 2 == 0 else list(trees)[::-1]):
            tree = trees[name]
            env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
            line = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(tree),
                                   "--iters", str(a.iters)], env=env, cwd=tree, check=True, capture_output=True,
                                  text=True).stdout.strip().splitlines()[-1]
            for p, x in json.loads(line).items():
                res[name][p].append(x)
    med = {k: {p: statistics.median(v) for p, v in r.items()} for k, r in res.items()}
    for name, m in med.items():
        print(f"  {name:9s}" + "".join(f"  {p} {m[p]:7.1f} us" for p in PIECES)
              + f"   (rounds: {', '.join(p + ' ' + str([round(x) for x in res[name][p]]) for p in PIECES)})")
    if "baseline" in med:
        print("  ratio this/baseline:" + "".join(f"  {p} {med['this'][p] / med['baseline'][p]:.2f}" for p in PIECES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
