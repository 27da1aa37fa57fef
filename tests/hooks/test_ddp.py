"""Three real trainer processes (gloo on 127.0.0.1) against stock DDP and real shadows.

See ``ddp_worker.py`` for what each rank trains.  The shadows are engineer D's
``shadow.node.ShadowNode`` running in this test process.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import shadowkit
import torch


pytestmark = pytest.mark.timeout(300)
WORLD = 3
WORKER = Path(__file__).with_name("ddp_worker.py")


def run_ranks(tmp_path: Path, shadows: str, timeout: float = 90.0) -> list[dict]:
    port = shadowkit.free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    procs = []
    logs = []
    try:
        for r in range(WORLD):
            log = open(tmp_path / f"rank{r}.log", "w")
            logs.append(log)
            procs.append(subprocess.Popen(
                [sys.executable, str(WORKER), "--rank", str(r), "--world-size", str(WORLD), "--port", str(port),
                 "--shadows", shadows, "--out", str(tmp_path)], stdout=log, stderr=subprocess.STDOUT, env=env))
        for p in procs:
            p.wait(timeout=timeout)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)
        for log in logs:
            log.close()
    for r, p in enumerate(procs):
        if p.returncode != 0:
            pytest.fail(f"rank {r} exited {p.returncode}:\n" + (tmp_path / f"rank{r}.log").read_text()[-4000:])
    return [torch.load(tmp_path / f"rank{r}.pt", weights_only=False) for r in range(WORLD)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ddp")
    nodes = [shadowkit.start_node(tmp, 11, k, loss_timeout=10.0) for k in range(2)]
    try:
        spec = shadowkit.cli_spec(nodes)
        res = run_ranks(tmp, spec)
        yield res, [n.status() for n in nodes]
    finally:
        for n in nodes:
            n.stop()


def flat_opt(opt_state: dict) -> list[torch.Tensor]:
    return [v for k in sorted(opt_state) for _, v in sorted(opt_state[k].items())]


@pytest.mark.parametrize("kind", ["host", "lossy"])
def test_ranks_bit_identical(results, kind):
    res, _ = results
    for r in range(1, WORLD):
        for a, b in zip(res[0][kind]["params"], res[r][kind]["params"]):
            assert torch.equal(a, b), f"{kind}: rank {r} differs from rank 0"
        for a, b in zip(flat_opt(res[0][kind]["opt"]), flat_opt(res[r][kind]["opt"])):
            assert torch.equal(a, b)


def test_hook_matches_stock_ddp(results):
    res, _ = results
    for r in range(WORLD):
        stock, hook = res[r]["stock"]["params"], res[r]["host"]["params"]
        assert any(not torch.equal(a, b) for a, b in zip(stock, build_initial())), "training changed nothing"
        for a, b in zip(stock, hook):
            torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
        for a, b in zip(flat_opt(res[r]["stock"]["opt"]), flat_opt(res[r]["host"]["opt"])):
            torch.testing.assert_close(b, a, rtol=1e-3, atol=1e-6)


def build_initial():
    sys.path.insert(0, str(WORKER.parent))
    try:
        import ddp_worker
    finally:
        sys.path.pop(0)
    return [p.detach() for p in ddp_worker.build(42)[0].parameters()]


def test_injected_loss_recovered_without_changing_results(results):
    res, _ = results
    stats = [res[r]["lossy"]["stats"]["transport"] for r in range(WORLD)]
    assert sum(s["dropped_injected"] for s in stats) > 0
    assert sum(s["retransmits"] for s in stats) > 0
    # the ring's arithmetic does not depend on timing: lossy == lossless, bit for bit
    for a, b in zip(res[0]["host"]["params"], res[0]["lossy"]["params"]):
        assert torch.equal(a, b)


def test_host_mode_shadows_bit_identical(results):
    res, statuses = results
    r0 = res[0]
    shadows = r0["host"]["shadow_states"]
    assert all(s["iteration"] == 8 for s in shadows)
    params = r0["host"]["params"]
    opt = r0["host"]["opt"]
    seen = set()
    for s in shadows:
        for pid, t in s["tensors"].items():
            assert torch.equal(t, params[pid]), f"shadow param {pid} differs from the trainer's"
            for k, v in s["opt_state"][pid].items():
                assert torch.equal(v, opt[pid][k]), f"shadow {k} of param {pid} differs"
            seen.add(pid)
    assert seen == set(range(len(params)))
    assert r0["host"]["link"]["resyncs"] == 0 and r0["host"]["link"]["errors"] == 0
    assert r0["host"]["stats"]["skipped"] == 2
    layouts = r0["host"]["stats"]["bucket_layouts"]  # DDP's rebuild after step 0 regrouped params
    assert len(layouts) > 1 and len({pid for lay in layouts for pid in lay}) < sum(map(len, layouts))
    assert all(st.losses == 0 and not st.needs_resync for st in statuses)
