"""One trainer rank for tests/hooks/test_loop_features.py: each training-loop feature, interrupted
and resumed from real shadows, against an uninterrupted run -- in one process start.

Per feature (``FEATURES``), every rank:

1. **reference**: trains ``ITERS`` iterations with the Checkmate ring (``mode="switch"``, no shadows:
   the same reduction arithmetic as a checkpointed run) and keeps its full final state;
2. **interrupted**: the same job in ``host`` mode feeding the real shadows (in the test process),
   stopped after ``STOP`` iterations -- the training process "dies" with its model and optimizer;
3. **resumed**: a *fresh* model built from another seed (so whatever restore misses shows up) and a
   fresh optimizer, ``trainer_hooks.restore`` from the shadows, the scheduler fast-forwarded, attach
   again and train to ``ITERS``; the final state (parameters, buffers, optimizer state and step
   counters, scheduler counters) is compared bit for bit with the reference by
   ``topologies.verify.compare_states``.

``bn_buffers_dropped`` is the negative control: it restores like ``bn`` and then puts a fresh
model's buffers back, as a checkpoint without buffers would -- the comparison must fail.
Results go to ``OUT/<feature>.rank<R>.json``.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.util
import json
import sys
import traceback
import warnings
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks
from topologies.verify import compare_states

ITERS, STOP = 8, 4
if "checkmate_example_models" not in sys.modules:  # examples/models.py, as examples/ddp_train.py loads it
    _spec = importlib.util.spec_from_file_location("checkmate_example_models",
                                                   Path(__file__).resolve().parents[2] / "examples" / "models.py")
    sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules[_spec.name])
models = sys.modules["checkmate_example_models"]


class Branchy(nn.Module):
    """``extra`` is used only in some iterations (set by the loop): unused params, locally or globally."""

    def __init__(self):
        super().__init__()
        self.a, self.extra, self.out = nn.Linear(12, 16), nn.Linear(16, 16), nn.Linear(16, 4)
        self.use_extra = True

    def forward(self, x):
        h = torch.tanh(self.a(x))
        if self.use_extra:
            h = h + torch.tanh(self.extra(h))
        return self.out(h)


def mlp():
    return nn.Sequential(nn.Linear(12, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 4))


def two_groups(model, **kw):
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    return [{"params": decay, "weight_decay": 0.05}, {"params": rest, "weight_decay": 0.0, **kw}]


def lambda_sched(opt):
    return torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 / (1 + 0.2 * i))


def build(feature: str, seed: int):
    """``(model, optimizer, scheduler, ddp_kwargs, batch(it, rank) -> (x, y), loss)``."""
    torch.manual_seed(seed)
    ddp_kw = {"bucket_cap_mb": 0.001}

    def vectors(it, rank, n=16, width=12, scale=1.0):
        g = torch.Generator().manual_seed(7919 * it + rank)
        return torch.randn(n, width, generator=g) * scale, torch.randint(0, 4, (n,), generator=g)

    batch, loss = vectors, F.cross_entropy
    if feature.startswith("bn"):
        model = models.ResNet(channels=4, blocks=2, classes=4)  # 8x8 "images", shifting statistics
        batch = lambda it, rank: vectors(it, rank, width=64, scale=1 + 0.1 * it)  # noqa: E731
        opt = torch.optim.AdamW(two_groups(model), lr=1e-2, foreach=False)
    elif feature == "tied":
        model = models.GPT(vocab=32, dim=16, layers=1, heads=2, context=8)

        def batch(it, rank, n=4):
            g = torch.Generator().manual_seed(7919 * it + rank)
            w = torch.randint(0, 32, (n, 9), generator=g)
            return w[:, :-1], w[:, 1:]
        loss = lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))  # noqa: E731
        opt = torch.optim.AdamW(two_groups(model), lr=1e-2, foreach=False)
        assert model.head.weight is model.tok.weight
    elif feature == "frozen":
        model = mlp()
        model[0].weight.requires_grad_(False)  # frozen and left out of the optimizer
        model[0].bias.requires_grad_(False)
        frozen_in_opt = model[2].bias
        frozen_in_opt.requires_grad_(False)  # frozen but still in the optimizer (grad stays None)
        opt = torch.optim.AdamW([{"params": [model[2].weight, model[4].weight], "weight_decay": 0.05},
                                 {"params": [frozen_in_opt, model[4].bias], "weight_decay": 0.0}], lr=1e-2)
    elif feature == "unused":
        model = Branchy()
        ddp_kw["find_unused_parameters"] = True
        opt = torch.optim.AdamW(two_groups(model), lr=1e-2, foreach=False)
    elif feature in ("adam_foreach", "adam_loop"):
        model = mlp()
        opt = torch.optim.Adam(two_groups(model), lr=1e-2, foreach=feature == "adam_foreach", weight_decay=0.01)
    elif feature == "adamw_foreach":
        model = mlp()
        opt = torch.optim.AdamW(two_groups(model), lr=1e-2, foreach=True)
    elif feature in ("sgd_momentum", "sgd_nesterov"):
        model = mlp()
        opt = torch.optim.SGD(two_groups(model), lr=5e-2, momentum=0.9, nesterov=feature == "sgd_nesterov")
    elif feature == "groups_sched_clip":
        model = mlp()
        opt = torch.optim.AdamW([{"params": [model[0].weight], "lr": 2e-2, "weight_decay": 0.1},
                                 {"params": [model[2].weight, model[4].weight], "lr": 1e-2, "betas": (0.8, 0.95),
                                  "weight_decay": 0.01},
                                 {"params": [model[0].bias, model[2].bias, model[4].bias], "lr": 5e-3,
                                  "weight_decay": 0.0}], foreach=False)
        sched = torch.optim.lr_scheduler.SequentialLR(
            opt, [torch.optim.lr_scheduler.LinearLR(opt, 0.3, 1.0, total_iters=3),
                  torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)], milestones=[3])
        return model, opt, sched, ddp_kw, batch, loss
    else:  # accum, amp, nonfinite
        model = mlp()
        opt = torch.optim.AdamW(two_groups(model), lr=1e-2, foreach=False)
    return model, opt, lambda_sched(opt), ddp_kw, batch, loss


def run(feature: str, rank: int, args, *, seed: int, shadows=(), iters=ITERS, restore=False) -> tuple[dict, int, int]:
    model, opt, sched, ddp_kw, batch, loss_fn = build(feature, seed)
    ddp = DDP(model, **ddp_kw)
    start = 0
    if restore:
        start = trainer_hooks.restore(ddp, opt, shadows=shadows, job_id=args.job_id)
        if feature == "bn_buffers_dropped":  # a checkpoint without buffers: a fresh model's come back
            fresh = build("bn", seed)[0]
            with torch.no_grad():
                for b, f in zip(model.buffers(), fresh.buffers()):
                    b.copy_(f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(start):
                sched.step()
    kw = dict(udp_port=0, bind_ip="127.0.0.1", rto=0.02, timeout=60, iteration=start)
    if shadows:
        ckpt = trainer_hooks.attach(ddp, opt, mode="host", job_id=args.job_id, shadows=shadows, **kw)
    else:
        ckpt = trainer_hooks.attach(ddp, opt, mode="switch", job_id=args.job_id + 1, **kw)
    accum = 3 if feature == "accum" else 1
    amp = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if feature == "amp" else contextlib.nullcontext
    skipped = 0
    for it in range(start + 1, iters + 1):
        if feature == "unused":  # unused on both ranks in iterations 1, 5, 7; on one rank in 2, 3, 4, 8
            model.use_extra = it % (2 + rank) == 0
        x, y = batch(it, rank)
        for k, (xs, ys) in enumerate(zip(x.chunk(accum), y.chunk(accum))):
            with (contextlib.nullcontext() if k == accum - 1 else ddp.no_sync()):
                with amp():
                    loss = loss_fn(ddp(xs), ys) / accum
                if feature == "nonfinite" and it in (3, 6) and rank == 1:
                    loss = loss * float("inf")  # an overflow on one rank: every rank sees a non-finite norm
                loss.backward()
        if feature == "unused":  # DDP leaves .grad None only where no rank used the branch
            assert (model.extra.weight.grad is None) == (it in (1, 5, 7)), (it, rank)
        norm = ckpt.clip_grad_norm_(0.5) if feature in ("groups_sched_clip", "nonfinite", "bn", "tied") else None
        if norm is not None and not torch.isfinite(norm):  # GradScaler-like: no step, the iteration counts
            ckpt.skip_step()
            skipped += 1
        else:
            opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
    if shadows and rank == 0:
        assert ckpt.wait_for_shadows(iters, timeout=30), f"{feature}: shadows did not publish {iters}"
    ckpt.close()
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(),
             "scheduler": {k: v for k, v in sched.state_dict().items() if k not in ("lr_lambdas", "_schedulers")},
             "iteration": iters, "buffer_names": [n for n, _ in model.named_buffers()]}
    return state, start, skipped


FEATURES = ["bn", "bn_buffers_dropped", "tied", "frozen", "unused", "accum", "amp", "nonfinite",
            "groups_sched_clip", "adamw_foreach", "adam_foreach", "adam_loop", "sgd_momentum", "sgd_nesterov"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--job-id", type=int, default=41)
    ap.add_argument("--shadows", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--features", default=",".join(FEATURES))
    args = ap.parse_args()
    shadows = args.shadows.split(",")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=args.world_size, timeout=datetime.timedelta(seconds=60))
    try:
        for feature in args.features.split(","):
            res = {"feature": feature}
            try:
                ref = run(feature, args.rank, args, seed=3)[0]
                run(feature, args.rank, args, seed=3, shadows=shadows, iters=STOP)  # then it "dies"
                got, start, skipped = run(feature, args.rank, args, seed=99, shadows=shadows, restore=True)
                c = compare_states(ref, got)
                res.update(c.as_dict(), resumed_at=start, skipped=skipped, mismatch_paths=sorted({m.split(":")[0] for m in c.mismatches})[:20])
            except Exception:  # noqa: BLE001 - reported per feature, the run continues
                res["error"] = traceback.format_exc()
                dist.barrier()
            Path(args.out, f"{feature}.rank{args.rank}.json").write_text(json.dumps(res))
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
