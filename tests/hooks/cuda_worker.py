"""One trainer rank of tests/hooks/test_cuda.py's GPU run: DDP on cuda:0 with the Checkmate hook.

Two ranks share the GPU (gloo process group, CUDA buckets staged through pinned host memory) and
feed real shadows in host mode.  Rank 0 saves its parameters and AdamW state and the shadows' final
states to ``OUT/rank0.pt``; every rank saves its parameters (the ranks must agree bit for bit).
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks

STEPS = 8


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--shadows", required=True)
    ap.add_argument("--foreach", type=int, default=0,
                    help="AdamW with 0: the per-tensor loop, 1: foreach, 2: fused; 3: fused Adam with L2 decay on "
                         "tensors whose sizes are not multiples of 4 (the kernel's strided loop)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.cuda.set_device(0)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=a.rank, world_size=a.world_size,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(7)
    width, out = (67, 5) if a.foreach == 3 else (64, 4)
    model = torch.nn.Sequential(torch.nn.Linear(16 - (a.foreach == 3), width), torch.nn.GELU(),
                                torch.nn.Linear(width, out)).cuda()
    groups = [{"params": [model[0].weight, model[2].weight], "weight_decay": 0.01},
              {"params": [model[0].bias, model[2].bias], "weight_decay": 0.01 if a.foreach == 3 else 0.0}]
    if a.foreach == 3:
        opt = torch.optim.Adam(groups, lr=1e-2, fused=True)
    else:
        opt = torch.optim.AdamW(groups, lr=1e-2, **({"fused": True} if a.foreach == 2 else {"foreach": bool(a.foreach)}))
    ddp = DDP(model, device_ids=[0], bucket_cap_mb=0.002)
    shadows = a.shadows.split(",")
    ckpt = trainer_hooks.attach(ddp, opt, mode="host", job_id=31, shadows=shadows, udp_port=0,
                                bind_ip="127.0.0.1", rto=0.02, timeout=60)
    for it in range(1, STEPS + 1):
        g = torch.Generator().manual_seed(100 * it + a.rank)
        x, y = torch.randn(32, model[0].in_features, generator=g).cuda(), torch.randint(0, 4, (32,), generator=g).cuda()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        ckpt.clip_grad_norm_(0.5)
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    out = {"params": [p.detach().cpu() for p in model.parameters()],
           "staged": ckpt.hook_state.staging.staged if ckpt.hook_state.staging else 0}
    if a.rank == 0:
        assert ckpt.wait_for_shadows(STEPS, timeout=30), "shadows did not publish the last iteration"
        chk = ckpt.compare_with_shadows(STEPS)
        out["stepcheck"] = {"elements": chk.elements, "differing": chk.differing, "max_ulp": chk.max_ulp}
        first = ckpt.replay_check  # attach's own check of the first step (on by default off the CPU)
        out["replay_check"] = None if first is None else {"iteration": first.iteration, "differing": first.differing,
                                                           "elements": first.elements}
        from shadow.client import ShadowClient
        out["shadows"] = []
        for spec in shadows:
            host, mgmt, _ = spec.split(":")
            with ShadowClient(host, int(mgmt), timeout=10) as c:
                st = c.fetch(None)
                out["shadows"].append({"iteration": st.iteration, "tensors": st.tensors})
    ckpt.close()
    torch.save(out, os.path.join(a.out, f"rank{a.rank}.pt"))
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
