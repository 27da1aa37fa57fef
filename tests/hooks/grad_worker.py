"""One trainer rank for test_grad_changes.py's multi-rank test (run as a script).

Trains a small model in host mode for ``STEPS`` iterations with ``torch.nn.utils.clip_grad_norm_``
(a uniform scale: mirrored) and, at iteration ``MASK_AT``, a masked gradient (not a scale: never
replayed, every shard resynced).  Rank 0 keeps its state after every iteration and, at the end,
compares every iteration each shadow holds with it bit for bit; the verdict goes to ``OUT``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks
from shadow.client import ShadowClient

STEPS, MASK_AT = 6, 3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--master", required=True)
    ap.add_argument("--shadows", required=True)
    ap.add_argument("--job-id", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank, world_size=a.world,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(12, 24), torch.nn.Tanh(), torch.nn.Linear(24, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, foreach=False)
    ddp = DDP(model, bucket_cap_mb=0.0005)
    shadows = a.shadows.split(",")
    ckpt = trainer_hooks.attach(ddp, opt, mode="host", job_id=a.job_id, shadows=shadows, udp_port=0,
                                bind_ip="127.0.0.1", rto=0.02, timeout=60)
    states = {}
    for it in range(1, STEPS + 1):
        g = torch.Generator().manual_seed(100 * it + a.rank)
        x, y = torch.randn(10, 12, generator=g), torch.randint(0, 3, (10,), generator=g)
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)
        if it == MASK_AT:
            model[0].weight.grad[:5] = 0.0
        opt.step()
        opt.zero_grad(set_to_none=True)
        states[it] = ([p.detach().clone() for p in model.parameters()],
                      [{k: v.clone() for k, v in opt.state[p].items()} for p in model.parameters()])
    verdict = {}
    if a.rank == 0:
        ok = ckpt.wait_for_shadows(STEPS, timeout=30)
        wrong, compared = [], 0
        for k, s in enumerate(shadows):
            host, mgmt = s.split(":")[:2]
            with ShadowClient(host, int(mgmt), timeout=10) as c:
                for it in c.status().held_iterations:
                    if it not in states:
                        continue
                    st, (params, opt_state) = c.fetch(it), states[it]
                    compared += 1
                    for pid, t in st.tensors.items():
                        if not torch.equal(t, params[pid]) or any(
                                not torch.equal(v, opt_state[pid][n]) for n, v in st.opt_state.get(pid, {}).items()):
                            wrong.append(f"shard {k} iteration {it} param {pid}")
        verdict = dict(published=ok, wrong=wrong, compared=compared, unreplayable=ckpt.link.stats.unreplayable,
                       scaled=ckpt.hook_state.guard.scaled)
    ckpt.close()
    if a.rank == 0:
        with open(a.out, "w") as f:
            json.dump(verdict, f)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
