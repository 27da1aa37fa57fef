"""benchmarks/bench_dataplane end to end in process (tiny sizes): every loop variant runs and reports
sane figures; with send_order="frame" the first forward leaves long before the batch ends, with
"batch" only after it, and a baseline checkout's daemon is measured alongside."""
import shutil
from pathlib import Path

from benchmarks import bench_dataplane

REPO = Path(__file__).resolve().parents[2]


def test_bench_dataplane_send_orders_and_a_baseline(tmp_path, capsys):
    base = tmp_path / "base"
    (base / "switch").mkdir(parents=True)
    shutil.copy(REPO / "switch" / "daemon.py", base / "switch" / "daemon.py")
    assert bench_dataplane.main(["--baseline", str(base), "--batch", "8", "--batches", "20", "--rounds", "2"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()[1:]}

    def fig(name, key):
        return float(lines[name].split(key)[1].split()[0].rstrip(","))

    assert set(lines) == {"frame", "batch", "baseline"}
    for name in lines:
        assert 0 < fig(name, "CPU") < 10_000
        assert fig(name, "first") <= fig(name, "mean") <= fig(name, "last")
    # frame order: the first forward leaves after its own frame; batch order: after all eight
    assert fig("frame", "first") < fig("batch", "first")
    assert fig("frame", "first") < fig("baseline", "first")  # the copied daemon defaults to batch order
