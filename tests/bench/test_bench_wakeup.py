"""benchmarks/bench_wakeup.py, tiny: real peer processes, every variant's sends counted and timed."""
import re

from benchmarks import bench_wakeup


def test_each_variant_is_measured_as_often():
    res = bench_wakeup.measure(rounds=40, gap=0.0005)
    assert set(res) == {"tcp x2", "tcp x1", "udp x1", "udp connected x1"}
    assert all(len(v) == 10 and all(t > 0 for t in v) for v in res.values()), res


def test_main_prints_a_line_per_variant(capsys):
    assert bench_wakeup.main(["--rounds", "40", "--gap", "0.0005"]) == 0
    out = capsys.readouterr().out
    for name in ("tcp x2", "tcp x1", "udp x1", "udp connected x1"):
        assert re.search(rf"{name}\s+\d+\.\d us\s+p90\s+\d+\.\d us\s+\d\.\d\d", out), out
