#!/usr/bin/env python
"""Is a CUDA AdamW step bitwise equal to the shadows' CPU replay on the same gradients?

The shadows replay the trainer's AdamW on CPU (shadow/replay.py); for a trainer stepping on a GPU
they replay it with the CUDA kernels' rounding (shadow/device_optim.py, ``CudaAdamW``).  This runs the
same AdamW (two param groups, weight decay, a changing LR) on CUDA, on CPU with torch's own kernels
and on CPU with ``CudaAdamW``, over identical gradients, ``foreach=False`` and ``foreach=True``, and
reports after each checkpoint iteration how many elements differ from the GPU's and the largest
difference in ulps (float32 units in the last place); the ``emulated_*`` fields are the replay's::

    python tools/adamw_cuda_vs_cpu.py --iters 1,10,100,1000

Prints one JSON object; exit status 0 (a measurement, not a verdict).  Needs a CUDA device.
"""
from __future__ import annotations

import argparse
import json
import sys

import torch

from shadow.device_optim import CudaAdamW
from trainer_hooks.stepcheck import ulps


def measure(checkpoints: list[int], foreach: bool | None, seed: int = 0, device: str = "cuda",
            fused: bool = False) -> list[dict]:
    g = torch.Generator().manual_seed(seed)
    shapes = [(256, 64), (256,), (10, 256), (10,)]
    init = [torch.randn(s, generator=g) * 0.1 for s in shapes]
    cpu = [torch.nn.Parameter(t.clone()) for t in init]
    emu = [torch.nn.Parameter(t.clone()) for t in init]
    dev = [torch.nn.Parameter(t.clone().to(device)) for t in init]

    def opt(ps, cls=torch.optim.AdamW):
        return cls([{"params": [ps[0], ps[2]], "weight_decay": 0.01},
                    {"params": [ps[1], ps[3]], "weight_decay": 0.0}], lr=3e-3, foreach=foreach, fused=fused or None)
    oc, od, oe = opt(cpu), opt(dev), opt(emu, CudaAdamW)
    out, last = [], max(checkpoints)
    for it in range(1, last + 1):
        lr = 3e-3 * min(1.0, it / 10) * 0.5 ** (it / 200)
        for o in (oc, od, oe):
            for grp in o.param_groups:
                grp["lr"] = lr
        for pc, pd, pe in zip(cpu, dev, emu):
            grad = torch.randn(pc.shape, generator=g)
            pc.grad, pd.grad, pe.grad = grad, grad.to(device), grad.clone()
        oc.step()
        od.step()
        oe.step()
        if it in checkpoints:
            back = [p.detach().cpu() for p in dev]
            diff = sum(int((a != b.detach()).sum()) for a, b in zip(back, cpu))
            states = [(oc.state[pc], od.state[pd]) for pc, pd in zip(cpu, dev)]
            out.append({"iteration": it, "params_differing": diff, "params_total": sum(p.numel() for p in cpu),
                        "max_ulp_params": max(ulps(a, b.detach()) for a, b in zip(back, cpu)),
                        "max_ulp_exp_avg": max(ulps(sd["exp_avg"].cpu(), sc["exp_avg"]) for sc, sd in states),
                        "max_ulp_exp_avg_sq": max(ulps(sd["exp_avg_sq"].cpu(), sc["exp_avg_sq"]) for sc, sd in states),
                        "emulated_params_differing": sum(int((a != b.detach()).sum()) for a, b in zip(back, emu)),
                        "emulated_moments_differing": sum(int((od.state[pd][k].cpu() != oe.state[pe][k]).sum())
                                                          for pd, pe in zip(dev, emu) for k in ("exp_avg", "exp_avg_sq"))})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", default="1,10,100,1000", help="comma-separated checkpoint iterations")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("adamw_cuda_vs_cpu: no CUDA device", file=sys.stderr)
        return 2
    cps = sorted({int(x) for x in a.iters.split(",")})
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "foreach_false": measure(cps, False, a.seed), "foreach_true": measure(cps, True, a.seed),
           "fused": measure(cps, None, a.seed, fused=True)}
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
