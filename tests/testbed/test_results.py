"""The verdict machinery and the report, without a network: the bitwise comparison of saved states
(the thing that decides PASS/FAIL) must catch a one-ulp difference, and the report must produce its
plots and summary from a metrics dictionary."""
import json
import math

import pytest
import torch

from topologies.report import plots, summary
from topologies.verify import compare, compare_files


def _state(seed=0):
    torch.manual_seed(seed)
    m = torch.nn.Linear(4, 3)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    m(torch.randn(2, 4)).sum().backward()
    opt.step()
    return {"iteration": 5, "model": m.state_dict(), "optimizer": opt.state_dict()}


def test_identical_states_compare_equal(tmp_path):
    a, b = _state(), _state()
    torch.save(a, tmp_path / "a.pt")
    torch.save(b, tmp_path / "b.pt")
    c = compare_files(tmp_path / "a.pt", tmp_path / "b.pt")
    assert c.identical and c.tensors == 2 + 2 * 3 and c.mismatches == []


def test_one_ulp_in_one_element_is_a_mismatch():
    a, b = _state(), _state()
    w = b["model"]["weight"]
    w[1, 2] = torch.nextafter(w[1, 2], torch.tensor(math.inf))
    c = compare(a, b)
    assert not c.identical
    assert len(c.mismatches) == 1 and "/model/weight" in c.mismatches[0] and "1 of 12" in c.mismatches[0]


def test_optimizer_state_dtype_shape_and_structure_differences_are_found():
    a, b = _state(), _state()
    b["optimizer"]["state"][0]["exp_avg_sq"] = b["optimizer"]["state"][0]["exp_avg_sq"].double()
    b["optimizer"]["param_groups"][0]["lr"] = 2e-3
    del b["optimizer"]["state"][1]
    b["iteration"] = 6
    c = compare(a, b)
    text = "\n".join(c.mismatches)
    assert "exp_avg_sq: torch.float32" in text and "/lr: 0.001 vs 0.002" in text
    assert "/optimizer/state/1: only in first" in text and "/iteration: 5 vs 6" in text


def test_nan_equals_its_bitwise_copy_and_empty_is_not_identical():
    t = torch.tensor([1.0, float("nan")])
    assert compare({"x": t}, {"x": t.clone()}).identical
    assert not compare({}, {}).identical  # nothing compared is no proof


def test_loading_refuses_arbitrary_pickles(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))
    torch.save({"x": Evil()}, tmp_path / "evil.pt")
    torch.save(_state(), tmp_path / "ok.pt")
    with pytest.raises(Exception):
        compare_files(tmp_path / "evil.pt", tmp_path / "ok.pt")


def test_report_plots_and_summary(tmp_path):
    topo = {"kind": "star", "hosts": {"h1": {"role": "trainer"}, "h2": {"role": "trainer"},
                                      "sh1": {"role": "shadow"}},
            "switches": {"s1": {}}, "links": [["h1", "s1-p1"], ["h2", "s1-p2"], ["sh1", "s1-p3", {"lossless": True}]]}
    its = []
    for ph, rng, t0 in (("reference", range(1, 7), 1), ("failure", range(1, 4), 10), ("resume", range(4, 7), 20)):
        its += [{"phase": ph, "rank": 0, "t": t0 + i * 0.1, "iteration": i, "loss": 2.0 - 0.1 * i,
                 "iter_time": 0.03} for i in rng]
    res = {"run": "x", "verdict": "PASS", "config": {"mtu": 1500, "iters": 6, "mode": "switch", "topo": "star"},
           "switch": "embedded", "topology": topo, "iterations": its,
           "phases": {"reference": {"t_start": 0, "t_end": 5, "first_iteration": 1, "last_iteration": {"0": 6}},
                      "failure": {"t_start": 9, "t_end": 12, "killed_rank": 1, "killed_after_iteration": 3,
                                  "exit_detect_s": 0.1, "watchdog": "controller_watchdog:job_stalled",
                                  "watchdog_detect_s": 3.0, "consistent_checkpoint": 3},
                      "resume": {"t_start": 19, "t_end": 22, "first_iteration": 4, "last_iteration": {"0": 6}}},
           "events": [{"t": 10.35, "event": "trainer_killed"}, {"t": 13.3, "event": "failure_detected"}],
           "shadow_status": [{"t": 10 + 0.1 * i, "phase": "failure", "shard": 0, "latest_iteration": i} for i in range(4)],
           "ports": [{"seq": k, "t": k, "switch": "s1", "port": p, "role": r, "tx_bytes": 1000 * k}
                     for k in range(1, 5) for p, r in ((1, "trainer"), (3, "shadow"))],
           "heartbeats": [{"t": 10 + 0.1 * i, "rank": 0, "iteration": i} for i in range(1, 4)],
           "tm_stats": {"s1": {"3": {"sent": 7, "pauses": 2, "tail_drops": 0, "fault_drops": 1, "pause_drops": 0}}},
           "verification": {"identical": True, "ranks": {"0": {"tensors": 4, "elements": 10, "n_mismatches": 0,
                                                                "mismatches": []}},
                            "trajectory": {"resume": {"iterations": 3, "first_difference": None}}}}
    files = plots(json.loads(json.dumps(res)), tmp_path)
    assert len(files) == 4 and all((tmp_path / f).stat().st_size > 5000 for f in files)
    text = summary(res)
    assert "killed rank 1 after iteration 3" in text and "resumed at iteration 4: 0 iteration(s) recomputed" in text
    # the kill landed one iteration after the victim's logged one (rank 0 logged iteration 4, the shadows
    # have it): nothing is recomputed, not "-1"
    late = json.loads(json.dumps(res))
    late["phases"]["failure"].update(last_iteration={"0": 4, "1": 3}, consistent_checkpoint=4)
    late["phases"]["resume"]["first_iteration"] = 5
    assert "resumed at iteration 5: 0 iteration(s) recomputed" in summary(late)
    # the shadows completed iteration 4 and no rank logged it (the survivor waits on the dead peer's ack)
    late["phases"]["failure"]["last_iteration"] = {"0": 3, "1": 3}
    assert "resumed at iteration 5: 0 iteration(s) recomputed" in summary(late)
    assert "shadow ports sent 7 pkts, drops 1" in text and "pauses 2" in text
    assert "resume losses vs reference: bit-identical over 3 iterations" in text
    assert text.strip().endswith("bit-identical to the failure-free reference")


def test_verdict_reports_each_part_of_the_training_state():
    """params / buffers / optimizer state / step counters are counted separately, and a difference
    in the buffers alone is a mismatch in the 'buffers' category."""
    def state(rm):
        return {"iteration": 5, "model": {"bn.weight": torch.ones(3), "bn.running_mean": rm,
                                          "bn.num_batches_tracked": torch.tensor(5)},
                "optimizer": {"state": {0: {"step": torch.tensor(5.0), "exp_avg": torch.zeros(3)}},
                              "param_groups": [{"lr": 0.1, "params": [0]}]},
                "scheduler": {"last_epoch": 5}, "buffer_names": ["bn.running_mean", "bn.num_batches_tracked"]}
    from topologies.verify import compare_states
    c = compare_states(state(torch.zeros(3)), state(torch.zeros(3)))
    cats = c.as_dict()["categories"]
    assert c.identical
    assert cats["params"]["compared"] == 1 and cats["buffers"]["compared"] == 2
    assert cats["optimizer"]["compared"] >= 2 and cats["counters"]["compared"] == 3  # step, last_epoch, iteration
    bad = compare_states(state(torch.zeros(3)), state(torch.full((3,), 0.5)))
    assert not bad.identical and bad.categories["buffers"]["mismatches"] == 1
    assert bad.categories["params"]["mismatches"] == 0
