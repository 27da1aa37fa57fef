"""checkmate/native.py, the build helper of the C kernels: the switches, the cache, a compiler error."""
from __future__ import annotations

import shutil

import pytest

from checkmate import native

needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")


@pytest.mark.parametrize("env, on", [({}, True), ({"CHECKMATE_NATIVE": "0"}, False),
                                     ({"CHECKMATE_X_NATIVE": "0"}, False), ({"CHECKMATE_NATIVE": "1"}, True)])
def test_switches(monkeypatch, env, on):
    for k in ("CHECKMATE_NATIVE", "CHECKMATE_X_NATIVE"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert native.enabled("CHECKMATE_X_NATIVE") == on


@needs_cc
def test_built_once_per_source_and_flags_then_taken_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKMATE_NATIVE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.c"
    src.write_text("int k(int x) { return x + 1; }\n")
    a = native.build(src, native.BASE_CFLAGS)
    stamp = a.stat().st_mtime_ns
    assert native.build(src, native.BASE_CFLAGS) == a and a.stat().st_mtime_ns == stamp  # not rebuilt
    assert native.load(src, native.BASE_CFLAGS, "test kernel").k(41) == 42
    b = native.build(src, native.BASE_CFLAGS + ("-DX=1",))  # other flags: another library
    src.write_text("int k(int x) { return x + 2; }\n")
    c = native.build(src, native.BASE_CFLAGS)  # an edited source: rebuilt under another name
    assert len({a, b, c}) == 3
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".")]  # no temporaries left


@needs_cc
def test_a_compiler_error_is_reported_and_load_falls_back(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("CHECKMATE_NATIVE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "bad.c"
    src.write_text("int k(int x) { return x + ; }\n")
    with pytest.raises(RuntimeError, match="could not build .*bad.c"):
        native.build(src, native.BASE_CFLAGS)
    assert native.load(src, native.BASE_CFLAGS, "the bad kernel") is None
    assert "the bad kernel unavailable" in caplog.text
