"""``checkmate bench``: the figures on synthetic inputs, the baselines, the micro-benchmark gathering,
and (root + Mininet) the quick run end to end, checking its JSON against its own raw times."""
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from benchmarks import baselines, interference, micro, report, suite
from benchmarks.train_bench import ALL_METHODS, schedule

ROOT = Path(__file__).resolve().parents[2]


# -- the 3.5 % budget ------------------------------------------------------------------------------

@pytest.mark.parametrize("stall,iter_s,budget,k", [
    (0.0, 0.1, 0.035, 1),          # no stall: every iteration
    (0.0035, 0.1, 0.035, 1),       # exactly on the budget at k=1
    (0.0036, 0.1, 0.035, 2),       # just over: every other iteration
    (0.01, 0.1, 0.035, 3),         # 0.01 / (0.1 k) <= 0.035  <=>  k >= 2.857
    (2.0, 0.5, 0.035, 115),        # 2 / (0.5 k) <= 0.035  <=>  k >= 114.29
    (0.007, 0.1, 0.035, 2),        # exactly 3.5 % at k=2 (float rounding must not push it to 3)
])
def test_sustainable_k(stall, iter_s, budget, k):
    assert suite.sustainable_k(stall, iter_s, budget) == k
    assert stall / (k * iter_s) <= budget + 1e-12
    if k > 1:
        assert stall / ((k - 1) * iter_s) > budget


def test_sustainable_k_rejects_nonsense():
    with pytest.raises(ValueError):
        suite.sustainable_k(1.0, 0.0)


def _seg(seq, rnd, method, every, iter_s, stall=0.0, ckpts=0, bytes_=None):
    return {"seq": seq, "round": rnd, "method": method, "every": every, "iter_s": iter_s,
            "stall_median_s": stall, "checkpoints": ckpts, "iters": 20, "warmup": 0,
            **({"bytes": bytes_} if bytes_ else {})}


def synthetic():
    T = 0.100
    b0 = {"trainer_tx": 1000.0, "trainer_rx": 1000.0, "shadow_rx": 0.0}
    segs = [
        _seg(0, 0, "none", 1, T, bytes_=b0),
        _seg(1, 0, "checkmate", 1, 0.102, bytes_={"trainer_tx": 1000.0, "trainer_rx": 1000.0, "shadow_rx": 340.0}),
        _seg(2, 0, "host", 1, 0.110, bytes_={"trainer_tx": 1340.0, "trainer_rx": 1000.0, "shadow_rx": 340.0}),
        _seg(3, 0, "none", 1, T, bytes_=b0),
        _seg(4, 0, "torch-save", 1, 0.110, stall=0.010, ckpts=20),
        _seg(5, 0, "torch-save", 10, 0.101, stall=0.010, ckpts=2),
        _seg(6, 0, "none", 1, T, bytes_=b0),
        _seg(7, 0, "checkfreq", 1, 0.104, stall=0.004, ckpts=20),
        _seg(8, 0, "none", 1, T, bytes_=b0),
    ]
    return segs


def test_analyze_synthetic():
    a = suite.analyze(synthetic(), 0.035)
    assert a["iter_none_s"] == pytest.approx(0.1)
    c = a["configs"]
    assert c["torch-save@k=1"]["overhead"] == pytest.approx(0.10)
    assert c["torch-save@k=10"]["overhead"] == pytest.approx(0.01)
    assert c["checkmate"]["overhead"] == pytest.approx(0.02)
    m = a["methods"]
    # torch.save: 10 ms per checkpoint at 100 ms per iteration -> k = 3 (3.33 % <= 3.5 %)
    assert m["torch-save"]["sustainable_k"] == 3
    assert m["torch-save"]["frequency"] == pytest.approx(1 / 3)
    assert m["torch-save"]["repeated_iters_per_failure"] == pytest.approx(1.5)
    # checkfreq: 4 ms -> 4/(100 k) <= 0.035 -> k = 2
    assert m["checkfreq"]["sustainable_k"] == 2
    # checkmate: 2 % measured, within budget: every iteration, half an iteration lost per failure
    assert m["checkmate"]["within_budget"] and m["checkmate"]["frequency"] == 1.0
    assert m["checkmate"]["repeated_iters_per_failure"] == 0.5
    # host: 10 % over budget: not sustainable every iteration
    assert not m["host"]["within_budget"] and m["host"]["frequency"] == 0.0
    assert m["host"]["sustainable_k"] is None and m["host"]["repeated_iters_per_failure"] == 0.5
    assert a["best_stall_method"] == "checkfreq" and a["stall_s"] == pytest.approx(0.004)
    b = suite.bytes_figures(c)
    assert b["host"]["trainer_tx_ratio"] == pytest.approx(1.34)
    assert b["checkmate"]["trainer_tx_ratio"] == pytest.approx(1.0)
    assert b["checkmate"]["shadow_vs_training"] == pytest.approx(0.34)


def test_trainer_cpu_is_the_first_figure():
    # trainer CPU (all ranks, timed iterations): checkmate equals none, host pays for its copies
    segs = synthetic()
    cpu = {"none": 0.30, "checkmate": 0.303, "host": 0.36}
    for s in segs:
        s["trainer_cpu_s"] = cpu.get(s["method"], 0.31) * s["iters"] * (1.1 if s["seq"] == 3 else 1.0)
        s["trainer_cpu_own_s"] = s["trainer_cpu_s"] / 3
    a = suite.analyze(segs)
    assert a["configs"]["host"]["trainer_cpu_rank0_s"] == pytest.approx(0.12)
    assert a["configs"]["host"]["trainer_cpu_others_s"] == pytest.approx(0.24)
    c = a["configs"]
    assert c["none"]["trainer_cpu_s"] == pytest.approx(0.30)
    assert c["checkmate"]["trainer_cpu_overhead"] == pytest.approx(0.303 / 0.315 - 1)  # nones at seq 0 and 3
    assert c["host"]["trainer_cpu_overhead"] == pytest.approx(0.36 / 0.315 - 1)  # nones at seq 0 and 3
    assert a["methods"]["checkmate"]["trainer_cpu_overhead"] == pytest.approx(c["checkmate"]["trainer_cpu_overhead"])
    assert a["trainer_cpu_noise"] == pytest.approx((0.33 / 0.30 - 1 + 1 - 0.30 / 0.315) / 2)  # median of 2
    res = {"run": "synthetic", "config": {"trainers": 3, "shadows": 2, "rounds": 1, "iters": 20},
           "analysis": a, "bytes": suite.bytes_figures(c),
           "placement": {"describe": "shared: 2 CPU(s) 0-1 shared by all processes"}}
    text = suite.fmt_table(res)
    first = text.split("the promise", 1)
    assert len(first) == 2 and "no checkpointing:" in first[1]  # the promise comes before the wall-time table
    promise = first[1].split("\n\n")[0]
    assert "checkmate" in promise and "-3.8%" in promise and "+14.3%" in promise and "placement: shared" in promise
    assert "host 120.00 / 240.00" in promise
    assert "promise.png" in suite.plots(res, Path(__import__("tempfile").mkdtemp()), suite.METHODS)


def test_analyze_uses_the_neighbouring_none_segments():
    # the machine slows down in the middle: the control is the none next to each segment
    segs = [_seg(0, 0, "none", 1, 0.1), _seg(1, 0, "torch-save", 1, 0.11, 0.01, 5),
            _seg(2, 0, "none", 1, 0.1), _seg(3, 0, "checkfreq", 1, 0.22, 0.01, 5), _seg(4, 0, "none", 1, 0.2)]
    a = suite.analyze(segs)
    assert a["configs"]["torch-save@k=1"]["ratio"] == pytest.approx(1.1)
    assert a["configs"]["checkfreq@k=1"]["ratio"] == pytest.approx(0.22 / 0.15)
    with pytest.raises(ValueError):
        suite.analyze([_seg(0, 0, "torch-save", 1, 0.1)])


def test_schedule_every_method_every_round_next_to_a_none():
    plan = schedule(list(ALL_METHODS), [1, 10], 3)
    for r in range(3):
        got = {(m, k) for rr, m, k in plan if rr == r}
        assert got == {("none", 1), ("checkmate", 1), ("host", 1)} | {(m, k) for m in baselines.PERIODIC for k in (1, 10)}
    for i, (_, m, _) in enumerate(plan):
        if m != "none":
            assert any(plan[j][1] == "none" for j in (i - 1, i + 1, i - 2, i + 2) if 0 <= j < len(plan))
    firsts = [next(m for rr, m, _ in plan if rr == r and m != "none") for r in range(3)]
    assert len(set(firsts)) > 1  # rotated


def test_promise_rounds_add_only_none_checkmate_and_host():
    """The promise's own rounds follow the full ones, numbered on, with checkmate and host between nones
    (each with a none next to it), alternating which goes first; no method without them gets any."""
    plan = schedule(list(ALL_METHODS), [1, 10], 2, promise_rounds=3)
    full = schedule(list(ALL_METHODS), [1, 10], 2)
    assert plan[:len(full)] == full
    extra = plan[len(full):]
    assert {r for r, _, _ in extra} == {2, 3, 4}
    for r in (2, 3, 4):
        assert sorted(m for rr, m, _ in extra if rr == r) == ["checkmate", "host", "none"]
    for i, (_, m, _) in enumerate(plan):
        if m != "none":
            assert any(plan[j][1] == "none" for j in (i - 1, i + 1, i - 2, i + 2) if 0 <= j < len(plan))
    assert [m for _, m, _ in extra][0::3] == ["checkmate", "host", "checkmate"]
    assert schedule(["none", "torch-save"], [1], 1, promise_rounds=4) == schedule(["none", "torch-save"], [1], 1)
    # only the methods asked for
    assert {m for _, m, _ in schedule(["none", "checkmate"], [1], 1, promise_rounds=2)} == {"none", "checkmate"}


@pytest.mark.parametrize("n,k", [(5, 1), (6, 1), (9, 2), (14, 4), (20, 6)])
def test_median_interval_is_the_order_statistics_interval(n, k):
    """x(k) .. x(n+1-k) with the largest k whose binomial coverage is still >= 90 %."""
    xs = [float(i) for i in range(n, 0, -1)]  # any order
    lo, hi, cover = suite.median_interval(xs, 0.9)
    assert (lo, hi) == (float(k), float(n + 1 - k))
    tail = lambda j: sum(math.comb(n, i) for i in range(j)) / 2 ** n  # noqa: E731 -- P(B <= j - 1)
    assert cover == pytest.approx(1 - 2 * tail(k)) and cover >= 0.9 and 1 - 2 * tail(k + 1) < 0.9
    assert suite.median_interval([1.0, 2.0, 3.0, 4.0], 0.9) is None  # no interval of 90 % from four
    assert suite.median_interval([None, 1.0, 2.0, 3.0, 4.0, 5.0], 0.9)[:2] == (1.0, 5.0)


def test_promise_block_prints_the_interval_of_its_medians():
    """Six rounds of one synthetic pattern: the promise block gives each median's order-statistics
    interval (trainer CPU and wall), and the header counts the promise rounds."""
    segs, seq = [], 0
    wobble = [0.0, 0.01, -0.01, 0.02, -0.02, 0.03]
    for r, w in enumerate(wobble):
        for m, it, cpu in (("none", 0.1, 0.3), ("checkmate", 0.12, 0.309 + 0.3 * w), ("host", 0.115, 0.33), ("none", 0.1, 0.3)):
            if m == "none" and r and segs[-1]["method"] == "none":
                continue
            s = _seg(seq, r, m, 1, it * (1 + w))
            s["trainer_cpu_s"] = cpu * s["iters"]
            segs.append(s)
            seq += 1
    a = suite.analyze(segs)
    ci = a["configs"]["checkmate"]["trainer_cpu_overhead_ci"]
    assert ci[0] == pytest.approx((0.309 - 0.006) / 0.3 - 1) and ci[1] == pytest.approx((0.309 + 0.009) / 0.3 - 1)
    assert ci[2] == pytest.approx(1 - 2 / 64)
    res = {"run": "x", "config": {"trainers": 3, "shadows": 2, "rounds": 4, "iters": 20, "promise_rounds": 2},
           "analysis": a, "bytes": {}}
    text = suite.fmt_table(res)
    assert "then 2 round(s) of none, checkmate and host only" in text
    line = next(x for x in text.splitlines() if x.startswith("medians of 6 per-round ratios"))
    assert ">= 97 %" in line and "trainer CPU checkmate +1.0 .. +6.0 %" in line and "wall host" in line


def _phases(fwd_ms: float, step0_ms: float = 1.0, ranks: int = 3) -> list[dict]:
    return [{"MainThread": [1.0, 0.0, 1.0], f"checkmate-ring-r{r}": [2.0, 0.1, 12.0],
             "phases": [fwd_ms, 1.0, step0_ms if r == 0 else 1.0, 0.1]} for r in range(ranks)]


def test_interference_probe_takes_the_forward_pass_slowdown_out():
    """A checkmate segment whose forward pass (no Checkmate code) is 5 % slower than the neighbouring
    nones' and whose trainer CPU is 7.1 % higher: the design's own share is 1.071 / 1.05 - 1 = +2 %;
    host's forward pass as slow, its CPU +15.5 %: +10 %.  A segment without phases is left out."""
    segs, cpu = [], {"none": 0.300, "checkmate": 0.300 * 1.071, "host": 0.300 * 1.155}
    fwd = {"none": 0.6, "checkmate": 0.63, "host": 0.63}
    for r in range(6):
        for m in ("none", "checkmate", "host", "none"):
            if m == "none" and r and segs[-1]["method"] == "none":
                continue
            s = _seg(len(segs), r, m, 1, 0.1)
            s["trainer_cpu_s"] = cpu[m] * s["iters"]
            s["thread_sched_per_iter"] = _phases(fwd[m], 1.3 if m == "checkmate" else 1.0)
            segs.append(s)
    del segs[1]["thread_sched_per_iter"]  # round 0's checkmate: no phases recorded
    per = interference.per_segment(sorted(segs, key=lambda s: s["seq"]),
                                   [(i, s) for i, s in enumerate(segs) if s["method"] == "none"],
                                   suite.trainer_cpu_per_iter)
    assert 1 not in per and len(per) == 11 and 2 in per
    assert per[4] == pytest.approx((1.05, 1.071 / 1.05))
    a = suite.analyze(segs)
    c = a["configs"]
    assert len(c["checkmate"]["trainer_cpu_adjusted_all"]) == 5 and len(c["host"]["trainer_cpu_adjusted_all"]) == 6
    assert c["checkmate"]["trainer_cpu_adjusted_overhead"] == pytest.approx(0.02)
    assert c["host"]["trainer_cpu_adjusted_overhead"] == pytest.approx(0.10)
    assert c["checkmate"]["forward_cpu_overhead"] == pytest.approx(0.05)
    assert c["checkmate"]["trainer_cpu_overhead"] == pytest.approx(0.071)  # the raw figure is unchanged
    assert a["methods"]["host"]["trainer_cpu_adjusted_overhead"] == pytest.approx(0.10)
    line = next(x for x in report.promise_lines({"analysis": a, "bytes": {}})
                if x.startswith("trainer CPU over none divided by the forward pass's"))
    assert "checkmate +2.0% (+2.0 .. +2.0 %), its forward pass +5.0%" in line and "host +10.0% (+10.0 .. +10.0 %)" in line
    parts = next(x for x in report.promise_lines({"analysis": a, "bytes": {}}) if x.startswith("trainer CPU by part"))
    assert ("checkmate forward +5.0%, backward +0.0%, ring thread +0.0%, rank 0 clip+step +30.0%, "
            "other ranks' clip+step +0.0%; host forward +5.0%") in parts
    assert interference.forward_cpu({"thread_sched_per_iter": [{"phases": [0.0, 1, 1, 1]}]}) is None


def test_table_and_plots(tmp_path):
    a = suite.analyze(synthetic())
    res = {"run": "synthetic", "config": {"trainers": 3, "shadows": 2, "rounds": 1, "iters": 20},
           "analysis": a, "bytes": suite.bytes_figures(a["configs"])}
    text = suite.fmt_table(res)
    for key in ("none", "checkmate", "host", "torch-save@k=1", "checkfreq@k=1", "stall_s = 0.0040"):
        assert key in text
    files = suite.plots(res, tmp_path, suite.METHODS)
    assert {"overhead.png", "frequency.png", "iteration_time.png", "port_bytes.png"} <= set(files)
    for f in files:
        assert (tmp_path / f).read_bytes()[:4] == b"\x89PNG"


def test_summary_carries_checkmate_overhead_for_cost(tmp_path, capsys):
    """finish() writes the summary `checkmate cost` reads: stall, iteration time and Checkmate's overhead."""
    import argparse
    res = {"run": "synthetic", "config": {"trainers": 3, "shadows": 2, "rounds": 1, "iters": 20},
           "segments": synthetic()}
    a = argparse.Namespace(budget=suite.BUDGET, methods=["none", "checkmate", "host", "torch-save", "checkfreq"],
                           no_summary=True)
    suite.finish(res, tmp_path, a)
    capsys.readouterr()
    s = json.loads((tmp_path / "summary.json").read_text())
    m = res["analysis"]["methods"]["checkmate"]
    want = m["overhead_robust"] if m.get("overhead_robust") is not None else m["overhead"]
    assert s["checkmate_overhead"] == pytest.approx(want) and want is not None
    from benchmarks import cost
    assert cost.measured_defaults(tmp_path / "summary.json").checkmate_overhead == pytest.approx(max(0.0, want))


# -- the baselines -----------------------------------------------------------------------------------

def _model():
    torch.manual_seed(0)
    m = torch.nn.Linear(8, 4)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    m(torch.randn(2, 8)).sum().backward()
    opt.step()
    return m, opt


@pytest.mark.parametrize("name", ["torch-save", "checkfreq"])
def test_baseline_persists_every_k(tmp_path, name):
    m, opt = _model()
    meth = baselines.make_method(name, every=3, out_dir=tmp_path, rank=0, model=m, optimizer=opt)
    stalls = [meth.after_step(it) for it in range(1, 10)]
    meth.finish()
    assert meth.checkpoints == 3 and [i + 1 for i, s in enumerate(stalls) if s > 0] == [3, 6, 9]
    got = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    assert got["iteration"] == 9
    assert torch.equal(got["model"]["weight"], m.weight.detach())
    assert got["optimizer"]["state"][0]["step"] == opt.state_dict()["state"][0]["step"]
    assert meth.bytes_written > 0
    # non-zero ranks do nothing (DDP replicas are identical)
    other = baselines.make_method(name, every=1, out_dir=tmp_path / "r1", rank=1, model=m, optimizer=opt)
    other.after_step(1)
    other.finish()
    assert not (tmp_path / "r1" / "ckpt.pt").exists()


def test_checkfreq_snapshot_is_a_copy(tmp_path):
    m, opt = _model()
    meth = baselines.make_method("checkfreq", every=1, out_dir=tmp_path, model=m, optimizer=opt)
    meth.after_step(1)
    snap_w = meth._buf["model"]["weight"].clone()
    with torch.no_grad():
        m.weight.add_(1.0)
    meth.finish()
    assert torch.equal(torch.load(tmp_path / "ckpt.pt", weights_only=True)["model"]["weight"], snap_w)


def test_dcp_async_single_process(tmp_path):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        m, opt = _model()
        meth = baselines.make_method("dcp-async", every=2, out_dir=tmp_path / "dcp", model=m, optimizer=opt)
        for it in range(1, 5):
            meth.after_step(it)
        meth.finish()
        assert meth.checkpoints == 2 and meth.bytes_written > 0
        assert (tmp_path / "dcp" / "dcp-0" / ".metadata").exists()
    finally:
        dist.destroy_process_group()


def test_unknown_method():
    with pytest.raises(ValueError):
        baselines.make_method("nope")
    with pytest.raises(ValueError):
        baselines.make_method("torch-save", every=0)


# -- micro-benchmarks ------------------------------------------------------------------------------

def test_micro_parses_ratios():
    text = ("case  packets/s  frames out/s  ratio vs copy\n"
            "copy (bytes copy loop)                      2,107,687     2,107,687         1.0000\n"
            "checkmate.p4 FINAL chunk (+replica)             7,174        14,348         0.0034\n")
    assert micro.parse_ratios("pipeline", text) == {"pipeline checkmate.p4 FINAL chunk (+replica) / copy": 0.0034}
    rep = "replica (PRE copy + egress rewrite + checksum + deparse): 33.9 us = 3.07x a forwarded chunk (11.1 us)\n"
    assert micro.parse_ratios("pipeline", rep) == {"pipeline replica / forwarded chunk": 3.07}
    assert micro.parse_ratios("allreduce", "", {"results": [{"elements": 1024, "ring_s": 2.0, "gloo_s": 1.0}]}) \
        == {"ring/gloo MTU 1500 1024 el": 2.0}
    assert micro.parse_ratios("allreduce-jumbo", "", {"args": {"mtu": 9000},
                                                      "results": [{"elements": 8, "ring_s": 3.0, "gloo_s": 2.0}]}) \
        == {"ring/gloo MTU 9000 8 el": 1.5}
    full = {"elements": 8, "ring_s": 3.0, "gloo_s": 2.0, "gloo_proc_cpu_sum_s": 1.0, "ring_proc_cpu_sum_s": 2.5,
            "socket_drops": 1, "retransmits": 32}
    assert micro.parse_ratios("allreduce", "", {"results": [full]}) == {
        "ring/gloo MTU 1500 8 el": 1.5, "ring/gloo CPU MTU 1500 8 el": 2.5, "ring drops+resends MTU 1500 8 el": 33}
    assert micro.parse_ratios("switch", "", [{"mtu": 1500, "ratio": 0.4}]) == {"switch/bare MTU 1500": 0.4}
    assert micro.parse_ratios("replica", "", {"summary": {"this": {"ratio": 0.8, "fwd_us": 20.0,
                                                                 "digests_per_iter_us": 600.0}}}) == {
        "switch replica / forward (real daemon)": 0.8, "switch heartbeat digests of an iteration / forward": 30.0}
    assert micro.parse_ratios("replica", "this   median over 1 round(s): forward 20.1 us/frame, replica 14.1 us, "
                                         "replica/forward 0.70 (goal <= 1.5)") == {
        "switch replica / forward (real daemon)": 0.7}
    s = micro.parse_ratios("shadow", "  ratio shadow/bare = 0.21\n")
    assert s == {"shadow ingest/bare socket": 0.21}


def test_micro_runs_a_benchmark(tmp_path):
    out = micro.run_all(tmp_path / "m.json", quick=True, only=["pipeline"], log=lambda *_: None)
    rec = out["benchmarks"]["pipeline"]
    assert rec["returncode"] == 0, rec.get("stderr")
    assert any(k.startswith("pipeline checkmate.p4") for k in out["ratios"])
    assert json.loads((tmp_path / "m.json").read_text())["ratios"] == out["ratios"]


# -- end to end (root, Mininet): the quick run ------------------------------------------------------

needs_testbed = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                                   reason="needs root and Mininet (mnexec)")


@pytest.mark.root
@needs_testbed
@pytest.mark.timeout(480)  # hang guards with room for make test's other shard (tools/run_suite.py)
def test_quick_run_end_to_end(tmp_path):
    out = tmp_path / "bench"
    p = subprocess.run([sys.executable, "-m", "checkmate.cli", "bench", "--quick", "--out", str(out),
                        "--no-summary", "--no-progress", "--timeout", "300"], cwd=ROOT, capture_output=True,
                       text=True, timeout=450)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    res = json.loads((out / "bench.json").read_text())
    a = res["analysis"]
    assert set(a["methods"]) == set(suite.METHODS)
    for m in suite.PERIODIC:
        assert {1, 10} <= {r["every"] for r in a["configs"].values() if r["method"] == m}
    # ratios are consistent with the raw times of this run
    for key, r in a["configs"].items():
        for it, ctl, ratio in zip(r["iter_s_all"], r["control_s_all"], r["ratio_all"]):
            assert ratio == pytest.approx(it / ctl)
        assert r["overhead"] == pytest.approx(r["ratio"] - 1)
        assert r["iter_s"] > 0
    for m, r in a["methods"].items():
        if m in suite.PERIODIC:
            assert r["sustainable_k"] == suite.sustainable_k(r["stall_s"], a["iter_none_s"], a["budget"])
            assert r["frequency"] == pytest.approx(1 / r["sustainable_k"])
            assert r["stall_s"] > 0
    # the raw segments behind them: every timed segment of every method is there
    ends = [s for s in res["segments"] if s.get("event") == "end"]
    assert {s["method"] for s in ends} == set(suite.METHODS)
    assert all(s["checkpoints"] == s["iters"] // s["every"] for s in ends if s["method"] in suite.PERIODIC)
    # every segment with shadows checked them: at the last iteration, no loss, no resync
    from benchmarks import shadow_check
    shadowed = [s for s in ends if s["method"] in shadow_check.SHADOW_METHODS]
    assert shadowed and all(shadow_check.verdict(s)[0] for s in shadowed), [shadow_check.verdict(s) for s in shadowed]
    assert all(s["shadows"]["latest"] == [s["iters"] + s["warmup"]] * 2 for s in shadowed)
    assert "shadows kept up: all" in (out / "table.txt").read_text()
    # bytes: the switch copies to the shadows for checkmate, the trainers send more for host, nothing else does
    b = res["bytes"]
    assert b["checkmate"]["shadow_rx"] > 0 and b["host"]["shadow_rx"] > 0
    assert b["none"]["shadow_rx"] < 0.05 * b["checkmate"]["shadow_rx"]
    assert b["host"]["trainer_tx"] > b["checkmate"]["trainer_tx"]
    assert res["switch_counters"]
    # the trainers' CPU: measured per segment (all ranks), its ratio consistent with the raw figures
    assert all(s["trainer_cpu_s"] > 0 for s in ends)
    for key in ("checkmate", "host"):
        r = a["configs"][key]
        for cpu, ctl, ratio in zip(r["trainer_cpu_s_all"], r["trainer_cpu_control_s_all"], r["trainer_cpu_ratio_all"]):
            assert ratio == pytest.approx(cpu / ctl)
    assert res["placement"]["mode"] in ("shared", "split") and "the promise" in (out / "table.txt").read_text()
    cpu = {k: r["cpu_ms_per_iter"] for k, r in a["configs"].items()}
    assert all(c.get("switch", 0) > 0 and c.get("trainer", 0) > 0 for c in cpu.values()), cpu
    # read from each process's nanosecond CPU clock, not /proc/PID/stat's 10 ms ticks
    assert all(s.get("cpu_source") == "clock" for s in ends), {s.get("cpu_source") for s in ends}
    assert cpu["checkmate"]["shadow"] > cpu["none"]["shadow"]  # the shadows work only when fed
    # the part of it the shadows' persist threads spent writing every 10th iteration to disk
    assert 0 < cpu["checkmate"]["shadow_persist"] < cpu["checkmate"]["shadow"], cpu["checkmate"]
    assert "persisting to disk every 10th iteration" in (out / "table.txt").read_text()
    for f in ("overhead.png", "frequency.png", "iteration_time.png", "port_bytes.png"):
        assert (out / "plots" / f).stat().st_size > 1000
    s = json.loads((out / "summary.json").read_text())
    assert s["stall_s"] == a["stall_s"] and s["iter_s"] == a["iter_none_s"] and math.isfinite(s["stall_s"])
    assert s["checkmate_overhead"] is not None  # `checkmate cost` carries it into the model
    assert "for `checkmate cost`" in p.stdout and (out / "table.txt").exists()


def test_grouped_median_is_robust_to_one_burst():
    # k=2: runs (1+3), (1+3), (1+30) -> median run 4 -> 2 per iteration; the burst does not move it
    assert suite.grouped_median([1, 3, 1, 3, 1, 30], 2) == pytest.approx(2.0)
    assert suite.grouped_median([1, 2, 3], 1) == 2
    assert suite.grouped_median([], 1) is None
    segs = [dict(_seg(0, 0, "none", 1, 0.1), iter_times=[0.1] * 6),
            dict(_seg(1, 0, "torch-save", 2, 0.2, 0.01, 3), iter_times=[0.1, 0.12] * 2 + [0.1, 0.5]),
            dict(_seg(2, 0, "none", 1, 0.1), iter_times=[0.1] * 6)]
    c = suite.analyze(segs)["configs"]["torch-save@k=2"]
    assert c["ratio_robust"] == pytest.approx(1.1) and c["overhead_robust"] == pytest.approx(0.1)


def test_table_without_a_periodic_method():
    segs = [s for s in synthetic() if s["method"] in ("none", "checkmate", "host")]
    a = suite.analyze(segs)
    assert a["stall_s"] is None
    res = {"run": "x", "config": {"trainers": 3, "shadows": 2, "rounds": 1, "iters": 20}, "analysis": a,
           "bytes": suite.bytes_figures(a["configs"])}
    text = suite.fmt_table(res)
    assert "checkmate" in text and "checkmate cost" not in text


def test_table_names_the_placement_and_the_switch_arguments():
    """A reader of the table sees how the emulation was placed and what the switch was told; under split
    placement the wall-time line says why the wall still includes the emulation (the switch is on the
    ring's path), not that the cores are shared."""
    from benchmarks import placement
    a = suite.analyze(synthetic())
    res = {"run": "synthetic", "config": {"trainers": 3, "shadows": 2, "rounds": 1, "iters": 20,
                                          "switch_arg": ["--send-order=frame"]},
           "analysis": a, "bytes": suite.bytes_figures(a["configs"])}
    shared = placement.plan(list(range(2)), 3, 2, "auto").to_json()
    split = placement.plan(list(range(16)), 3, 2, "split").to_json()
    text = suite.fmt_table({**res, "placement": shared})
    assert "switch arguments: --send-order=frame" in text and "share the machine's cores" in text
    text = suite.fmt_table({**res, "placement": split, "config": {**res["config"], "switch_arg": []}})
    assert "switch arguments" not in text and "share the machine's cores" not in text
    assert "data-plane thread" in text and "split: trainers on CPUs" in text


def test_switch_arguments_reach_the_testbed_and_the_switch_command():
    from topologies.net import EmbeddedSwitch
    args = suite.parse_args(["--quick", "--switch-arg=--send-order=frame", "--placement", "shared"])
    targs = suite._runner_args(args, Path("/tmp/x"), "r")
    assert targs.switch_arg == ["--send-order=frame"]
    sw = EmbeddedSwitch.__new__(EmbeddedSwitch)  # the argv only: no Mininet node is created
    sw.__dict__.update(port_tm={}, device_id=0, cpu_port=255, grpc_port=1, tm_port=None, trace=False,
                       pcap_dir=None, extra_args=list(targs.switch_arg), program=None)
    sw.port_args = lambda: ["-i", "1@x"]
    argv = sw.command()
    assert argv[argv.index("--no-p4") - 1] == "--send-order=frame"
