"""BatchNorm buffers through a shadow restart: one real rank (gloo, world size 1) in host mode against
two real shadows.  Shard 0 -- the buffer shard -- crashes and comes back empty; the resync bootstrap
must carry the current buffers, later manifests keep them current, and ``restore`` into a fresh model
brings back parameters, optimizer state *and* running statistics bit for bit."""
from __future__ import annotations

import pytest
import shadowkit
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("gloo_group")]
JOB = 33


def build(seed):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


def step(ddp, opt, it):
    g = torch.Generator().manual_seed(it)
    x, y = torch.randn(16, 6, generator=g) * (1 + it), torch.randint(0, 3, (16,), generator=g)
    torch.nn.functional.cross_entropy(ddp(x), y).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def test_buffer_shard_restart_resyncs_buffers_and_restore_brings_them_back(tmp_path):
    with shadowkit.running_nodes(tmp_path, JOB) as nodes:
        model, opt = build(0)
        ddp = DDP(model)
        ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes, shadow_timeout=5.0)
        try:
            for it in range(1, 4):
                step(ddp, opt, it)
            assert ckpt.wait_for_shadows(3, timeout=20)
            st = nodes[0].fetch(None)
            assert torch.equal(st.buffers["1.running_mean"], model[1].running_mean)
            assert int(st.buffers["1.num_batches_tracked"]) == 3 and nodes[1].fetch(None).buffers == {}
            data, mgmt = nodes[0].data_address[1], nodes[0].mgmt_address[1]
            nodes[0].stop()
            nodes[0] = shadowkit.start_node(tmp_path, JOB, 0, data, mgmt)  # the buffer shard comes back empty
            for it in range(4, 9):
                step(ddp, opt, it)
            assert ckpt.wait_for_shadows(8, timeout=20), ckpt.stats
            assert ckpt.link.stats.resyncs >= 1, ckpt.link.stats
            want = {k: v.clone() for k, v in model.state_dict().items()}
            want_opt = {i: {k: v.clone() for k, v in opt.state[p].items()} for i, p in enumerate(model.parameters())}
        finally:
            ckpt.close()
        model2, opt2 = build(1)
        assert trainer_hooks.restore(model2, opt2, shadows=shadowkit.spec(nodes), job_id=JOB) == 8
    got = model2.state_dict()
    for k, v in want.items():
        assert torch.equal(got[k], v), k
    assert int(got["1.num_batches_tracked"]) == 8
    for i, p in enumerate(model2.parameters()):
        for k, v in want_opt[i].items():
            assert torch.equal(opt2.state[p][k], v), (i, k)
