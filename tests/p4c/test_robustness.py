"""Pathological input gives a located P4CompileError, never a Python exception: bad
encodings, deep nesting, huge literals, a missing main, duplicate declarations."""
import sys

import pytest

from p4c_helpers import line_of, program
from switch.compiler import P4CompileError, compile_file, compile_source
from switch.compiler.parser import MAX_NESTING


def err(text: str) -> P4CompileError:
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    return ei.value


@pytest.mark.parametrize("data,line,col", [
    (b"\xff\xfe\x00garbage", 1, 1),
    (b"#include <core.p4>\n// caf\xe9\n", 2, 7),
    (b"control C() {\n  apply { }\n}  \x80", 3, 4),
])
def test_non_utf8_file_is_located(tmp_path, data, line, col):
    p = tmp_path / "bad.p4"
    p.write_bytes(data)
    with pytest.raises(P4CompileError) as ei:
        compile_file(p)
    e = ei.value
    assert (e.loc.file, e.loc.line, e.loc.col) == (str(p), line, col)
    assert "UTF-8" in e.message


def test_non_utf8_include_is_located_in_the_include(tmp_path):
    (tmp_path / "inc.p4").write_bytes(b"const bit<8> X = 1;\n/* \xe9 */\n")
    p = tmp_path / "main.p4"
    p.write_text('#include "inc.p4"\n')
    with pytest.raises(P4CompileError) as ei:
        compile_file(p)
    assert ei.value.loc.file.endswith("inc.p4") and ei.value.loc.line == 2


def test_byte_order_mark_is_skipped(tmp_path):
    # cpp skips a UTF-8 byte order mark at the start of a file (Windows editors write one);
    # p4c 1.2.4.8 compiles such files, checkmate-p4c refused U+FEFF (helper corpus14)
    (tmp_path / "inc.p4").write_bytes(b"\xef\xbb\xbfconst bit<8> X = 1;\n")
    p = tmp_path / "main.p4"
    p.write_bytes(b"\xef\xbb\xbf" + program(body="        hdr.h.a = X;").replace(
        "#include <core.p4>", '#include <core.p4>\n#include "inc.p4"', 1).encode())
    compile_file(p)


@pytest.mark.parametrize("body", [
    "hdr.h.a = " + "(" * 3000 + "1" + ")" * 3000 + ";",
    "hdr.h.a = " + "-" * 3000 + "hdr.h.a;",
    "hdr.h.a = " + "(bit<8>)" * 3000 + "hdr.h.a;",
    "hdr.h.a = hdr.h.a" + " + 1" * 3000 + ";",
    "hdr.h.a = " + "hdr.h.a + (" * 3000 + "1" + ")" * 3000 + ";",
    "if (hdr.h.a == 1) { " * 1500 + "}" * 1500,
    "if (hdr.h.a == 1) " * 1500 + ";",
    "{ " * 3000 + "}" * 3000,
    "hdr.h.a = " + "{" * 3000 + "}" * 3000 + ";",
])
def test_deep_nesting_is_a_located_error(body):
    limit = sys.getrecursionlimit()
    text = program(body="        " + body)
    e = err(text)
    assert "nesting too deep" in e.message
    assert e.loc.file == "prog.p4" and e.loc.line == line_of(text, body[:20])[0]
    assert sys.getrecursionlimit() == limit  # restored


@pytest.mark.parametrize("body", [
    "hdr.h.a = " + "(" * (MAX_NESTING - 4) + "1" + ")" * (MAX_NESTING - 4) + ";",
    "hdr.h.a = hdr.h.a" + " + 1" * (MAX_NESTING - 4) + ";",
    "if (hdr.h.a == 1) { " * (MAX_NESTING - 4) + "hdr.h.a = 2;" + "}" * (MAX_NESTING - 4),
])
def test_nesting_below_the_limit_compiles_and_loads(body):
    from switch.runtime import Pipeline
    Pipeline(compile_source(program(body="        " + body), "prog.p4").device_config)


@pytest.mark.parametrize("lit,msg", [
    ("9" * 5000, "integer literal too long"),
    ("0x" + "f" * 20000, "integer literal too long"),
    ("99999999w1", "too large"),
    ("70000w1", "too large"),
    ("5000w1", "too large"),
])
def test_huge_literals_are_located(lit, msg):
    text = program(body=f"        hdr.h.a = {lit};")
    e = err(text)
    assert msg in e.message and len(e.message) < 200
    assert (e.loc.line, e.loc.col) == line_of(text, lit[:10])


@pytest.mark.parametrize("lit,value", [("300", 44), ("8w300", 44), ("8w0x" + "f" * 1000, 255), ("-1", 255)])
def test_too_wide_literal_keeps_its_low_bits(lit, value):
    """p4c 1.2.4.8 only warns when a literal does not fit its type, and keeps the low bits."""
    prog = compile_source(program(body=f"        hdr.h.a = {lit};"), "prog.p4")
    assert f"'v': {value}, 't': ['bit', 8]" in str(prog.device_config["blocks"]["ingress"]["body"])


def test_decimal_literal_at_the_digit_limit_compiles():
    compile_source(program(body="        hdr.h.a = (bit<8>)(" + "0" * 3990 + "7);"), "prog.p4")


@pytest.mark.parametrize("text", ["", "\n\n", "#include <core.p4>\n#include <v1model.p4>\n"])
def test_no_main_names_the_file(tmp_path, text):
    p = tmp_path / "nomain.p4"
    p.write_text(text)
    with pytest.raises(P4CompileError) as ei:
        compile_file(p)
    assert ei.value.loc.file == str(p) and "main" in ei.value.message
    assert str(ei.value).startswith(f"{p}:1:1: ")


@pytest.mark.parametrize("body,second", [
    ("bit<8> x = 1; bit<8> x = 2;", "bit<8> x = 2"),
    ("bit<8> x = 1; bit<16> x = 2;", "bit<16> x"),
    ("const bit<8> k = 1; bit<8> k = 2;", "bit<8> k = 2"),
    ("if (true) { bit<8> y; bit<8> y; }", "bit<8> y; }"),
])
def test_duplicate_local_declaration(body, second):
    text = program(body="        " + body)
    e = err(text)
    assert "duplicate declaration" in e.message
    assert (e.loc.line, e.loc.col) == line_of(text, second)


def test_duplicate_control_local_declaration():
    text = program(locals="    bit<8> z;\n    bit<8> z;")
    e = err(text)
    assert "duplicate declaration of 'z'" in e.message and e.loc.line == line_of(text, "bit<8> z;")[0] + 1


@pytest.mark.parametrize("body", [
    "bit<8> x = 1; { bit<8> x = 2; hdr.h.a = x; }",   # shadowing an outer scope is allowed
    "if (true) { bit<8> y = 1; } else { bit<8> y = 2; }",
    "{ bit<8> y = 1; } { bit<8> y = 2; }",
])
def test_same_name_in_different_scopes_compiles(body):
    compile_source(program(body="        " + body), "prog.p4")
