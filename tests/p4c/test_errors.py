"""Bad programs give file:line:col errors that say what was expected."""
import pytest

from p4c_helpers import line_of, program
from switch.compiler import P4CompileError, compile_source


def err(text: str) -> P4CompileError:
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    return ei.value


@pytest.mark.parametrize("body,needle,msg", [
    ("hdr.h.a = hdr.h.b;", "hdr.h.b", r"type mismatch: expected bit<8>, got bit<16>"),
    ("hdr.h.a = hdr.h.a + hdr.h.b;", "+ hdr.h.b", r"width mismatch: bit<8> \+ bit<16>"),
    ("hdr.h.a = nosuch;", "nosuch", r"unknown name nosuch"),
    ("hdr.h.zz = 1;", "zz", r"header h_t has no field zz"),
    ("hdr.h.a = hdr.h.a << -1;", "-1", r"shift by a negative amount"),
    ("hdr.h.a = hdr.h.a[8:1];", "[8:1]", r"slice \[8:1\] out of range for bit<8>"),
    ("nosuch_table.apply();", "nosuch_table", r"unknown function or action|nosuch_table"),
    ("if (hdr.h.a) { }", "hdr.h.a)", r"expected bool, got bit<8>"),
    ("hdr.h.a = (bit<8>) hdr.h.isValid();", "(bit<8>)", r"cannot cast bool to bit<8>"),
])
def test_semantic_errors_point_at_the_culprit(body, needle, msg):
    text = program(body="        " + body)
    e = err(text)
    line, col = line_of(text, needle)
    assert e.loc.file == "prog.p4" and e.loc.line == line
    assert str(e).startswith(f"prog.p4:{line}:")
    assert e.loc.col == col or needle in ("nosuch_table",), (str(e), col)
    import re
    assert re.search(msg, e.message), e.message


def test_syntax_error_says_what_was_expected():
    text = program(body="        hdr.h.a = 1")
    e = err(text)
    line, _ = line_of(text, "    }\n}\ncontrol E".split("\n")[0] + "") if False else (None, None)
    assert "expected ';'" in e.message
    assert str(e).startswith("prog.p4:")


def test_unsupported_constructs_are_errors():
    text = program(top="header_union u_t { h_t a; bit<8> b; }")
    e = err(text)
    assert "header_union u_t: member b must be a header" in e.message
    assert (e.loc.line, e.loc.col) == line_of(text, "b; }")
    e = err(program(body="        for (bit<8> i in 1 .. hdr.h.a) { }"))   # (a constant range is taken: fuzz22)
    assert "compile-time constant" in e.message
    e = err(program(body="        break;"))
    assert "break outside a for loop" in e.message
    e = err(program(locals="    value_set<bit<8>>(4) vs;"))
    assert "value_set is only allowed in a parser" in e.message
    # p4c 1.2.4.8 accepts a selector key without an action_selector and drops it
    ir = compile_source(program(locals="""    action a() { }
    table t { key = { hdr.h.a : selector; } actions = { a; } @name("ap") implementation = action_profile(4); }"""),
                        "prog.p4").device_config
    assert [len(t["keys"]) for t in ir["tables"]] == [0]
    e = err(program(locals="    Checksum16() ck;"))   # (p4c: at v1model.p4's declaration)
    assert "Checksum16: unknown extern instance" in e.message and e.loc.file.endswith("v1model.p4")
    e = err(program(body="        update_checksum(true, { hdr.h.a }, hdr.h.b, HashAlgorithm.csum16);"))
    assert "belongs in the compute checksum control" in e.message


def test_header_must_be_byte_aligned():
    # once used (p4c accepts the declaration alone: tests/p4c/test_used_only_errors.py)
    e = err(program(top="header odd_t { bit<7> a; }", locals="    odd_t o;"))
    assert "not a multiple of 8" in e.message


def test_table_errors():
    t = """    action a(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a : fuzzy; } actions = { a; } }"""
    assert "unsupported match kind fuzzy" in err(program(locals=t)).message
    t = """    action a(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a : exact; } actions = { a; } default_action = b(); }"""
    assert "unknown action b" in err(program(locals=t)).message


def test_missing_include_and_preprocessor_errors(tmp_path):
    e = err('#include "nothere.p4"\n')
    assert "cannot find include file 'nothere.p4'" in e.message and e.loc.line == 1
    e = err("#if 1\nconst bit<8> X = 1;\n")
    assert "missing #endif" in e.message
    e = err("/* never closed\n")
    assert "unterminated" in e.message


def test_cli_reports_errors(tmp_path, capsys):
    from switch.p4c_cli import main

    src = tmp_path / "bad.p4"
    src.write_text(program(body="        hdr.h.a = hdr.h.b;"))
    assert main([str(src), "-o", str(tmp_path / "out")]) == 1
    errline = capsys.readouterr().err.strip()
    line, col = line_of(src.read_text(), "hdr.h.b")
    assert errline.startswith(f"{src}:{line}:") and "error: type mismatch" in errline


def test_name_twin_actions_cannot_be_listed_by_a_table():
    """Two actions @name'd alike with different bodies compile while only called directly
    (p4c inlines the calls) or listed by different tables (one P4Info action, a body per
    table); one table listing both is an error, as p4c's JSON fails."""
    twins = ('    @name("same") action a1() { hdr.h.a = 1; }\n'
             '    @name("same") action a2() { hdr.h.a = 2; }\n')
    compile_source(program(locals=twins, body="        a1(); a2();"), "prog.p4")
    text = program(locals=twins + "    table t { key = { hdr.h.a : exact; } actions = { a1; a2; } }",
                   body="        t.apply();")
    compile_source(program(locals=twins + "    table t { key = { hdr.h.a : exact; } actions = { a1; } }\n"
                                           "    table u { key = { hdr.h.b : exact; } actions = { a2; } }",
                           body="        t.apply(); u.apply();"), "prog.p4")
    e = err(text)
    assert "action a2 is named" in e.message and "same" in e.message
    assert (e.loc.line, e.loc.col) == line_of(text, "a2; }")
