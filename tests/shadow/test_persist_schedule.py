"""Issue #19, case 4: no copy lost on loopback in host mode, a persist schedule that holds across resyncs.

* Unit: a *complete* head iteration that only waits for its manifest (or the optimizer) is not
  dropped when the window fills -- the buffers grow; an incomplete one still is a loss.
  This was the cause of the "losses" on loopback: one fast host-mode rank ran 4 iterations ahead
  of a shadow busy with its first AdamW steps, and the shadow evicted complete iterations
  (no datagram was dropped: UDP RcvbufErrors/SndbufErrors stayed 0).
* Node: ``persist_every`` K persists a published state whenever its iteration crosses a multiple
  of K -- replayed or restored by a resync.
* End to end: ``checkmate-shadow --persist-every 5`` x 2 and ``examples/ddp_train.py`` (one rank,
  host mode, 12 iterations, loopback): no loss, files for 5 and 10 before any SIGTERM.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from shadow.client import ShadowClient
from shadow.ingest import Counters, Reassembler
from shadow.layout import ShardLayout
from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from shadow.protocol import Bootstrap, OptimizerSpec, ParamSpec, ShardMap
from shadow.store import FileBackend, ShardStore

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]
PARAMS = [ParamSpec(0, "a", (10, 10), "float32"), ParamSpec(1, "b", (7,), "float32")]
OWNER = {0: 0, 1: 1}


def _feed(r, pkts):
    buf = bytearray(65536)
    mv = memoryview(buf)
    for p in pkts:
        buf[:len(p)] = p
        r.ingest(buf, mv, len(p))


def _grad(seed):
    return {0: torch.randn(10, 10, generator=torch.Generator().manual_seed(seed))}


def test_complete_head_waiting_to_be_applied_grows_the_window_instead_of_being_lost():
    r = Reassembler(ShardLayout.build(PARAMS, OWNER, 0), 5, 1, 3, Counters(), max_ring=5)
    for it in range(1, 6):  # 5 complete iterations, none applied yet (a slow shadow)
        _feed(r, gradient_packets(5, it, _grad(it)))
    assert not r.needs_resync and r.c.losses == 0
    assert sorted(r.slots) == [1, 2, 3, 4, 5] and r.grown == 2 and all(s.complete for s in r.slots.values())
    _feed(r, gradient_packets(5, 6, _grad(6)))  # beyond max_ring: now the shadow is too far behind
    assert r.needs_resync and r.c.losses == 1
    assert "complete but not applied yet: the shadow fell 5 iterations behind" in r.c.last_error


def test_incomplete_head_with_a_full_window_is_still_a_loss():
    r = Reassembler(ShardLayout.build(PARAMS, OWNER, 0), 5, 1, 3, Counters())
    _feed(r, gradient_packets(5, 1, _grad(1), elems=30)[:-1])
    for it in (2, 3, 4):
        _feed(r, gradient_packets(5, it, _grad(it)))
    assert r.needs_resync and r.c.losses == 1 and r.grown == 0
    assert "iteration 1 incomplete (" in r.c.last_error


def test_copies_of_params_owned_by_another_shard_are_counted_as_misrouted():
    r = Reassembler(ShardLayout.build(PARAMS, OWNER, 0), 5, 1, 3, Counters())
    _feed(r, gradient_packets(5, 1, {1: torch.ones(7)}))
    assert r.c.misrouted == 1 and r.c.misrouted_ids == {1} and r.c.rejected == 1


# -- the node's persist schedule ------------------------------------------------------------------
def _boot(it, resync, value=0.0):
    t = torch.full((10, 10), value)
    opt = torch.optim.AdamW([torch.nn.Parameter(t.clone())], lr=1e-3)
    return Bootstrap(7, 0, it, PARAMS, ShardMap(7, 2, OWNER), OptimizerSpec.from_optimizer(opt), {0: t},
                     resync=resync)


def _node(tmp_path):
    return ShadowNode(ShadowConfig(job_id=7, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                   ckpt_dir=tmp_path, persist_every=5)).start()


def test_a_state_restored_by_a_resync_is_persisted_when_it_crosses_a_multiple(tmp_path):
    node = _node(tmp_path)
    try:
        node.bootstrap(_boot(0, False))  # the first bootstrap: nothing to persist
        node.bootstrap(_boot(3, True))  # 0 -> 3: no multiple of 5 crossed
        time.sleep(0.3)
        assert node.store.iterations() == []
        node.bootstrap(_boot(8, True))  # 3 -> 8 crosses 5: persist 8
        assert node.wait_for(lambda n: n.store.iterations() == [8], 10), node.store.iterations()
        node.bootstrap(_boot(9, True))  # 8 -> 9: no
        node.bootstrap(_boot(12, True))  # 9 -> 12 crosses 10
        assert node.wait_for(lambda n: n.store.iterations() == [8, 12], 10), node.store.iterations()
        node.bootstrap(_boot(4, False))  # a restarted job going back: nothing
        time.sleep(0.3)
        assert node.store.iterations() == [8, 12] and node.status().persisted_iteration == 12
    finally:
        node.stop()
    node = _node(tmp_path)  # restarted empty (files on disk up to 12): resynced at 13, then 16
    try:
        node.bootstrap(_boot(13, True))
        node.bootstrap(_boot(16, True))
        assert node.wait_for(lambda n: 16 in n.store.iterations(), 10), node.store.iterations()
    finally:
        node.stop()
    node = ShadowNode(ShadowConfig(job_id=7, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                   ckpt_dir=tmp_path / "empty", persist_every=5)).start()
    try:  # restarted with nothing at all, resynced mid-run at 7: the schedule owes a file
        node.bootstrap(_boot(7, True))
        assert node.wait_for(lambda n: n.store.iterations() == [7], 10), node.store.iterations()
    finally:
        node.stop()


# -- end to end: the command lines on loopback ----------------------------------------------
def _shadow(tmp_path, shard):
    log = tmp_path / f"shadow{shard}.log"
    with open(log, "w") as f:
        p = subprocess.Popen([sys.executable, "-m", "shadow.cli", "--job-id", "1", "--shard", str(shard), "--data",
                              "127.0.0.1:0", "--mgmt", "127.0.0.1:0", "--ckpt-dir", str(tmp_path / "ckpt"),
                              "--persist-every", "5"], stdout=f, stderr=subprocess.STDOUT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (m := re.search(r"data=127\.0\.0\.1:(\d+) mgmt=127\.0\.0\.1:(\d+)", log.read_text())):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            pytest.fail(f"checkmate-shadow did not start: {log.read_text()}")
        time.sleep(0.05)
    return p, int(m.group(2)), int(m.group(1))


def test_host_mode_on_loopback_loses_no_copy_and_persists_on_schedule(tmp_path):
    shadows = [_shadow(tmp_path, k) for k in range(2)]
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        spec = ",".join(f"127.0.0.1:{m}:{d}" for _, m, d in shadows)
        metrics = tmp_path / "m.jsonl"
        p = subprocess.run([sys.executable, str(ROOT / "examples" / "ddp_train.py"), "--rank", "0", "--world-size",
                            "1", "--master", f"127.0.0.1:{port}", "--udp-port", "0", "--bind-ip", "127.0.0.1",
                            "--iters", "12", "--mode", "host", "--shadows", spec, "--metrics", str(metrics)],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT)))
        assert p.returncode == 0, p.stdout + p.stderr
        assert "lost" not in p.stderr and "resync" not in p.stderr, p.stderr  # the trainer would have said so
        for k, (_, mgmt, _) in enumerate(shadows):
            with ShadowClient("127.0.0.1", mgmt, timeout=10) as c:
                st = c.status()
            assert st.losses == 0 and not st.needs_resync, (k, st)
            assert 12 in st.held_iterations, (k, st.held_iterations)
            assert st.persisted_iterations == [5, 10], (k, st.persisted_iterations)  # before any SIGTERM
        last = metrics.read_text().splitlines()[-1]
        assert '"shadow_losses": 0' in last and '"shadow_resyncs": 0' in last, last
    finally:
        for proc, _, _ in shadows:
            proc.send_signal(signal.SIGTERM)
        for proc, _, _ in shadows:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


class _HeldBackend(FileBackend):
    """A disk that holds the first save until released (fault injection: a slow first write)."""

    def __init__(self):
        self.release = threading.Event()
        self.first = True

    def write_atomic(self, path, parts, reuse=None):
        if self.first:
            self.first = False
            assert self.release.wait(10)
        super().write_atomic(path, parts, reuse)


def test_a_crossing_published_while_the_previous_save_runs_is_still_written(tmp_path):
    """Crossings 5, 10 and 15 published while the save of 5 is held: 10 and 15 wait their turn (two
    requests deep) and all three are written.  Three more crossings published before the persist
    thread takes any: the oldest of them is dropped, the newest two are written."""
    backend = _HeldBackend()
    cfg = ShadowConfig(job_id=7, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0), ckpt_dir=tmp_path,
                       persist_every=5, keep=8)
    node = ShadowNode(cfg, store=ShardStore(tmp_path, 7, 0, keep=8, backend=backend)).start()
    try:
        node.bootstrap(_boot(0, False))
        node.bootstrap(_boot(5, True))  # crosses 5 (a resync publishes like a replayed step)
        assert node.wait_for(lambda n: not backend.first, 10)  # the save of 5 runs, held
        for it in (10, 15):
            node.bootstrap(_boot(it, True))
        backend.release.set()
        assert node.wait_for(lambda n: n.store.iterations() == [5, 10, 15], 10), node.store.iterations()
        with node._lock:  # the persist thread cannot take a request while the node's lock is held
            for it in (20, 25, 30):
                node.bootstrap(_boot(it, True))
        assert node.wait_for(lambda n: 30 in n.store.iterations(), 10), node.store.iterations()
        time.sleep(0.2)
        assert node.store.iterations() == [5, 10, 15, 25, 30]
    finally:
        node.stop()
