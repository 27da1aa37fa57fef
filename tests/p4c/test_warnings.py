"""checkmate-p4c's warning channel: what p4c 1.2.4.8 accepts with a warning compiles, and the
warning (file:line:col + message, the words p4c uses) is kept on the compile result and
printed to stderr by the CLI."""

import re
import shutil
import subprocess

import pytest

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


def test_more_p4c_warnings_at_p4cs_positions():
    """Positions and words as p4c 1.2.4.8 prints them for the same program."""
    text = program(locals="""    action a(bit<8> unusedp) { hdr.h.a = 1; }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }
    table tc { key = { hdr.h.a: exact; 8w1: exact @name("k"); } actions = { a; NoAction; } }
    table tp { key = { hdr.h.a: exact; } actions = { a; NoAction; } @name("ap") implementation = action_profile(4); }""",
                   body="        tc.apply(); tp.apply(); sm.egress_spec = 1;").replace(
        "transition accept; }\n}", "transition select(hdr.h.a) { 0: reject; default: accept; } }\n}", 1)
    got = {(w.loc.line, w.loc.col, w.message) for w in compile_source(text, "w.p4").warnings}
    at = lambda s, d=0: (line_of(text, s)[0], line_of(text, s)[1] + d)  # noqa: E731
    assert got == {
        (*at("reject"), "Explicit transition to reject not supported on this target"),
        (*at("unusedp"), "'unusedp' is unused"),
        (*at("unusedp"), "Unused action parameter unusedp"),
        (*at("table t ", 6), "Table t is not used; removing"),
        (*at("8w1: exact"), "KeyElement: constant key element"),
        (*at("8w1: exact"), "8w1: Constant key field"),
        (*at("table tp", 6), "Target does not support default_action for I.tp (due to action profiles)"),
    }


@pytest.mark.skipif(shutil.which("p4c") is None,
                    reason="real p4c is not on PATH (CI installs it from ../shared/p4ref/install.sh)")
def test_warnings_equal_real_p4cs(tmp_path):
    """The same (line, column, message) set as p4c 1.2.4.8 prints for a program with every
    warning checkmate-p4c knows."""
    text = program(top="const tuple<bit<8>> CT = {8w1};\n", locals="""    action a(bit<8> unusedp) { hdr.h.a = 1; }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }
    table tc { key = { hdr.h.a: exact; 8w1: exact @name("k"); } actions = { a; NoAction; } }
    table tp { key = { hdr.h.a: exact; } actions = { a; NoAction; } @name("ap") implementation = action_profile(4); }""",
                   body="""        tc.apply(); tp.apply(); sm.egress_spec = 1; hdr.h.a = 8w300; hdr.h.b = -1;
        digest(1, {hdr.h.a, hdr.h.c});""").replace(
        "transition accept; }\n}", "transition select(hdr.h.a) { 0: reject; default: accept; } }\n}", 1)
    src = tmp_path / "w.p4"
    src.write_text(text)
    r = subprocess.run(["p4c", "--target", "bmv2", "--arch", "v1model", "-o", str(tmp_path),
                        "--p4runtime-files", str(tmp_path / "w.p4info.txtpb"), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = (r.stderr + r.stdout).split("\n")
    p4c = set()
    for i, ln in enumerate(lines):
        m = re.match(r".*\((\d+)\): \[--W\w+=[\w-]+\] warning: (.*)", ln)
        if m:
            p4c.add((int(m.group(1)), lines[i + 2].index("^") + 1, m.group(2)))
    ours = {(w.loc.line, w.loc.col, w.message) for w in compile_source(text, str(src)).warnings}
    assert ours == p4c
