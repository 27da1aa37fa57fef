"""One trainer rank for the 3-process tests (run as a script by tests/hooks/test_ddp.py).

It trains the same small model three times on the same data:

* ``stock``  -- stock DDP (gloo all-reduce, ``torch.nn.utils.clip_grad_norm_``);
* ``host``   -- Checkmate hook in host mode, feeding the real shadows given on the command line;
* ``lossy``  -- Checkmate hook (switch mode, no shadows) with injected packet loss.

All runs use several param groups, an LR scheduler, clipping, one explicit ``skip_step`` and
one AMP-style implicit skip, and a tiny ``bucket_cap_mb`` so DDP has several buckets and
rebuilds them after step 0.  Results go to ``OUT/rank{R}.pt``; rank 0 also fetches the
shadows' final states.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks

STEPS = 8
SKIP_EXPLICIT = 3  # iteration (1-based) that calls ckpt.skip_step()
SKIP_IMPLICIT = 5  # iteration that just does not call optimizer.step()


def build(seed: int):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                                torch.nn.Tanh(), torch.nn.Linear(32, 4))
    weights = [p for n, p in model.named_parameters() if n.endswith("weight")]
    biases = [p for n, p in model.named_parameters() if n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": weights, "lr": 1e-2, "weight_decay": 0.05},
                             {"params": biases, "lr": 5e-3, "weight_decay": 0.0}], foreach=False)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 / (1 + 0.3 * i))
    return model, opt, sched


def batch(it: int, rank: int):
    g = torch.Generator().manual_seed(1000 * it + rank)
    x = torch.randn(24, 16, generator=g)
    y = torch.randint(0, 4, (24,), generator=g)
    return x, y


def train(kind: str, rank: int, args) -> dict:
    model, opt, sched = build(seed=42)
    ddp = DDP(model, bucket_cap_mb=0.001)
    ckpt = None
    if kind == "host":
        ckpt = trainer_hooks.attach(ddp, opt, mode="host", job_id=args.job_id, shadows=args.shadows,
                                    udp_port=0, bind_ip="127.0.0.1", rto=0.02, timeout=60)
    elif kind == "lossy":
        ckpt = trainer_hooks.attach(ddp, opt, mode="switch", job_id=args.job_id + 1, udp_port=0,
                                    bind_ip="127.0.0.1", rto=0.01, timeout=60, loss_prob=0.05, seed=rank)
    for it in range(1, STEPS + 1):
        x, y = batch(it, rank)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        if ckpt is not None:
            ckpt.clip_grad_norm_(0.05)
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        if it == SKIP_EXPLICIT:
            if ckpt is not None:
                ckpt.skip_step()
        elif it != SKIP_IMPLICIT:
            opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
    out = {"params": [p.detach().clone() for p in model.parameters()],
           "opt": {pid: {k: v.clone() for k, v in opt.state[p].items()}  # keyed by param_id
                   for pid, p in enumerate(model.parameters()) if opt.state.get(p)}}
    if ckpt is not None:
        assert ckpt.iteration == STEPS, ckpt.iteration
        out["stats"] = {k: (dataclasses.asdict(v) if dataclasses.is_dataclass(v) else v)
                        for k, v in ckpt.stats.items()}
        if kind == "host" and rank == 0:
            assert ckpt.wait_for_shadows(STEPS, timeout=30), "shadows did not publish the last iteration"
            from shadow.client import ShadowClient
            out["shadow_states"] = []
            for spec in args.shadows:
                host, mgmt, _ = spec.split(":")
                with ShadowClient(host, int(mgmt), timeout=10) as c:
                    st = c.fetch(None)
                    out["shadow_states"].append({"iteration": st.iteration, "tensors": st.tensors,
                                                 "opt_state": st.opt_state})
            out["link"] = out["stats"]["shadows"]
        ckpt.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--job-id", type=int, default=11)
    ap.add_argument("--shadows", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    args.shadows = [s for s in args.shadows.split(",") if s]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=args.world_size, timeout=datetime.timedelta(seconds=60))
    try:
        result = {kind: train(kind, args.rank, args) for kind in ("stock", "host", "lossy")}
        torch.save(result, os.path.join(args.out, f"rank{args.rank}.pt"))
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
