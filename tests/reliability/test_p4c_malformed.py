"""Malformed P4 programs into ``checkmate-p4c``: syntax errors, unknown names, width mismatches,
truncated copies of p4src/checkmate.p4, binary garbage, pathological nesting.  Each must give one
clear ``file:line:col: error: message`` and exit status 1 -- never a Python traceback, never an output
file.  ``compile_file`` itself must raise only ``P4CompileError`` for bad input."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from checkmate.paths import P4SRC

P4C = Path(sys.executable).parent / "checkmate-p4c"
LOC = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error: \S.*$")
SRC = (P4SRC / "checkmate.p4").read_text()

HDR = "#include <core.p4>\n#include <v1model.p4>\n"
TAIL = """
struct m_t { bit<8> a; }
header h_t { bit<8> b; bit<16> w; }
struct hs_t { h_t h; }
parser P(packet_in p, out hs_t hdr, inout m_t m, inout standard_metadata_t s) { state start { p.extract(hdr.h); transition accept; } }
control V(inout hs_t hdr, inout m_t m) { apply { } }
control E(inout hs_t hdr, inout m_t m, inout standard_metadata_t s) { apply { } }
control C(inout hs_t hdr, inout m_t m) { apply { } }
control D(packet_out p, in hs_t hdr) { apply { p.emit(hdr.h); } }
"""


def ingress(body: str, decls: str = "") -> str:
    return (HDR + TAIL + "control I(inout hs_t hdr, inout m_t m, inout standard_metadata_t s) {\n" + decls
            + "\n    apply {\n" + body + "\n    }\n}\nV1Switch(P(), V(), I(), E(), C(), D()) main;\n")


# (id, source text or bytes, expected line or None, substring expected in the message or None)
CASES = [
    ("missing semicolon", ingress("        m.a = 1\n        m.a = 2;"), None, None),
    ("unknown field", ingress("        m.nope = 1;"), None, "nope"),
    ("unknown action in table", ingress("        t.apply();", "table t { key = { m.a: exact; } actions = { ghost; } }"),
     None, "ghost"),
    ("unknown type", ingress("        ghost_t x;"), 15, None),
    ("unknown type in parameter", ingress("", "action a(ghost_t v) { }"), None, "ghost_t"),
    ("unknown extern method", ingress("        s.ghost();"), None, "ghost"),
    ("width mismatch add", ingress("        m.a = hdr.h.b + hdr.h.w;"), None, None),
    ("width mismatch assign", ingress("        hdr.h.b = hdr.h.w;"), None, None),
    ("unknown match kind", ingress("        t.apply();", "table t { key = { m.a: fuzzy; } actions = { NoAction; } }"),
     None, "fuzzy"),
    ("undefined in key", ingress("        t.apply();", "table t { key = { m.zz: exact; } actions = { NoAction; } }"),
     None, "zz"),
    ("duplicate declaration", ingress("        bit<8> x = 1; bit<8> x = 2;"), None, "x"),
    # (an over-wide literal such as 8w300 is not here: p4c only warns and keeps the low bits, and so do
    # we -- tests/p4c/test_robustness.py)
    ("unterminated comment", ingress("        /* never closed"), None, None),
    ("unterminated string", ingress('        log_msg("never closed);'), None, None),
    ("missing include", '#include "no_such_file.p4"\n', 1, "no_such_file"),
    ("#error", "#error stop here\n", 1, "stop here"),
    ("unbalanced #if", "#if 1\ncontrol X() { apply {} }\n", None, None),
    ("no main", HDR + TAIL, None, "main"),
    ("empty file", "", None, None),
    ("only garbage punctuation", "}}}{{{;;;<<>>", 1, None),
    ("binary garbage", bytes(range(256)) * 4, None, None),
    ("NUL bytes", b"control \x00\x00\x00 {}", None, None),
    ("latin-1 in comment", (HDR + "// caf\xe9\n" + TAIL).encode("latin-1"), None, None),
    ("deep parentheses", ingress("        m.a = " + "(" * 3000 + "1" + ")" * 3000 + ";"), None, None),
    ("deep if nesting", ingress("        " + "if (m.a == 1) { " * 1500 + "}" * 1500), None, None),
    ("huge literal", ingress("        m.a = " + "9" * 5000 + ";"), None, None),
]


def _check_output(err: str, path: Path, expect_line, needle, rc: int, name: str):
    assert "Traceback" not in err, f"{name}: Python traceback instead of an error:\n{err[-1500:]}"
    assert rc == 1, f"{name}: exit status {rc}, expected 1; stderr: {err[-500:]}"
    lines = [l for l in err.strip().splitlines() if l.strip()]
    assert lines, f"{name}: no error message"
    m = LOC.match(lines[0])
    assert m, f"{name}: first line is not 'file:line:col: error: message': {lines[0]!r}"
    assert m["file"] == str(path), f"{name}: the error does not name the file {path}: {lines[0]!r}"
    if expect_line is not None:
        assert int(m["line"]) == expect_line, f"{name}: error at line {m['line']}, expected {expect_line}: {lines[0]}"
    if needle is not None:
        assert needle in lines[0], f"{name}: message does not name {needle!r}: {lines[0]}"


@pytest.mark.parametrize("name,src,line,needle", CASES, ids=[c[0] for c in CASES])
def test_p4c_reports_file_line_col(tmp_path, capsys, name, src, line, needle):
    """In-process ``switch.p4c_cli.main`` (the console script's entry point)."""
    from switch import p4c_cli
    path = tmp_path / "bad.p4"
    path.write_bytes(src if isinstance(src, bytes) else src.encode())
    out = tmp_path / "out"
    if name.startswith("deep"):  # RecursionError in-process upsets CPython 3.11.7's AST guard: use the CLI
        r = subprocess.run([str(P4C), str(path), "-o", str(out)], capture_output=True, text=True, timeout=120)
        _check_output(r.stderr, path, line, needle, r.returncode, name)
        return
    try:
        rc = p4c_cli.main([str(path), "-o", str(out)])
    except SystemExit as e:  # argparse only
        rc = e.code
    except BaseException as e:  # noqa: BLE001 -- an escaping exception is a traceback for the user
        import traceback
        rc, err = -1, "Traceback (escaped from main)\n" + "".join(traceback.format_exception(e))[-1500:]
        _check_output(err, path, line, needle, rc, name)
    err = capsys.readouterr().err
    _check_output(err, path, line, needle, rc, name)
    assert not list(out.glob("*.json")) if out.exists() else True, f"{name}: wrote output for a bad program"


def test_p4c_truncated_checkmate_p4(tmp_path):
    """p4src/checkmate.p4 cut at 60 places: each copy compiles or raises P4CompileError with file:line:col."""
    from switch.compiler import P4CompileError, compile_file
    rng = random.Random(4)
    cuts = sorted({rng.randrange(1, len(SRC) - 1) for _ in range(55)} | {1, 10, len(SRC) // 2, len(SRC) - 2})
    path = tmp_path / "checkmate.p4"
    bad = []
    for n in cuts:
        path.write_text(SRC[:n])
        try:
            compile_file(path)
        except P4CompileError as e:
            if not LOC.match(f"{e.loc}: error: {e.message}") or not str(e.loc).startswith(str(path)):
                bad.append((n, f"badly located: {e.loc}: {e.message}"))
        except Exception as e:  # noqa: BLE001
            bad.append((n, f"{type(e).__name__}: {e}"))
    assert not bad, f"{len(bad)} truncations escaped as non-P4CompileError: {bad[:5]}"


def test_p4c_byte_flipped_checkmate_p4(tmp_path):
    """200 copies of p4src/checkmate.p4 with 1-3 random printable bytes replaced: compile or P4CompileError."""
    from switch.compiler import P4CompileError, compile_file
    rng = random.Random(8)
    path = tmp_path / "checkmate.p4"
    bad = []
    for _ in range(200):
        s = list(SRC)
        for _ in range(rng.randint(1, 3)):
            s[rng.randrange(len(s))] = rng.choice("{}();<>=+-*/&|!~^:.,[]#\"'0123456789abcxyz \n")
        path.write_text("".join(s))
        try:
            compile_file(path)
        except P4CompileError:
            pass
        except Exception as e:  # noqa: BLE001
            bad.append(f"{type(e).__name__}: {str(e)[:120]}")
    assert not bad, f"{len(bad)} mutated programs escaped as non-P4CompileError: {sorted(set(bad))[:6]}"


@pytest.mark.parametrize("kind", ["syntax", "binary"])
def test_p4c_console_script(tmp_path, kind):
    """The real ``checkmate-p4c`` console script: exit 1, one located error, no traceback."""
    path = tmp_path / "bad.p4"
    if kind == "syntax":
        path.write_text(ingress("        m.a = = 1;"))
    else:
        path.write_bytes(b"\xff\xfe\x00garbage\x80\x81")
    r = subprocess.run([str(P4C), str(path), "-o", str(tmp_path / "out")], capture_output=True, text=True,
                       timeout=60)
    _check_output(r.stderr, path, None, None, r.returncode, kind)
