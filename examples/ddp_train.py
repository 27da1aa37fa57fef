#!/usr/bin/env python
"""Data-parallel training with Checkmate: a complete script, the hook attached in one line.

The model is a small MLP on scikit-learn's bundled ``load_digits`` (8x8 images of digits,
shipped with scikit-learn, so every machine has the data without a download).  Everything that
could make a resumed run differ from an uninterrupted one is a pure function of
``(seed, iteration, rank)``: the batch each rank sees (a permutation seeded by the iteration),
the LR (a LambdaLR schedule, fast-forwarded on resume), and the model has no dropout.  So
``--resume`` after a failure continues *bit-identically*.

Rendezvous, either explicit::

    python examples/ddp_train.py --rank 0 --world-size 3 --master 127.0.0.1:29500 --iters 100 \\
        --mode switch --job-id 1 --shadows 10.77.0.101:48881,10.77.0.102:48881

or torchrun-style (RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT in the environment)::

    torchrun --nproc-per-node 3 examples/ddp_train.py --iters 100 --mode off --udp-port 0

After a crash, rerun the same command with ``--resume``: model and optimizer come back from
the shadows' newest consistent iteration and training continues from there.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks


def parse_args(argv=None) -> argparse.Namespace:
    env = os.environ
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rank", type=int, default=int(env.get("RANK", 0)))
    ap.add_argument("--world-size", type=int, default=int(env.get("WORLD_SIZE", 1)))
    ap.add_argument("--master", default=None,
                    help="ADDR:PORT of rank 0's c10d store (default: env:// rendezvous, torchrun-style)")
    ap.add_argument("--iters", type=int, default=None, help="train until this many iterations are done")
    ap.add_argument("--print-shard-plan", type=int, metavar="SHARDS", default=None,
                    help="print {param_id: shard} for this model as JSON and exit (to program the switch)")
    ap.add_argument("--mode", choices=trainer_hooks.MODES, default="switch")
    ap.add_argument("--job-id", type=int, default=1)
    ap.add_argument("--shadows", default="", help="HOST:MGMT[:DATA],... in shard order")
    ap.add_argument("--bind-ip", default=None, help="address of this trainer's ring socket")
    ap.add_argument("--udp-port", type=int, default=None,
                    help="ring UDP port (default 48879; 0 = ephemeral, for several ranks on one host)")
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--loss-prob", type=float, default=0.0, help="inject packet loss (testing)")
    ap.add_argument("--resume", action="store_true", help="restore from the shadows and continue")
    ap.add_argument("--shard-map", default=None, metavar="JSON|FILE",
                    help="the shard map the switch was programmed with: {param_id: shard} or {shard: [[lo, hi], ...]} "
                         "(default: trainer_hooks.shard_plan, what --print-shard-plan prints)")
    ap.add_argument("--allow-fresh", action="store_true",
                    help="with --resume: start from the initial state when the shadows hold no common checkpoint "
                         "(default: fail, a resume must not silently restart from scratch)")
    ap.add_argument("--save-final", default=None, help="torch.save model+optimizer here ({rank} expands)")
    ap.add_argument("--metrics", default=None, help="JSON lines per iteration ({rank} expands; else rank 0 only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=32, help="samples per rank per iteration")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--lr-halflife", type=float, default=200.0, help="iterations per halving of the LR")
    ap.add_argument("--clip", type=float, default=1.0, help="max grad norm (0: no clipping)")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--bucket-cap-mb", type=float, default=25.0)
    args = ap.parse_args(argv)
    if args.print_shard_plan is not None:
        return args
    if args.iters is None or args.iters < 1:
        ap.error("--iters N (>= 1) is required")
    if not 0 <= args.rank < args.world_size:
        ap.error(f"--rank {args.rank} outside 0..{args.world_size - 1}")
    if args.resume and not args.shadows:
        ap.error("--resume needs --shadows")
    return args


# -- data: the digits, deterministic per (seed, iteration, rank) -------------------------------
def load_data() -> tuple[torch.Tensor, torch.Tensor]:
    """``sklearn.datasets.load_digits()``: 1797 8x8 images, 64 features in 0..16, 10 classes.

    The CSV scikit-learn ships is read directly when present: importing scikit-learn costs each
    rank more CPU time than a short training run.  Same numbers either way.
    """
    import importlib.util
    from pathlib import Path
    import numpy as np
    spec = importlib.util.find_spec("sklearn")
    csv = Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz" if spec and spec.origin else None
    if csv is not None and csv.exists():
        data = np.loadtxt(csv, delimiter=",")
        feats, target = data[:, :-1], data[:, -1].astype(np.int64)
    else:
        from sklearn.datasets import load_digits
        d = load_digits()
        feats, target = d.data, d.target
    return torch.tensor(feats, dtype=torch.float32) / 16.0, torch.tensor(target, dtype=torch.int64)


def batch_indices(n: int, seed: int, iteration: int, rank: int, world: int, batch: int) -> torch.Tensor:
    """This rank's samples for ``iteration``: one permutation per iteration, sliced by rank."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + iteration)
    perm = torch.randperm(n, generator=g)
    need = world * batch
    if need > n:
        perm = perm.repeat(-(-need // n))
    return perm[rank * batch:(rank + 1) * batch]


# -- model, optimizer, schedule ------------------------------------------------------------------
def build(args):
    torch.manual_seed(args.seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, args.hidden), torch.nn.GELU(),
        torch.nn.Linear(args.hidden, args.hidden // 2), torch.nn.GELU(),
        torch.nn.Linear(args.hidden // 2, 10))
    decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, foreach=False)
    warmup, halflife = 10, args.lr_halflife  # independent of --iters, so a resumed run agrees
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: min(1.0, (i + 1) / warmup) * 0.5 ** (i / halflife))
    return model, opt, sched


def fast_forward(sched, iterations: int) -> None:
    """Put the LR schedule where it is after ``iterations`` iterations (LambdaLR is stateless)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "scheduler.step() before optimizer.step()"
        for _ in range(iterations):
            sched.step()


def load_shard_map(text: str | None):
    """``--shard-map``: inline JSON or a JSON file; with ``owner`` inside (``--print-shard-plan``'s output)."""
    if not text:
        return None
    raw = json.loads(text if text.lstrip().startswith("{") else open(text).read())
    return raw.get("owner", raw) if isinstance(raw, dict) and "owner" in raw else raw


def open_metrics(path: str | None, rank: int):
    if path is None or ("{rank}" not in path and rank != 0):
        return None
    return open(path.format(rank=rank), "a", buffering=1)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.print_shard_plan is not None:
        model = build(args)[0]
        print(json.dumps({"shards": args.print_shard_plan,
                          "owner": trainer_hooks.shard_plan(model, args.print_shard_plan),
                          "params": [[n, list(p.shape)] for n, p in model.named_parameters()]}))
        return 0
    torch.set_num_threads(1)
    if args.master is not None:
        init = f"tcp://{args.master}"
        os.environ.setdefault("MASTER_ADDR", args.master.rpartition(":")[0])  # default ring bind address
    elif "MASTER_ADDR" in os.environ and "MASTER_PORT" in os.environ:
        init = "env://"  # torchrun (its agent hosts the store) or a hand-set environment
    else:
        sys.exit("ddp_train.py: give --master ADDR:PORT or set MASTER_ADDR/MASTER_PORT")
    dist.init_process_group("gloo", init_method=init, rank=args.rank, world_size=args.world_size,
                            timeout=datetime.timedelta(seconds=120))
    x_all, y_all = load_data()
    model, opt, sched = build(args)
    ddp = DDP(model, bucket_cap_mb=args.bucket_cap_mb)

    start = 0
    if args.resume:
        start = trainer_hooks.restore(ddp, opt, shadows=args.shadows.split(","), job_id=args.job_id,
                                      allow_fresh=args.allow_fresh)
        fast_forward(sched, start)
        print(f"rank {args.rank}: resumed at iteration {start}", flush=True)

    ring = {k: v for k, v in (("bind_ip", args.bind_ip), ("udp_port", args.udp_port)) if v is not None}
    ckpt = trainer_hooks.attach(ddp, opt, mode=args.mode, job_id=args.job_id,  # <- the one line
                                shadows=[s for s in args.shadows.split(",") if s], iteration=start,
                                mtu=args.mtu, loss_prob=args.loss_prob, seed=args.rank,
                                shard_map=load_shard_map(args.shard_map), **ring)

    metrics = open_metrics(args.metrics, args.rank)
    for it in range(start + 1, args.iters + 1):
        t0 = time.perf_counter()
        idx = batch_indices(len(x_all), args.seed, it, args.rank, args.world_size, args.batch)
        loss = torch.nn.functional.cross_entropy(ddp(x_all[idx]), y_all[idx])
        loss.backward()
        if args.clip > 0:
            ckpt.clip_grad_norm_(args.clip)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        if metrics is not None:
            row = {"iteration": it, "rank": args.rank, "loss": loss.item(), "iter_time": time.perf_counter() - t0}
            if ckpt.link is not None:  # rank 0: the shadows' losses and the resyncs they cost (also logged)
                row.update(shadow_losses=sum(ckpt.link.stats.shadow_losses), shadow_resyncs=ckpt.link.stats.resyncs,
                           unreplayable=ckpt.link.stats.unreplayable)
            metrics.write(json.dumps(row) + "\n")

    if ckpt.link is not None and not ckpt.wait_for_shadows(args.iters, timeout=60):
        print(f"warning: shadows did not publish iteration {args.iters} in time", file=sys.stderr)
    ckpt.close()
    if args.save_final and ("{rank}" in args.save_final or args.rank == 0):
        torch.save({"iteration": args.iters, "model": model.state_dict(), "optimizer": opt.state_dict()},
                   args.save_final.format(rank=args.rank))
    if metrics is not None:
        metrics.close()
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
