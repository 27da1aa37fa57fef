"""Finding the pipeline: each target's pair side by side in build/, on-the-fly compile, stale builds."""
import json
import os
import shutil

import pytest
from google.protobuf import text_format

from controller.artifacts import artifact_paths, build, load_artifacts
from controller.errors import ControllerError

NO_P4C = "real p4c is not on PATH (CI installs it from ../shared/p4ref/install.sh)"


def test_compiles_when_build_missing(tmp_path, compiled_artifacts):
    art = load_artifacts(tmp_path / "nope")
    assert art.source.startswith("compiled") and art.target == "embedded"
    assert art.index.id("tables", "shard_map") == compiled_artifacts.index.id("tables", "shard_map")


def _write(d, target, p4info, cfg):
    info, js = artifact_paths(d, target)
    d.mkdir(exist_ok=True)
    info.write_text(text_format.MessageToString(p4info))
    js.write_bytes(cfg)


def test_targets_side_by_side_and_stale_bmv2(tmp_path, compiled_artifacts, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no p4c: a stale BMv2 pair cannot be rebuilt
    src = tmp_path / "prog.p4"
    src.write_text("// stand-in source")
    os.utime(src, (1, 1))
    b = tmp_path / "b"
    _write(b, "bmv2", compiled_artifacts.p4info, b'{"header_types": [], "pipelines": []}')
    _write(b, "embedded", compiled_artifacts.p4info, compiled_artifacts.device_config)
    art = load_artifacts(b, program=src, target="bmv2")
    assert art.target == "bmv2" and art.source.endswith("checkmate.bmv2.json")
    emb = load_artifacts(b, program=src)  # the BMv2 pair beside it does not disturb the embedded one
    assert emb.target == "embedded" and emb.device_config == compiled_artifacts.device_config
    os.utime(src, None)  # source now newer than both pairs
    with pytest.raises(ControllerError, match="older than .*prog.p4, and p4c is not on PATH"):
        load_artifacts(b, program=src, target="bmv2")
    with pytest.raises(ControllerError, match="no build artifacts"):
        load_artifacts(tmp_path / "empty", program=src, allow_compile=False)
    assert json.loads(compiled_artifacts.device_config)


def test_a_pair_in_the_wrong_slot_is_named(tmp_path, compiled_artifacts):
    _write(tmp_path, "bmv2", compiled_artifacts.p4info, compiled_artifacts.device_config)
    with pytest.raises(ControllerError, match="not a bmv2 device config"):
        load_artifacts(tmp_path, program=tmp_path / "absent.p4", target="bmv2")


def test_make_build_without_p4c_writes_the_embedded_pair(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    arts = build(build_dir=tmp_path)
    assert [a.target for a in arts] == ["embedded"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkmate.embedded.json",
                                                         "checkmate.embedded.p4info.txtpb"]
    assert load_artifacts(tmp_path, allow_compile=False).source.endswith("checkmate.embedded.json")


@pytest.mark.skipif(shutil.which("p4c") is None, reason=NO_P4C)
def test_make_build_with_p4c_writes_both_pairs(tmp_path):
    arts = build(build_dir=tmp_path)
    assert [a.target for a in arts] == ["embedded", "bmv2"]
    bm = load_artifacts(tmp_path, allow_compile=False, target="bmv2")
    emb = load_artifacts(tmp_path, allow_compile=False, target="embedded")
    assert bm.target == "bmv2" and emb.target == "embedded"
    # the same control-plane names on both targets
    assert sorted(bm.index.names("tables")) == sorted(emb.index.names("tables"))
    assert sorted(bm.index.names("counters")) == sorted(emb.index.names("counters"))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".p4c-")]  # no temp folder left


def test_switch_auto_needs_a_bmv2_pipeline(tmp_path, monkeypatch):
    """--switch auto picks BMv2 only when its pipeline can be had (p4c, or a built BMv2 pair)."""
    from topologies import net
    monkeypatch.setattr(net.BMv2Switch, "available", staticmethod(lambda: True))
    monkeypatch.setattr("controller.artifacts.BUILD", tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert net.switch_class("auto") is net.EmbeddedSwitch
    info, js = artifact_paths(tmp_path, "bmv2")
    js.write_text("{}")
    assert net.switch_class("auto") is net.BMv2Switch
    assert net.switch_class("embedded") is net.EmbeddedSwitch
