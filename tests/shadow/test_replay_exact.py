"""Acceptance: real AdamW run -> real UDP Checkmate packets -> two real shadows -> bitwise equal state.

After every iteration each shard's published state (fetched over the management API) must equal
the trainer's ``torch.optim.AdamW`` parameters and state bit for bit, for ``foreach=True`` and
``foreach=False``; with several param groups, weight decay, an LR schedule, clipping and a skipped
(AMP overflow) step.
"""
import random
import socket

import pytest
import torch

from shadow.client import ShadowClient
from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from shadow.protocol import Bootstrap, Manifest, OptimizerSpec, ParamSpec, ShardMap


@pytest.mark.timeout(60)
@pytest.mark.parametrize("foreach", [True, False])
def test_bitwise_equal_after_every_iteration(reference_run, cluster, foreach):
    run = reference_run(foreach)
    c = cluster(run)
    c.bootstrap(0)
    c.check(0)
    sent = [0] * c.shards
    for it in range(1, len(run.steps) + 1):
        for s in range(c.shards):
            pk = c.packets(it, s)
            c.send(s, pk)
            sent[s] += len(pk)
        # the copies travel ahead of the manifest on a real network; here the manifest (TCP) could
        # overtake them, and a skipped iteration's late copies would count as stale duplicates
        for s in range(c.shards):
            assert c.nodes[s].wait_for(lambda n: n.counters.packets >= sent[s], 10)
        acks = c.manifest(it)
        assert not any(a.needs_resync for a in acks)
        assert c.wait_latest(it), [n.status() for n in c.nodes]
        c.check(it)
    for n in c.nodes:
        st = n.status()
        assert st.losses == 0 and st.rejected == 0 and st.duplicates == 0 and not st.needs_resync
        assert st.previous_iteration == len(run.steps) - 1


@pytest.mark.timeout(60)
def test_fetch_previous_iteration_and_manifest_before_packets(reference_run, cluster):
    """Manifest first, packets in random order and small packets: same result; previous stays fetchable."""
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.bootstrap(0)
    rng = random.Random(1)
    for it in range(1, 4):
        c.manifest(it)
        pk = c.packets(it, 0, elems=50)
        rng.shuffle(pk)
        c.send(0, pk)
        assert c.wait_latest(it)
    c.check(3)
    prev = c.clients[0].fetch(2)
    params, opt = run.state(2)
    assert prev.iteration == 2
    for pid, t in prev.tensors.items():
        assert torch.equal(t, params[pid])
    with pytest.raises(Exception, match="not in memory"):
        c.clients[0].fetch(1)


@pytest.mark.timeout(60)
def test_pipelined_iterations_arrive_before_previous_applied(reference_run, cluster):
    """Iterations i+1 and i+2 arrive (interleaved with i) before i's manifest: ring buffers hold them."""
    run = reference_run(False)
    c = cluster(run, shards=2)
    c.bootstrap(0)
    for s in range(2):
        pk = c.packets(1, s) + c.packets(2, s) + c.packets(3, s)
        random.Random(s).shuffle(pk)
        c.send(s, pk)
    for s in range(2):  # all three buffered, none applied: pending and lag say so
        assert c.nodes[s].wait_for(lambda n: n.status().pending == 3 and
                                   all(x.complete for x in n._reasm.slots.values()), 20)
        st = c.clients[s].status()
        assert (st.latest_iteration, st.lag, st.bytes_received) == (0, 3, 3 * sum(
            run.params[p].numel * 4 for p in c.owned(s)))
    for it in (1, 2, 3):
        c.manifest(it)
    assert c.wait_latest(3)
    c.check(3)
    assert c.clients[0].status().pending == 0 and c.clients[0].status().lag == 0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("order", ["big", "little"])
def test_mixed_dtypes_and_payload_order(tmp_path, order, bits):
    """bf16 and fp16 params next to fp32 ones, gradients in either byte order: still bitwise."""

    torch.manual_seed(3)
    ps = [torch.nn.Parameter(torch.randn(40, 9).to(dt)) for dt in (torch.float32, torch.bfloat16, torch.float16)]
    init = {i: p.detach().clone() for i, p in enumerate(ps)}
    opt = torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, foreach=False)
    specs = [ParamSpec(i, f"p{i}", p.shape, str(p.dtype).split(".")[1]) for i, p in enumerate(ps)]
    node = ShadowNode(ShadowConfig(4, 0, ("127.0.0.1", 0), ("127.0.0.1", 0), tmp_path, payload_order=order)).start()
    cl = ShadowClient(*node.mgmt_address, timeout=10)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        cl.bootstrap(Bootstrap(4, 0, 0, specs, ShardMap(4, 1, {0: 0, 1: 0, 2: 0}), OptimizerSpec.from_optimizer(opt), init, {}))
        for it in (1, 2, 3):
            grads = {i: torch.randn(p.shape).to(p.dtype) for i, p in enumerate(ps)}
            for p, g in zip(ps, grads.values()):
                p.grad = g.clone()
            opt.step()
            for pk in gradient_packets(4, it, grads, order=order, elems=50):
                s.sendto(pk, node.data_address)
            cl.manifest(Manifest(4, it, [1e-2], None, False))
            assert node.wait_for(lambda n: n.latest.iteration == it, 10)
            st = cl.fetch()
            for i, p in enumerate(ps):
                assert bits(st.tensors[i], p.detach()), (it, i)
                for k, v in opt.state[p].items():
                    assert bits(st.opt_state[i][k], v), (it, i, k)
    finally:
        s.close()
        cl.close()
        node.stop()
