"""Persistence: atomic, checksummed shard checkpoints that load without unpickling.

Round trip is bitwise; corrupted, truncated, or foreign files are refused with CheckpointCorrupt
naming the failed check; a crash before the rename leaves no file and no temp; the node persists
every K iterations asynchronously and on request over the management API.
"""
import os
from pathlib import Path

import pytest
import torch

from shadow import store
from shadow.protocol import OptimizerSpec, ParamSpec, ShardState


def _state(it=5):
    torch.manual_seed(0)
    return ShardState(
        job_id=3, shard=1, iteration=it,
        tensors={1: torch.randn(4, 5), 3: torch.randn(7).to(torch.bfloat16), 5: torch.zeros(0)},
        opt_state={1: {"step": torch.tensor(5.0), "exp_avg": torch.randn(4, 5), "exp_avg_sq": torch.rand(4, 5)}},
        optimizer=OptimizerSpec("adamw", True, False, [{"lr": 1e-3, "betas": [0.9, 0.999]}]),
        params=[ParamSpec(i, f"p{i}", (1,), "float32", 0) for i in range(6)], num_shards=2)


def _same(a: ShardState, b: ShardState):
    assert (a.job_id, a.shard, a.iteration, a.optimizer, a.params, a.num_shards) == \
           (b.job_id, b.shard, b.iteration, b.optimizer, b.params, b.num_shards)
    assert sorted(a.tensors) == sorted(b.tensors)
    for k in a.tensors:
        assert a.tensors[k].dtype == b.tensors[k].dtype and torch.equal(a.tensors[k], b.tensors[k])
    for k in a.opt_state:
        for n in a.opt_state[k]:
            assert torch.equal(a.opt_state[k][n], b.opt_state[k][n])


def test_round_trip_is_exact(tmp_path):
    st = _state()
    s = store.ShardStore(tmp_path, 3, 1)
    path = s.save(st)
    assert path.name == "iter0000000005.cmshard" and s.iterations() == [5]
    _same(st, store.load_state(path))
    assert not [f for f in os.listdir(path.parent) if f.startswith(".")]  # no temp left


@pytest.mark.parametrize("keep", [1, 2, 3, 5, 8])
def test_keeps_newest_files(tmp_path, keep):
    """Exactly the newest ``keep`` after every save -- also while fewer are on disk (a store of 5 with
    3 files once pruned 2 of them)."""
    s = store.ShardStore(tmp_path, 3, 1, keep=keep)
    for it in range(1, 12):
        s.save(_state(it))
        assert s.iterations() == list(range(max(1, it - keep + 1), it + 1))


def _bigger(it):
    st = _state(it)
    st.tensors[5] = torch.randn(300)  # a longer file than _state's
    return st


def test_a_full_store_writes_into_its_oldest_file(tmp_path):
    """keep files on disk: the next save overwrites the oldest one's storage (same inode), cut to
    the new length, and every file still loads exactly."""
    s = store.ShardStore(tmp_path, 3, 1, keep=2)
    s.save(_bigger(1))
    s.save(_state(2))
    oldest = store.shard_path(tmp_path, 3, 1, 1)
    ino, size = oldest.stat().st_ino, oldest.stat().st_size
    path = s.save(_state(3))  # shorter than the file it reuses
    assert s.iterations() == [2, 3]
    assert path.stat().st_ino == ino and path.stat().st_size < size
    _same(_state(3), s.load(3))
    _same(_state(2), s.load(2))
    s.save(_bigger(4))  # longer than the file it reuses
    assert s.iterations() == [3, 4]
    _same(_bigger(4), s.load(4))
    assert not [f for f in os.listdir(path.parent) if f.startswith(".")]


def test_the_only_checkpoint_is_never_reused(tmp_path):
    """keep=1: the new file is written beside the old one, which goes only after the rename."""
    s = store.ShardStore(tmp_path, 3, 1, keep=1)
    first = s.save(_state(1))
    ino = first.stat().st_ino
    second = s.save(_state(2))
    assert s.iterations() == [2] and second.stat().st_ino != ino


@pytest.mark.parametrize("keep", [1, 2, 3])
def test_failed_saves_never_cost_the_newest_checkpoint(tmp_path, keep):
    """Every save fails after its data is written: reused files go, but the newest stays."""
    class Crash(store.FileBackend):
        def before_rename(self, tmp, path):
            raise OSError("disk gone")

    s = store.ShardStore(tmp_path, 3, 1, keep=keep)
    for it in (1, 2, 3):
        s.save(_state(it))
    bad = store.ShardStore(tmp_path, 3, 1, keep=keep, backend=Crash())
    for it in (4, 5, 6, 7):
        with pytest.raises(OSError, match="disk gone"):
            bad.save(_state(it))
    left = s.iterations()
    assert left and left[-1] == 3 and len(left) >= max(1, keep - 1)
    _same(_state(3), s.load(3))
    assert not [f for f in os.listdir(store.shard_dir(tmp_path, 3, 1)) if f.startswith(".")]


@pytest.mark.parametrize("when", ["before", "during"])
def test_a_reader_of_a_reused_file_gets_not_found_never_a_mix(tmp_path, monkeypatch, when):
    """The oldest file is reused by a save while a reader has it open: renamed away, then overwritten
    by the next iteration.  The reader is told the file is gone (as if pruned), not handed the newer
    iteration's bytes under the old name nor a torn mix."""
    s = store.ShardStore(tmp_path, 3, 1, keep=2)
    s.save(_state(1))
    s.save(_state(2))
    oldest = store.shard_path(tmp_path, 3, 1, 1)
    real = store._read_all

    def racing(f):
        if when == "before":  # the save completes between the reader's open and its read
            s.save(_state(3))
            return real(f)
        head = f.read(40)  # part read, then the file is reused, then the rest
        s.save(_state(3))
        return bytearray(head) + real(f)

    monkeypatch.setattr(store, "_read_all", racing)
    with pytest.raises(FileNotFoundError, match="replaced by a newer checkpoint"):
        store.load_state(oldest)
    monkeypatch.setattr(store, "_read_all", real)
    assert s.iterations() == [2, 3]
    _same(_state(3), s.load(3))


@pytest.mark.parametrize("where", ["header", "blob", "trailer"])
def test_flipped_byte_is_refused(tmp_path, where):
    path = store.ShardStore(tmp_path, 3, 1).save(_state())
    data = bytearray(path.read_bytes())
    pos = {"header": 30, "blob": len(data) - 100, "trailer": len(data) - 1}[where]
    data[pos] ^= 0x40
    path.write_bytes(data)
    with pytest.raises(store.CheckpointCorrupt, match="sha256") as e:
        store.load_state(path)
    assert e.value.check == "sha256" and str(path) in str(e.value)


@pytest.mark.parametrize("keep", [0, 10, 500])
def test_truncated_file_is_refused(tmp_path, keep):
    path = store.ShardStore(tmp_path, 3, 1).save(_state())
    data = path.read_bytes()
    path.write_bytes(data[:keep] if keep else b"")
    with pytest.raises(store.CheckpointCorrupt) as e:
        store.load_state(path)
    assert e.value.check in ("length", "sha256")


def test_foreign_file_is_refused(tmp_path):
    p = tmp_path / "x.cmshard"
    p.write_bytes(b"PK\x03\x04" + bytes(100))  # e.g. a torch.save zip
    with pytest.raises(store.CheckpointCorrupt, match="magic"):
        store.load_state(p)


def test_crash_before_rename_leaves_nothing(tmp_path):
    class Crash(store.FileBackend):
        def before_rename(self, tmp, path):
            assert tmp.exists() and tmp.stat().st_size > 0
            raise OSError("power cut")

    s = store.ShardStore(tmp_path, 3, 1)
    s.save(_state(1))
    s_bad = store.ShardStore(tmp_path, 3, 1, backend=Crash())
    with pytest.raises(OSError, match="power cut"):
        s_bad.save(_state(2))
    d = store.shard_dir(tmp_path, 3, 1)
    assert sorted(os.listdir(d)) == ["iter0000000001.cmshard"]
    _same(_state(1), s.load(1))


@pytest.mark.timeout(60)
def test_node_persists_every_k_and_on_request(reference_run, cluster, tmp_path):
    run = reference_run(True)
    c = cluster(run, shards=1, persist_every=2)
    c.drive(3)
    n = c.nodes[0]
    assert n.wait_for(lambda n: n.persisted_iteration == 2, 10)
    path = c.clients[0].persist()  # on request: the latest (3), durable when the call returns
    assert Path(path).name == "iter0000000003.cmshard"
    assert c.clients[0].status().persisted_iteration == 3
    st = store.load_state(path)
    params, opt = run.state(3)
    assert st.iteration == 3 and st.num_shards == 1 and len(st.params) == len(run.params)
    for pid, t in st.tensors.items():
        assert torch.equal(t, params[pid])
        for k, v in opt[pid].items():
            assert torch.equal(st.opt_state[pid][k], v)
    assert store.list_iterations(tmp_path / "ckpt", 7, 0) == [2, 3]
