"""benchmarks/bench_shadow_cpu end to end, tiny: real checkmate-shadow processes of this tree as both
variants (the "baseline" one driven with JSON manifests and its GradGuard loaded from the file), every
iteration published by both, the figures printed.  A smoke test of the harness, not a measurement."""
import re

import pytest

from benchmarks import bench_shadow_cpu


@pytest.mark.timeout(180)
def test_harness_runs_both_variants(capsys):
    assert bench_shadow_cpu.main(["--baseline", str(bench_shadow_cpu.ROOT), "--iters", "15", "--rounds", "1",
                                  "--idle", "0.2", "--period", "0.005"]) == 0
    out = capsys.readouterr().out
    busy = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s+(baseline|this)\s+busy\s+([\d.]+) ms/it", out, re.M)}
    assert set(busy) == {"baseline", "this"} and all(v > 0 for v in busy.values()), out
    assert re.search(r"this\s+manifest \(compact, posted\)\s+[\d.]+ us\s+GradGuard\s+[\d.]+ us", out), out
    assert "ratio this/baseline" in out
    # per thread role (the shadow names its threads for the OS): both shards' ingest and connection threads
    line = next(x for x in out.splitlines() if x.strip().startswith("this") and " us / " in x)
    assert re.search(r"ingest \d+ us / [\d.]+", line) and re.search(r"conn \d+ us / [\d.]+", line), line


@pytest.mark.timeout(180)
def test_harness_persists_and_polls_as_the_testbed_does(capsys):
    """--persist-every: the shadows' persist threads do work (shown per role); --poll: a status poller
    runs all along (its idle figure is above zero, as without it it is about nothing)."""
    assert bench_shadow_cpu.main(["--iters", "30", "--rounds", "1", "--idle", "0.5", "--period", "0.005",
                                  "--persist-every", "10", "--poll", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "persist every 10, status poll every 0.05 s" in out, out
    line = next(x for x in out.splitlines() if x.strip().startswith("this") and " us / " in x)
    m = re.search(r"persist (\d+) us / [\d.]+", line)
    assert m and int(m.group(1)) > 0, line
    idle = float(re.search(r"this\s+busy\s+[\d.]+ ms/it\s+idle\s+([\d.]+) ms/s", out).group(1))
    assert idle > 0, out
