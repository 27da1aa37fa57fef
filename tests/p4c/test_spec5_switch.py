"""A ``switch`` on a run-time value with two equal labels: the P4-16 spec makes it a
compile-time error; p4c 1.2.4.8 accepts it, but the table its BMv2 back end makes of the switch
then holds two const entries with one key, which simple_switch refuses to load ("Duplicate
entries in table initializer").  checkmate-p4c compiles it as p4c does (helper errs15; it refused
it before), and checkmate-switch refuses the build as BMv2 refuses p4c's JSON, naming the second
label.  A switch on a compile-time constant is folded away by both compilers, so equal labels
there load."""
from __future__ import annotations

import json

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import compile_source
from switch.runtime import InvalidEntry, Pipeline

DUP = "        switch (hdr.h.a) { 1: { hdr.h.c = 10; } 2: { hdr.h.c = 5; } 8w1: { hdr.h.c = 20; } }"


def test_equal_labels_compile_and_the_build_is_refused_at_the_second():
    text = program(body=DUP)
    cfg = compile_source(text, "prog.p4").device_config
    with pytest.raises(InvalidEntry) as ei:
        Pipeline(cfg)
    line, col = line_of(text, "8w1:")
    assert f"prog.p4:{line}:{col}: switch label 1 appears more than once: Duplicate entries" in str(ei.value), str(ei.value)


def test_p4c_output_has_the_duplicate_entries(tmp_path):
    """What makes BMv2 refuse the program: p4c's table for the switch, two entries for key 1."""
    if p4c_accepts(program(body=DUP), tmp_path) is None:
        pytest.skip("needs real p4c (p4c not on PATH)")
    conf = json.loads((tmp_path / "prog.json").read_text())
    keys = [e["match_key"][0]["key"] for t in conf["pipelines"][0]["tables"] if t["name"].startswith("switch_")
            for e in t.get("entries", [])]
    assert keys.count("0x01") == 2, keys


def test_equal_labels_of_a_constant_switch_accepted():
    compile_source(program(body="        switch (8w1) { 1: { hdr.h.c = 10; } 1: { hdr.h.c = 20; } }"), "prog.p4")
