"""benchmarks/bench_replica.py end to end on the real switch (root): the figures it prints are
measured, not timed against a limit -- this checks that the measurement is sound (every chunk
forwarded, exactly one replica per copied chunk and none for the uncopied job, heartbeat digests
received by the controller's side, a replica/forward ratio printed) and that the sender's frames
are what the switch copies."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_replica

ROOT = Path(__file__).resolve().parents[2]


def test_chunk_frame_is_a_final_chunk_of_the_job():
    from checkmate.wire import CHECKMATE_UDP_PORT, FLAG_FINAL, decode

    f = bench_replica.chunk_frame("02:00:00:00:00:01", 1500, job=7)
    assert len(f) == 14 + 1500 - (1500 - 28 - 32) % 4
    assert int.from_bytes(f[36:38], "big") == CHECKMATE_UDP_PORT
    hdr, payload = decode(f[42:])
    assert (hdr.job_id, hdr.flags & FLAG_FINAL, hdr.iteration, hdr.rank) == (7, FLAG_FINAL, 7, 0)
    assert len(payload) == 4 * hdr.count
    # the sender rewrites iteration and rank in place
    assert f[bench_replica.ITERATION_AT:bench_replica.ITERATION_AT + 6] == (7).to_bytes(4, "big") + bytes(2)


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, AF_PACKET)")
def test_bench_replica_measures_on_the_real_switch(tmp_path):
    out = tmp_path / "replica.json"
    p = subprocess.run([sys.executable, "-m", "benchmarks.bench_replica", "--rounds", "1", "--frames", "1500",
                        "--rate", "10000", "--iter-every", "150", "--json", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=240,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0, p.stderr[-3000:]
    assert "replica/forward" in p.stdout
    data = json.loads(out.read_text())
    (row,) = next(iter(data["rounds"].values()))
    ph = row["phases"]
    n = 1500
    assert ph["fwd"]["sent"] == ph["rep"]["sent"] == ph["hb"]["sent"] == n
    assert (ph["fwd"]["to_b"], ph["fwd"]["to_shadow"]) == (n, 0)  # uncopied job: forwarded only
    assert (ph["rep"]["to_b"], ph["rep"]["to_shadow"]) == (n, n)  # one replica per copied chunk
    assert (ph["hb"]["to_b"], ph["hb"]["to_shadow"]) == (n, n)
    assert ph["hb"]["digests"] == 3 * (n // 150)  # one heartbeat per rank and iteration
    assert ph["fwd"]["cpu_s"] > 0 and ph["rep"]["cpu_s"] > 0
    med = next(iter(data["summary"].values()))
    assert med["fwd_us"] > 0 and med["ratio"] == row["ratio"]
