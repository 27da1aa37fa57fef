"""Programs of helper errs25's probe sweep (/work/errs25: keyword-like names, key @name forms,
V1MODEL_VERSION, initializer entries, annotations and table properties, const entries, generic
structs and functions, `type`/`typedef`, serializable enums, unions and stacks, switch,
compile-time evaluation, abstract methods, shadowing, v1model externs, value sets, verify,
return/exit), each decided by real p4c 1.2.4.8 and failing before:

* ``LINES``: programs p4c refuses that checkmate-p4c accepted or refused at another line: the
  error is at p4c's line (the culprit's) and matches the pattern; with p4c on PATH p4c refuses
  each too.
* ``ACCEPTS``: programs p4c compiles that checkmate-p4c refused: they compile, with p4c's P4Info.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_p4info_as_p4c, assert_refused_as_p4c, program
from switch.compiler import compile_source

_G = "struct G<T> { T f; }"


def _vs(t: str, top: str) -> str:
    """A parser declaring an unused ``value_set<t>``."""
    return program(top=top, body="        hdr.h.c = 1;").replace(
        "    state start {", f"    value_set<{t}>(4) vs;\n    state start {{", 1)

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    # a table without default_action gets NoAction(); listed @tableonly it cannot be that default
    # (p4c: "default_action: Action marked with tableonly used as default action", no line)
    "tableonly_noaction_as_the_implicit_default": (
        program(locals="    action a() { }\n    table t { key = { hdr.h.a: exact; } actions = { a; @tableonly NoAction; } }",
                body="        t.apply();"), "table t", "tableonly used as default action"),
    # an action named like a control parameter: its body still sees the parameter, after it the
    # name is the action's (p4c: "Cannot extract field h from hdr which has type <Method>" at the
    # key); checkmate-p4c lost the parameter ("unknown name hdr" in the action's body)
    "action_named_like_a_control_parameter_then_read": (
        program(locals="    action hdr() { hdr.h.c = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { hdr; } }",
                body="        t.apply();"), "table t", "hdr is a action"),
    # generic structs: a field naming the struct itself, used or not
    "generic_struct_referring_to_itself": (
        program(top="struct G<T> { G<T> f; }", body="        hdr.h.c = 1;"), "struct G<T>", "Self-referencing types"),
    "generic_struct_referring_to_itself_through_another": (
        program(top=_G + "\nstruct K<T> { G<K<T>> f; }", body="        hdr.h.c = 1;"), "struct K<T>", "Self-referencing types"),
    "generic_header_referring_to_itself": (
        program(top="header G<T> { G<T> f; }", body="        hdr.h.c = 1;"), "header G<T>", "Self-referencing types"),
    # a specialization whose field gets a type no field may have: p4c names the field (was accepted)
    "generic_struct_field_of_type_int": (
        program(top=_G, body="        G<int> v = { 1 };\n        hdr.h.c = (bit<8>)v.f;"), "struct G<T>", "cannot have type 'int'"),
    "generic_struct_field_of_type_int_through_another": (
        program(top=_G + "\nstruct K<U> { G<U> g; }", body="        K<int> v;\n        hdr.h.c = 1;"), "struct G<T>",
        "cannot have type 'int'"),
    "generic_struct_field_of_type_string": (
        program(top=_G, body="        G<string> v;\n        hdr.h.c = 1;"), "struct G<T>", "cannot have type 'string'"),
    "generic_struct_field_of_an_extern_type": (
        program(top=_G, body="        G<packet_in> v;\n        hdr.h.c = 1;"), "struct G<T>", "cannot have type 'packet_in'"),
    # type arguments for a type declared without type parameters (was accepted)
    "type_arguments_for_a_plain_struct": (
        program(top="struct S { bit<8> f; }", body="        S<bit<8>> v = { 1 };\n        hdr.h.c = v.f;"),
        "S<bit<8>> v", "has 0 type parameter"),
    "type_arguments_for_a_header_in_a_field": (
        program(top="struct K { h_t<bit<8>> g; }", body="        hdr.h.c = 1;"), "struct K", "has 0 type parameter"),
    "type_arguments_for_a_plain_struct_parameter": (
        program(top="struct S { bit<8> f; }\nvoid f(in S<bit<8>> g) { }", body="        hdr.h.c = 1;"), "void f(",
        "has 0 type parameter"),
    "type_arguments_for_a_typedef": (
        program(top="typedef bit<8> B;", body="        B<bit<8>> v = 1;\n        hdr.h.c = v;"), "B<bit<8>> v", "type arguments"),
    "type_arguments_for_an_enum": (
        program(top="enum EN { A }", body="        EN<bit<8>> v = EN.A;\n        hdr.h.c = 1;"), "EN<bit<8>> v", "not generic"),
    # a typedef of a generic struct without type arguments: p4c names the typedef (a variable's
    # use is named at the struct, errs23)
    "typedef_of_a_generic_struct_without_arguments": (
        program(top=_G + "\ntypedef G GG;", body="        hdr.h.c = 1;"), "typedef G GG", "no type parameters supplied"),
    "newtype_of_a_generic_struct_without_arguments": (
        program(top=_G + "\ntype G GG;", body="        hdr.h.c = 1;"), "type G GG", "can only be applied to base types"),
    "typedef_void": (program(top="typedef void V;", body="        hdr.h.c = 1;"), "typedef void", "VOID"),
    # a generic function's body, type-checked once with T unknown (was accepted: each call binds T)
    "generic_function_assigns_a_literal_to_an_out_t": (
        program(top="void o<T>(out T x) { x = 0; }", body="        o(hdr.h.c);"), "void o<T>", "'x = 0'"),
    "generic_function_assigns_a_typed_literal_to_a_t_local": (
        program(top="void o<T>(out T x) { T y; y = 8w1; x = y; }", body="        o(hdr.h.c);"), "void o<T>", "'y = 8w1'"),
    "generic_function_returns_a_literal_uncalled": (
        program(top="T o<T>(in T x) { return 0; }", body="        hdr.h.c = 1;"), "T o<T>", "'return 0'"),
    "generic_function_compares_t_with_a_literal": (
        program(top="bool o<T>(in T x) { return x == 0; }", body="        if (o(hdr.h.a)) { hdr.h.c = 1; }"), "bool o<T>",
        "cannot be compared"),
    "generic_function_slices_a_t": (
        program(top="bit<4> o<T>(in T x) { return x[3:0]; }", body="        hdr.h.c = (bit<8>)o(hdr.h.a);"), "bit<4> o<T>",
        "bit extraction only defined"),
    "generic_function_passes_t_to_a_bit_parameter": (
        program(top="void g(in bit<8> a) { }\nvoid o<T>(in T x) { g(x); }", body="        o(hdr.h.c);"), "void o<T>", "'g'"),
    "generic_function_t_as_a_condition": (
        program(top="bit<8> o<T>(in T x) { if (x) { return 1; } return 0; }", body="        hdr.h.c = o(hdr.h.a == 1);"),
        "bit<8> o<T>", "Condition of IfStatement"),
    # a direct meter read while the only table attaching it is not applied (p4c removes the table
    # first: "direct meter is not associated with any table", at the meter); accepted
    "direct_meter_read_its_table_unapplied": (
        program(locals="    direct_meter<bit<8>>(MeterType.packets) dm;\n    action am() { dm.read(hdr.h.c); }\n"
                       "    table t { key = { hdr.h.a: exact; } actions = { am; } meters = dm; }",
                body="        dm.read(hdr.h.c);"), "direct_meter<bit<8>>", "no table attaches it"),
    "direct_meter_read_in_a_called_action_its_table_unapplied": (
        program(locals="    direct_meter<bit<8>>(MeterType.packets) dm;\n    action am() { dm.read(hdr.h.c); }\n"
                       "    table t { key = { hdr.h.a: exact; } actions = { am; } meters = dm; }",
                body="        am();"), "direct_meter<bit<8>>", "no table attaches it"),
    # an annotation whose '(' is never closed: p4c's annotation body runs to the end of the file
    # (only parentheses pair up there); checkmate-p4c stopped at a brace and named a later line
    "annotation_parenthesis_never_closed": (
        program(locals='    @foo("a" action b() { }', body="        b();"), "V1Switch(", "unexpected END"),
    # a table key of a plain enum, applied: p4c's P4Runtime serializer names the enum (was the key)
    "plain_enum_table_key": (
        program(top="enum PE { A, B }", locals="    PE pe = PE.A;\n    table t { key = { pe: exact; } actions = { NoAction; } }",
                body="        t.apply();"), "enum PE", "width not well-defined"),
    # an action may be called `list`, but a table's actions cannot name it (p4c's actionRef); accepted
    "action_named_list_in_a_table": (
        program(locals="    action list() { hdr.h.c = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { list; } }",
                body="        t.apply();"), "table t", "unexpected LIST"),
    # a field of one of v1model's enum types in the user metadata: p4c's back end dies (Compiler Bug,
    # named in v1model.p4); a program's own enum there compiles
    "v1model_enum_in_the_user_metadata": (
        program(body="        hdr.h.c = 1;").replace("struct meta_t { bit<8> x; bit<16> y; }",
                                                     "struct meta_t { bit<8> x; bit<16> y; HashAlgorithm alg; }"),
        "struct meta_t", "Unhandled type"),
    # an entry's `priority=` takes an integer literal or a parenthesized expression (p4c's grammar);
    # was parsed as any expression and refused later, after other errors
    "entry_priority_negative_literal": (
        program(locals="    action b() { }\n    table t { key = { hdr.h.a: ternary; } actions = { b; } "
                       "entries = { priority=-1 : 1 &&& 0xFF : b(); } }", body="        t.apply();"),
        "entries = {", "unexpected '-'"),
    # two errors: p4c's checks of the parsed program (`exit` in a function) come before its type
    # checker, whose errors come before "Expected a direct meter" (a direct_counter in `meters`)
    "exit_in_a_function_before_a_type_error_above": (
        program(top="bit<8> f1(in bit<8> x) { x = x + 1; return x; }\nvoid f6() { exit; }",
                body="        hdr.h.c = f1(hdr.h.a);\n        f6();"), "void f6()", "exit is not allowed in a function"),
    "type_error_before_a_counter_named_in_meters": (
        program(locals="    direct_counter(CounterType.packets) dc;\n    action a() { }\n"
                       "    table t5 { key = { hdr.h.c: exact; } actions = { a; } meters = dc; }",
                body="        hash(hdr.h.b, 3, 16w0, { hdr.h.a }, 16w100);"), "hash(hdr.h.b, 3", "HashAlgorithm"),
    # `error { }` and `error { A, }`: p4c's syntax errors (match_kind takes a trailing comma); accepted
    "empty_error_declaration": (program(top="error { }", body="        hdr.h.c = 1;"), "error { }", "unexpected }"),
    "error_declaration_with_a_trailing_comma": (
        program(top="error { Bad1, }", body="        hdr.h.c = 1;"), "error { Bad1, }", "found '}'"),
    # value sets of a type p4c's type checker refuses, used or not (accepted while unused)
    **{f"value_set_of_{n}": (_vs(t, top), f"value_set<{t}>", "Illegal type for value_set element type")
       for n, t, top in (("a_header", "h_t", ""), ("a_varbit", "varbit<8>", ""), ("error", "error", ""),
                         ("int", "int", ""), ("string", "string", ""), ("a_header_union", "uu_t", "header_union uu_t { h_t a; }"))},
    # value_set<bool> selected by a bool key: p4c's back end names the declaration (a bit key stays its
    # type error at the select, errs19); was named at the select
    "value_set_of_bool_for_a_bool_key": (
        _vs("bool", "").replace("transition accept; }\n}\ncontrol VC", "transition select(hdr.h.a == 1) { vs: accept; default: reject; } }\n}\ncontrol VC", 1),
        "value_set<bool>", "value_set<bool>"),
    "value_set_of_bool_for_a_bit_key": (
        _vs("bool", "").replace("transition accept; }\n}\ncontrol VC", "transition select(hdr.h.a[0:0]) { vs: accept; default: reject; } }\n}\ncontrol VC", 1),
        "transition select", "Cannot cast implicitly"),
    "value_set_of_a_header_stack": (_vs("h_t[2]", ""), "value_set<h_t[2]>", "unexpected \\["),
    # `_`, `string` and `value_set` name nothing in p4c's grammar (checkmate-p4c took them as names:
    # accepted, or refused at a use)
    **{f"{what}_named_{label}": (prog_(nm), line(nm), "expected")
       for label, nm in (("dontcare", "_"), ("string", "string"), ("value_set", "value_set"))
       for what, prog_, line in (
           ("action", lambda nm: program(locals=f"    action {nm}() {{ hdr.h.c = 1; }}", body=f"        {nm}();"),
            lambda nm: f"action {nm}("),
           ("constant", lambda nm: program(top=f"const bit<8> {nm} = 1;", body=f"        hdr.h.c = {nm};"),
            lambda nm: f"const bit<8> {nm}"),
           ("table", lambda nm: program(locals=f"    table {nm} {{ actions = {{ NoAction; }} }}", body=f"        {nm}.apply();"),
            lambda nm: f"table {nm} "),
           ("struct_field", lambda nm: program(top=f"struct sx {{ bit<8> {nm}; }}", body="        hdr.h.c = 1;"),
            lambda nm: "struct sx"))},
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)


ACCEPTS = {
    # an action named like a control parameter, called directly: its body writes the parameter
    "action_named_like_a_control_parameter_called": program(
        locals="    action hdr() { hdr.h.c = 1; }", body="        hdr();"),
    # `for` is no keyword of p4c 1.2.4.8 (`for (` starts the loop extension); `list` names a local
    "variable_named_for": program(body="        bit<8> for = 1;\n        hdr.h.c = for;"),
    "action_named_for_in_a_table": program(
        locals="    action for() { hdr.h.c = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { for; } default_action = for(); }",
        body="        t.apply();"),
    "function_named_for": program(top="bit<8> for() { return 1; }", body="        hdr.h.c = for();"),
    "local_named_list": program(body="        bit<8> list = 1;\n        hdr.h.c = 2;"),
    # braces inside an annotation's parentheses need not pair (p4c: only parentheses do)
    "annotation_with_an_unpaired_brace": program(
        locals="    @foo(a { b) action b() { hdr.h.c = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { b; } }",
        body="        t.apply();"),
    # a key that is a declared constant: p4c names it by the value, in the literal's base (was "KC")
    **{f"key_of_a_constant_{n}": program(top=top, locals=loc + "    table t { key = { KC: exact; } actions = { NoAction; } }",
                                         body="        t.apply();")
       for n, top, loc in (("hex", "const bit<8> KC = 0x10;", ""), ("typed", "const bit<8> KC = 8w4;", ""),
                           ("folded", "const bit<8> KC = 2 + 3;", ""), ("binary", "const bit<8> KC = 0b101;", ""),
                           ("local", "", "    const bit<8> KC = 0x21;\n"),
                           ("serializable_enum", "enum bit<8> SE { A = 3 }\nconst SE KC = SE.A;", ""))},
    # ... a table nothing applies compiles (p4c removes it first)
    "plain_enum_table_key_unapplied": program(
        top="enum PE { A, B }", locals="    PE pe = PE.A;\n    table t { key = { pe: exact; } actions = { NoAction; } }",
        body="        hdr.h.c = 1;"),
    # (guard) a direct meter read only in an action of an unapplied table: both go, p4c compiles it
    "direct_meter_read_only_by_an_unapplied_table": program(
        locals="    direct_meter<bit<8>>(MeterType.packets) dm;\n    action am() { dm.read(hdr.h.c); }\n"
               "    table t { key = { hdr.h.a: exact; } actions = { am; } meters = dm; }", body="        hdr.h.c = 1;"),
    # G<string> of a struct whose fields do not use T
    "generic_struct_of_string_unused_parameter": program(
        top="struct G<T> { bit<8> f; }", body="        G<string> v;\n        hdr.h.c = 1;"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTS))
def test_compiles_as_p4c(name, tmp_path):
    out = compile_source(ACCEPTS[name], "prog.p4")
    assert_p4info_as_p4c(ACCEPTS[name], out.p4info, tmp_path)
