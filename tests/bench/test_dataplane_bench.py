"""benchmarks/bench_dataplane end to end in process (tiny sizes): both loop variants run and report
sane figures; this tree's loop lets the first forward out long before the batch ends."""
from pathlib import Path

from benchmarks import bench_dataplane

REPO = Path(__file__).resolve().parents[2]


def test_bench_dataplane_against_a_baseline_daemon(tmp_path, capsys):
    # the baseline: a daemon whose loop sends only after the whole batch (the loop before the change)
    base = tmp_path / "base"
    (base / "switch").mkdir(parents=True)
    src = (REPO / "switch" / "daemon.py").read_text()
    batched = src.replace("sink = _Sink({n: ep for n, ep in egress.items() if ep._fast and n != cpu})",
                          "sink = _Sink({})")
    assert batched != src, "bench_dataplane test: the daemon's sink line changed; update this test"
    (base / "switch" / "daemon.py").write_text(batched)
    assert bench_dataplane.main(["--baseline", str(base), "--batch", "8", "--batches", "20", "--rounds", "2"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()[1:]}

    def fig(name, key):
        return float(lines[name].split(key)[1].split()[0].rstrip(","))

    assert set(lines) == {"this", "baseline"}
    for name in lines:
        assert 0 < fig(name, "CPU") < 10_000
        assert fig(name, "first") <= fig(name, "mean") <= fig(name, "last")
    # this loop: the first forward leaves after its own frame; the baseline's after all eight
    assert fig("this", "first") < fig("baseline", "first")
