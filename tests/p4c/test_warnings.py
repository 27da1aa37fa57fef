"""checkmate-p4c's warning channel: what p4c 1.2.4.8 accepts with a warning compiles, and the
warning (file:line:col + message, the words p4c uses) is kept on the compile result and
printed to stderr by the CLI."""

from p4c_helpers import line_of, program
from switch.compiler import compile_source
from switch.p4c_cli import main

BODY = "        hdr.h.a = 8w300; hdr.h.b = 70000; bit<8> z = 256; hdr.h.c = z; if (hdr.h.a == 9) { hdr.h.a = -1; }"


def test_over_wide_and_negative_literals_warn_where_p4c_does():
    text = program(body=BODY)
    got = [(w.loc.line, w.loc.col, w.message) for w in compile_source(text, "w.p4").warnings]
    line = line_of(text, "8w300")[0]
    col = lambda s: line_of(text, s)[1]  # noqa: E731
    assert got == [(line, col("8w300"), "8w300: value does not fit in 8 bits"),
                   (line, col("70000"), "16w70000: value does not fit in 16 bits"),
                   (line, col("256"), "8w256: value does not fit in 8 bits"),
                   (line, col("-1") + 1, "-8w1: negative value with unsigned type")]


def test_literals_that_fit_do_not_warn():
    assert compile_source(program(body="        hdr.h.a = 8w255; hdr.h.b = 65535; hdr.h.c = 8w0;"),
                          "ok.p4").warnings == []


def test_cli_prints_warnings_to_stderr_and_succeeds(tmp_path, capsys):
    src = tmp_path / "w.p4"
    src.write_text(program(body="        hdr.h.a = 8w300;"))
    assert main([str(src), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    line, col = line_of(src.read_text(), "8w300")
    assert f"{src}:{line}:{col}: warning: 8w300: value does not fit in 8 bits" in err
    assert (tmp_path / "out" / "w.json").exists()
