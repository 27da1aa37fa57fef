"""``checkmate bench --scale``: the model sizes, the per-size row and table, the command line."""
import pytest

from benchmarks import scale, suite
from tests.bench.test_suite import synthetic


def test_default_sizes_are_the_issue_s_three():
    counts = [scale.param_count(h) for h in scale.DEFAULT_HIDDEN]
    assert counts[0] == 17226  # examples/ddp_train.py's default model
    assert 1.9e6 <= counts[1] <= 2.1e6
    assert 8.5e6 <= counts[2] <= 9.5e6


def test_parse_hidden():
    assert scale.parse_hidden(None) == list(scale.DEFAULT_HIDDEN)
    assert scale.parse_hidden("64, 256") == [64, 256]
    for bad in ("x", "0", ","):
        with pytest.raises(ValueError, match="--scale-hidden"):
            scale.parse_hidden(bad)


def test_row_and_table_from_an_analysis():
    segs = [s for s in synthetic() if s["method"] in ("none", "checkmate")]
    for s in segs:
        s["trainer_cpu_s"] = (0.3 if s["method"] == "none" else 0.303) * s["iters"]
        s["cpu_ms_per_iter"] = {"switch": 4.0 if s["method"] == "none" else 7.0, "shadow": 0.0 if s["method"] == "none" else 2.5}
    an = suite.analyze(segs)
    row = scale.size_row(128, 17226, an, suite.bytes_figures(an["configs"]))
    assert row["trainer_cpu_overhead"] == pytest.approx(0.01)
    assert row["wall_overhead"] == pytest.approx(0.02)
    assert row["train_bytes_checkmate"] == 1000.0 and row["shadow_bytes_checkmate"] == 340.0
    assert row["switch_cpu_checkmate_ms"] == 7.0 and row["shadow_cpu_checkmate_ms"] == 2.5
    text = scale.fmt([row, dict(row, params=2010546, trainer_cpu_overhead=None)], "shared: 2 CPU(s)")
    assert "17,226" in text and "2,010,546" in text and "+1.0%" in text and "n/a" in text and "placement: shared" in text


def test_command_line():
    a = suite.parse_args(["--scale", "--scale-hidden", "64,128", "--cpus", "0-7"])
    assert a.scale and a.scale_hidden == [64, 128] and a.iters == 10 and a.rounds == 2
    assert a.placement.mode == "split" and a.placement.trainers == (0, 1, 2, 3)
    assert suite.parse_args(["--placement", "shared"]).placement.mode == "shared"
    with pytest.raises(SystemExit):
        suite.parse_args(["--scale", "--scale-hidden", "abc"])


def test_docs_section_from_one_run(tmp_path):
    from benchmarks import report
    res = {"run": "20261201-100000", "started": "2026-12-01T10:00:00Z", "elapsed_s": 1234.0,
           "placement": {"describe": "split: trainers on CPUs 0-7, switch + shadows + controller on 8-15"},
           "micro": {"ratios": {"ring/gloo MTU 1500 1048576 el": 2.5, "pipeline replica / forwarded chunk": 1.4}}}
    text = report.fragment(res, "the promise -- ...\nnone ...\n", "checkmate bench --with-scale", "params ...\n")
    assert text.startswith("## Latest numbers")
    for want in ("`checkmate bench --with-scale`", "20261201-100000", "split: trainers on CPUs 0-7",
                 "| ring/gloo MTU 1500 1048576 el | 2.5 |", "| pipeline replica / forwarded chunk | 1.4 |",
                 "the promise", "Model sizes"):
        assert want in text, want
    (tmp_path / "scale").mkdir()
    (tmp_path / "scale" / "scale.txt").write_text("params  17,226\n")
    path = report.write(tmp_path, res, "table\n", "checkmate bench")
    assert "17,226" in path.read_text() and "Micro-benchmarks" in path.read_text()
    assert "Model sizes" not in report.fragment({"micro": {"error": "boom"}}, "t", "c") and \
        "failed: boom" in report.fragment({"micro": {"error": "boom"}}, "t", "c")
