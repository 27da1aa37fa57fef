"""One shard map for switch and trainers (issue #19, case 3).

* A switch programmed with another map than the trainers' plan sends shadows copies of
  parameters they do not own.  Here the copies come from host mode, re-pointed by the map a switch
  would have been programmed with (``topologies/star.json``'s ``shard_map``); the real shadows
  count them and rank 0 raises :class:`ShardMapMismatch` naming shard and parameters -- before,
  the shadows just lost every iteration and were resynced forever, with nothing said.
* The map the switch has can be given to the trainers (``attach(shard_map=...)``): then it works,
  bit for bit.
* The testbed uses a topology file's ``shard_map`` for switch *and* trainers, or refuses it.
* (Case 4) a shadow's loss and the resync it costs reach the trainer's log and ``LinkStats``.
"""
from __future__ import annotations

import json
import re
import socket
import types
from pathlib import Path

import pytest
import shadowkit
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

import trainer_hooks
from trainer_hooks.shard_map import ShardMapMismatch, resolve_shard_map

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("gloo_group")]
ROOT = Path(__file__).resolve().parents[2]
STAR_MAP = json.loads((ROOT / "topologies" / "star.json").read_text())["shard_map"]
JOB = 35


@pytest.fixture
def nodes(tmp_path):
    with shadowkit.running_nodes(tmp_path, JOB) as ns:
        yield ns


def build():
    torch.manual_seed(0)  # the example's layout: 3 Linear layers, 6 parameters
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 16), torch.nn.GELU(),
                                torch.nn.Linear(16, 4))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


def attach(nodes, **kw):
    model, opt = build()
    ddp = DDP(model)
    ckpt = shadowkit.attach_host(ddp, opt, JOB, nodes, **kw)
    return model, opt, ddp, ckpt


def step(ddp, opt, it):
    g = torch.Generator().manual_seed(it)
    torch.nn.functional.cross_entropy(ddp(torch.randn(8, 8, generator=g)), torch.randint(0, 4, (8,), generator=g)).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def test_plan_and_star_json_map_differ():
    plan = trainer_hooks.shard_plan(build()[0], 2)
    assert plan != resolve_shard_map(STAR_MAP, 6, 2)  # what made the mismatch easy to hit


def test_switch_map_differing_from_the_plan_is_a_loud_error(nodes):
    model, opt, ddp, ckpt = attach(nodes)
    switch = resolve_shard_map(STAR_MAP, 6, 2)  # the "switch" copies by the file's map, not the plan
    ckpt.ring.final_copies = {pid: nodes[s].data_address for pid, s in switch.items()}
    try:
        with pytest.raises(ShardMapMismatch, match=r"shard map mismatch: shadow 127\.0\.0\.1:\d+ \(shard \d\) "
                                                    r"received \d+ cop\(ies\) of parameters it does not own: param \d"):
            for it in range(1, 6):
                step(ddp, opt, it)
                ckpt.flush(10)
        assert sum(n.status().misrouted for n in nodes) > 0
        with pytest.raises(ShardMapMismatch):
            ckpt.wait_for_shadows(timeout=5)
    finally:
        ckpt.close()


def test_the_switch_map_given_to_the_trainers_works_bit_for_bit(nodes):
    model, opt, ddp, ckpt = attach(nodes, shard_map=STAR_MAP)
    try:
        assert ckpt.shard_map == resolve_shard_map(STAR_MAP, 6, 2)
        for it in range(1, 4):
            step(ddp, opt, it)
        assert ckpt.wait_for_shadows(3, timeout=20), ckpt.stats
    finally:
        ckpt.close()
    params = list(model.parameters())
    for n in nodes:
        st = n.fetch(None)
        assert st.iteration == 3 and sorted(st.tensors) == sorted(p for p, s in ckpt.shard_map.items() if s == n.cfg.shard)
        assert all(torch.equal(t, params[pid]) for pid, t in st.tensors.items())
        assert n.status().misrouted == 0


def test_resolve_shard_map_refuses_incomplete_or_wrong_maps():
    assert resolve_shard_map({"0": 1, "1": 0}, 2, 2) == {0: 1, 1: 0}
    with pytest.raises(ValueError, match=r"param_ids \[2\] of the model \(3 parameters\) have no shard"):
        resolve_shard_map({"0": [[0, 1]]}, 3, 2)
    with pytest.raises(ValueError, match=r"shard\(s\) \[2\] do not exist"):
        resolve_shard_map({"2": [[0, 9]]}, 3, 2)
    with pytest.raises(ValueError, match="param_id 1 is in the ranges of shard 0 and shard 1"):
        resolve_shard_map({"0": [[0, 1]], "1": [[1, 2]]}, 3, 2)


def _testbed(topo_extra, shadows=2):
    from topologies import generate
    from topologies.runner import Testbed
    topo = generate.generate("star", 3, shadows)
    topo.update(topo_extra)
    return types.SimpleNamespace(topo=topo, args=types.SimpleNamespace(iters=10, train_arg=[], topo="my.json")), Testbed


def test_testbed_uses_a_topology_files_map_for_switch_and_trainers_or_refuses_it():
    from topologies.monitor import TestbedError
    tb, Testbed = _testbed({"shard_map": STAR_MAP})
    owner = Testbed.shard_owner(tb)
    assert owner == resolve_shard_map(STAR_MAP, 6, 2) and tb.trainer_shard_map == owner  # not overwritten
    tb, _ = _testbed({})
    import importlib.util
    spec = importlib.util.spec_from_file_location("ddp_train_example", ROOT / "examples" / "ddp_train.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    example_model = ex.build(ex.parse_args(["--iters", "10"]))[0]
    assert Testbed.shard_owner(tb) == trainer_hooks.shard_plan(example_model, 2)
    assert getattr(tb, "trainer_shard_map", None) is None
    tb, _ = _testbed({"shard_map": {"0": [[0, 2]]}})
    with pytest.raises(TestbedError, match=r"my\.json: shard_map: param_ids \[3, 4, 5\] .* have no shard.*"
                                           r"--print-shard-plan 2"):
        Testbed.shard_owner(tb)


def test_a_shadow_loss_and_its_resync_reach_the_trainers_log_and_stats(nodes, caplog):
    """Issue #19, case 4: a loss used to be visible only in the shadow's status."""
    import logging
    import time
    from checkmate import wire
    model, opt, ddp, ckpt = attach(nodes)
    try:
        step(ddp, opt, 1)
        assert ckpt.wait_for_shadows(1, timeout=20)
        pid = min(p for p, s in ckpt.shard_map.items() if s == 0)
        h = wire.ChunkHeader(job_id=JOB, iteration=1000, param_id=pid, offset=0, count=1, flags=wire.FLAG_FINAL)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # far ahead: shard 0 declares a loss
            s.sendto(wire.encode(h, b"\0\0\0\0"), nodes[0].data_address)
        deadline = time.monotonic() + 15
        while not nodes[0].status().needs_resync:
            assert time.monotonic() < deadline, "the shadow did not declare the loss"
            time.sleep(0.05)
        with caplog.at_level(logging.WARNING, logger="trainer_hooks.shadow_link"):
            for it in range(2, 5):
                step(ddp, opt, it)
            assert ckpt.wait_for_shadows(4, timeout=20), ckpt.stats
    finally:
        ckpt.close()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert re.search(r"shadow .* \(shard 0\) lost 1 iteration\(s\) \(1 in all\): loss: ", text), text
    assert re.search(r"\(shard 0\) resynced at iteration \d", text), text
    assert ckpt.link.stats.shadow_losses == [1, 0] and ckpt.link.stats.resyncs >= 1
