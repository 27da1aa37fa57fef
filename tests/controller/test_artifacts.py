"""Finding the pipeline: build/ artifacts, on-the-fly compile, stale builds."""
import json
import os

import pytest
from google.protobuf import text_format

from controller.artifacts import load_artifacts
from controller.errors import ControllerError


def test_compiles_when_build_missing(tmp_path, compiled_artifacts):
    art = load_artifacts(tmp_path / "nope")
    assert art.source.startswith("compiled") and art.target == "embedded"
    assert art.index.id("tables", "shard_map") == compiled_artifacts.index.id("tables", "shard_map")


def _write(d, p4info, cfg):
    d.mkdir(exist_ok=True)
    (d / "checkmate.p4info.txtpb").write_text(text_format.MessageToString(p4info))
    (d / "checkmate.json").write_bytes(cfg)


def test_reads_build_and_detects_bmv2(tmp_path, compiled_artifacts):
    src = tmp_path / "prog.p4"
    src.write_text("// stand-in source")
    os.utime(src, (1, 1))
    _write(tmp_path / "b", compiled_artifacts.p4info, b'{"header_types": [], "pipelines": []}')
    art = load_artifacts(tmp_path / "b", program=src)
    assert art.target == "bmv2" and art.source.endswith("checkmate.json")
    os.utime(src, None)  # source now newer than the BMv2 build
    with pytest.raises(ControllerError, match="older than .*prog.p4; run `make build` again"):
        load_artifacts(tmp_path / "b", program=src)
    with pytest.raises(ControllerError, match="no build artifacts"):
        load_artifacts(tmp_path / "empty", program=src, allow_compile=False)
    assert json.loads(compiled_artifacts.device_config)
