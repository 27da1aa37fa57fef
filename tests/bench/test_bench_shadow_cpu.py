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
