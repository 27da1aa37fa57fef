"""AdamWReplica against torch.optim.AdamW directly (no network): group flags and edge cases."""
import pytest
import torch

from shadow.layout import ShardLayout
from shadow.packets import payload_bytes
from shadow.protocol import Bootstrap, Manifest, OptimizerSpec, ParamSpec, ProtocolError, ShardMap
from shadow.replay import AdamWReplica


def _run(bits, foreach, **hp):
    torch.manual_seed(0)
    ps = [torch.nn.Parameter(torch.randn(17, 3)), torch.nn.Parameter(torch.randn(5)), torch.nn.Parameter(torch.randn(8))]
    groups = [{"params": [ps[0], ps[2]], **hp}, {"params": [ps[1]], "lr": 5e-3, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=1e-2, foreach=foreach)
    specs = [ParamSpec(0, "a", (17, 3), group=0), ParamSpec(1, "b", (5,), group=1), ParamSpec(2, "c", (8,), group=0)]
    owner = {0: 0, 1: 1, 2: 0}  # shard 0 holds only group 0: group 1 is left out of its optimizer
    boot = Bootstrap(1, 0, 0, specs, ShardMap(1, 2, owner), OptimizerSpec.from_optimizer(opt),
                     {0: ps[0].detach().clone(), 2: ps[2].detach().clone()}, {})
    lay = ShardLayout.build(specs, owner, 0)
    rep = AdamWReplica(boot, lay)
    for it in range(1, 5):
        grads = [torch.randn_like(p) for p in ps]
        lrs = [1e-2 / it, 5e-3]
        coef = 0.25 if it % 2 else None
        for p, g in zip(ps, grads):
            p.grad = g.clone()
        if coef is not None:
            torch._foreach_mul_([p.grad for p in ps], torch.tensor(coef))
        for g, lr in zip(opt.param_groups, lrs):
            g["lr"] = lr
        opt.step()
        slot = bytearray(lay.total_bytes)
        for pid in lay.owned:
            raw = payload_bytes(grads[pid], "big")
            slot[lay.byte_base[pid]:lay.byte_base[pid] + len(raw)] = raw
        rep.step(Manifest(1, it, lrs, coef), slot)
        snap = rep.snapshot()
        for pid in (0, 2):
            assert bits(snap.tensors[pid], ps[pid].detach()), (it, pid)
            for k, v in opt.state[ps[pid]].items():
                assert bits(snap.opt_state[pid][k], v), (it, pid, k)
    return rep


@pytest.mark.parametrize("foreach", [True, False])
@pytest.mark.parametrize("hp", [{"amsgrad": True}, {"maximize": True}, {"betas": (0.5, 0.9), "eps": 1e-3}])
def test_group_flags_replay_bitwise(bits, foreach, hp):
    rep = _run(bits, foreach, **hp)
    assert rep.group_of == [0]


def test_wrong_manifests_are_refused(bits):
    rep = _run(bits, True)
    with pytest.raises(RuntimeError, match="cannot apply 7"):
        rep.step(Manifest(1, 7, [1e-3, 1e-3]), bytearray(rep.layout.total_bytes))
    with pytest.raises(ProtocolError, match="'lrs'"):
        rep.step(Manifest(1, 5, [1e-3]), bytearray(rep.layout.total_bytes))


def test_tensor_lr_is_refused():
    opt = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(2))], lr=torch.tensor(0.1))
    with pytest.raises(ProtocolError, match="'lr' is a tensor"):
        OptimizerSpec.from_optimizer(opt)
