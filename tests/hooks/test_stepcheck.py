"""``Checkpointer.compare_with_shadows``: the trainer's state vs the shadows' replay, bit for bit.

One real rank (gloo, world size 1) in host mode feeds two real shadow nodes; after a few steps the
check must say identical (CPU AdamW on both sides), and a single parameter moved by one ulp must be
found as exactly one differing element, one ulp away -- the check a GPU trainer runs to learn whether
its CUDA AdamW step matches the CPU replay (docs/HOOKS.md).
"""
from __future__ import annotations

import pytest
import shadowkit
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from trainer_hooks.stepcheck import ulps

pytestmark = pytest.mark.timeout(120)


def test_ulps():
    one = torch.tensor([1.0])
    assert ulps(one, one) == 0
    assert ulps(one, torch.nextafter(one, torch.tensor([2.0]))) == 1
    assert ulps(torch.tensor([0.0]), torch.tensor([-0.0])) == 0
    tiny = torch.nextafter(torch.tensor([0.0]), torch.tensor([1.0]))
    assert ulps(tiny, -tiny) == 2  # across zero


def test_trainer_equals_replay_and_one_ulp_is_found(tmp_path, gloo_group):
    with shadowkit.running_nodes(tmp_path, 41) as nodes:
        torch.manual_seed(3)
        model = torch.nn.Sequential(torch.nn.Linear(10, 40), torch.nn.ReLU(), torch.nn.Linear(40, 3))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, 41, nodes)
        for it in range(1, 5):
            g = torch.Generator().manual_seed(it)
            x, y = torch.randn(16, 10, generator=g), torch.randint(0, 3, (16,), generator=g)
            torch.nn.functional.cross_entropy(ddp(x), y).backward()
            ckpt.clip_grad_norm_(0.5)
            opt.step()
            opt.zero_grad(set_to_none=True)
        res = ckpt.compare_with_shadows()
        assert res.iteration == 4 and res.identical, res
        n_params = sum(p.numel() for p in model.parameters())
        assert res.elements == 3 * n_params + 4  # parameters, exp_avg, exp_avg_sq; one AdamW step count each
        with torch.no_grad():
            w = model[2].bias
            w[1] = torch.nextafter(w[1], w[1] + 1)
        res = ckpt.compare_with_shadows(4)
        assert not res.identical and res.differing == 1 and res.max_ulp == 1, res
        assert list(res.per_tensor) == ["param 3"]
        ckpt.close()
