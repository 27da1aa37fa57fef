import json
import math

import pytest

from benchmarks import cost


def test_young_daly_hand_computed():
    # 1000 GPUs at 1e-4 failures/GPU-h -> 0.1 failures/h -> MTBF 36000 s; stall 20 s
    s = cost.Scenario(gpus=1000, gpu_failure_rate=1e-4, stall_s=20.0, iter_s=1.0)
    assert s.mtbf_s == pytest.approx(36000.0)
    assert s.failures_per_day == pytest.approx(2.4)
    assert cost.young_daly_interval(20.0, 36000.0) == pytest.approx(1200.0)  # sqrt(2*20*36000)
    a = cost.stall_based(s)
    assert a.interval_s == pytest.approx(1200.0)
    assert a.stall_fraction == pytest.approx(20 / 1200)
    assert a.lost_s_per_failure == pytest.approx(600.0)
    # per day: 86400*20/1200 = 1440 s stalled + 2.4 * 600 = 1440 s repeated -> 2880 s x 1000 GPUs
    assert a.lost_gpu_hours_per_day == pytest.approx(2880 * 1000 / 3600)
    assert a.lost_gpu_hours_per_failure == pytest.approx(600 * 1000 / 3600)
    b = cost.checkmate(s)
    assert b.stall_fraction == 0 and b.interval_s == 1.0
    assert b.lost_gpu_hours_per_day == pytest.approx(2.4 * 0.5 * 1000 / 3600)
    r = cost.compare(s)
    assert r["ratio_lost_per_day"] == pytest.approx(2880 / 1.2)


def test_restart_is_paid_by_both_and_interval_never_below_one_iteration():
    s = cost.Scenario(gpus=8, gpu_failure_rate=1.0, stall_s=0.01, iter_s=5.0, restart_s=60.0)
    # MTBF = 450 s, Young-Daly = 3 s < one iteration -> clamped to 5 s
    a, b = cost.stall_based(s), cost.checkmate(s)
    assert a.interval_s == 5.0
    assert a.lost_s_per_failure == pytest.approx(62.5) and b.lost_s_per_failure == pytest.approx(62.5)
    assert a.lost_gpu_hours_per_day > b.lost_gpu_hours_per_day


@pytest.mark.parametrize("field", ["gpus", "gpu_failure_rate", "stall_s", "iter_s"])
def test_rejects_non_positive(field):
    kw = dict(gpus=1, gpu_failure_rate=1.0, stall_s=1.0, iter_s=1.0) | {field: 0}
    with pytest.raises(ValueError, match=field):
        cost.Scenario(**kw)


def test_cli_writes_json_and_plot(tmp_path, capsys):
    # --bench at a file that does not exist: the built-in fallbacks, not this machine's latest bench
    rc = cost.main(["--gpus", "16384", "--gpu-failure-rate", "2e-5", "--stall-s", "30", "--iter-s", "2",
                    "--bench", str(tmp_path / "no-summary.json"), "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Checkmate saves" in out
    data = json.loads((tmp_path / "cost.json").read_text())
    mtbf = 3600 / (16384 * 2e-5)
    assert data["methods"][0]["interval_s"] == pytest.approx(math.sqrt(2 * 30 * mtbf))
    assert (tmp_path / "cost.png").stat().st_size > 1000


def _summary(tmp_path, **kw):
    data = {"run": "20261201-0800", "stall_s": 0.0018, "iter_s": 0.0235, "stall_method": "checkfreq",
            "overhead": {"none": 0.0, "checkmate": 0.15, "host": 0.2}, "checkmate_overhead": 0.294,
            "quick": False} | kw
    p = tmp_path / "summary.json"
    p.write_text(json.dumps(data))
    return p


def test_cost_after_bench_names_its_inputs_and_carries_checkmate_overhead(tmp_path, capsys):
    """After `make bench` the defaults are the toy model's: every input says where it came from, and
    Checkmate's measured overhead is in the model (not a 0 % stall)."""
    bench = _summary(tmp_path)
    rc = cost.main(["--bench", str(bench), "--out", str(tmp_path / "out"), "--no-plot"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "stall per checkpoint" in out and "measured: checkfreq's stall per checkpoint" in out
    assert f"`make bench` run 20261201-0800 ({bench})" in out
    assert "Checkmate overhead" in out and "+29.4 %" in out
    assert "toy model" in out  # the warning that these numbers are not the priced job's
    data = json.loads((tmp_path / "out" / "cost.json").read_text())
    cm = data["methods"][1]
    assert cm["stall_fraction"] == pytest.approx(0.294)
    assert data["inputs"]["checkmate_overhead"] == {
        "value": 0.294, "source": f"measured: checkmate vs no checkpointing, `make bench` run 20261201-0800 ({bench})"}
    assert data["inputs"]["gpus"] == {"value": 16384, "source": "default"}
    # with a 29 % overhead at 16,384 GPUs Checkmate loses more than the stall-based method, and says so
    assert "Checkmate loses" in out


def test_cost_explicit_flags_override_and_drop_the_toy_model_note(tmp_path, capsys):
    bench = _summary(tmp_path, checkmate_overhead=None)  # an older summary: the per-config overhead
    rc = cost.main(["--bench", str(bench), "--stall-s", "30", "--iter-s", "2", "--out", str(tmp_path / "o"),
                    "--no-plot", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and not any("toy model" in n for n in data["notes"])
    assert data["inputs"]["stall_s"] == {"value": 30.0, "source": "--stall-s"}
    assert data["inputs"]["checkmate_overhead"]["value"] == pytest.approx(0.15)  # from overhead["checkmate"]
    assert data["methods"][1]["stall_fraction"] == pytest.approx(0.15)


def test_cost_negative_measured_overhead_is_noise(tmp_path, capsys):
    bench = _summary(tmp_path, checkmate_overhead=-0.02)
    assert cost.main(["--bench", str(bench), "--out", str(tmp_path / "o"), "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "-2.0 % is below zero (noise): counted as 0" in out and "+0.0 %" in out
