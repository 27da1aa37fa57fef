"""The replica's flat step (one tensor per param group, :mod:`shadow.flat`) against the trainer's own
per-tensor ``torch.optim`` step, bit for bit, over many steps: AdamW / Adam (amsgrad) / SGD (momentum,
Nesterov), foreach on and off, weight decay on one group only (interleaved with the other, as
``examples/ddp_train.py`` builds them), an LR schedule, clipping, skipped steps, a mid-run bootstrap,
and the switch to per-tensor stepping when a step leaves params without a gradient."""
import pytest
import torch

from shadow import flat
from shadow.layout import ShardLayout
from shadow.packets import payload_bytes
from shadow.protocol import Bootstrap, Manifest, OptimizerSpec, ParamSpec, ShardMap
from shadow.replay import OptimizerReplica

# odd sizes put every element position at a vector tail; () and (1,) are scalars
SHAPES = [(33, 7), (7,), (64, 16), (16,), (), (5, 3, 3), (1,), (129,)]


def make_opt(kind, ps, foreach):
    decay = [p for p in ps if p.dim() >= 2]
    rest = [p for p in ps if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.05}, {"params": rest, "weight_decay": 0.0}]
    if kind == "adamw":
        return torch.optim.AdamW(groups, lr=3e-3, foreach=foreach)
    if kind == "adamw-amsgrad":
        return torch.optim.AdamW(groups, lr=3e-3, foreach=foreach, amsgrad=True, betas=(0.8, 0.95), eps=1e-6)
    if kind == "adam":
        return torch.optim.Adam(groups, lr=3e-3, foreach=foreach, amsgrad=True)
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=5e-2, momentum=0.9, dampening=0.1, foreach=foreach)
    return torch.optim.SGD(groups, lr=5e-2, momentum=0.9, nesterov=True, foreach=foreach)


class Trainer:
    """The trainer's side: per-tensor params and optimizer, a LambdaLR, clipping and skipped steps."""

    def __init__(self, kind, foreach, seed=0):
        torch.manual_seed(seed)
        self.ps = [torch.nn.Parameter(torch.randn(s)) for s in SHAPES]
        self.opt = make_opt(kind, self.ps, foreach)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: 1.0 / (1 + 0.1 * s))
        self.specs = [ParamSpec(i, f"p{i}", tuple(s), group=0 if len(s) >= 2 else 1) for i, s in enumerate(SHAPES)]
        self.it = 0

    def bootstrap(self, owner=None, shard=0, spec=None):
        owner = owner or {i: 0 for i in range(len(SHAPES))}
        mine = [i for i, s in owner.items() if s == shard]
        st = {i: {k: v.clone() for k, v in self.opt.state[self.ps[i]].items()} for i in mine if self.ps[i] in self.opt.state}
        boot = Bootstrap(1, shard, self.it, self.specs, ShardMap(1, max(owner.values()) + 1, owner),
                         spec or OptimizerSpec.from_optimizer(self.opt), {i: self.ps[i].detach().clone() for i in mine}, st)
        lay = ShardLayout.build(self.specs, owner, shard)
        return OptimizerReplica(boot, lay), lay

    def step(self, unused=()):
        """One training step; returns (manifest, gradients as the ring carries them)."""
        self.it += 1
        it = self.it
        grads = [torch.randn(p.shape) * 10.0 ** ((it % 5) - 3) for p in self.ps]
        for i, (p, g) in enumerate(zip(self.ps, grads)):
            p.grad = None if i in unused else g.clone()
        coef = 0.5 if it % 3 == 0 else None
        if coef is not None:
            torch._foreach_mul_([p.grad for p in self.ps if p.grad is not None], torch.tensor(coef))
        skip = it % 7 == 0
        lrs = [g["lr"] for g in self.opt.param_groups]
        if not skip:
            self.opt.step()
        self.sched.step()
        self.opt.zero_grad(set_to_none=True)
        carried = [torch.zeros_like(g) if i in unused else g for i, g in enumerate(grads)]
        return Manifest(1, it, lrs, coef, skip, None, sorted(unused)), carried


def slot_of(lay, grads):
    slot = bytearray(lay.total_bytes)
    for pid in lay.owned:
        raw = payload_bytes(grads[pid], "big")
        slot[lay.byte_base[pid]:lay.byte_base[pid] + len(raw)] = raw
    return slot


def check(bits, rep, tr, owned):
    snap = rep.snapshot()
    for pid in owned:
        p = tr.ps[pid]
        assert bits(snap.tensors[pid], p.detach()), (tr.it, pid)
        want = {k: v for k, v in tr.opt.state[p].items() if isinstance(v, torch.Tensor)} if p in tr.opt.state else {}
        got = snap.opt_state.get(pid, {})
        assert list(got) == list(want), (tr.it, pid)
        for k, v in want.items():
            assert bits(got[k], v), (tr.it, pid, k)
            assert got[k] is not v
    # every published tensor is its own storage: a restored trainer steps each param's state apart
    steps = [st["step"] for st in snap.opt_state.values() if "step" in st]
    assert len({id(s) for s in steps}) == len(steps)


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("kind", ["adamw", "adamw-amsgrad", "adam", "sgd", "nesterov"])
def test_flat_step_is_bitwise_the_trainers_per_tensor_step(bits, kind, foreach):
    tr = Trainer(kind, foreach)
    rep, lay = tr.bootstrap()
    assert rep.flat is not None and [fg.group for fg in rep.flat] == [0, 1]
    # each group's params are one span of the buffer although the trainer interleaves them
    assert [fg.pids for fg in rep.flat] == [[0, 2, 5], [1, 3, 4, 6, 7]]
    for _ in range(40):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
    assert rep.flat is not None
    # Adam/AdamW: the flat step goes through torch.optim.adam.adam directly (after the first step), or
    # AdamW over the whole shard in one pass (shadow.merged; tests/shadow/test_replay_merged.py)
    fast = rep._merged is not None or (rep._direct is not None and rep._direct.lists is not None)
    assert fast == kind.startswith("adam")
    assert (rep._merged is not None) == kind.startswith("adamw")


@pytest.mark.parametrize("kind", ["adamw", "sgd"])
def test_no_grad_switches_to_per_tensor_for_good(bits, kind):
    tr = Trainer(kind, False, seed=1)
    rep, lay = tr.bootstrap()
    for it in range(1, 16):
        unused = (3, 5) if it == 6 else ()
        m, grads = tr.step(unused)
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
        assert (rep.flat is None) == (it >= 6), it
    if kind == "adamw":  # the skipped params' step counts fell behind their groups'
        assert int(tr.opt.state[tr.ps[3]]["step"]) == int(tr.opt.state[tr.ps[1]]["step"]) - 1


def test_mid_run_bootstrap_two_shards(bits):
    """Bootstrap from the trainer's state after 9 steps, the params split over two shards."""
    tr = Trainer("adamw", True, seed=2)
    for _ in range(9):
        tr.step()
    owner = {0: 0, 1: 1, 2: 1, 3: 0, 4: 0, 5: 1, 6: 0, 7: 1}
    reps = [tr.bootstrap(owner, s) for s in (0, 1)]
    assert all(r.flat is not None and r._direct is not None for r, _ in reps)
    for _ in range(12):
        m, grads = tr.step()
        for rep, lay in reps:
            rep.step(m, slot_of(lay, grads))
            check(bits, rep, tr, lay.owned)
            # the bootstrap's state: the whole shard in one pass (or direct) from the first step on
            assert rep._merged is not None or rep._direct.lists is not None


def test_non_uniform_state_is_replayed_per_tensor(bits):
    """A param left out of some earlier step has a smaller step count: one flat state cannot hold
    that, so the replica steps per tensor from the start -- and is still bitwise."""
    tr = Trainer("adamw", False, seed=3)
    for it in range(5):
        tr.step((4,) if it == 1 else ())
    rep, lay = tr.bootstrap()
    assert rep.flat is None
    for _ in range(6):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


class _NormalisedSGD(torch.optim.SGD):
    """Not elementwise: each tensor's step is scaled by its own gradient norm."""

    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                p.add_(p.grad / (p.grad.norm() + 1e-12), alpha=-g["lr"])


def test_probe_refuses_an_optimizer_that_is_not_elementwise():
    assert flat.flat_is_exact(torch.optim.AdamW, {"lr": 1e-3, "weight_decay": 0.1}, False, False, torch.float32)
    assert not flat.flat_is_exact(_NormalisedSGD, {"lr": 1e-1}, False, False, torch.float32)
    assert flat.direct_is_exact(torch.optim.AdamW, {"lr": 1e-3, "weight_decay": 0.1}, True, False, torch.float32)
    assert not flat.direct_is_exact(torch.optim.SGD, {"lr": 1e-1, "momentum": 0.9}, False, False, torch.float32)


def test_probe_catches_a_direct_step_that_differs(monkeypatch):
    """The direct call must pass torch's functional Adam exactly what Adam.step would; with one
    value off (eps doubled: as if torch's Adam.step had changed what it passes) the probe refuses
    it, and the replica steps through opt.step()."""
    real = flat.AdamDirect.step

    def off(self):
        if self.lists is None and not self._build():
            return False
        for entry in self.lists:
            entry[0]["eps"] *= 2
        try:
            return real(self)
        finally:
            for entry in self.lists:
                entry[0]["eps"] /= 2
    monkeypatch.setattr(flat.AdamDirect, "step", off)
    monkeypatch.setattr(flat, "_exact_cache", {})
    assert flat.flat_is_exact(torch.optim.AdamW, {"lr": 1e-3}, False, False, torch.float32)
    assert not flat.direct_is_exact(torch.optim.AdamW, {"lr": 1e-3}, False, False, torch.float32)


def test_plan_and_uniform_state_edges():
    specs = [ParamSpec(0, "a", (4,), "float32", 0), ParamSpec(1, "b", (4,), "bfloat16", 0)]
    lay = ShardLayout.build(specs, {0: 0, 1: 0}, 0)
    assert flat.plan(lay, [(0, [0, 1])], {0: torch.float32, 1: torch.bfloat16}) is None  # two dtypes
    one = {"step": torch.tensor(3.0), "exp_avg": torch.zeros(4)}
    assert flat.uniform_state([one, dict(one)], [(4,), (4,)])
    assert not flat.uniform_state([one, {**one, "step": torch.tensor(2.0)}], [(4,), (4,)])
    assert not flat.uniform_state([one, None], [(4,), (4,)])
    assert not flat.uniform_state([one, one], [(4,), (2, 2)])
