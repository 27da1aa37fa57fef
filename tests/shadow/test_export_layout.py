"""``checkmate export --ckpt-dir`` on the testbed's own layout: a run folder or a phase folder, where every
shadow has its own checkpoint directory (``results/<run>/ckpt/<phase>/<shadow>/job<J>/shard<S>/``).
Real shadow nodes produce the shard states; the export must equal the trainer's state bit for bit."""
import os

import pytest
import torch

from shadow import export
from shadow.store import ShardStore

JOB = 7


def _testbed_layout(c, run_dir, phase, upto, mtime=None):
    """What the testbed leaves behind: one --ckpt-dir per shadow (sh1 = shard 0, sh2 = shard 1)."""
    for s, client in enumerate(c.clients):
        root = run_dir / "ckpt" / phase / f"sh{s + 1}"
        st = client.fetch(upto)
        path = ShardStore(root, JOB, s).save(st)
        if mtime is not None:
            os.utime(path, (mtime, mtime))


@pytest.mark.timeout(90)
def test_export_run_and_phase_folders(reference_run, cluster, tmp_path, capsys):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.drive(4)
    run_dir = tmp_path / "results" / "20261201-0900"
    _testbed_layout(c, run_dir, "reference", 3, mtime=1_000_000)  # an older phase, written first
    _testbed_layout(c, run_dir, "failure", 4)
    want, _ = run.state(4)

    out = tmp_path / "run.pt"
    assert export.main(["--ckpt-dir", str(run_dir), "--torch", str(out)]) == 0  # job id inferred: one job
    err = capsys.readouterr().err
    assert "phase 'failure' (written last; phases: failure, reference" in err and "shadows sh1, sh2" in err
    sd = torch.load(out, weights_only=True)
    assert sd["iteration"] == 4 and sd["job_id"] == JOB
    for p in run.params:
        assert torch.equal(sd["model"][p.name], want[p.param_id])

    out3 = tmp_path / "phase.pt"
    assert export.main(["--ckpt-dir", str(run_dir / "ckpt" / "reference"), "--job-id", str(JOB),
                        "--torch", str(out3)]) == 0
    assert torch.load(out3, weights_only=True)["iteration"] == 3


def test_export_layout_errors_name_what_was_expected(tmp_path, capsys):
    empty = tmp_path / "results" / "run1"
    empty.mkdir(parents=True)
    assert export.main(["--ckpt-dir", str(empty), "--torch", str(tmp_path / "x.pt")]) == 1
    err = capsys.readouterr().err
    assert f"{empty}: no shadow checkpoints here; expected DIR/job<J>/shard<S>/" in err
    assert "testbed phase folder" in err and "testbed run folder" in err
    assert export.main(["--ckpt-dir", str(tmp_path / "nope"), "--torch", str(tmp_path / "x.pt")]) == 1
    assert "nope: no such directory" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.timeout(90)
def test_export_refuses_a_shard_found_twice_and_a_wrong_job(reference_run, cluster, tmp_path, capsys):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.drive(1)
    phase = tmp_path / "ckpt" / "failure"
    for name in ("sh1", "sh1-copy"):
        ShardStore(phase / name, JOB, 0).save(c.clients[0].fetch(1))
    ShardStore(phase / "sh2", JOB, 1).save(c.clients[1].fetch(1))
    assert export.main(["--ckpt-dir", str(phase), "--torch", str(tmp_path / "x.pt")]) == 1
    assert "shard 0 of job 7 is in two places" in capsys.readouterr().err
    assert export.main(["--ckpt-dir", str(phase), "--job-id", "9", "--torch", str(tmp_path / "x.pt")]) == 1
    assert "no checkpoints of job 9 (jobs here: 7)" in capsys.readouterr().err


@pytest.mark.timeout(90)
def test_export_needs_job_id_when_two_jobs(reference_run, cluster, tmp_path, capsys):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.drive(1)
    root = tmp_path / "two"
    for s in range(2):
        st = c.clients[s].fetch(1)
        ShardStore(root, JOB, s).save(st)
    (root / "job9").mkdir()
    with pytest.raises(SystemExit) as e:
        export.main(["--ckpt-dir", str(root), "--torch", str(tmp_path / "x.pt")])
    assert e.value.code == 2 and "holds jobs 7, 9: choose one with --job-id" in capsys.readouterr().err
    assert export.main(["--ckpt-dir", str(root), "--job-id", "7", "--torch", str(tmp_path / "x.pt")]) == 0
