"""Programs of helper errs26's probe sweep (/work/errs26: parser states, lookahead/extract/advance
forms, header stacks in controls and parsers, deparser statements, field lists and the
resubmit/recirculate/clone forms, mark_to_drop, standard_metadata writes, checksum argument forms,
integer and string literal forms, apply results, `this`, the V1Switch instantiation), each decided
by real p4c 1.2.4.8 and failing before:

* ``LINES``: programs p4c refuses that checkmate-p4c refused at another line: the error is at
  p4c's line and matches the pattern; with p4c on PATH p4c refuses each too.
* ``ACCEPTS``: programs p4c compiles that checkmate-p4c refused: they compile, with p4c's P4Info.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_p4info_as_p4c, assert_refused_as_p4c, program
from switch.compiler import compile_source

_SC = "control SC(inout h_t x) { apply { x.a = 1; } }"



def _dep(decls: str, stmts: str, top: str = "") -> str:
    """The deparser with ``decls`` and ``stmts`` after its emit."""
    return program(top=top).replace("control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); }",
                                    f"control D(packet_out pkt, in headers hdr) {{ {decls}\n    apply {{ pkt.emit(hdr.h);\n"
                                    f"        {stmts} }}")


# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    # a control instantiated in a parser and applied there: p4c names the instance (a parser
    # applied in a control: the apply call; mutants2's parser_instance_applied_in_control)
    "control_instance_applied_in_a_parser": (
        program(top=_SC).replace("    state start { pkt.extract(hdr.h);",
                                 "    SC() sc;\n    state start { pkt.extract(hdr.h); sc.apply(hdr.h);", 1),
        "SC() sc", "instantiation of control in parser"),
    # a package declaration whose parameter is typed by a control (not a control type): p4c
    # refuses the declaration, used or not (was accepted unused, refused at `main` used)
    "package_parameter_of_a_control_type": (
        program().replace("V1Switch(", "package Pk(I i);\nV1Switch("), "package Pk", "cannot have type control I"),
    # ... and of an extern function, an extern object's method, a control's constructor (were accepted)
    "extern_function_parameter_of_a_control_type": (
        program(top=_SC + "\nextern void ef(SC c);"), "extern void ef", "cannot have type control SC"),
    "extern_method_parameter_of_a_control_type": (
        program(top=_SC + "\nextern EO { EO(); void m(SC c); }"), "extern EO", "cannot have type control SC"),
    "control_constructor_parameter_of_a_control_type": (
        program(top=_SC + "\ncontrol Q()(SC c) { apply { } }"), "control Q", "cannot have type control SC"),
    # (guard) a negative `@field_list` index stays p4c's error at the annotation
    "field_list_negative_index": (
        program(body="        resubmit_preserving_field_list(1);").replace(
            "struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y;\n    @field_list(-1) bit<8> z; }"),
        "@field_list(-1)", "Value too large"),
    # extern object methods p4c's BMv2 back end refuses in a deparser (were accepted)
    **{f"deparser_{n}": (_dep(decl, call), call, "not supported within a deparser")
       for n, decl, call in (("counter_count", "counter(4, CounterType.packets) c;", "c.count(1);"),
                             ("meter_execute", "meter(4, MeterType.packets) mt;", "bit<2> k; mt.execute_meter(0, k);"),
                             ("register_write", "register<bit<8>>(4) r;", "r.write(0, hdr.h.a);"))},
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)


_META_FL = "struct meta_t { bit<8> x; bit<16> y; }"

ACCEPTS = {
    # a field list index given by a control's local constant (was "must be a compile-time
    # integer constant": only global constants were looked up)
    "resubmit_field_list_index_of_a_local_constant": program(
        locals="    const bit<8> K8 = 1;", body="        resubmit_preserving_field_list(K8);"
    ).replace(_META_FL, "struct meta_t { bit<8> x; bit<16> y; @field_list(1) bit<8> z; }"),
    "clone_field_list_index_of_a_local_constant": program(
        locals="    const bit<8> K8 = 1;", body="        clone_preserving_field_list(CloneType.I2E, 5, K8);"
    ).replace(_META_FL, "struct meta_t { bit<8> x; bit<16> y; @field_list(1) bit<8> z; }"),
    # a `@field_list` index that is a constant expression: p4c parses the body and folds it
    "field_list_index_of_an_expression": program(
        top="const bit<8> KF = 1;", body="        resubmit_preserving_field_list(2);"
    ).replace(_META_FL, "struct meta_t { bit<8> x; bit<16> y; @field_list(1 + 1) bit<8> z; @field_list(KF * 3) bit<8> w; }"),
    # a constant initialized by a field of a constant struct or header (was "not a compile-time
    # constant": fold did not look into a struct value)
    "constant_from_a_field_of_a_constant_struct": program(
        top="struct s_t { bit<8> a; bit<16> b; }\nconst s_t K = { 1, 2 };\nconst bit<16> K2 = K.b + 1;",
        locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } size = K2; }",
        body="        hdr.h.b = K2;\n        t.apply();"),
    "constant_from_a_field_of_a_constant_header": program(
        top="const h_t K = { 1, 2, 3 };\nconst bit<8> K2 = K.c;", body="        hdr.h.c = K2;"),
    # an `if` with empty branches in a deparser: p4c removes it before its back end (was "a if
    # statement is not supported within a deparser")
    "deparser_if_with_empty_branches": _dep("", "bit<8> v = hdr.h.a;\n"
                                            "        if (hdr.h.isValid()) { } else { { } ; }\n        if (v == 1) { if (fb()) { } }",
                                            top="bool fb() { return true; }"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTS))
def test_compiles_as_p4c(name, tmp_path):
    out = compile_source(ACCEPTS[name], "prog.p4")
    assert_p4info_as_p4c(ACCEPTS[name], out.p4info, tmp_path)
