"""benchmarks/bench_link.py end to end, tiny: two real shadow processes, the link's manifests acked with
no error or resync, the gradient check's verdicts right (the worker raises otherwise), figures printed."""
import re

from benchmarks import bench_link


def test_bench_link_runs_and_prints_each_piece(capsys):
    assert bench_link.main(["--iters", "5", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    for piece in bench_link.PIECES:
        assert re.search(rf"{piece}\s+\d+\.\d us", out), out
