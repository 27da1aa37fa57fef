#!/usr/bin/env python
"""Record what torch's CUDA optimizer kernels compute, bit for bit, for CPU-side study and tests.

The shadows replay the trainer's optimizer step on CPU.  For a trainer stepping on a GPU the replay
is bit-exact only if the CPU arithmetic rounds as the GPU kernels do, and that is a matter of fact
about the kernels (which products are contracted into one fused multiply-add, whether a division by
a scalar is a multiplication by its reciprocal, which sqrt), not of documentation.  This tool, run on
a machine with a CUDA device, writes that fact down:

* ``ops.pt``: each elementwise operation the optimizers use (``lerp_``, ``mul_``, ``addcmul_``,
  ``addcdiv_``, ``sqrt``, ``div_``, ``add_``, ``maximum``), single-tensor and ``_foreach_`` forms
  with a scalar and with a scalar list, on random inputs, CUDA result beside the inputs;
* ``steps.pt``: whole optimizer steps (AdamW and Adam with ``foreach`` False/True and ``fused``,
  AMSGrad, SGD with momentum) over several iterations with a changing learning rate: the state
  before the first step, every gradient, the state after every step;
* ``pow.pt``: ``torch.pow(beta, step)`` on the device for common betas and steps 1..100000 (the fused
  kernels' bias corrections use the device's ``powf``), and fused AdamW/Adam steps taken from large
  step counts;
* ``env.json``: torch, CUDA and device names.

    python tools/optim_cuda_record.py --out DIR

Needs a CUDA device; prints where it wrote.  ``tests/shadow/test_cuda_replay.py`` replays recorded
steps on CPU.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

SHAPES = [(100, 37), (513,), (7,)]


def _inputs(g: torch.Generator, n: int, lo: float = -1.0) -> torch.Tensor:
    """Random float32 values over many binades, with zeros and subnormals among them."""
    x = torch.randn(n, generator=g) * torch.exp2(torch.randint(-20, 4, (n,), generator=g).float())
    x[:8] = torch.tensor([0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 3.4e38, 1e-30])
    return x if lo < 0 else x.abs()


def record_ops(dev: str, n: int = 1 << 14, seed: int = 1) -> dict:
    g = torch.Generator().manual_seed(seed)
    a, b, c = (_inputs(g, n) for _ in range(3))
    pos = _inputs(g, n, lo=0.0)
    cu = lambda t: t.to(dev, copy=True)  # noqa: E731  (in-place ops must not touch the inputs)
    out = {"a": a, "b": b, "c": c, "pos": pos, "results": {}}
    r = out["results"]
    for w in (0.1, 0.1000000001, 0.5, 0.9, 0.999):
        r[f"lerp_{w}"] = cu(a).lerp_(cu(b), w).cpu()
        r[f"foreach_lerp_{w}"] = torch._foreach_lerp([cu(a)], [cu(b)], w)[0].cpu()
    for v in (0.001, 0.999, -0.003, 1 - 0.9, 1 - 0.999):
        r[f"mul_{v}"] = cu(a).mul_(v).cpu()
        r[f"foreach_mul_{v}"] = torch._foreach_mul([cu(a)], v)[0].cpu()
        r[f"foreach_mul_list_{v}"] = torch._foreach_mul([cu(a)], [v])[0].cpu()
        r[f"addcmul_{v}"] = cu(a).addcmul_(cu(b), cu(c), value=v).cpu()
        r[f"foreach_addcmul_{v}"] = torch._foreach_addcmul([cu(a)], [cu(b)], [cu(c)], v)[0].cpu()
        r[f"foreach_addcmul_list_{v}"] = torch._foreach_addcmul([cu(a)], [cu(b)], [cu(c)], [v])[0].cpu()
        r[f"addcdiv_{v}"] = cu(a).addcdiv_(cu(b), cu(pos), value=v).cpu()
        r[f"foreach_addcdiv_{v}"] = torch._foreach_addcdiv([cu(a)], [cu(b)], [cu(pos)], v)[0].cpu()
        r[f"foreach_addcdiv_list_{v}"] = torch._foreach_addcdiv([cu(a)], [cu(b)], [cu(pos)], [v])[0].cpu()
        r[f"foreach_addcdiv_tensor_{v}"] = torch._foreach_addcdiv(
            [cu(a)], [cu(b)], [cu(pos)], torch.tensor([v], dtype=torch.float64))[0].cpu()
    for s in (0.31622776601683794, 0.9999999, 3.0, 0.1):
        r[f"div_{s}"] = (cu(pos) / s).cpu()
        r[f"div__{s}"] = cu(pos).div_(s).cpu()
        r[f"foreach_div_{s}"] = torch._foreach_div([cu(pos)], s)[0].cpu()
        r[f"foreach_div_list_{s}"] = torch._foreach_div([cu(pos)], [s])[0].cpu()
    for e in (1e-8, 1e-6):
        r[f"add_{e}"] = cu(pos).add_(e).cpu()
        r[f"foreach_add_{e}"] = torch._foreach_add([cu(pos)], e)[0].cpu()
    r["sqrt"] = cu(pos).sqrt().cpu()
    r["foreach_sqrt"] = torch._foreach_sqrt([cu(pos)])[0].cpu()
    r["maximum"] = torch.maximum(cu(a), cu(b)).cpu()
    r["foreach_maximum"] = torch._foreach_maximum([cu(a)], [cu(b)])[0].cpu()
    r["add_alpha"] = cu(a).add_(cu(b), alpha=-0.01).cpu()
    r["foreach_add_alpha"] = torch._foreach_add([cu(a)], [cu(b)], alpha=-0.01)[0].cpu()
    return out


VARIANTS = [
    ("AdamW", {"foreach": False}), ("AdamW", {"foreach": True}), ("AdamW", {"fused": True}),
    ("AdamW", {"foreach": False, "amsgrad": True}), ("AdamW", {"foreach": True, "amsgrad": True}),
    ("AdamW", {"fused": True, "amsgrad": True}),
    ("Adam", {"foreach": False}), ("Adam", {"foreach": True}), ("Adam", {"fused": True}),
    ("SGD", {"foreach": False, "momentum": 0.9}), ("SGD", {"foreach": True, "momentum": 0.9}),
    ("SGD", {"foreach": False, "momentum": 0.9, "nesterov": True}),
]


def _lr(it: int) -> float:
    return 3e-3 * min(1.0, it / 3) * 0.5 ** (it / 7)


def record_steps(dev: str, iters: int = 6, seed: int = 2) -> list[dict]:
    runs = []
    for name, kw in VARIANTS:
        g = torch.Generator().manual_seed(seed)
        init = [torch.randn(s, generator=g) * 0.1 for s in SHAPES]
        params = [torch.nn.Parameter(t.clone().to(dev)) for t in init]
        wd = 0.01 if name != "SGD" else 1e-4
        opt = getattr(torch.optim, name)([{"params": [params[0], params[2]], "weight_decay": wd},
                                           {"params": [params[1]], "weight_decay": 0.0}], lr=_lr(1), **kw)
        grads, lrs, after = [], [], []
        for it in range(1, iters + 1):
            lr = _lr(it)
            for grp in opt.param_groups:
                grp["lr"] = lr
            gs = [torch.randn(p.shape, generator=g) * 0.05 for p in params]
            for p, gr in zip(params, gs):
                p.grad = gr.to(dev)
            opt.step()
            grads.append(gs)
            lrs.append(lr)
            after.append({"params": [p.detach().cpu().clone() for p in params],
                          "state": [{k: (v.detach().cpu().clone() if torch.is_tensor(v) else v)
                                     for k, v in opt.state[p].items()} for p in params]})
        runs.append({"optimizer": name, "kwargs": kw, "weight_decay": wd, "groups": [[0, 2], [1]],
                     "init": init, "grads": grads, "lrs": lrs, "after": after})
    return runs


BETAS = (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999)


def record_pow(dev: str, n: int = 100000, seed: int = 3, starts=(9, 99, 999, 9999, 99999)) -> dict:
    steps = torch.arange(1, n + 1, dtype=torch.float32)
    table = torch.stack([torch.pow(torch.full((n,), b, dtype=torch.float32, device=dev), steps.to(dev)).cpu()
                         for b in BETAS])
    g = torch.Generator().manual_seed(seed)
    far = []
    for name, wd in (("AdamW", 0.01), ("Adam", 0.01)):
        for start in starts:
            init = [torch.randn(400, generator=g) * 0.1, torch.rand(400, generator=g) * 1e-3,
                    torch.rand(400, generator=g) * 1e-6, torch.randn(400, generator=g) * 0.05]
            p = torch.nn.Parameter(init[0].clone().to(dev))
            opt = getattr(torch.optim, name)([p], lr=1e-3, weight_decay=wd, fused=True)
            opt.state[p] = {"step": torch.tensor(float(start), device=dev), "exp_avg": init[1].to(dev) * 0,
                            "exp_avg_sq": init[2].to(dev)}
            opt.state[p]["exp_avg"].copy_(init[1].to(dev))
            p.grad = init[3].to(dev)
            opt.step()
            far.append({"optimizer": name, "weight_decay": wd, "start": start, "param": init[0], "exp_avg": init[1],
                        "exp_avg_sq": init[2], "grad": init[3], "after": {
                            "param": p.detach().cpu().clone(),
                            **{k: v.detach().cpu().clone() for k, v in opt.state[p].items()}}})
    return {"betas": list(BETAS), "pow": table, "far": far}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--device", default="cuda", help="cuda (default), or cpu for a dry run of the tool")
    ap.add_argument("--fused-at", default=None, help="step counts (comma-separated) to record one fused step at")
    ap.add_argument("--pow-only", action="store_true", help="only pow.pt (the table and the fused steps)")
    a = ap.parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    cuda = a.device == "cuda"
    env = {"torch": str(torch.__version__), "cuda": torch.version.cuda, "device": a.device,
           "name": torch.cuda.get_device_name(0) if cuda else "cpu",
           "capability": list(torch.cuda.get_device_capability(0)) if cuda else None}
    (a.out / "env.json").write_text(json.dumps(env, indent=1))
    if not a.pow_only:
        torch.save(record_ops(a.device), a.out / "ops.pt")
        torch.save({"env": env, "runs": record_steps(a.device)}, a.out / "steps.pt")
    starts = tuple(int(x) - 1 for x in a.fused_at.split(",")) if a.fused_at else (9, 99, 999, 9999, 99999)
    torch.save({"env": env, **record_pow(a.device, starts=starts)}, a.out / "pow.pt")
    print(f"wrote {a.out}/ops.pt, steps.pt, pow.pt, env.json ({env})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
