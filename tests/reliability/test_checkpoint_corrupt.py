"""Truncated and corrupted checkpoint files (``shadow/store.py`` ``.cmshard``) and hostile payloads.

Real shadow nodes (2 shards of a small real model) publish and persist iterations 0 and 1.  Then the
newest file is flipped, truncated, re-checksummed with a hostile header, or replaced by a malicious
pickle: every load must raise ``CheckpointCorrupt`` naming the file and the failed check (never another
exception, never executing anything), the previous good checkpoint must still load bit-identically,
and ``checkmate export`` must refuse clearly and still export the previous iteration.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import shutil
import socket
import struct

import pytest

from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from shadow.protocol import Bootstrap, ShardMap
from shadow.store import CheckpointCorrupt, list_iterations, load_state, shard_path

from .conftest import JOB, state_bits

SENTINEL_NAME = "PWNED"


class Evil:
    """Unpickling this runs a shell command that creates a sentinel file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.fixture
def persisted(tmp_path, small_run):
    """ckpt dir with iterations 0 and 1 of both shards, persisted by real nodes; returns (dir, {shard: {it: bits}})."""
    ckpt = tmp_path / "ckpt"
    owner = {p.param_id: p.param_id % 2 for p in small_run.params}
    nodes = []
    good = {}
    try:
        for s in (0, 1):
            n = ShadowNode(ShadowConfig(job_id=JOB, shard=s, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                        ckpt_dir=ckpt, loss_timeout=30.0)).start()
            nodes.append(n)
            own = [p for p, o in owner.items() if o == s]
            n.bootstrap(Bootstrap(JOB, s, 0, small_run.params, ShardMap(JOB, 2, owner, ["a:1", "b:2"]),
                                  small_run.spec, {p: small_run.init[p] for p in own}, {}))
            n.persist_now(timeout=20)
            good[s] = {0: state_bits(n.fetch())}
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                g = small_run.grads[0]
                for d in gradient_packets(JOB, 1, {p: g[p] for p in own}):
                    u.sendto(d, n.data_address)
            n.manifest(small_run.manifests[0])
            assert n.wait_for(lambda x: x.latest.iteration == 1, 20), n.status()
            n.persist_now(timeout=20)
            good[s][1] = state_bits(n.fetch())
    finally:
        for n in nodes:
            n.stop()
    assert list_iterations(ckpt, JOB, 0) == [0, 1] and list_iterations(ckpt, JOB, 1) == [0, 1]
    return ckpt, good


def _resign(body: bytes) -> bytes:
    return body + hashlib.sha256(body).digest()


def _file_parts(raw: bytes):
    (hlen,) = struct.unpack_from("<Q", raw, 8)
    return raw[:8], json.loads(raw[16:16 + hlen]), raw[16 + hlen:-32]


def _with_header(raw: bytes, header_bytes: bytes) -> bytes:
    _, _, blob = _file_parts(raw)
    return _resign(raw[:8] + struct.pack("<Q", len(header_bytes)) + header_bytes + blob)


def _expect_refused(path, what: str, checks=None):
    try:
        st = load_state(path)
    except CheckpointCorrupt as e:
        assert e.path == str(path) and str(path) in str(e), f"{what}: error does not name the file: {e}"
        if checks:
            assert e.check in checks, f"{what}: failed check {e.check!r}, expected one of {checks}: {e}"
        return e
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what}: {type(e).__name__} escaped instead of CheckpointCorrupt: {e}") from e
    raise AssertionError(f"{what}: corrupted checkpoint LOADED (iteration {st.iteration})")


def _previous_still_good(ckpt, good):
    for s in (0, 1):
        assert state_bits(load_state(shard_path(ckpt, JOB, s, 0))) == good[s][0], f"shard {s} iteration 0 damaged"


def test_flipped_and_truncated_files_refused(persisted):
    ckpt, good = persisted
    path = shard_path(ckpt, JOB, 0, 1)
    raw = path.read_bytes()
    rng = random.Random(17)
    variants = []
    for _ in range(60):
        b = bytearray(raw)
        j = rng.randrange(len(b))
        b[j] ^= 1 << rng.randrange(8)
        variants.append((f"bit flip at byte {j}", bytes(b), None))
    for n in sorted({0, 1, 7, 8, 15, 16, 40, len(raw) - 33, len(raw) - 32, len(raw) - 1}
                    | {rng.randrange(len(raw)) for _ in range(20)}):
        variants.append((f"truncated to {n} bytes", raw[:n], None))
    variants.append(("wrong checksum", raw[:-32] + bytes(32), {"sha256"}))
    variants.append(("trailing garbage", raw + b"\x00" * 5, {"sha256"}))
    variants.append(("bad magic, valid checksum", _resign(b"CMSHARD9" + raw[8:-32]), {"magic"}))
    for what, data, checks in variants:
        path.write_bytes(data)
        _expect_refused(path, what, checks)
    _previous_still_good(ckpt, good)
    path.write_bytes(raw)
    assert state_bits(load_state(path)) == good[0][1]


def test_hostile_headers_with_valid_checksum_refused(persisted):
    """The sha256 trailer is not a MAC: anyone who can write the file can re-sign it.  Hostile JSON must
    still be refused as CheckpointCorrupt (never TypeError/KeyError/..., never an object built from it)."""
    ckpt, good = persisted
    path = shard_path(ckpt, JOB, 0, 1)
    raw = path.read_bytes()
    _, hdr, _ = _file_parts(raw)
    tensor_ref = next(v for k, v in hdr["tensors"]["$m"])["$t"]

    def with_tensor(ref):
        h = json.loads(json.dumps(hdr))
        h["tensors"]["$m"][0][1] = {"$t": ref}
        return json.dumps(h).encode()

    cases = {
        "header not JSON": b"\x80\x04\x95not json",
        "header is a list": b"[1, 2, 3]",
        "unknown class": json.dumps({"$c": "os.system", "command": "touch x"}).encode(),
        "class outside the protocol": json.dumps({"$c": "Evil"}).encode(),
        "untagged object": json.dumps({"a": 1}).encode(),
        "wrong class": json.dumps({"$c": "Manifest", "job_id": 5, "iteration": 1, "lrs": [0.1],
                                   "clip_coef": None, "skip": False}).encode(),
        "unknown dtype": with_tensor(["object", tensor_ref[1], tensor_ref[2], tensor_ref[3]]),
        "pickle dtype": with_tensor(["pickle", [1], 0, 1]),
        "shape is an int": with_tensor([tensor_ref[0], 5, tensor_ref[2], tensor_ref[3]]),
        "shape of strings": with_tensor([tensor_ref[0], ["x"], tensor_ref[2], tensor_ref[3]]),
        "negative shape": with_tensor([tensor_ref[0], [-4], 0, 16]),
        "huge shape": with_tensor([tensor_ref[0], [1 << 40], 0, 4]),
        "offset is a string": with_tensor([tensor_ref[0], tensor_ref[1], "0", tensor_ref[3]]),
        "offset beyond the blob": with_tensor([tensor_ref[0], tensor_ref[1], 1 << 40, tensor_ref[3]]),
        "tensor ref too short": with_tensor([tensor_ref[0]]),
        "map entry not a pair": json.dumps({**hdr, "tensors": {"$m": [[1]]}}).encode(),
        "tensor is a string": json.dumps({**hdr, "tensors": {"$m": [[0, "not a tensor"]]}}).encode(),
        "iteration is a string": json.dumps({**hdr, "iteration": "1; rm -rf /"}).encode(),
    }
    bad = []
    for what, h in cases.items():
        path.write_bytes(_with_header(raw, h))
        try:
            _expect_refused(path, what)
        except AssertionError as e:
            bad.append(str(e).splitlines()[0][:200])
    # header length pointing past the end, re-signed
    path.write_bytes(_resign(raw[:8] + struct.pack("<Q", 1 << 50) + raw[16:-32]))
    try:
        _expect_refused(path, "header_len past the end", {"header_len"})
    except AssertionError as e:
        bad.append(str(e).splitlines()[0][:200])
    path.write_bytes(raw)
    _previous_still_good(ckpt, good)
    assert not bad, "hostile checkpoint headers not refused as CheckpointCorrupt:\n" + "\n".join(bad)


def test_malicious_pickle_never_executed(persisted, tmp_path):
    """A pickle whose unpickling runs a command, planted as the newest checkpoint (raw and behind a valid
    magic/checksum), as a ``torch.save`` file, and as an export file read by the testbed's verifier."""
    import torch
    ckpt, good = persisted
    sentinel = tmp_path / SENTINEL_NAME
    payload = pickle.dumps(Evil(sentinel))
    planted = shard_path(ckpt, JOB, 0, 2)
    for what, data in (("raw pickle", payload),
                       ("pickle behind magic + checksum", _resign(b"CMSHARD1" + struct.pack("<Q", len(payload))
                                                                  + payload)),
                       ("pickle as the JSON header", _with_header(shard_path(ckpt, JOB, 0, 1).read_bytes(),
                                                                  payload))):
        planted.write_bytes(data)
        _expect_refused(planted, what)
        assert not sentinel.exists(), f"{what}: the pickle was EXECUTED"
    tfile = tmp_path / "evil.pt"
    with open(tfile, "wb") as f:
        torch.save({"model": Evil(sentinel)}, f)
    planted.write_bytes(tfile.read_bytes())
    _expect_refused(planted, "torch.save file")
    assert not sentinel.exists()
    # the export path (planted file removed: test_export_* covers a corrupt newest file) and the verifier
    planted.unlink()
    from shadow import export
    rc = export.main(["--ckpt-dir", str(ckpt), "--job-id", str(JOB), "--iteration", "1",
                      "--torch", str(tmp_path / "out.pt")])
    assert rc == 0 and not sentinel.exists()
    from topologies import verify
    loader = next(getattr(verify, n) for n in ("load_checkpoint", "load", "_load") if hasattr(verify, n))
    with pytest.raises(Exception) as ei:
        loader(tfile)
    assert not sentinel.exists(), "topologies.verify unpickled an arbitrary object"
    assert "weights_only" in str(ei.value) or "Unsupported" in str(ei.value) or "global" in str(ei.value).lower()
    _previous_still_good(ckpt, good)


def test_export_refuses_corrupt_newest_and_exports_previous(persisted, tmp_path, capsys):
    """``checkmate export`` with a corrupted newest file: a clear error naming it (no traceback), and the
    previous iteration -- every shard's file intact -- can still be exported."""
    import torch
    from shadow import export
    ckpt, good = persisted
    newest = shard_path(ckpt, JOB, 0, 1)
    raw = bytearray(newest.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    newest.write_bytes(bytes(raw))
    rc = export.main(["--ckpt-dir", str(ckpt), "--job-id", str(JOB), "--torch", str(tmp_path / "a.pt")])
    err = capsys.readouterr().err
    assert rc == 1 and str(newest) in err and "sha256" in err, f"rc={rc}: {err}"
    assert not (tmp_path / "a.pt").exists()
    try:
        rc = export.main(["--ckpt-dir", str(ckpt), "--job-id", str(JOB), "--iteration", "0",
                          "--torch", str(tmp_path / "b.pt")])
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"export --iteration 0 crashed: {type(e).__name__}: {e}") from e
    err = capsys.readouterr().err
    assert rc == 0, f"the previous good iteration 0 cannot be exported while iteration 1 of shard 0 is corrupt: {err}"
    sd = torch.load(tmp_path / "b.pt", weights_only=True)
    assert sd["iteration"] == 0


def test_misplaced_checkpoint_refused(persisted):
    """A valid file in the wrong place (another shard's file, another iteration's file) must not be loaded
    as this shard's / iteration's checkpoint by ShardStore.load."""
    from shadow.store import ShardStore
    ckpt, good = persisted
    store = ShardStore(ckpt, JOB, 0)
    mine = shard_path(ckpt, JOB, 0, 1)
    original = mine.read_bytes()
    bad = []
    for what, src in (("shard 1's file as shard 0's", shard_path(ckpt, JOB, 1, 1)),
                      ("iteration 0's file as iteration 1's", shard_path(ckpt, JOB, 0, 0))):
        shutil.copyfile(src, mine)
        try:
            st = store.load(1)
        except CheckpointCorrupt:
            continue
        except Exception as e:  # noqa: BLE001
            bad.append(f"{what}: {type(e).__name__}: {e}")
            continue
        if (st.job_id, st.shard, st.iteration) != (JOB, 0, 1):
            bad.append(f"{what}: loaded as job {st.job_id} shard {st.shard} iteration {st.iteration}")
    mine.write_bytes(original)
    _previous_still_good(ckpt, good)
    assert not bad, "ShardStore.load does not check the file's job/shard/iteration against its name:\n" + "\n".join(bad)


def test_deeply_nested_header_refused(persisted, tmp_path):
    """A re-signed file whose JSON header nests 100 000 deep: CheckpointCorrupt, not RecursionError.
    Run in a child interpreter: a RecursionError caught in-process upsets CPython 3.11.7's AST
    recursion guard and would crash pytest's traceback rendering for later tests."""
    import subprocess
    import sys
    ckpt, _ = persisted
    path = shard_path(ckpt, JOB, 0, 1)
    path.write_bytes(_with_header(path.read_bytes(), b"[" * 100_000 + b"]" * 100_000))
    code = ("import sys\nfrom shadow.store import load_state, CheckpointCorrupt\n"
            "try:\n    load_state(sys.argv[1]); print('LOADED')\n"
            "except CheckpointCorrupt as e:\n    print('REFUSED', e.check)\n"
            "except BaseException as e:\n    print('ESCAPED', type(e).__name__)\n")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("REFUSED"), f"100 000-deep header: {r.stdout.strip() or r.stderr[-500:]}"
