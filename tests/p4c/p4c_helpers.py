"""Helpers of the compiler tests: a minimal v1model program with holes to fill."""
from __future__ import annotations

TEMPLATE = """#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<16> b; bit<8> c; }}
{top}
struct meta_t {{ bit<8> x; bit<16> y; }}
struct headers {{ h_t h; }}
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control VC(inout headers hdr, inout meta_t m) {{ apply {{ }} }}
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{
{locals}
    apply {{
{body}
    }}
}}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers hdr, inout meta_t m) {{ apply {{ }} }}
control D(packet_out pkt, in headers hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program(top: str = "", locals: str = "", body: str = "") -> str:
    return TEMPLATE.format(top=top, locals=locals, body=body)


def with_stack(text: str) -> str:
    """``text`` (from program()) with a two-element stack ``hs`` of ``h_t`` beside ``h`` in the headers."""
    return text.replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[2] hs; }")


def line_of(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of ``needle``."""
    for i, ln in enumerate(text.split("\n"), 1):
        j = ln.find(needle)
        if j >= 0:
            return i, j + 1
    raise AssertionError(f"{needle!r} not in program")


def assert_rejected_on_line(src: str, needle: str, msg: str, twin: str) -> None:
    """checkmate-p4c refuses ``src`` with an error at the line of ``needle`` (file:line:col) whose
    message matches ``msg``, and compiles ``twin`` (the program before the mutation)."""
    import re

    import pytest

    from switch.compiler import P4CompileError, compile_source
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "mut.p4")
    e = ei.value
    line, _ = line_of(src, needle)
    assert re.match(rf"mut\.p4:{line}:\d+: ", str(e)), str(e)
    assert re.search(msg, e.message), e.message
    compile_source(twin, "twin.p4")


def assert_refused_as_p4c(src: str, culprit: str, words: str, tmp_path) -> None:
    """checkmate-p4c refuses ``src`` at the line of ``culprit`` (``prog.p4:LINE:``) with an error
    matching ``words``; with p4c installed, p4c refuses it too."""
    import re

    import pytest

    from switch.compiler import P4CompileError, compile_source
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, _ = line_of(src, culprit)
    assert str(ei.value).startswith(f"prog.p4:{line}:") and re.search(words, str(ei.value)), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False), "p4c accepts it"


def p4c_accepts(text: str, tmp_path) -> bool | None:
    """Real p4c's verdict on ``text`` (True: it compiles), None when p4c is not installed --
    so a test can also check that a program it calls valid or invalid is so for p4c."""
    from switch.bmv2json.p4c import P4cFailed, p4c_path, run_p4c

    if p4c_path() is None:
        return None
    src = tmp_path / "prog.p4"
    src.write_text(text)
    try:
        run_p4c(src, tmp_path, timeout=120)
    except P4cFailed:
        return False
    return True


def assert_p4info_as_p4c(text: str, info, tmp_path) -> None:
    """With p4c installed: checkmate-p4c's P4Info ``info`` for ``text`` equals real p4c's, as the
    canonical text both sides are compared by (nothing is checked without p4c)."""
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    from switch.bmv2json.p4c import p4c_path, run_p4c
    from switch.compiler.p4info import canonical_text

    if p4c_path() is None:
        return
    src = tmp_path / "prog.p4"
    src.write_text(text)
    _, p4info_path = run_p4c(src, tmp_path, timeout=120)
    ref = text_format.Parse(p4info_path.read_text(), p4info_pb2.P4Info())
    assert canonical_text(info) == canonical_text(ref)
