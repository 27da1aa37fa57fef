"""Programs real p4c rejects: checkmate-p4c must reject each too, with ``file:line:col`` and a
message naming the problem.  With p4c on PATH the suite also checks that p4c still
rejects every one (so no entry here is a valid program)."""
from __future__ import annotations

import re

import pytest

from diff_harness import Case, compile_checkmate, compile_p4c
from diff_targets import bmv2_available
from diffcases.base import program

TOP_ENUM = "enum bit<8> Color { Red = 1, Blue = 2 }\n"

# name -> (program, words the message must contain (any of), reason when checkmate accepts it today)
INVALID = {
    "enum_cast_other_width": (program("        hdr.h.c = (bit<16>)Color.Blue;\n", top=TOP_ENUM), ("cast", "Color"), ""),
    "signed_literal_minus": (program("        hdr.h.b = 8s-1 == -1 ? 8w1 : 8w0;\n"), ("expected", "malformed integer literal"), ""),
    "concat_untyped_int": (program("        hdr.h.c = hdr.h.a ++ 0;\n"), ("width", "++", "concat"), ""),
    "division_runtime": (program("        hdr.h.c = hdr.h.c / 16w3;\n"), ("division", "/", "constant", "divisor"), ""),
    "stack_last_index_in_control": (program("        hdr.h.b = 1;\n        hdr.s[0].b = hdr.s.lastIndex[7:0];\n",
                                            fields="    h_t[2] s;\n"), ("lastIndex", "parser"), ""),
    "table_applied_twice": (program("        t.apply(); t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }"""), ("twice", "more than once", "apply"), ""),
    "action_named_default": (program("        default();\n", ingress_decls="    action default() { }\n"), ("default",), ""),
    "width_mismatch_assign": (program("        hdr.h.a = hdr.h.c;\n"), ("width", "bit<16>", "bit<8>"), ""),
    # the cast binds tighter than ++: the initializer is 16 + 1 + 8 = 25 bits wide
    "concat_width_mismatch_init": (program("        bit<16> x = (bit<16>)hdr.h.a ++ hdr.h.b[0:0] ++ 8w0;\n        hdr.h.c = x;\n"),
                                   ("bit<25>",), ""),
    # a `type` is made from its underlying type only: no width change inside the cast
    "cast_to_type_other_width": (program("        N16 x = (N16)(hdr.h.a ++ hdr.h.b[0:0]);\n        hdr.h.c = (bit<16>)x;\n",
                                         top="type bit<16> N16;\n"), ("N16", "bit<9>"), ""),
    "cast_from_type_field": (program("        hdr.h.a = (bit<8>)meta.n;\n", top="type bit<16> N16;\n", meta="    N16 n;\n"),
                             ("N16", "bit<8>"), ""),
    "cast_to_type_from_enum": (program("        N8 x = (N8)Color.Red;\n        hdr.h.a = (bit<8>)x;\n",
                                       top=TOP_ENUM + "type bit<8> N8;\n"), ("N8", "Color"), ""),
    "unknown_field": (program("        hdr.h.zz = 1;\n"), ("zz",), ""),
    "bad_v1model_version": (program("", version='"x"'), ("V1MODEL_VERSION", "string"), ""),
    "key_unknown_match_kind": (program("        t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a: fuzzy; } actions = { NoAction; } }"""), ("fuzzy", "match"), ""),
    "exit_in_function": (program("        f();\n", top="void f() { exit; }\n"), ("exit",), ""),
    "return_value_in_action": (program("        a();\n", ingress_decls="    action a() { return 1; }\n"), ("return",), ""),
    "register_typed_without_version": (program("        bit<32> v; r.read(v, 8w0);\n", ingress_decls="    register<bit<32>, bit<8>>(4) r;\n"),
                                       ("register", "type"), ""),
    "bool_to_bit8_cast": (program("        hdr.h.a = (bit<8>)(hdr.h.b == 1);\n"), ("cast", "bool"), ""),
    "missing_semicolon": (program("        hdr.h.a = 1\n"), ("expected",), ""),
    "const_entries_unknown_action": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    table t { key = { hdr.h.a: exact; } actions = { a; } const entries = { 1: b(); } }"""), ("b",), ""),
    "duplicate_declaration": (program("        bit<8> x = 1; bit<8> x = 2; hdr.h.a = x;\n"), ("x",), ""),
    "header_in_header": (program("", headers="header bad_t { h_t inner; }\n"), ("bad_t", "inner", "header"), ""),
    "entry_key_count": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    table t { key = { hdr.h.a: exact; } actions = { a; } const entries = { (1, 2): a(); } }"""), ("key", "entries", "2", "1"), ""),
    "entry_missing_action_arg": (program("        t.apply();\n", ingress_decls="""
    action a(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { a; } const entries = { 1: a(); } }"""), ("argument", "parameter", "v"), ""),
    "default_action_not_listed": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    action b() { }
    table t { key = { hdr.h.a: exact; } actions = { a; } default_action = b(); } """), ("b", "default"), ""),
    "transition_unknown_state": (program("", parser="""
    state start { pkt.extract(hdr.eth); transition nowhere; }"""), ("nowhere",), ""),
    "extract_in_control": (program("        pkt2.extract(hdr.h);\n"), ("pkt2",), ""),
    "assign_to_in_param": (program("        a(hdr.h.a);\n", ingress_decls="    action a(in bit<8> x) { x = 1; }\n"),
                           ("x", "in", "read-only", "cannot be assigned"), ""),
    "action_too_many_args": (program("        a(1, 2);\n", ingress_decls="    action a(in bit<8> x) { hdr.h.a = x; }\n"),
                             ("argument", "a"), ""),
    "duplicate_struct_field": (program("", headers="struct dup_t { bit<8> x; bit<8> x; }\n"), ("x", "duplicate"), ""),
    "table_size_not_constant": (program("        t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } size = hdr.h.a; }"""), ("size", "constant"), ""),
    "apply_table_in_action": (program("        a();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
    action a() { t.apply(); }"""), ("apply", "action", "t"), ""),
    "key_complex_without_name": (program("        t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a + 1: exact; } actions = { NoAction; } }"""), ("@name", "complex"), ""),
    "key_cast_without_name": (program("        t.apply();\n", ingress_decls="""
    table t { key = { (bit<16>)hdr.h.a: exact; } actions = { NoAction; } }"""), ("@name", "complex"), ""),
    "key_struct_type": (program("        t.apply();\n", ingress_decls="""
    table t { key = { meta: exact; } actions = { NoAction; } }"""), ("meta_t", "key"), ""),
    "key_name_not_string": (program("        t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact @name(1); } actions = { NoAction; } }"""), ("name", "string", "argument"), ""),
    "bool_arith": (program("        bool b = true; hdr.h.a = b + 1;\n"), ("bool", "+"), ""),
    "top_level_control_instance": (program("        hdr.h.a = 1;\n", top="""
control Add(inout h_t x)(bit<8> k) { apply { x.a = x.a + k; } }
Add(8w3) top_add;
"""), ("top_add", "top level"), ""),
    "top_level_parser_instance": (program("", top="""
parser SubP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }
SubP() top_sub;
"""), ("top_sub", "top level"), ""),
    "ctor_param_of_control_name_type": (program("        a.apply(hdr.h);\n", top="""
control Add(inout h_t x)(bit<8> k) { apply { x.a = x.a + k; } }
control Wrap(inout h_t x)(Add a) { apply { a.apply(x); } }
""", ingress_decls="    Wrap(Add(8w1)) a;\n"), ("Add", "type"), ""),
    "ctor_arg_not_an_instance": (program("        c.apply(hdr.h);\n", top="""
control Add(inout h_t x)(bit<8> k) { apply { x.a = x.a + k; } }
control AddT(inout h_t x);
control Wrap(inout h_t x)(AddT inner) { apply { inner.apply(x); } }
""", ingress_decls="    Wrap(8w1) c;\n"), ("inner", "instance"), ""),
    # front end as p4c 1.2.4.8 (tests/differential/diffcases/frontend.py has the valid side)
    "action_named_default_decl": (program("", ingress_decls="    action default() { }\n"), ("default",), ""),
    "block_param_direction": (program("").replace("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)",
                                                  "control E(inout headers_t hdr, inout meta_t meta, in standard_metadata_t sm)"),
                              ("directionless", "'in'", "V1Switch"), ""),
    "block_param_count": (program("").replace("control CC(inout headers_t hdr, inout meta_t meta)",
                                              "control CC(inout headers_t hdr)"), ("parameter",), ""),
    "block_header_type_differs": (program("", deparser="        pkt.emit(hdr.m8);").replace(
        "control D(packet_out pkt, in headers_t hdr)", "control D(packet_out pkt, in meta_t hdr)"), ("type H", "meta_t"), ""),
    "return_in_parser": (program("", parser="    state start { pkt.extract(hdr.eth); return; }"), ("return",), ""),
    "shift_by_negative_constant": (program("        hdr.h.a = hdr.h.a << -1;\n"), ("negative",), ""),
    "table_without_actions": (program("        t.apply();\n", ingress_decls="    table t { key = { hdr.h.a: exact; } }\n"),
                              ("actions",), ""),
    "default_action_other_bound_arg": (program("        t.apply();\n", ingress_decls="""
    action c(in bit<8> x, bit<8> y) { hdr.h.d = (bit<32>)(x + y); }
    table t { key = { hdr.h.a: exact; } actions = { c(hdr.h.b); } default_action = c(hdr.h.c, 1); }"""),
                                       ("hdr.h.c", "bound"), ""),
    "top_level_redeclaration": (program("", top="type bit<8> P;\n"), ("re-declaration", "P"), ""),
    "static_assert_v1model_version": (program("", version=20180101,
                                              top='const bool V = static_assert(V1MODEL_VERSION >= 20200408, "needs typed registers");\n'),
                                      ("static_assert", "typed registers"), ""),
    "entry_range_reversed": (program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: range; } actions = { s; } const entries = { 9 .. 3: s(1); } }"""), ("range",), ""),
    "const_entries_priority": (program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: ternary; } actions = { s; } const entries = { priority=3: 1 &&& 0xff: s(1); } }"""),
                               ("priorit",), ""),
    "invalid_header_as_struct": (program("        meta = (meta_t){#};\n"), ("{#}", "meta_t"), ""),
    "stack_last_in_control": (program("        hdr.h.a = hdr.s.last.a;\n", fields="    h_t[2] s;\n"), ("last", "parser"), ""),
    "v1model_version_negative": (program("", version="-1"), ("V1MODEL_VERSION",), ""),
    "v1model_version_expression": (program("", version="20200408 + 1"), ("V1MODEL_VERSION",), ""),
    "v1model_version_width_prefix": (program("", version="32w20200408"), ("suffix", "V1MODEL_VERSION"), ""),
    "action_calls_itself": (program("        a();\n", ingress_decls="    action a() { a(); }\n"), ("a",), ""),
    "function_calls_itself": (program("        hdr.h.a = f(1);\n", top="bit<8> f(in bit<8> x) { return f(x); }\n"),
                              ("f",), ""),
    "type_parameter_declared_twice": (program("", top="T f<T, T>(in T x) { return x; }\n"), ("T", "twice"), ""),
    "match_kind_declared_twice": (program("", top="match_kind { fuzzy, fuzzy }\n"), ("fuzzy", "twice"), ""),
    "action_listed_twice": (program("        t.apply();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact; } actions = { NoAction; NoAction; } }"""), ("twice",), ""),
    "default_action_top_level_namesake": (program("        t.apply();\n", top="action b() { }\n", ingress_decls="""
    action a() { }
    action b() { }
    table t { key = { hdr.h.a: exact; } actions = { a; b; } default_action = .b(); }"""), ("b", "default"), ""),
    "division_of_negative_constants": (program("        int<8> y = -6 / 2; hdr.h.a = (bit<8>)y;\n"), ("negative",), ""),
    "parameter_declared_twice": (program("        a(1, 2);\n", ingress_decls="    action a(bit<8> x, bit<8> x) { }\n"),
                                 ("x", "twice"), ""),
    "parser_state_declared_twice": (program("", parser="""
    state start { transition accept; }
    state start { transition accept; }"""), ("start", "twice"), ""),
    "error_member_declared_twice": (program("", top="error { Foo, Foo }\n"), ("Foo", "twice"), ""),
    "function_without_return_on_a_path": (program("        hdr.h.a = f(hdr.h.b);\n",
                                                  top="bit<8> f(in bit<8> x) { if (x == 1) { return 1; } }\n"),
                                          ("return",), ""),
    "write_to_in_header_param": (program("", deparser="        hdr.h.a = 1;\n        pkt.emit(hdr.eth);"), ("in", "hdr"), ""),
    "mark_to_drop_in_parser": (program("", parser="    state start { mark_to_drop(sm); transition accept; }"),
                               ("mark_to_drop", "parser"), ""),
    "string_variable": (program("        string s = \"x\";\n"), ("string",), ""),
    "table_action_param_default": (program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v = 3) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { s; } }"""), ("default", "control plane"), ""),
    # program-wide rules (switch/compiler/checks.py)
    "action_call_in_parser_state": (program("", parser="    state start { NoAction(); transition accept; }"),
                                    ("action", "parser"), ""),
    "function_calls_action": (program("        hdr.h.b = g(hdr.h.a);\n", top="""
action bump() { }
bit<8> g(in bit<8> v) { bump(); return v; }
"""), ("bump", "function"), ""),
    "entry_annotation_before_keyset": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    table t { key = { hdr.h.b: ternary; } actions = { a; } const entries = { @priority(5) 2 &&& 3: a(); } }"""),
                                       ("unexpected @", "annotation"), ""),
    "entry_uses_defaultonly_action": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    action b() { hdr.h.b = 9; }
    table t { key = { hdr.h.c: exact; } actions = { a; @defaultonly b; } const entries = { 5: b(); } }"""),
                                      ("defaultonly",), ""),
    "default_action_tableonly": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    action b() { hdr.h.b = 9; }
    table t { key = { hdr.h.c: exact; } actions = { @tableonly a; b; } default_action = a(); }"""),
                                 ("tableonly",), ""),
    "entry_priority_on_exact_key": (program("        t.apply();\n", ingress_decls="""
    action a() { }
    table t { key = { hdr.h.c: exact; hdr.h.a: lpm; } actions = { a; } entries = { priority=4: (1, 2): a(); } }"""),
                                    ("priorit",), ""),
    "compute_checksum_assignment": (program("", compute="    apply { hdr.h.c = 16w0; }"), ("update_checksum",), ""),
    "verify_checksum_under_if": (program("", verify="""
    apply { if (hdr.h.a == 4) { verify_checksum(true, { hdr.h.b }, hdr.h.c, HashAlgorithm.csum16); } }"""),
                                 ("verify_checksum",), ""),
    "deparser_if": (program("", deparser="        pkt.emit(hdr.eth);\n        if (hdr.h.b == 2) { pkt.emit(hdr.h); }"),
                    ("deparser",), ""),
    "deparser_local_field_write": (program("", deparser="        h_t c = hdr.h;\n        c.a = 7;\n        pkt.emit(hdr.eth);\n        pkt.emit(c);"),
                            ("deparser",), ""),
    "counter_index_width": (program("        hits.count(hdr.h.c);\n", ingress_decls="    counter(8, CounterType.packets) hits;\n"),
                            ("index", "bit<16>"), ""),
    "typed_register_index_width": (program("        bit<16> v; r.read(v, hdr.h.c);\n        hdr.h.c = v;\n",
                                           ingress_decls="    register<bit<16>, bit<4>>(16) r;\n", version=20200408),
                                   ("index", "bit<4>"), ""),
    "table_hit_in_action": (program("        a();\n", ingress_decls="""
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
    action a() { hdr.h.b = t.apply().hit ? 8w1 : 8w2; }"""), ("apply", "action"), ""),
    "control_instantiates_itself": (program("", top="control Loop(inout h_t x) { Loop() inner; apply { inner.apply(x); } }\n"),
                                    ("Loop", "self"), ""),
    "headers_struct_with_bits": (program("", fields="    bit<16> scratch;\n"), ("scratch", "headers"), ""),
    "lookahead_varbit_header": (program("", headers="header opt_t { bit<8> len; varbit<64> body; }\n", parser="""
    state start { opt_t o = pkt.lookahead<opt_t>(); transition accept; }"""), ("lookahead", "fixed"), ""),
    "local_named_like_block_param": (program("        bit<8> sm = 3;\n        hdr.h.a = sm;\n"), ("shadows", "sm"), ""),
    "action_local_named_like_control_param": (program("        a();\n", ingress_decls="""
    action a() { bit<16> hdr = 16w5; meta.m16 = hdr; }"""), ("shadows", "hdr"), ""),
    "state_local_named_like_parser_param": (program("", parser="""
    state start { bit<8> meta = 1; pkt.extract(hdr.eth); transition accept; }"""), ("shadows", "meta"), ""),
    "action_and_variable_same_name": (program("        hdr.h.a = 1;\n", ingress_decls="    action tag() { }\n    bit<8> tag;\n"),
                                      ("tag", "duplicate"), ""),
    "parser_local_named_like_state": (program("", parser="""
    bit<8> parse_more = 0;
    state start { transition parse_more; }
    state parse_more { transition accept; }"""), ("parse_more", "duplicate"), ""),
    "struct_field_arbitrary_int": (program("", meta="    int count;\n"), ("count", "int"), ""),
    "newtype_of_header": (program("", top="type h_t wrapped_h;\n"), ("wrapped_h", "base type"), ""),
    "log_msg_scalar_data": (program('        log_msg("b={}", hdr.h.b);\n'), ("log_msg", "list"), ""),
}

_HAVE_P4C = bmv2_available() is None


def params():
    for name, (src, words, gap) in INVALID.items():
        marks = [pytest.mark.xfail(strict="bmv2 branch" not in gap, reason=f"checkmate-p4c {gap}")] if gap else []
        yield pytest.param(name, src, words, id=name, marks=marks)


@pytest.mark.skipif(not _HAVE_P4C, reason=f"needs real p4c: {bmv2_available()}")
@pytest.mark.parametrize("name", list(INVALID))
def test_p4c_rejects_it(name):
    case = Case(name=f"invalid_{name}", category="invalid", source=INVALID[name][0])
    assert isinstance(compile_p4c(case), str), "p4c accepts this program: it does not belong here"


@pytest.mark.parametrize("name,src,words", list(params()))
def test_rejected_with_position(name, src, words):
    from switch.compiler import P4CompileError

    case = Case(name=f"invalid_{name}", category="invalid", source=src)
    with pytest.raises(P4CompileError) as ei:
        compile_checkmate(case)
    msg = str(ei.value)
    assert re.match(r"^\S+\.p4:\d+:\d+: ", msg), f"no file:line:col in {msg!r}"
    assert any(w.lower() in msg.lower() for w in words), f"message does not name the problem ({words}): {msg}"
