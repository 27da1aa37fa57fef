"""OptimizerReplica for every replayed optimizer (AdamW, Adam, SGD with momentum / Nesterov; foreach
and for-loop), parameters without a gradient in some steps, and carried buffers -- against the real
``torch.optim`` step on the trainer side, bit for bit, no network."""
import pytest
import torch

from shadow.layout import ShardLayout
from shadow.optimizers import UnsupportedOptimizer, optimizer_kind
from shadow.packets import payload_bytes
from shadow.protocol import Bootstrap, Manifest, OptimizerSpec, ParamSpec, ProtocolError, ShardMap
from shadow.replay import OptimizerReplica

SHAPES = [(7, 3), (5,), (4, 4), (6,)]


def make(kind, foreach):
    torch.manual_seed(1)
    ps = [torch.nn.Parameter(torch.randn(*s)) for s in SHAPES]
    groups = [{"params": [ps[0], ps[2]], "weight_decay": 0.1}, {"params": [ps[1], ps[3]], "weight_decay": 0.0}]
    if kind == "adamw":
        return ps, torch.optim.AdamW(groups, lr=1e-2, foreach=foreach)
    if kind == "adam":
        return ps, torch.optim.Adam(groups, lr=1e-2, foreach=foreach, amsgrad=True)
    if kind == "sgd":
        return ps, torch.optim.SGD(groups, lr=5e-2, momentum=0.9, dampening=0.1, foreach=foreach)
    return ps, torch.optim.SGD(groups, lr=5e-2, momentum=0.9, nesterov=True, foreach=foreach)


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("kind", ["adamw", "adam", "sgd", "nesterov"])
def test_optimizers_replay_bitwise_with_unused_params_and_buffers(bits, kind, foreach):
    ps, opt = make(kind, foreach)
    spec = OptimizerSpec.from_optimizer(opt)
    assert spec.kind == ("sgd" if kind == "nesterov" else kind)
    specs = [ParamSpec(i, f"p{i}", s, group=0 if i in (0, 2) else 1) for i, s in enumerate(SHAPES)]
    owner = {0: 0, 1: 0, 2: 0, 3: 0}
    bn = {"bn.running_mean": torch.zeros(3), "bn.num_batches_tracked": torch.tensor(0)}
    boot = Bootstrap(1, 0, 0, specs, ShardMap(1, 1, owner), spec, {i: p.detach().clone() for i, p in enumerate(ps)},
                     {}, buffers=bn)
    lay = ShardLayout.build(specs, owner, 0)
    rep = OptimizerReplica(boot, lay)
    for it in range(1, 7):
        grads = [torch.randn_like(p) for p in ps]
        unused = [1] if it in (2, 3) else ([0, 3] if it == 5 else [])  # grad None: the step skips them
        for i, (p, g) in enumerate(zip(ps, grads)):
            p.grad = None if i in unused else g.clone()
        lrs = [1e-2 / it, 2e-3]
        for g, lr in zip(opt.param_groups, lrs):
            g["lr"] = lr
        opt.step()
        slot = bytearray(lay.total_bytes)
        for pid in lay.owned:  # the ring carries zeros for an unused param; no_grad says so
            raw = payload_bytes(torch.zeros_like(grads[pid]) if pid in unused else grads[pid], "big")
            slot[lay.byte_base[pid]:lay.byte_base[pid] + len(raw)] = raw
        buffers = {"bn.running_mean": torch.full((3,), float(it)), "bn.num_batches_tracked": torch.tensor(it)}
        rep.step(Manifest(1, it, lrs, None, False, buffers, unused), slot)
        snap = rep.snapshot()
        assert bits(snap.buffers["bn.running_mean"], buffers["bn.running_mean"])
        assert int(snap.buffers["bn.num_batches_tracked"]) == it
        for pid, p in enumerate(ps):
            assert bits(snap.tensors[pid], p.detach()), (it, pid)
            want = {k: v for k, v in opt.state[p].items() if isinstance(v, torch.Tensor)}
            assert set(snap.opt_state.get(pid, {})) == set(want), (it, pid)
            for k, v in want.items():
                assert bits(snap.opt_state[pid][k], v), (it, pid, k)
        opt.zero_grad(set_to_none=True)
    # a param that was unused in some steps has a smaller Adam step count than the others
    if kind.startswith("adam"):
        assert int(opt.state[ps[1]]["step"]) == 4 and int(opt.state[ps[2]]["step"]) == 6


def test_buffer_shard_refuses_a_manifest_without_buffers():
    ps, opt = make("adamw", False)
    specs = [ParamSpec(i, f"p{i}", s, group=0 if i in (0, 2) else 1) for i, s in enumerate(SHAPES)]
    owner = {i: 0 for i in range(4)}
    boot = Bootstrap(1, 0, 0, specs, ShardMap(1, 1, owner), OptimizerSpec.from_optimizer(opt),
                     {i: p.detach().clone() for i, p in enumerate(ps)}, {}, buffers={"bn.running_var": torch.ones(3)})
    lay = ShardLayout.build(specs, owner, 0)
    rep = OptimizerReplica(boot, lay)
    slot = bytearray(lay.total_bytes)
    with pytest.raises(ProtocolError, match="'buffers' is missing"):
        rep.step(Manifest(1, 1, [1e-3, 1e-3]), slot)
    with pytest.raises(ProtocolError, match="names differ"):
        rep.step(Manifest(1, 1, [1e-3, 1e-3], buffers={"other": torch.ones(3)}), slot)
    with pytest.raises(ProtocolError, match="was torch.float32"):
        rep.step(Manifest(1, 1, [1e-3, 1e-3], buffers={"bn.running_var": torch.ones(3, dtype=torch.float64)}), slot)
    assert rep.iteration == 0  # nothing applied


@pytest.mark.parametrize("opt_cls", [torch.optim.RMSprop, torch.optim.Adagrad, torch.optim.NAdam])
def test_unsupported_optimizers_are_named(opt_cls):
    opt = opt_cls([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
    with pytest.raises(UnsupportedOptimizer, match=rf"{opt_cls.__name__}; supported optimizers: "
                                                   r"torch.optim.AdamW, torch.optim.Adam, torch.optim.SGD"):
        optimizer_kind(opt)
    with pytest.raises(ProtocolError, match="supported optimizers"):
        OptimizerSpec.from_optimizer(opt)


def test_export_includes_buffers_and_frozen_params():
    """``checkmate export``: the buffer shard's buffers and frozen params land in the model dict."""
    from shadow import export
    from shadow.protocol import ShardState
    specs = [ParamSpec(0, "w", (2, 2), group=0), ParamSpec(1, "frozen.w", (3,), group=-1), ParamSpec(2, "b", (2,), group=0)]
    spec = OptimizerSpec("adamw", False, False, [{"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0}])
    s0 = ShardState(1, 0, 5, {0: torch.ones(2, 2)}, {0: {"step": torch.tensor(5.0)}}, spec, specs, 2,
                    buffers={"bn.running_mean": torch.full((2,), 0.5)}, frozen={"frozen.w": torch.arange(3.0)})
    s1 = ShardState(1, 1, 5, {2: torch.zeros(2)}, {}, spec, specs, 2)
    sd = export.assemble([s0, s1])
    assert torch.equal(sd["model"]["bn.running_mean"], torch.full((2,), 0.5))
    assert torch.equal(sd["model"]["frozen.w"], torch.arange(3.0))
    assert sd["optimizer"]["param_groups"][0]["params"] == [0, 1]  # the frozen one is in no group


def test_malformed_no_grad_is_refused():
    ps, opt = make("sgd", False)
    specs = [ParamSpec(i, f"p{i}", s, group=0 if i in (0, 2) else 1) for i, s in enumerate(SHAPES)]
    owner = {i: 0 for i in range(4)}
    boot = Bootstrap(1, 0, 0, specs, ShardMap(1, 1, owner), OptimizerSpec.from_optimizer(opt),
                     {i: p.detach().clone() for i, p in enumerate(ps)}, {})
    lay = ShardLayout.build(specs, owner, 0)
    rep = OptimizerReplica(boot, lay)
    with pytest.raises(ProtocolError, match="'no_grad'"):
        rep.step(Manifest(1, 1, [1e-3, 1e-3], no_grad="12"), bytearray(lay.total_bytes))
