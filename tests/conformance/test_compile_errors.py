"""Compile errors: every bad program raises switch.compiler.P4CompileError whose text is
``file:line:col: message`` pointing at the offending line (as p4c does).

Each case is the same small valid program with one line replaced (the line marked
``@@``), so the expected line number is known exactly.  The unmodified program must
compile, so every failure below is caused by the one edit.
"""
import re

import pytest

TEMPLATE = """\
#include <core.p4>
#include <v1model.p4>
@@TOP
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header t_t { bit<8> a; bit<16> w; }
struct headers_t { ethernet_t eth; t_t t; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_a(bit<8> v) { hdr.t.a = v; }
    table t {
        key = { hdr.t.a : exact; }
        actions = { set_a; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        @@BODY
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
"""

TOP_LINE = TEMPLATE.splitlines().index("@@TOP") + 1
BODY_LINE = next(i for i, ln in enumerate(TEMPLATE.splitlines(), 1) if "@@BODY" in ln)


def render(body="", top=""):
    return TEMPLATE.replace("@@TOP", top).replace("@@BODY", body)


def compile_text(tmp_path, text, name="prog.p4"):
    from switch.compiler import compile_file

    path = tmp_path / name
    path.write_text(text)
    return compile_file(str(path)), path


def expect_error(tmp_path, text, lines):
    from switch.compiler import P4CompileError

    path = tmp_path / "bad.p4"
    path.write_text(text)
    from switch.compiler import compile_file

    with pytest.raises(P4CompileError) as ei:
        compile_file(str(path))
    msg = str(ei.value)
    m = re.match(r"^(.*?):(\d+):(\d+): (.+)", msg, re.S)
    assert m, f"not file:line:col: message -> {msg!r}"
    fname, line, col, text_ = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    assert fname.endswith("bad.p4"), msg
    assert line in lines, f"expected line {lines}, got {msg!r}"
    assert col >= 1 and text_.strip(), msg
    return msg


def test_template_compiles(tmp_path):
    prog, _ = compile_text(tmp_path, render())
    assert any(t.preamble.name == "MyIngress.t" for t in prog.p4info.tables)


@pytest.mark.parametrize("body", [
    "hdr.t.a = = 1;",
    "hdr.t.a = 1",          # missing ';' -> reported where the next token is? see below
    "if (hdr.t.a == 1 { }",
    "hdr.t.a = 1 +;",
])
def test_syntax_error(tmp_path, body):
    lines = {BODY_LINE}
    if body.endswith("1"):
        lines = {BODY_LINE, BODY_LINE + 1}   # p4c reports the token after the missing ';'
    msg = expect_error(tmp_path, render(body), lines)
    assert "expect" in msg.lower(), f"a syntax error should say what was expected: {msg!r}"


@pytest.mark.parametrize("body", [
    "hdr.t.a = hdr.t.w;",                 # bit<16> to bit<8> without a cast
    "hdr.t.w = hdr.t.a ++ hdr.t.a ++ hdr.t.a;",   # bit<24> to bit<16>
    "bit<8> x = 16w5;",
    "if (hdr.t.a) { }",                   # bit<8> is not bool
    "hdr.t.a = hdr.t.a + hdr.t.w;",       # operands of different widths
])
def test_type_or_width_mismatch(tmp_path, body):
    expect_error(tmp_path, render(body), {BODY_LINE})


@pytest.mark.parametrize("body", [
    "hdr.t.nosuch = 1;",
    "undefined_var = 1;",
    "nosuch_table.apply();",
    "set_b(1);",
    "hdr.t.a = error.NoSuchError == error.NoError ? 8w1 : 8w0;",
])
def test_unknown_name(tmp_path, body):
    expect_error(tmp_path, render(body), {BODY_LINE})


def test_wrong_action_argument_count(tmp_path):
    expect_error(tmp_path, render("set_a(1, 2);"), {BODY_LINE})


def test_unknown_type(tmp_path):
    expect_error(tmp_path, render(top="header bad_t { nosuch_t f; }"), {TOP_LINE})


def test_missing_include(tmp_path):
    expect_error(tmp_path, render(top='#include "does_not_exist.p4"'), {TOP_LINE})


def test_unsupported_user_extern(tmp_path):
    # a user-defined extern has no implementation on the v1model target (p4c-bm2-ss
    # rejects it too); the error must point at its declaration, instance or call
    top = "extern Foo { Foo(); void go(); }"
    text = render(top=top, body="foo.go();").replace(
        "    action set_a", "    Foo() foo;\n    action set_a", 1)
    decl = TOP_LINE
    inst = text.splitlines().index("    Foo() foo;") + 1
    call = next(i for i, ln in enumerate(text.splitlines(), 1) if "foo.go();" in ln)
    expect_error(tmp_path, text, {decl, inst, call})


def test_error_in_included_file_names_that_file(tmp_path):
    from switch.compiler import P4CompileError, compile_file

    inc = tmp_path / "inc_bad.p4"
    inc.write_text("// helper\nconst bit<8> K = 1;\nconst bit<8> J = = 2;\n")
    main = tmp_path / "main.p4"
    main.write_text(render(top='#include "inc_bad.p4"'))
    with pytest.raises(P4CompileError) as ei:
        compile_file(str(main))
    assert re.match(r"^.*inc_bad\.p4:3:\d+: ", str(ei.value)), str(ei.value)


def test_local_include_and_define(tmp_path):
    (tmp_path / "consts.p4").write_text("#define PORT_OUT 7\nconst bit<8> MAGIC = 0x2A;\n")
    text = render(top='#include "consts.p4"', body="hdr.t.a = MAGIC;").replace(
        "sm.egress_spec = 1;", "sm.egress_spec = PORT_OUT;")
    prog, _ = compile_text(tmp_path, text, "main.p4")
    from switch.runtime import Pipeline

    pipe = Pipeline(prog.device_config)
    f = bytes(14) + b"\x01\x00\x02" + b"pl"
    assert [(int(p), bytes(b)) for p, b in pipe.process(0, f)] == [(7, bytes(14) + b"\x2a\x00\x02" + b"pl")]


def test_identifiers_resembling_width_literals_are_names(tmp_path):
    # "w2", "s8", "w8" are ordinary identifiers; only <digits>w<digits> / <digits>s<digits>
    # are literals (P4-16 spec "Integer literals")
    text = render(top="header h2_t { bit<16> w2; bit<8> s8; }",
                  body="bit<8> w8 = 8w3; bit<8> s1 = 8s1 == 8s1 ? 8w4 : 8w0; hdr.t.a = w8 + s1;")
    prog, _ = compile_text(tmp_path, text)
    from switch.runtime import Pipeline

    pipe = Pipeline(prog.device_config)
    f = bytes(14) + b"\x01\x00\x02" + b"pl"
    assert [(int(p), bytes(b)) for p, b in pipe.process(0, f)] == [(1, bytes(14) + b"\x07\x00\x02" + b"pl")]


def test_integer_literal_forms(tmp_path):
    # P4-16 spec "Integer literals": 0x/0X, 0b/0B, 0o/0O, 0d/0D prefixes, '_' separators,
    # width-prefixed w (unsigned) and s (signed) literals
    body = ("hdr.t.a = 8w0b_1010_0101 ^ 0o17 ^ 0d3 ^ 0xF_0; "
            "hdr.t.w = 16w0377 + (bit<16>) (-16s5 + 16s0x7) "
            "+ (bit<16>) (int<16>) 8s0b1010_1010;")
    prog, _ = compile_text(tmp_path, render(body=body))
    from switch.runtime import Pipeline

    pipe = Pipeline(prog.device_config)
    out = [(int(p), bytes(b)) for p, b in pipe.process(0, bytes(14) + b"\x00\x00\x00" + b"pl")]
    a = 0b10100101 ^ 0o17 ^ 3 ^ 0xF0
    w = (377 + 2 + (-86 & 0xFFFF)) & 0xFFFF     # 16w0377 is decimal 377; 8s0b10101010 = -86
    assert out == [(1, bytes(14) + bytes([a]) + w.to_bytes(2, "big") + b"pl")]


def test_preprocessor_conditionals_and_defines(tmp_path):
    from switch.compiler import compile_file
    from switch.runtime import Pipeline

    top = ("#define VAL_A 0x21\n#ifdef USE_B\n#define VAL VAL_A\n#else\n#define VAL 0x42\n#endif\n"
           "#ifndef PORT\n#define PORT 3\n#endif")
    text = render(top=top, body="hdr.t.a = VAL;").replace("sm.egress_spec = 1;",
                                                           "sm.egress_spec = PORT;")
    path = tmp_path / "pp.p4"
    path.write_text(text)
    f = bytes(14) + b"\x00\x00\x00" + b"pl"
    for defines, a, port in [(None, 0x42, 3), ({"USE_B": "1"}, 0x21, 3),
                             ({"USE_B": "", "PORT": "9"}, 0x21, 9)]:
        pipe = Pipeline(compile_file(str(path), defines=defines).device_config)
        out = [(int(p), bytes(b)) for p, b in pipe.process(0, f)]
        assert out == [(port, bytes(14) + bytes([a]) + b"\x00\x00" + b"pl")], defines



# Constructs outside the supported subset must give a P4CompileError at the construct
# (or compile); an internal exception (KeyError, AttributeError, ...) is a failure.
OUTSIDE_SUBSET = {
    "header_union": ("header h8_t { bit<8> v; }\nheader_union u_t { h8_t a; t_t b; }", "", None),
    "varbit": ("header vb_t { bit<8> len; varbit<32> opts; }", "", None),
    "action_selector": ("", "", "selector"),
    "Checksum16": ("", "", "checksum16"),
    "value_set": ("", "", "value_set"),
}


@pytest.mark.parametrize("name", sorted(OUTSIDE_SUBSET))
def test_outside_subset_is_a_located_error_or_compiles(tmp_path, name):
    from switch.compiler import P4CompileError, compile_file

    top, body, special = OUTSIDE_SUBSET[name]
    text = render(top=top, body=body)
    marker_lines = set()
    if special == "selector":
        text = text.replace("        default_action = NoAction();\n    }\n    apply {",
                            "        default_action = NoAction();\n    }\n"
                            "    table sel_t {\n"
                            "        key = { hdr.t.a : exact; hdr.t.w : selector; }\n"
                            "        actions = { set_a; NoAction; }\n"
                            "        implementation = action_selector(HashAlgorithm.crc16, 32w16, 32w8);\n"
                            "    }\n    apply {\n        sel_t.apply();", 1)
        marker_lines = {i for i, ln in enumerate(text.splitlines(), 1)
                        if "sel_t" in ln or "selector" in ln}
    elif special == "checksum16":
        text = text.replace("    action set_a", "    Checksum16() ck;\n    action set_a", 1).replace(
            "@@BODY", "").replace("        t.apply();", "        t.apply();\n        hdr.t.w = ck.get({hdr.t.a});", 1)
        marker_lines = {i for i, ln in enumerate(text.splitlines(), 1) if "ck" in ln}
    elif special == "value_set":
        text = text.replace("    state start {", "    value_set<bit<16>>(4) vs;\n    state start {", 1).replace(
            "        pkt.extract(hdr.t);\n        transition accept;",
            "        transition select(hdr.eth.etherType) { vs: parse_t; default: accept; }\n"
            "    }\n    state parse_t {\n        pkt.extract(hdr.t);\n        transition accept;", 1)
        marker_lines = {i for i, ln in enumerate(text.splitlines(), 1) if "vs" in ln}
    else:
        marker_lines = set(range(TOP_LINE, TOP_LINE + top.count("\n") + 1))
    path = tmp_path / "outside.p4"
    path.write_text(text)
    try:
        compile_file(str(path))
    except P4CompileError as e:
        m = re.match(r"^(.*?):(\d+):(\d+): (.+)", str(e), re.S)
        assert m and int(m.group(2)) in marker_lines, (str(e), sorted(marker_lines))


@pytest.mark.parametrize("what,old,new,marker", [
    ("default action not in the actions list",
     "        default_action = NoAction();", "        default_action = set_b(1);", "set_b"),
    ("unknown match kind", "hdr.t.a : exact;", "hdr.t.a : fuzzy;", "fuzzy"),
    ("action not declared", "actions = { set_a; NoAction; }",
     "actions = { set_a; nosuch_action; NoAction; }", "nosuch_action"),
])
def test_table_declaration_errors(tmp_path, what, old, new, marker):
    text = render()
    assert old in text
    text = text.replace(old, new, 1)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if marker in ln)
    expect_error(tmp_path, text, {line})


@pytest.mark.parametrize("top,body", [
    ("const bit<8> K = 1;", "K = 3;"),                          # assignment to a constant
    ("", "hdr.t.a = 8w1 + 16w1;"),                              # operand widths differ
    ("", "bool b = hdr.t.a;"),                                  # bit<8> is not bool
    ("", "hdr.t.a = (bit<8>) hdr.t.a.nosuch;"),                 # field of a field
    ("", "hdr.t.setValid(1);"),                                 # wrong argument count
])
def test_semantic_errors_on_the_statement_line(tmp_path, top, body):
    expect_error(tmp_path, render(top=top, body=body), {BODY_LINE})
