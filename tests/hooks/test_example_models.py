"""``examples/ddp_train.py --model cnn|gpt`` without a network namespace: 2 ranks in host mode feeding 2
real shadows, every rank SIGKILLed mid-run, ``--resume`` from the shadows, and the final state of each
rank bit-identical -- BatchNorm buffers included -- to a real uninterrupted run of the same processes
(``--mode switch`` without shadows: the same ring arithmetic, nothing checkpointed).  The testbed
version with the switch is tests/testbed/test_e2e_models.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import shadowkit
import torch

from topologies.verify import compare_files

_spec = importlib.util.spec_from_file_location("checkmate_test_example_resume",
                                               Path(__file__).with_name("test_example_resume.py"))
er = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(er)

pytestmark = pytest.mark.timeout(300)
FLAGS = {"cnn": ["--model", "cnn", "--hidden", "8", "--batch", "16"],
         "gpt": ["--model", "gpt", "--hidden", "32", "--layers", "2", "--context", "32", "--batch", "4"]}
ITERS = 14


@pytest.mark.parametrize("model", ["cnn", "gpt"])
def test_killed_mid_run_resumes_bit_identically(tmp_path, monkeypatch, model):
    monkeypatch.setattr(er, "WORLD", 2)
    monkeypatch.setattr(er, "MODEL_FLAGS", FLAGS[model] + ["--bucket-cap-mb", "0.01"])
    nodes = [shadowkit.start_node(tmp_path, 23, k, loss_timeout=10.0) for k in range(2)]
    try:
        shadows = shadowkit.cli_spec(nodes)
        common = ["--job-id", "23", "--clip", "0.5"]
        procs = er.launch(tmp_path, "a", [*common, "--mode", "host", "--shadows", shadows, "--iters", "100000",
                                          "--metrics", str(tmp_path / "a.jsonl")])
        try:
            deadline = er.time.monotonic() + 90
            while er.last_iteration(tmp_path / "a.jsonl") < 5:
                assert er.time.monotonic() < deadline and all(p.poll() is None for p in procs), "run 1 stalled"
                er.time.sleep(0.05)
        finally:
            for p in procs:
                p.kill()  # SIGKILL: no clean-up, no last manifest
                p.wait(5)
        procs = er.launch(tmp_path, "b", [*common, "--mode", "host", "--shadows", shadows, "--iters", str(ITERS),
                                          "--resume", "--save-final", str(tmp_path / "b{rank}.pt")])
        er.finish(procs, tmp_path, "b", timeout=120)
        resumed = int((tmp_path / "b0.log").read_text().split("resumed at iteration ")[1].split()[0])
        assert resumed >= 1
    finally:
        for n in nodes:
            n.stop()
    procs = er.launch(tmp_path, "c", [*common, "--mode", "switch", "--iters", str(ITERS),
                                      "--save-final", str(tmp_path / "c{rank}.pt")])
    er.finish(procs, tmp_path, "c", timeout=120)
    for r in range(2):
        c = compare_files(tmp_path / f"c{r}.pt", tmp_path / f"b{r}.pt")
        assert c.identical, f"rank {r} (resumed at {resumed}): {c.mismatches[:6]}"
        cats = c.categories
        assert cats["params"]["compared"] and cats["optimizer"]["compared"] and cats["counters"]["compared"]
        if model == "cnn":
            assert cats["buffers"]["compared"] == 18, cats
    final = torch.load(tmp_path / "b0.pt", weights_only=True)
    if model == "cnn":
        assert int(final["model"]["stem.1.num_batches_tracked"]) == ITERS
    else:
        assert torch.equal(final["model"]["head.weight"], final["model"]["tok.weight"])
