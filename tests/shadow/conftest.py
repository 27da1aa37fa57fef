"""Shared ground for the shadow tests: a real AdamW training run to replay, and real shadow nodes.

``reference_run(foreach)`` trains a small real model (Linear/LayerNorm/GELU MLP) with three param
groups, weight decay, a warmup+decay LR schedule (LambdaLR), gradient clipping and one skipped
(AMP-overflow) step, and records for every iteration the averaged gradient *before* clipping (what
the FINAL packets carry), the manifest, and the trainer's parameters and AdamW state afterwards.
The tests play the switch: they cut the gradients into Checkmate packets and send them over real
UDP to real :class:`shadow.node.ShadowNode` instances, and drive the management API over TCP.
"""
from __future__ import annotations

import math
import socket
import time
from dataclasses import dataclass, field

import pytest
import torch

from shadow.client import ShadowClient
from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from shadow.protocol import (Bootstrap, Manifest, OptimizerSpec, ParamSpec, ShardMap, clip_coefficient)

JOB = 7


@dataclass
class Step:
    iteration: int
    grads: dict
    manifest: Manifest
    params: dict  # trainer params after the step
    opt: dict  # trainer AdamW state after the step


@dataclass
class Run:
    params: list
    spec: OptimizerSpec
    init: dict
    steps: list = field(default_factory=list)

    def state(self, it: int):
        """Trainer (params, opt_state) after ``it`` steps."""
        if it == 0:
            return self.init, {}
        s = self.steps[it - 1]
        return s.params, s.opt


def _train(foreach: bool, iters: int, seed: int = 0, skip_at=(4,), max_norm: float = 0.5) -> Run:
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.LayerNorm(32), torch.nn.GELU(),
                                torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 3))
    named = list(model.named_parameters())
    groups_of = []
    for i, (name, p) in enumerate(named):
        groups_of.append(0 if i == 0 else (1 if p.dim() >= 2 else 2))
    hp = [dict(lr=3e-3, weight_decay=0.05), dict(lr=1e-3, weight_decay=0.01, betas=(0.8, 0.95)),
          dict(lr=2e-3, weight_decay=0.0, eps=1e-6)]
    groups = [dict(params=[p for (n, p), g in zip(named, groups_of) if g == k], **hp[k]) for k in range(3)]
    opt = torch.optim.AdamW(groups, foreach=foreach)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 3) * (0.5 * (1 + math.cos(math.pi * s / max(1, iters)))))
    params = [ParamSpec(i, n, tuple(p.shape), "float32", g) for i, ((n, p), g) in enumerate(zip(named, groups_of))]
    run = Run(params, OptimizerSpec.from_optimizer(opt), {i: p.detach().clone() for i, (_, p) in enumerate(named)})
    x, y = torch.randn(16, 12), torch.randn(16, 3)
    for it in range(1, iters + 1):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x * it), y).backward()
        grads = {i: p.grad.detach().clone() for i, (_, p) in enumerate(named)}
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        coef = clip_coefficient(max_norm, total)
        skip = it in skip_at
        m = Manifest(JOB, it, [g["lr"] for g in opt.param_groups], coef, skip)
        if not skip:
            opt.step()
        sched.step()
        ps = {i: p.detach().clone() for i, (_, p) in enumerate(named)}
        st = {i: {k: v.clone() for k, v in opt.state[p].items()} for i, (_, p) in enumerate(named) if p in opt.state}
        run.steps.append(Step(it, grads, m, ps, st))
    return run


_CACHE: dict = {}


@pytest.fixture(scope="session")
def reference_run():
    def get(foreach: bool = True, iters: int = 8, **kw) -> Run:
        key = (foreach, iters, tuple(sorted(kw.items())))
        if key not in _CACHE:
            _CACHE[key] = _train(foreach, iters, **kw)
        return _CACHE[key]
    return get


def bits_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(torch.equal(a.contiguous().view(torch.uint8) if a.dim() else a.reshape(1).view(torch.uint8),
                            b.contiguous().view(torch.uint8) if b.dim() else b.reshape(1).view(torch.uint8)))


def assert_state_equal(state, params: dict, opt: dict, owned: list[int]):
    """The fetched ShardState equals the trainer's params and AdamW state bit for bit."""
    assert sorted(state.tensors) == owned
    for pid in owned:
        assert bits_equal(state.tensors[pid], params[pid]), f"param {pid} differs at iteration {state.iteration}"
        if pid in opt:
            assert sorted(state.opt_state[pid]) == sorted(opt[pid])
            for k, v in opt[pid].items():
                assert bits_equal(state.opt_state[pid][k], v), f"opt state {pid}.{k} differs at {state.iteration}"
        else:
            assert pid not in state.opt_state or not state.opt_state[pid]


class RecordingNode(ShadowNode):
    """A real node that also remembers every state it ever published (to audit them afterwards)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.published = []

    def _publish(self, snap):
        self.published.append(snap)
        super()._publish(snap)


class Cluster:
    """N real shadow nodes on loopback (UDP + TCP on port 0), a UDP 'switch' socket, TCP clients."""

    def __init__(self, run: Run, tmp_path, shards: int = 2, **cfg):
        self.run, self.shards = run, shards
        self.owner = {p.param_id: p.param_id % shards for p in run.params}
        self.nodes = []
        for s in range(shards):
            c = ShadowConfig(job_id=JOB, shard=s, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                             ckpt_dir=tmp_path / "ckpt", **cfg)
            self.nodes.append(RecordingNode(c).start())
        self.clients = [ShadowClient(*n.mgmt_address, timeout=10) for n in self.nodes]
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.map = ShardMap(JOB, shards, dict(self.owner), [f"{h}:{p}" for h, p in (n.mgmt_address for n in self.nodes)])

    def owned(self, s: int) -> list[int]:
        return sorted(p for p, o in self.owner.items() if o == s)

    def bootstrap(self, it: int, shards=None, resync: bool = False):
        params, opt = self.run.state(it)
        for s in (range(self.shards) if shards is None else shards):
            own = self.owned(s)
            b = Bootstrap(JOB, s, it, self.run.params, self.map, self.run.spec,
                          {p: params[p] for p in own}, {p: opt[p] for p in own if p in opt}, resync=resync)
            self.clients[s].bootstrap(b)

    def packets(self, it: int, s: int, **kw) -> list[bytes]:
        g = self.run.steps[it - 1].grads
        return gradient_packets(JOB, it, {p: g[p] for p in self.owned(s)}, **kw)

    def send(self, s: int, pkts) -> None:
        addr = self.nodes[s].data_address
        for i, p in enumerate(pkts):
            self.sock.sendto(p, addr)
            if i % 64 == 63:
                time.sleep(0.001)  # stay below the loopback socket buffer

    def manifest(self, it: int):
        return [c.manifest(self.run.steps[it - 1].manifest) for c in self.clients]

    def drive(self, upto: int) -> None:
        """Bootstrap every shard at iteration 0, then feed iterations 1..``upto`` in order (all shards'
        gradients, then the manifest), each one published before the next starts."""
        self.bootstrap(0)
        for it in range(1, upto + 1):
            for s in range(self.shards):
                self.send(s, self.packets(it, s))
            self.manifest(it)
            assert self.wait_latest(it), f"iteration {it} was not published"

    def wait_latest(self, it: int, timeout: float = 30.0, shards=None) -> bool:
        ok = True
        for s in (range(self.shards) if shards is None else shards):
            ok &= self.nodes[s].wait_for(lambda n: n.latest is not None and n.latest.iteration >= it, timeout)
        return ok

    def check(self, it: int, shards=None):
        params, opt = self.run.state(it)
        for s in (range(self.shards) if shards is None else shards):
            st = self.clients[s].fetch()
            assert st.iteration == it, f"shard {s}: latest is {st.iteration}, expected {it}"
            assert_state_equal(st, params, opt, self.owned(s))

    def published_ok(self, it_max: int):
        """Every state any shard EVER published is an iteration <= it_max, bitwise the trainer's."""
        for s, n in enumerate(self.nodes):
            for snap in list(n.published):
                if snap is not None:
                    assert snap.iteration <= it_max, f"shard {s} published {snap.iteration} > {it_max}"
                    params, opt = self.run.state(snap.iteration)
                    assert_state_equal(snap, params, opt, self.owned(s))

    def close(self):
        for c in self.clients:
            c.close()
        for n in self.nodes:
            n.stop()
        self.sock.close()


@pytest.fixture
def cluster(tmp_path):
    made = []

    def make(run: Run, **kw) -> Cluster:
        c = Cluster(run, tmp_path, **kw)
        made.append(c)
        return c
    yield make
    for c in made:
        c.close()


@pytest.fixture
def bits():
    """``bits(a, b)``: same dtype, shape and bit pattern."""
    return bits_equal
