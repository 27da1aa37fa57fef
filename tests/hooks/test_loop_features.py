"""Training-loop features resumed bit-identically (2 real ranks, gloo, real shadows in this process).

For every feature of ``features_worker.FEATURES`` -- BatchNorm buffers, tied parameters (a GPT),
frozen parameters, parameters unused in some iterations (``find_unused_parameters``), ``no_sync()``
accumulation, bf16 autocast, steps skipped on non-finite gradients, clipping with three param
groups and a chained LR scheduler, AdamW/Adam foreach and for-loop, SGD with momentum and Nesterov --
a job is interrupted after ``STOP`` iterations, a fresh model from another seed is restored from the
shadows, and its final state must equal the uninterrupted run's bit for bit: parameters, buffers,
optimizer state with its step counters, scheduler counters.  ``bn_buffers_dropped`` shows the
comparison catches a checkpoint without buffers.  One process start per rank for all features.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import shadowkit


WORKER = Path(__file__).with_name("features_worker.py")
_spec = importlib.util.spec_from_file_location("checkmate_features_worker", WORKER)
_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_worker)
FEATURES, STOP = _worker.FEATURES, _worker.STOP

pytestmark = pytest.mark.timeout(400)
WORLD = 2


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("features")
    nodes = [shadowkit.start_node(tmp, 41, k, loss_timeout=10.0) for k in range(2)]
    procs, logs = [], []
    try:
        spec = shadowkit.cli_spec(nodes)
        port = shadowkit.free_port()
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        for r in range(WORLD):
            logs.append(open(tmp / f"rank{r}.log", "w"))
            procs.append(subprocess.Popen(
                [sys.executable, str(WORKER), "--rank", str(r), "--world-size", str(WORLD), "--port", str(port),
                 "--shadows", spec, "--out", str(tmp)], stdout=logs[-1], stderr=subprocess.STDOUT, env=env))
        for p in procs:
            p.wait(timeout=360)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)
        for f in logs:
            f.close()
        for n in nodes:
            n.stop()
    for r, p in enumerate(procs):
        if p.returncode != 0:
            pytest.fail(f"rank {r} exited {p.returncode}:\n" + (tmp / f"rank{r}.log").read_text()[-4000:])
    out = {}
    for f in FEATURES:
        out[f] = []
        for r in range(WORLD):
            path = tmp / f"{f}.rank{r}.json"
            out[f].append(json.loads(path.read_text()) if path.exists() else {"error": f"no result {path.name}"})
    return out


@pytest.mark.parametrize("feature", [f for f in FEATURES if f != "bn_buffers_dropped"])
def test_feature_resumes_bit_identically(results, feature):
    for r, res in enumerate(results[feature]):
        assert "error" not in res, f"rank {r}: {res['error']}"
        assert res["resumed_at"] == STOP, res  # really restored from the shadows, not from scratch
        assert res["identical"], f"rank {r}: {res['n_mismatches']} mismatches: {res['mismatches'][:8]}"
        cats = res["categories"]  # the full state was compared, not just the parameters
        assert cats["params"]["compared"] > 0 and cats["optimizer"]["compared"] > 0, cats
        assert cats["counters"]["compared"] > 0, cats  # optimizer step counts, scheduler counters, iteration
    if feature == "bn":
        assert results[feature][0]["categories"]["buffers"]["compared"] == 18  # 6 BatchNorms x 3 buffers
    if feature == "nonfinite":
        assert results[feature][0]["skipped"] == 1  # iteration 6 skipped after the resume (3 before it)


def test_dropping_the_buffers_is_caught(results):
    """The control: restoring parameters and optimizer but not the BatchNorm buffers must fail."""
    for r, res in enumerate(results["bn_buffers_dropped"]):
        assert "error" not in res, f"rank {r}: {res['error']}"
        assert not res["identical"]
        assert res["categories"]["buffers"]["mismatches"] > 0, res["categories"]
