"""Declarations p4c 1.2.4.8 accepts as long as nothing uses them and rejects once something
does: checkmate-p4c draws the same line (the P4Info side against real p4c is in
tests/differential/diffcases/frontend3.py)."""
import pytest

from p4c_helpers import line_of, program
from switch.compiler import P4CompileError, compile_source
from switch.runtime import Pipeline

TWO_VB = "header two_vb_t { varbit<16> x; varbit<16> y; }\n"


def test_unused_header_with_two_varbit_fields_compiles_and_runs():
    prog = compile_source(program(top=TWO_VB + "struct in_struct_t { two_vb_t t; two_vb_t[2] s; }\ntypedef two_vb_t alias_t;\n",
                                  body="        hdr.h.a = hdr.h.a + 1; sm.egress_spec = 1;"), "vb.p4")
    assert Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0])) == [(1, bytes([6, 0, 0, 0]))]


@pytest.mark.parametrize("top,locals,body", [
    ("", "", "        two_vb_t v; v.setInvalid();"),                        # a local of the type
    ("struct wrap_t { two_vb_t t; }\n", "", "        wrap_t w; w.t.setInvalid();"),   # through a struct
    ("typedef two_vb_t alias_t;\n", "    alias_t a;", ""),                  # through a typedef
    ("struct st_t { two_vb_t[2] s; }\n", "    st_t v;", ""),                # a stack of it
])
def test_used_header_with_two_varbit_fields_is_rejected_at_the_second_field(top, locals, body):
    text = program(top=TWO_VB + top, locals=locals, body=body)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "vb.p4")
    assert "more than one varbit field" in ei.value.message
    assert (ei.value.loc.line, ei.value.loc.col) == line_of(text, "y; }")


def test_switch_on_a_varbit_is_rejected():
    # p4c: "Key switch_0_key field type must be a scalar type; it cannot be varbit<32>"
    text = program(top="header v_t { varbit<32> v; }\nstruct more_t { v_t v; }\n", locals="    more_t mm;",
                   body="        switch (mm.v.v) { default: { hdr.h.a = 1; } }")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "sw.p4")
    assert "varbit" in ei.value.message and ei.value.loc.line == line_of(text, "switch (")[0]


def test_header_of_no_whole_bytes_is_refused_only_once_used():
    odd = "header odd_t { bit<9> x; bit<9> y; }\n"
    compile_source(program(top=odd + "struct keeps_t { odd_t o; }\n", body="        sm.egress_spec = 1;"), "odd.p4")
    text = program(top=odd, body="        odd_t l; l.setValid(); l.x = 3; hdr.h.a = (bit<8>)l.x;")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "odd.p4")
    assert "18 bits long, not a multiple of 8" in ei.value.message
    assert (ei.value.loc.line, ei.value.loc.col) == line_of(text, "odd_t {")


def test_bool_action_parameter_only_in_directly_called_actions():
    # p4c: "action parameters must be bit<> or int<> on this target" once a table lists it
    compile_source(program(locals="    action a(bool c) { if (c) { hdr.h.a = 1; } }", body="        a(hdr.h.c == 2);"), "b.p4")
    text = program(locals="    action a(bool c) { if (c) { hdr.h.a = 1; } }\n"
                          "    table t { key = { hdr.h.a: exact; } actions = { a; } }", body="        t.apply();")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "b.p4")
    assert "bool" in ei.value.message and "bit<> or int<>" in ei.value.message
    # at the parameter, as p4c names it (helper mutz21; it was the table's actions list)
    assert ei.value.loc.line == line_of(text, "action a(bool c)")[0]


def test_varbit_struct_field_of_a_local():
    # p4c accepts a varbit field of a struct, and of a local one its JSON runs on simple_switch (a
    # metadata header instance): the struct value holds a box of its own (errs24; it was the
    # embedded target's refusal once used; the user metadata's is a load refusal: test_load_refused2)
    compile_source(program(top="struct vs_t { varbit<8> v; bit<8> b; }\n", locals="    vs_t keep;",
                           body="        keep.b = 1; hdr.h.a = keep.b;"), "vs.p4")
    compile_source(program(top="struct vs_t { varbit<8> v; bit<8> b; }\n", locals="    vs_t keep; vs_t other;",
                           body="        keep.v = other.v;"), "vs.p4")


def test_checksum_control_may_apply_a_control_of_update_checksum_calls_only():
    top = ("control U(inout h_t x) { apply { update_checksum(true, {x.a}, x.b, HashAlgorithm.csum16); } }\n"
           "control Bad(inout h_t x) { apply { x.a = 1; } }\n")
    ok = program(top=top).replace("control CC(inout headers hdr, inout meta_t m) { apply { } }",
                                  "control CC(inout headers hdr, inout meta_t m) { apply { U.apply(hdr.h); } }")
    compile_source(ok, "ck.p4")
    bad = program(top=top).replace("control CC(inout headers hdr, inout meta_t m) { apply { } }",
                                   "control CC(inout headers hdr, inout meta_t m) { Bad() b; apply { b.apply(hdr.h); } }")
    with pytest.raises(P4CompileError) as ei:
        compile_source(bad, "ck.p4")
    assert "only calls to update_checksum" in ei.value.message
    assert ei.value.loc.line == line_of(bad, "x.a = 1")[0]


def test_function_with_directionless_and_bool_parameters():
    # (a regression guard: the bool-parameter change for actions must leave functions alone; a
    # directionless parameter takes constants only -- p4c refuses `f(hdr.h.a, ...)` for one)
    prog = compile_source(program(top="bit<8> f(in bit<8> x, bool neg, in bit<8> y = 2) { return neg ? y - x : x + y; }\n",
                                  body="        hdr.h.a = f(hdr.h.a, false); hdr.h.c = f(1, true, 5); sm.egress_spec = 1;"), "fn.p4")
    assert Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0])) == [(1, bytes([7, 0, 0, 4]))]


def test_structured_annotation_sized_integer_is_refused():
    # p4c: "8w5: illegal type for structured annotation; must be int, string or bool"
    text = program(locals="    @A[1, 8w5] action a() { }", body="        a();")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "sa.p4")
    assert "illegal type" in ei.value.message and (ei.value.loc.line, ei.value.loc.col) == line_of(text, "8w5")


def test_digest_of_one_bit_value_is_a_bitstring_digest():
    prog = compile_source(program(body="        digest(1, hdr.h.a); sm.egress_spec = 1;"), "dg.p4")
    (d,) = prog.p4info.digests
    assert d.preamble.name == "digest_0" and d.type_spec.bitstring.bit.bitwidth == 8
    assert Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0])) == [(1, bytes([5, 0, 0, 0]))]


def test_switch_without_cases_on_a_varbit_is_dropped():
    # p4c removes a switch with no cases before it checks the key's type (with cases: refused)
    prog = compile_source(program(top="header v_t { varbit<32> v; }\nstruct more_t { v_t v; }\n", locals="    more_t mm;",
                                  body="        switch (mm.v.v) { }\n        hdr.h.a = 2; sm.egress_spec = 1;"), "sw0.p4")
    assert Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0])) == [(1, bytes([2, 0, 0, 0]))]


def test_extern_apply_parameter_must_be_one_instance():
    # (h_t: `headers` is declared after `top`, and p4c's grammar takes no type before its declaration)
    top = "control C(inout h_t h, register<bit<8>> r) { apply { r.write(0, h.a); } }\n"
    compile_source(program(top=top, locals="    register<bit<8>>(2) ra;\n    C() c;", body="        c.apply(hdr.h, ra);"), "ea.p4")
    text = program(top=top, locals="    register<bit<8>>(2) ra;\n    register<bit<8>>(2) rb;\n    C() c;",
                   body="        c.apply(hdr.h, ra);\n        c.apply(hdr.h, rb);")
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "ea.p4")
    assert "same register" in ei.value.message and ei.value.loc.line == line_of(text, "c.apply(hdr.h, rb)")[0]
