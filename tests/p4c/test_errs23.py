"""Programs of helper errs23's probe sweep (/work/errs23: default and named arguments, `@optional`,
v1model externs with odd types, digests, `type` parameters, varbit uses, `int` functions), each
failing before:

* ``LINES``: programs p4c 1.2.4.8 refuses where checkmate-p4c refused at another line (or accepted
  them): the error is at p4c's line and matches the pattern; with p4c on PATH p4c refuses each too.
* ``DIGEST_P4INFO_REFUSED``: digests p4c compiles whose P4Info simple_switch_grpc refuses ("Error
  when importing p4info": PI takes only ``bit<W>`` members; measured member by member with
  SetForwardingPipelineConfig): checkmate-switch's P4Runtime server refuses them the same way.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program
from switch.compiler import compile_source

_E2 = "extern E2 { E2(); void m(in bit<8> a, @optional in bit<8> b); }"
_A = "    action a(bit<8> v, bit<8> x) { hdr.h.c = v + x; }"
_PT = "type bit<9> P_t;"
_AP = "    action ap(P_t v) { sm.egress_spec = (bit<9>)v; }"

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    # an @optional parameter left out of a call of a program's own extern method or function: p4c's
    # type checker takes it and its back end refuses the extern at its declaration; checkmate-p4c
    # named the call ("does not have method matching this call")
    "optional_extern_method_argument_left_out": (
        program(top=_E2, locals="    E2() e;", body="        e.m(hdr.h.a);"), "void m(", "Unknown extern method m"),
    "optional_extern_function_argument_left_out": (
        program(top="extern void xf(in bit<8> a, @optional in bit<8> b);", body="        xf(hdr.h.a);"),
        "extern void xf", "unknown extern function"),
    "optional_extern_constructor_argument_left_out": (
        program(top="extern E3 { E3(@optional bit<8> k); void m(); }", locals="    E3() e;", body="        e.m();"),
        "extern E3", "Unknown extern method m"),
    # an unknown argument name of an action call: p4c names the action's parameter list ("v, x: No
    # parameter named w"), in a direct call and a default action alike
    "action_call_unknown_argument_name": (
        program(locals=_A, body="        a(x = 1, w = 3);"), "action a(", "no parameter w"),
    "default_action_unknown_argument_name": (
        program(locals=_A + "\n    table t { key = { hdr.h.a: exact; } actions = { a; } default_action = a(x = 1, w = 2); }",
                body="        t.apply();"), "action a(", "no parameter w"),
    # `register(4) r;` (no type argument): p4c leaves T to the uses and names the first method call
    "register_without_type_argument_named_at_its_use": (
        program(locals="    register(4) r;", body="        hdr.h.b = 1;\n        r.write(0, hdr.h.a);"),
        "r.write(0", "Cannot cast implicitly"),
    # a register of a struct read into a local struct: p4c's mid end splits the local, so the
    # instance's "Only registers with bit or int types" comes first (a metadata struct field stays
    # "writing to a structure" at the result, opens2)
    "struct_register_read_into_a_local": (
        program(top="struct s2_t { bit<8> p; }", locals="    register<s2_t>(4) r;",
                body="        s2_t v; r.read(v, 0); hdr.h.c = v.p;"), "register<s2_t>", "Only registers"),
    # an untyped integer for an action's or function's parameter of a `type`: p4c's "Cannot unify
    # type 'bit<9>' with type 'P_t'" at the call (a default action, an entry, a direct call) or the
    # argument (a function's); checkmate-p4c took it as in an initializer (`P_t x = 3;` is fine)
    "untyped_integer_for_a_type_parameter_in_a_default_action": (
        program(top=_PT, locals=_AP + "\n    table t { key = { hdr.h.a: exact; } actions = { ap; } default_action = ap(3); }",
                body="        t.apply();"), "default_action = ap(3)", "Cannot unify"),
    "untyped_integer_for_a_type_parameter_in_a_const_entry": (
        program(top=_PT, locals=_AP + "\n    table t { key = { hdr.h.a: exact; } actions = { ap; } const entries = { 1 : ap(3); } }",
                body="        t.apply();"), "const entries", "Cannot unify"),
    "untyped_integer_for_a_type_parameter_in_a_direct_call": (
        program(top=_PT, locals=_AP, body="        hdr.h.a = 1;\n        ap(3);"), "ap(3)", "Cannot unify"),
    "untyped_integer_for_a_type_parameter_of_a_function": (
        program(top=_PT + "\nbit<9> f(in P_t v) { return (bit<9>)v; }", body="        hdr.h.a = 1;\n        sm.egress_spec = f(3);"),
        "f(3)", "Cannot unify"),
    # a function returning `int`: called as a statement, p4c's inliner cannot declare its "retval"
    # (at the function); its value used, its "tmp" (no line: the call here); uncalled, it compiles
    "int_function_called_as_a_statement": (
        program(top="int g() { return 3; }", body="        hdr.h.a = 1;\n        g();"), "int g()", "Cannot declare variables with type int"),
    "int_function_value_used": (
        program(top="int g() { return 3; }", body="        hdr.h.a = 1;\n        hdr.h.c = (bit<8>)g();"), "(bit<8>)g()",
        "Cannot declare variables with type int"),
    # a dropped lookahead of a header with a varbit field: "type argument must be a fixed-width type"
    "dropped_lookahead_of_a_varbit_header": (
        program(top="header vb3_t { bit<8> l; varbit<16> a; }").replace(
            "state start { pkt.extract(hdr.h); transition accept; }",
            "state start { pkt.extract(hdr.h); pkt.lookahead<vb3_t>(); transition accept; }"),
        "pkt.lookahead<vb3_t>", "fixed-width"),
    # `register<_>(4) r;`: p4c names the first use ("Could not infer a type for parameter")
    "register_of_dont_care_named_at_its_use": (
        program(locals="    register<_>(4) r;", body="        hdr.h.b = 1;\n        r.write(0, hdr.h.a);"),
        "r.write(0", "Could not infer a type"),
    # a generic struct used without type arguments: p4c names the struct ("Unspecified type
    # parameters for struct G in g"), not the use
    "generic_struct_without_type_arguments": (
        program(top="struct G<T> { T f; }", body="        G g = { f = hdr.h.a };"), "struct G<T>", "Unspecified type parameters"),
    # a generic function's body is checked at its declaration: `T v = 0;` and `(T)0` are refused
    # there, before a call that gives no T (checkmate-p4c named the call: "cannot infer") or one that does
    "generic_body_int_literal_for_a_type_parameter_variable": (
        program(top="T z<T>() { T v = 0; return v; }", body="        hdr.h.c = z();"), "T v = 0", "'int' type"),
    "generic_body_cast_to_a_type_parameter": (
        program(top="T z<T>() { return (T)0; }", body="        hdr.h.c = z<bit<8>>();"), "(T)0", "cast not supported"),
    # an @optional parameter with a default value (p4c: "optional parameters cannot have default values")
    "optional_parameter_with_a_default_value": (
        program(top="control C(inout h_t h, @optional in bit<8> k = 8w3) { apply { h.c = k; } }", locals="    C() c;",
                body="        c.apply(hdr.h);"), "@optional in bit<8> k", "cannot have default values"),
    # a table's apply() given arguments: p4c's "t: 1 arguments supplied while 0 are expected"
    "table_apply_with_an_argument": (
        program(locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }", body="        hdr.h.c = 1;\n        t.apply(1);"),
        "t.apply(1)", "arguments supplied"),
    "table_apply_with_an_argument_hit": (
        program(locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }",
                body="        hdr.h.c = 1;\n        if (t.apply(x = 1).hit) { hdr.h.c = 2; }"), "t.apply(x", "arguments supplied"),
    # ... for a control's constructor parameter (p4c names the control), a switch label on a value
    # of a `type`, a program's extern function (p4c's type error at the argument comes before its
    # back end's "unknown extern function" at the declaration)
    "untyped_integer_for_a_type_constructor_parameter": (
        program(top=_PT + "\ncontrol CT(inout h_t h)(P_t k) { apply { h.c = (bit<8>)(bit<9>)k; } }", locals="    CT(3) c;",
                body="        c.apply(hdr.h);"), "control CT", "Cannot unify"),
    "untyped_switch_label_on_a_type": (
        program(top=_PT, body="        P_t x = (P_t)sm.ingress_port;\n        switch (x) { 1: { hdr.h.c = 1; } }"),
        "switch (x)", "cannot be compared"),
    "untyped_integer_for_a_type_parameter_of_an_extern_function": (
        program(top=_PT + "\nextern void xn(in P_t v);", body="        hdr.h.c = 1;\n        xn(3);"), "xn(3)", "Cannot unify"),
    # a function call in a global constant's initializer: p4c's "Cannot evaluate initializer to a
    # compile-time constant"; checkmate-p4c died (AttributeError) before
    "function_call_in_a_global_constant": (
        program(top="bit<8> g(in bit<8> x) { return x; }\nconst bit<8> K = g(3);", body="        hdr.h.c = K;"),
        "const bit<8> K", "Cannot evaluate initializer"),
    # named arguments of digest: p4c 1.2.4.8 dies in its front end ("Two parameters with the same
    # name receiver in a substitution"; no line) whatever their order; checkmate-p4c compiled it
    "digest_with_named_arguments": (
        program(body="        hdr.h.a = 1;\n        digest(data = { hdr.h.a }, receiver = 1);"), "digest(data", "Compiler Bug"),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)


DIGEST_P4INFO_REFUSED = {
    "tuple_with_a_bool": program(body="        digest(1, { hdr.h.a == 1 });"),
    "tuple_with_an_int": program(body="        digest(1, { (int<8>)hdr.h.a, hdr.h.c });"),
    "tuple_with_an_error": program(body="        digest(1, { hdr.h.a, sm.parser_error });"),
    "struct_with_a_bool": program(top="struct di_t { bool a; bit<8> b; }", body="        digest<di_t>(1, { true, hdr.h.a });"),
    "struct_with_an_int": program(top="struct di_t { int<8> a; bit<8> b; }",
                                  body="        digest<di_t>(1, { (int<8>)hdr.h.a, hdr.h.c });"),
    "struct_with_a_serializable_enum": program(top="enum bit<8> E8 { X = 1 }\nstruct di_t { E8 e; }",
                                               body="        digest<di_t>(1, { E8.X });"),
    "struct_with_a_type": program(top="type bit<8> T8;\nstruct di_t { T8 f; }", body="        digest<di_t>(1, { (T8)hdr.h.a });"),
}


@pytest.mark.parametrize("name", sorted(DIGEST_P4INFO_REFUSED))
def test_digest_p4info_refused_as_simple_switch_grpc_does(name):
    from switch.p4rt_server.errors import P4RTError
    from switch.p4rt_server.p4info_index import P4InfoIndex
    from switch.runtime import Pipeline

    prog = compile_source(DIGEST_P4INFO_REFUSED[name], "prog.p4")
    Pipeline(prog.device_config)   # (the build itself loads)
    with pytest.raises(P4RTError, match="Error when importing p4info"):
        P4InfoIndex.build(prog.p4info)


def test_digest_of_bit_members_imported():
    from switch.p4rt_server.p4info_index import P4InfoIndex
    for src in (program(body="        digest(1, { hdr.h.a, hdr.h.b });"), program(body="        digest(1, hdr.h.a);"),
                program(top="struct di_t { bit<8> a; bit<16> b; }", body="        digest<di_t>(1, { hdr.h.a, hdr.h.b });")):
        P4InfoIndex.build(compile_source(src, "prog.p4").p4info)


def test_bool_update_checksum_field_p4info_as_p4c(tmp_path):
    """update_checksum into a bool field: p4c compiles it (simple_switch refuses the JSON:
    test_load_refused2) and its P4Info has the (empty) type_info the call makes p4c write."""
    from p4c_helpers import assert_p4info_as_p4c
    src = program().replace("struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; bool bl; }").replace(
        "control CC(inout headers hdr, inout meta_t m) { apply { } }",
        "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, { hdr.h.a }, m.bl, HashAlgorithm.csum16); } }")
    info = compile_source(src, "prog.p4").p4info
    assert info.HasField("type_info")
    assert_p4info_as_p4c(src, info, tmp_path)
