"""Programs of helper errs27's probe sweep (/work/errs27: deparser statements after p4c's
mid-end -- register reads, local copies, local headers --, functions with packet_in/packet_out
parameters, an ``if`` in a function a parser state calls, ...), each decided by real p4c 1.2.4.8
and failing before:

* ``LINES``: programs p4c refuses that checkmate-p4c accepted or refused at another line: the
  error is at p4c's line and matches the pattern; with p4c on PATH p4c refuses each too.
* ``ACCEPTS``: programs p4c compiles that checkmate-p4c refused: they compile, with p4c's P4Info.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_p4info_as_p4c, assert_refused_as_p4c, program
from switch.compiler import compile_source

_R = "register<bit<8>>(4) r;\n    register<bit<32>>(4) r2;"


def _dep(decls: str, stmts: str, top: str = "") -> str:
    """The deparser with ``decls`` and ``stmts`` (one statement a line) after its emit."""
    lines = "\n".join(f"        {s.strip()};" for s in stmts.split(";") if s.strip())
    return program(top=top).replace(
        "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }",
        f"control D(packet_out pkt, in headers hdr) {{\n    {decls}\n    apply {{\n        pkt.emit(hdr.h);\n{lines}\n    }}\n}}")


def _state(stmt: str, top: str) -> str:
    return program(top=top).replace("state start { pkt.extract(hdr.h);", f"state start {{ pkt.extract(hdr.h);\n        {stmt}")


_FE = "void fe(packet_out p, in h_t x) { p.emit(x); }"

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    # a register read in a deparser whose value a statement that stays reads: p4c refuses the
    # read (was accepted: only an unused one is removed, errs26's open item)
    "deparser_register_read_logged": (_dep(_R, 'bit<8> v; r.read(v, 0); log_msg("{}", {v})'), "r.read(v, 0)",
                                      "r.read: not supported within a deparser"),
    "deparser_register_read_through_a_copy": (_dep(_R, "bit<8> v; r.read(v, 0); bit<8> w = v + 1; assert(w == 2)"),
                                              "r.read(v, 0)", "r.read: not supported"),
    "deparser_register_read_index_of_a_kept_read": (
        _dep(_R, 'bit<32> i; r2.read(i, 0); bit<8> v; r.read(v, i); log_msg("{}", {v})'), "r2.read(i, 0)", "r2.read"),
    "deparser_register_read_into_a_struct_field": (
        _dep(_R, 'meta_t s; r.read(s.x, 0); log_msg("{}", {s.x})'), "r.read(s.x, 0)", "r.read"),
    # a slice store does not overwrite the value read (was refused at the slice's assignment)
    "deparser_register_read_slice_overwritten": (
        _dep(_R, 'bit<8> v; r.read(v, 0); v[3:0] = 1; log_msg("{}", {v})'), "r.read(v, 0)", "r.read"),
    # a local header written in a deparser: p4c names its declaration (`t.setInvalid`, `t = init`;
    # were accepted or refused at the write)
    "deparser_local_header_set_valid_and_emitted": (_dep("", "h_t t; t.setValid(); pkt.emit(t)"), "h_t t;",
                                                    "t.setInvalid: not supported within a deparser"),
    "deparser_local_header_field_written": (_dep("", "h_t t = hdr.h; t.a = 1; pkt.emit(t)"), "h_t t = hdr.h",
                                            "t = .*not supported within a deparser"),
    "deparser_local_header_field_read": (_dep("", 'h_t t = hdr.h; log_msg("{}", {t.a})'), "h_t t = hdr.h",
                                         "t = .*not supported within a deparser"),
    "deparser_local_header_register_read": (_dep(_R, "h_t t; r.read(t.a, 0)"), "h_t t;", "t.setInvalid"),
    # a function called in a deparser is inlined: an `if` in it is refused there
    "deparser_function_with_an_if": (
        _dep("", "fr(pkt, hdr.h)", top="void fr(packet_out p, in h_t x) {\n    if (!x.isValid()) { return; }\n    p.emit(x); }"),
        "if (!x.isValid())", "IfStatement|if statement"),
    # ... and in a parser state: an `if` in the function is p4c's IfStatement (an `if` written in
    # the state itself compiles)
    "parser_function_with_an_if": (
        _state("fa(hdr.h.a, m.x);", "void fa(in bit<8> k, inout bit<8> x) {\n    if (k == 1) { x = 2; } }"),
        "if (k == 1)", "IfStatement: not supported in parser"),
    "parser_function_calling_a_function_with_an_if": (
        _state("fb(hdr.h.a, m.x);", "void fa(in bit<8> k, inout bit<8> x) {\n    if (k == 1) { x = 2; } }\n"
               "void fb(in bit<8> k, inout bit<8> x) { fa(k, x); }"), "if (k == 1)", "IfStatement: not supported in parser"),
    # a generic function emitting a value of its type parameter
    "generic_function_emits_a_type_parameter": (
        _dep("", "fg(pkt, hdr.h)", top="void fg<T>(packet_out p, in T x) {\n    p.emit(x); }"),
        "p.emit(x)", "argument must be a header"),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)


ACCEPTS = {
    # local copies in a deparser: p4c propagates them (were "an assignment is not supported")
    "deparser_local_assignments": _dep("", 'bit<8> w; w = hdr.h.a; w = w + 1; log_msg("{}", {w}); '
                                       "bit<8> u = 0; u[3:0] = hdr.h.a[3:0]; meta_t s; s.x = 1; assert(s.x == 1)"),
    "deparser_unused_conditional_value": _dep("", "bit<8> w = hdr.h.a == 1 ? 8w1 : 8w2"),
    # register reads whose value is dead: overwritten, an index of a dead read, an argument of an
    # inlined function whose out value is dead
    "deparser_dead_register_reads": _dep(_R, 'bit<8> v; r.read(v, 0); v = 1; log_msg("{}", {v}); '
                                         "bit<32> i; r2.read(i, 0); bit<8> u; r.read(u, i); bit<8> w; fo(w, u)",
                                         top="void fo(out bit<8> o, in bit<8> i) { o = i; }"),
    # (guard) a local header copied from a header and emitted whole is propagated, one declared unused goes
    "deparser_local_header_copied_and_emitted": _dep("", "h_t t = hdr.h; pkt.emit(t); h_t z"),
    # functions with packet_out / packet_in parameters (were "argument used for directionless
    # parameter 'p' must be a compile-time constant")
    "deparser_function_with_packet_out": _dep("", "fe(pkt, hdr.h); fe(pkt, hdr.h)", top=_FE),
    # resubmit in a function called from ingress (was "can only be invoked in ingress (p4c rejects
    # it in None)": judged in the function's body, not at the call)
    "resubmit_in_a_function_called_from_ingress": program(
        top="void fr() { resubmit_preserving_field_list(0); }", body="        fr();"),
    "parser_function_with_packet_in": _state(
        "fx(pkt, hdr.h); m.x = fl(pkt); fa(pkt);",
        "void fx(packet_in p, out h_t x) { p.extract(x); }\nbit<8> fl(packet_in p) { return p.lookahead<bit<8>>(); }\n"
        "void fa(packet_in p) { p.advance(8); }"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTS))
def test_compiles_as_p4c(name, tmp_path):
    out = compile_source(ACCEPTS[name], "prog.p4")
    assert_p4info_as_p4c(ACCEPTS[name], out.p4info, tmp_path)
