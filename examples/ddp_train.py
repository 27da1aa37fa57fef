#!/usr/bin/env python
"""Data-parallel training with Checkmate: a complete script, the hook attached in one line.

``--model mlp`` (default) is a small MLP on scikit-learn's bundled ``load_digits`` (8x8 images of
digits, shipped with scikit-learn, so every machine has the data without a download);
``--model cnn`` a small ResNet with BatchNorm on the same images; ``--model gpt`` a small
decoder-only transformer with tied embeddings on a text file of the Python standard library
(``examples/models.py``).  Everything that could make a resumed run differ from an uninterrupted
one is a pure function of ``(seed, iteration, rank)``: the batch each rank sees (a permutation
seeded by the iteration), the LR (a LambdaLR schedule, fast-forwarded on resume), and no model
has dropout.  So ``--resume`` after a failure continues *bit-identically* -- BatchNorm's running
statistics included (the hook carries rank 0's buffers to the shadows).

Loop features, all resumed bit-identically: ``--optimizer adamw|adam|sgd|nesterov`` (two param
groups, weight decay on the weights only), ``--accum K`` (K micro-batches per iteration, the
first K-1 under ``ddp.no_sync()``), ``--amp`` (bf16 autocast on CPU), clipping (``--clip``), and
a step with a non-finite gradient norm is skipped (``ckpt.skip_step()``) as a GradScaler would.

Rendezvous, either explicit::

    python examples/ddp_train.py --rank 0 --world-size 3 --master 127.0.0.1:29500 --iters 100 \\
        --mode switch --job-id 1 --shadows 10.77.0.101:48881,10.77.0.102:48881

or torchrun-style (RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT in the environment)::

    torchrun --nproc-per-node 3 examples/ddp_train.py --iters 100 --mode off --udp-port 0

After a crash, rerun the same command with ``--resume``: model and optimizer come back from
the shadows' newest consistent iteration and training continues from there.  Under
``torchrun --max-restarts K``, ``--resume-auto`` does that by itself: the first start trains from
scratch, a start after torchrun restarted the workers restores (see docs/DEPLOY.md).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks


def _load_models():
    """``examples/models.py`` next to this file (the script runs from anywhere, also loaded by path)."""
    name = "checkmate_example_models"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(__file__), "models.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


models = _load_models()
load_data, batch_indices = models.load_digits, models.batch_indices  # the mlp's data (tests use them)

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
    ap.add_argument("--resume-auto", action="store_true",
                    help="under torchrun --max-restarts: start fresh the first time, restore from the shadows "
                         "after torchrun restarted the workers (trainer_hooks.elastic)")
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
    ap.add_argument("--model", choices=models.MODELS, default="mlp", help="mlp (default) | cnn | gpt")
    ap.add_argument("--hidden", type=int, default=None,
                    help="width: mlp hidden units (128), cnn channels (16), gpt embedding size (128)")
    ap.add_argument("--layers", type=int, default=None, help="cnn residual blocks (2), gpt blocks (4)")
    ap.add_argument("--heads", type=int, default=4, help="gpt attention heads")
    ap.add_argument("--context", type=int, default=64, help="gpt context length (tokens)")
    ap.add_argument("--corpus", default=None, help="gpt training text (default: the stdlib's argparse.py)")
    ap.add_argument("--optimizer", choices=("adamw", "adam", "sgd", "nesterov"), default="adamw")
    ap.add_argument("--foreach", action="store_true", help="the optimizer's foreach implementation")
    ap.add_argument("--accum", type=int, default=1, help="micro-batches per iteration (no_sync accumulation)")
    ap.add_argument("--amp", action="store_true", help="bf16 autocast for forward and loss")
    ap.add_argument("--device", default="cpu",
                    help="cpu (default) or cuda: model, batches and optimizer step on the GPU (rank %% GPU count "
                         "when several); deterministic kernels, so a resumed run can equal an uninterrupted one")
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
    if args.accum < 1:
        ap.error("--accum must be >= 1")
    if args.resume_auto and (args.resume or not args.shadows):
        ap.error("--resume-auto needs --shadows and excludes --resume")
    if args.resume_auto and "TORCHELASTIC_RESTART_COUNT" not in env:
        ap.error("--resume-auto runs under torchrun (TORCHELASTIC_RESTART_COUNT is not set); use --resume")
    if args.resume_auto and env.get("TORCHELASTIC_USE_AGENT_STORE") == "True":
        ap.error("--resume-auto: torchrun shares its rendezvous store with the workers, so restarted workers "
                 "read the dead workers' gloo addresses; start torchrun with TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1")
    return args


# -- model, data, optimizer, schedule ---------------------------------------------------------------
def build_all(args, data=None):
    """``(task, optimizer, scheduler)``: the model with its data (``examples/models.py``), AdamW /
    Adam / SGD over two param groups (weight decay on the >= 2-D weights only), a LambdaLR."""
    task = models.build_task(args.model, seed=args.seed, hidden=args.hidden, layers=args.layers, heads=args.heads,
                             context=args.context, corpus=args.corpus, data=data)
    model = task.model.to(train_device(args))  # before the optimizer: it holds the moved parameters
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
    foreach = True if args.foreach else False
    if args.optimizer == "adamw":
        opt = torch.optim.AdamW(groups, lr=args.lr, foreach=foreach)
    elif args.optimizer == "adam":
        opt = torch.optim.Adam(groups, lr=args.lr, foreach=foreach)
    else:
        opt = torch.optim.SGD(groups, lr=args.lr, momentum=0.9, nesterov=args.optimizer == "nesterov",
                              foreach=foreach)
    warmup, halflife = 10, args.lr_halflife  # independent of --iters, so a resumed run agrees
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: min(1.0, (i + 1) / warmup) * 0.5 ** (i / halflife))
    return task, opt, sched


def train_device(args) -> torch.device:
    """``--device``: ``cpu``, or the GPU of this rank (``cuda`` = ``cuda:(rank % count)``)."""
    name = getattr(args, "device", "cpu") or "cpu"
    dev = torch.device(name)
    if dev.type == "cuda" and dev.index is None:
        if not torch.cuda.is_available():
            raise SystemExit("--device cuda: torch sees no CUDA device")
        dev = torch.device("cuda", getattr(args, "rank", 0) % torch.cuda.device_count())
    return dev


def build(args, data=None):
    """``(model, optimizer, scheduler)`` (the testbed computes the shard map from this)."""
    task, opt, sched = build_all(args, data)
    return task.model, opt, sched


def fast_forward(sched, iterations: int) -> None:
    """Put the LR schedule where it is after ``iterations`` iterations (LambdaLR is stateless)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "scheduler.step() before optimizer.step()"
        for _ in range(iterations):
            sched.step()


def final_state(iteration: int, model, opt, sched) -> dict:
    """What ``--save-final`` writes and ``topologies/verify.py`` compares: the full training state --
    parameters and buffers (the state dict, with the names of the buffers), optimizer state and
    per-parameter step counters, the scheduler's counters, the iteration."""
    return {"iteration": iteration, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": {k: v for k, v in sched.state_dict().items() if k != "lr_lambdas"},
            "buffer_names": [n for n, _ in model.named_buffers()]}


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


def launch_problem(args) -> str | None:
    """What this command line lacks to train, as one sentence (None: nothing). Checked in :func:`main`
    rather than in :func:`parse_args`, which the testbed and the benchmark also use to build the model."""
    if args.master is None and not ("MASTER_ADDR" in os.environ and "MASTER_PORT" in os.environ):
        return ("no rendezvous: give --master ADDR:PORT (rank 0's c10d store) or set MASTER_ADDR and "
                "MASTER_PORT (as torchrun does)")
    if args.mode == "switch" and args.world_size < 2:
        return ("--mode switch (the default) needs --world-size 2 or more and ranks whose all-reduce "
                "crosses a Checkmate switch programmed for this job (`checkmate testbed` sets that up): "
                "the switch copies gradients between ranks, and one rank sends it nothing. Without a switch "
                "use --mode host --shadows HOST:MGMT,... (the trainers send the copies) or --mode off")
    if args.mode == "host" and not args.shadows:
        return ("--mode host needs --shadows HOST:MGMT[:DATA],... (the shadows' addresses in shard order, "
                "e.g. checkmate-shadow --mgmt); --mode off trains without checkpoints")
    return None


def launch_warning(args) -> str | None:
    """What this command line will train without, as one sentence: ``--mode switch`` without shadows runs
    the Checkmate ring and the switch's copies go nowhere -- a legitimate reference run (the same
    arithmetic as a checkpointed one), but no checkpoint is taken."""
    if args.mode == "switch" and not args.shadows:
        return ("--mode switch without --shadows: the ring runs but no checkpoint is taken (give --shadows "
                "HOST:MGMT[:DATA],... in shard order to checkpoint)")
    return None


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.print_shard_plan is not None:
        model = build(args)[0]
        print(json.dumps({"shards": args.print_shard_plan,
                          "owner": trainer_hooks.shard_plan(model, args.print_shard_plan),
                          "params": [[n, list(p.shape)] for n, p in model.named_parameters()]}))
        return 0
    problem = launch_problem(args)
    if problem:
        print(f"ddp_train.py: {problem}", file=sys.stderr)
        return 2
    warning = launch_warning(args)
    if warning and args.rank == 0:
        print(f"ddp_train.py: warning: {warning}", file=sys.stderr, flush=True)
    torch.set_num_threads(1)
    device = train_device(args)
    if device.type == "cuda":
        # deterministic kernels: a run resumed from the shadows can then equal an uninterrupted one bit
        # for bit (cuBLAS needs its workspace fixed before the first CUDA call)
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.cuda.set_device(device)
        torch.use_deterministic_algorithms(True, warn_only=True)  # (torch warns of any op without one)
        torch.backends.cudnn.benchmark = False
    if args.master is not None:
        init = f"tcp://{args.master}"
        os.environ.setdefault("MASTER_ADDR", args.master.rpartition(":")[0])  # default ring bind address
    else:
        init = "env://"  # torchrun (its agent hosts the store) or a hand-set environment
    dist.init_process_group("gloo", init_method=init, rank=args.rank, world_size=args.world_size,
                            timeout=datetime.timedelta(seconds=120))
    task, opt, sched = build_all(args)
    model = task.model
    ddp = DDP(model, bucket_cap_mb=args.bucket_cap_mb, device_ids=[device.index] if device.type == "cuda" else None)

    start = 0
    if args.resume_auto:
        decision = trainer_hooks.resume_decision()
        print(f"rank {args.rank}: {decision.describe()}", flush=True)
        args.resume = decision.restore
    ring = {k: v for k, v in (("bind_ip", args.bind_ip), ("udp_port", args.udp_port)) if v is not None}
    try:  # shadows that cannot be reached or hold nothing usable: one line, not a traceback
        if args.resume:
            start = trainer_hooks.restore(ddp, opt, shadows=args.shadows.split(","), job_id=args.job_id,
                                          allow_fresh=args.allow_fresh)
            fast_forward(sched, start)
            print(f"rank {args.rank}: resumed at iteration {start}", flush=True)
        ckpt = trainer_hooks.attach(ddp, opt, mode=args.mode, job_id=args.job_id,  # <- the one line
                                    shadows=[s for s in args.shadows.split(",") if s], iteration=start,
                                    mtu=args.mtu, loss_prob=args.loss_prob, seed=args.rank,
                                    shard_map=load_shard_map(args.shard_map), **ring)
    except (trainer_hooks.RestoreError, trainer_hooks.ShadowsUnavailable, trainer_hooks.ShardMapMismatch) as e:
        what = {trainer_hooks.RestoreError: "restore", trainer_hooks.ShardMapMismatch: "shard map"}.get(type(e), "shadows")
        print(f"ddp_train.py rank {args.rank}: {what}: {e}", file=sys.stderr, flush=True)
        dist.destroy_process_group()
        return 1

    metrics = open_metrics(args.metrics, args.rank)
    amp = (lambda: torch.autocast(device.type, dtype=torch.bfloat16)) if args.amp else contextlib.nullcontext
    for it in range(start + 1, args.iters + 1):
        t0 = time.perf_counter()
        x, y = task.batch(it, args.rank, args.world_size, args.batch * args.accum)
        x, y = x.to(device), y.to(device)
        total = 0.0
        for k, (xs, ys) in enumerate(zip(x.chunk(args.accum), y.chunk(args.accum))):
            last = k == args.accum - 1
            with (contextlib.nullcontext() if last else ddp.no_sync()):  # all-reduce once, after the last
                with amp():
                    loss = task.loss(ddp(xs), ys) / args.accum
                loss.backward()
            total += loss.item()
        norm = ckpt.clip_grad_norm_(args.clip) if args.clip > 0 else None
        if norm is not None and not torch.isfinite(norm):
            ckpt.skip_step()  # what a GradScaler does on inf/nan: no step, the iteration still counts
        else:
            opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        if metrics is not None:
            row = {"iteration": it, "rank": args.rank, "loss": total, "iter_time": time.perf_counter() - t0}
            if ckpt.link is not None:  # rank 0: the shadows' losses and the resyncs they cost (also logged)
                row.update(shadow_losses=sum(ckpt.link.stats.shadow_losses), shadow_resyncs=ckpt.link.stats.resyncs,
                           unreplayable=ckpt.link.stats.unreplayable)
            metrics.write(json.dumps(row) + "\n")

    if ckpt.link is not None and not ckpt.wait_for_shadows(args.iters, timeout=60):
        print(f"warning: shadows did not publish iteration {args.iters} in time", file=sys.stderr)
    ckpt.close()
    if args.save_final and ("{rank}" in args.save_final or args.rank == 0):
        torch.save(final_state(args.iters, model, opt, sched), args.save_final.format(rank=args.rank))
    if metrics is not None:
        metrics.close()
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main()
    if code:
        # the error is reported (one line) and the process group destroyed; leave without the
        # interpreter's teardown, where torch's store thread can abort the process ("terminate
        # called without an active exception", exit -6) while another rank is still connected
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
