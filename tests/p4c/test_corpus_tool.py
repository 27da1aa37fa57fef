"""tools/p4c_corpus.py's --frames comparison (no p4c needed: two checkmate-p4c builds)."""
from p4c_helpers import program
from switch.compiler import compile_source
from tools.p4c_corpus import frame_outputs, frames_differ, probe_frames


def _cfg(body: str) -> dict:
    return compile_source(program(body=body), "t.p4").device_config


def test_probe_frames_are_fixed():
    a, b = probe_frames(), probe_frames()
    assert a == b and len(a) == 20 and min(map(len, a)) >= 14


def test_same_program_same_outputs_and_a_difference_is_named():
    frames = probe_frames()
    fwd = frame_outputs(_cfg("        sm.egress_spec = 2;"), frames)
    assert frames_differ(fwd, frame_outputs(_cfg("        sm.egress_spec = 2;"), frames)) == ""
    other = frame_outputs(_cfg("        sm.egress_spec = 2; if (hdr.h.a == 0) { hdr.h.c = 1; }"), frames)
    d = frames_differ(fwd, other)
    assert d.startswith("frame 0:"), d   # frame 0 begins with a zero byte (h.a)
    assert frames_differ(fwd, fwd[:-1]) == "different numbers of results"
