"""One-mistake programs of the kinds tools/p4c_mutate.py makes (a valid program with one
mutation), where checkmate-p4c used to disagree with real p4c.  Each must be rejected with
``file:line:col`` on the mutated line and a message naming the problem; each valid twin (the
program before the mutation) must still compile.  With p4c on PATH, p4c's verdict on both is
checked too, so no case here is a program p4c accepts."""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from p4c_helpers import assert_rejected_on_line, program
from switch.compiler import P4CompileError, compile_source

TABLE = """    action a(bit<8> v) {{ hdr.h.a = v; }}
    {anno} table t {{ key = {{ hdr.h.a: exact {kanno}; hdr.h.c: exact {kanno2}; }} actions = {{ a; }} }}"""


def _table(anno="", kanno="", kanno2=""):
    return program(locals=TABLE.format(anno=anno, kanno=kanno, kanno2=kanno2), body="        t.apply();")


def _hash(targs: str) -> str:
    return program(top="struct hd_t { bit<8> a; }\n", body=f"        bit<16> r;\n        hash{targs}(r, HashAlgorithm.crc16, "
                   "8w0, { hdr.h.a }, 16w1024);\n        hdr.h.b = r;")


# a control type, a control S (with what it needs) and W, which applies the Ct passed to it
_CTOR_SUB = "control Ct(inout bit<8> x);\n{s}\ncontrol W(inout bit<8> x)(Ct c) {{ apply {{ c.apply(x); }} }}\n"


_MK_TABLE = "    action a() { }\n    table t { key = { hdr.h.a: late_mk; } actions = { a; } }\n"
_FL_STRUCT = "struct fl_t { @field_list(\"a\") bit<8> f; }\n"


_EXIT_SUB = """control S(inout h_t h) {
    action a(bit<8> v) { h.a = v; }
    table t { key = { h.a: exact; } actions = { a; NoAction; } default_action = NoAction(); }
    apply { %s }
}
"""


_ACT = "    action {0}() {{ hdr.h.c = 1; }}\n"
_PROFILE_TABLE = ("    action s(bit<8> v) {{ hdr.h.c = v; }}\n    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ s; NoAction; }}\n"
                  "        @name({0}) implementation = action_profile(4); }}\n")
_KEY_TABLE = "    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }\n"


def _varbit(src: str) -> str:
    return src.replace("header h_t { bit<8> a;", "header h_t { varbit<8> a;")


def _bool_select(label: str) -> str:
    return program().replace("header h_t { bit<8> a;", "header h_t { bool a; bit<7> p;").replace(
        "pkt.extract(hdr.h); transition accept;", f"pkt.extract(hdr.h); transition select(hdr.h.a) {{ {label}: accept; default: accept; }}")


_DM = ("    direct_meter<bit<2>>(MeterType.packets) dm;\n    action rd() {{ bit<2> c; dm.read(c); hdr.h.c = (bit<8>)c; }}\n"
       "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ rd; }}{0} }}\n")
_ACT_TABLE = "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ {0}; }} }}\n"
_DEF_TABLE = "    table t {{ actions = {{ NoAction; }} default_action = {0}(); }}\n"


# two sub-controls declared S1, S2 and instantiated (and applied) S2 first
_TWO_SUBS = "control S1(inout h_t h) {{ apply {{ {0} }} }}\ncontrol S2(inout h_t h) {{ apply {{ {1} }} }}\n"
_SUBS_IN_I = dict(locals="    S2() s2;\n    S1() s1;\n", body="        s2.apply(hdr.h);\n        s1.apply(hdr.h);")
_S1 = "control S1(inout h_t h) {{ apply {{ {0} }} }}\n"
_P1 = "parser P1(packet_in p, out h_t h) {{ state start {{ {0} transition accept; }} }}\n"
# p4c's BMv2 back-end errors, in blocks nothing instantiates (p4c checks only their types)
_UNUSED_BACK_END = (
    "control U1(inout h_t h, inout standard_metadata_t sm) { apply { h.a = h.a / 3; h.a = h.a << h.b;\n"
    "    verify_checksum(true, {h.a}, h.b, HashAlgorithm.csum16); clone(CloneType.E2E, 1); } }\n"
    "control U2(inout h_t h) { action a() { if (h.a == 1) { h.c = 1; } }\n"
    "    table t { key = { h.a: lpm; h.c: lpm; } actions = { a; } } apply { t.apply(); } }\n"
    "parser U3(packet_in p, out h_t h, inout standard_metadata_t sm) { state start { mark_to_drop(sm);\n"
    "    p.extract(h); transition select(h.a) { 1: accept; } } }\n")

# a control type and blocks taking an instance of it (guide10_control_typed_constructor_argument)
_UPD = ("control Upd(in {0} idx);\ncontrol C3(in bit<32> idx)(Upd u1) {{ apply {{ u1.apply(idx + 10); }} }}\n"
        "control Leaf(in bit<32> idx) {{ counter(64, CounterType.packets) cnt; apply {{ cnt.count(idx); }} }}\n"
        "control C1(in bit<32> idx)(Upd u) {{ apply {{ u.apply(idx); }} }}\n")
_UPD_IN_I = dict(locals="    Leaf() leaf;\n    C1(leaf) c1;\n    C3(c1) c3;\n", body="        c3.apply((bit<32>)hdr.h.a);")
_UPD_ARG = dict(locals="    C1(Leaf()) c1;\n", body="        c1.apply((bit<32>)hdr.h.a);")

_GEN = "control GF<T>(inout T x, in T y) {{ apply {{ {0} }} }}\n"
_GEN_IN_I = dict(locals="    GF<bit<8>>() g;\n", body="        g.apply(hdr.h.a, hdr.h.c);")

_KEY_ACT = "    action {0}() {{ }}\n    table t {{\n        key = {{ hdr.h.a: exact; }}\n        actions = {{ {0}; }} }}\n"
_SELF_TABLE = "    table {0} {{\n        key = {{ hdr.h.a: exact; }}\n        actions = {{ NoAction; }} }}\n"

_TYPED = "#define V1MODEL_VERSION 20200408\n"

# p4c's BMv2 back end refuses a division by 5 only if its midend's constant propagation leaves the
# dividend unknown: along states merged into their only, unconditional predecessor and through a
# sub-parser's arguments (p4c_mutate seed 54), in a control body after its locals' initializers
_DIV_SUB = "parser Sp(packet_in p, inout bit<8> cnt) {{ state start {{ {0} transition accept; }} }}\n"


def _div_parser(states: str, top: str = "") -> str:
    return program(top=top, locals="").replace("    state start { pkt.extract(hdr.h); transition accept; }", states)


_DIV_CHAIN = "    state start {{ pkt.extract(hdr.h); m.x = 3; transition {0} }}\n    state s2 {{ m.x = (m.x + 1) / 5; transition accept; }}"
_DIV_CALL = ("    Sp() sp;\n    state start {{ pkt.extract(hdr.h); m.x = {0}; sp.apply(pkt, m.x); m.x = (m.x + 1) / 5; "
             "transition accept; }}")


# a top-level counter given to a control's constructor parameter (mutz19's open `far` item)
_CTR_PARAM = "{0}\ncontrol S(inout h_t h)({1} c) {{ apply {{ {2} }} }}\n"
_CTR_IN_I = dict(locals="    S(gc) s;\n", body="        s.apply(hdr.h);")


def _ctr(gc: str, param: str, use: str = "c.count(32w1);", typed: bool = True) -> str:
    return (_TYPED if typed else "") + program(top=_CTR_PARAM.format(gc, param, use), **_CTR_IN_I)


_NAMED = ("    {0} action a() {{ hdr.h.a = 1; }}\n    {1} table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a; }} }}\n"
          "    {2} counter(4, CounterType.packets) c;\n")


def _named(a="", t="", c="") -> str:
    return program(locals=_NAMED.format(a, t, c), body="        t.apply();\n        c.count(1);")


def _checksum(data: str) -> str:
    return program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                             "control VC(inout headers hdr, inout meta_t m) {\n    apply { verify_checksum(true, "
                             f"{data}, hdr.h.b, HashAlgorithm.csum16); }}\n}}")


def _vs_select(width: int) -> str:
    """A value set of a two-field struct as the keyset of a two-key select, on the next line."""
    return program(top=f"struct vs_t {{ bit<8> a; bit<{width}> b; }}\n").replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        "    value_set<vs_t>(4) vs;\n    state start { pkt.extract(hdr.h); transition select(hdr.h.a, hdr.h.b) {\n"
        "            vs: accept; default: accept; } }")


def _int_slice(body: str) -> str:
    return program(top="header s_t { int<16> s; }\n", body=body).replace("struct headers { h_t h; }",
                                                                        "struct headers { h_t h; s_t s; }")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c 1.2.4.8 takes no value into a slice of an int<W> (p4c_mutate seed 53: a header field
    # made int<48>, then written in slices; was accepted); reading one is fine
    "assignment_into_slice_of_signed_field": (_int_slice("        hdr.s.s[7:0] = hdr.h.a;"), "hdr.s.s[7:0] =",
                                              r"cannot assign to a slice of a value of type int<16>",
                                              _int_slice("        hdr.h.a = hdr.s.s[7:0];")),
    # with V1MODEL_VERSION >= 20200408 p4c infers an untyped counter's index type from its first
    # use and refuses that use, so a register missing its index type declared below comes first
    # (p4c_mutate kind v1model_version on checkmate.p4: was reported at the counter)
    "typed_v1model_register_before_untyped_counter_use": (
        _TYPED + program(locals="    counter(8, CounterType.packets) c;\n    register<bit<8>>(8) r;\n", body="        c.count(32w1);"),
        "register<bit<8>>", r"register has 2 type parameter\(s\).*specialized with 1",
        _TYPED + program(locals="    counter<bit<32>>(8, CounterType.packets) c;\n    register<bit<8>, bit<32>>(8) r;\n",
                         body="        c.count(32w1);")),
    "typed_v1model_untyped_counter_use": (
        _TYPED + program(locals="    counter(8, CounterType.packets) c;\n", body="        c.count(32w1);"), "c.count",
        r"could not infer a type for variable I",
        _TYPED + program(locals="    counter<bit<32>>(8, CounterType.packets) c;\n", body="        c.count(32w1);")),
    # an action named `key` listed by a table with a key (p4c 1.2.4.8: "Compiler Bug: Could not
    # find type of <Property> key"), a table named NoAction listing NoAction (p4c: "Cannot refer
    # to the containing table"): p4c_mutate seed 52, kind reserved_name, both were accepted
    "action_named_key_listed_by_a_table": (program(locals=_KEY_ACT.format("key"), body="        t.apply();"), "key = {",
                                           r"an action named key", program(locals=_KEY_ACT.format("k2"), body="        t.apply();")),
    "table_named_noaction_lists_noaction": (program(locals=_SELF_TABLE.format("NoAction")), "actions = { NoAction",
                                            r"cannot refer to the containing table NoAction",
                                            program(locals=_SELF_TABLE.format("t2"))),
    # a generic block is type-checked as such, with T unknown (p4c_mutate seed 49: `x = y / 8`
    # was accepted, checkmate-p4c checked the block only as instantiated with bit<8>)
    "generic_control_arithmetic_on_type_variable": (program(top=_GEN.format("x = y / 8;"), **_GEN_IN_I), "y / 8",
                                                    r"expected T, got int", program(top=_GEN.format("x = y;"), **_GEN_IN_I)),
    "generic_control_operator_on_type_variable": (program(top=_GEN.format("x = x + y;")), "x + y", r"operator \+ on values of type T",
                                                  program(top=_GEN.format("x = y;"))),
    "generic_parser_extract_type_variable": (
        program(top="parser GP<T>(packet_in p, out T h) { state start { p.extract(h); transition accept; } }\n"), "p.extract(h)",
        r"extract into a value of type T", program(top="parser GP<T>(packet_in p, out T h) { state start { transition accept; } }\n")),
    # a bad V1MODEL_VERSION is reported at the program's #define, where cpp (p4c) puts its tokens,
    # not at v1model.p4's #if / constant (p4c_mutate kind v1model_version)
    "v1model_version_bad_suffix": ("#define V1MODEL_VERSION 2020x\n" + program(), "#define", r"invalid suffix 'x'",
                                   "#define V1MODEL_VERSION 20200408\n" + program()),
    "v1model_version_string": ('#define V1MODEL_VERSION "20200408"\n' + program(), "#define", r"cannot evaluate #if",
                               "#define V1MODEL_VERSION 0x1343C48\n" + program()),
    "v1model_version_negative": ("#define V1MODEL_VERSION -1\n" + program(), "#define", r"non-negative integer literal",
                                 "#define V1MODEL_VERSION 20180101\n" + program()),
    # the control given for a control-typed constructor parameter has other parameter types (was
    # accepted: its applies were checked against the control given); p4c names the receiving
    # block, and a mismatched apply in a block declared earlier first (p4c_mutate seed 46)
    "control_type_argument_mismatch": (
        program(top=_UPD.format("int<32>").replace("u.apply(idx)", "u.apply((int<32>)idx)").replace("idx + 10", "(int<32>)idx"),
                **_UPD_ARG), "control C1",
        r"constructor argument for u is control Leaf\(in bit<32>\), which does not match the type of parameter u: "
        r"Upd\(in int<32>\)", program(top=_UPD.format("bit<32>"), **_UPD_ARG)),
    "control_type_apply_checked_in_declaration_order": (
        program(top=_UPD.format("int<32>"), **_UPD_IN_I), "u1.apply", r"expected int<32>, got bit<32>",
        program(top=_UPD.format("bit<32>"), **_UPD_IN_I)),
    # p4c checks declarations in program order: with errors in two sub-controls it names the one
    # declared first, not the one instantiated first (mutz18's left item); and an error in an
    # action of the control that instantiates them comes after both
    "subcontrol_errors_in_declaration_order": (
        program(top=_TWO_SUBS.format("h.zz1 = 1;", "h.zz2 = 1;"), **_SUBS_IN_I), "h.zz1", r"no field zz1",
        program(top=_TWO_SUBS.format("h.a = 1;", "h.c = 1;"), **_SUBS_IN_I)),
    "subcontrol_type_errors_in_declaration_order": (
        program(top=_TWO_SUBS.format("h.a = 16w1;", "h.a = true;"), **_SUBS_IN_I), "16w1", r"expected bit<8>, got bit<16>",
        program(top=_TWO_SUBS.format("h.a = 8w1;", "h.a = 8w2;"), **_SUBS_IN_I)),
    "subcontrol_error_before_instantiating_action": (
        program(top=_S1.format("h.zz1 = 1;"), locals="    action x() { hdr.h.qq = 2; }\n    S1() s1;\n",
                body="        x();\n        s1.apply(hdr.h);"), "h.zz1", r"no field zz1",
        program(top=_S1.format("h.a = 1;"), locals="    action x() { hdr.h.c = 2; }\n    S1() s1;\n",
                body="        x();\n        s1.apply(hdr.h);")),
    # ... and checks a parser or control that nothing instantiates (was accepted)
    "uninstantiated_control_unknown_field": (program(top=_S1.format("h.zz1 = 1;")), "h.zz1", r"no field zz1",
                                             program(top=_S1.format("h.a = 1;"))),
    "uninstantiated_control_type_mismatch": (program(top=_S1.format("h.a = 16w1;")), "16w1", r"expected bit<8>, got bit<16>",
                                             program(top=_S1.format("h.a = 8w1;"))),
    "uninstantiated_parser_unknown_field": (program(top=_P1.format("h.zz = 1;")), "h.zz", r"no field zz",
                                            program(top=_P1.format("h.a = 1;"))),
    # p4c's grammar takes a parameter's type only once declared ("unexpected IDENTIFIER")
    "control_param_type_declared_later": (
        program(top="control S1(inout h_t h, inout meta_t m) { apply { h.a = m.x; } }\n", locals="    S1() s1;\n",
                body="        s1.apply(hdr.h, m);"), "inout meta_t", r'unexpected IDENTIFIER "meta_t"',
        program(top="control S1(inout h_t h, inout bit<8> x) { apply { h.a = x; } }\n", locals="    S1() s1;\n",
                body="        s1.apply(hdr.h, m.x);")),
    "division_in_state_after_select": (_div_parser(_DIV_CHAIN.format("select(hdr.h.a) { 1: s2; default: accept; }")),
                                       "(m.x + 1) / 5", r"the divisor must be a compile-time power of two",
                                       _div_parser(_DIV_CHAIN.format("s2;"))),
    "division_in_subparser_of_unknown_argument": (
        _div_parser(_DIV_CALL.format("hdr.h.a"), top=_DIV_SUB.format("cnt = (cnt + 1) / 5;")), "cnt = (cnt + 1) / 5",
        r"the divisor must be a compile-time power of two",
        _div_parser(_DIV_CALL.format("16"), top=_DIV_SUB.format("cnt = (cnt + 1) / 5;"))),
    # ... nor past a sub-parser that branches (the rest of the calling state is a state of its own)
    "division_after_branching_subparser": (
        _div_parser(_DIV_CALL.format("16").replace("m.x = 16;", "m.y = 3; m.x = 16;").replace("m.x = (m.x + 1) / 5;", "m.y = (m.y + 1) / 5;"),
                    top=_DIV_SUB.format("transition select(cnt) { 1: accept; default: s1; } } state s1 {")),
        "m.y = (m.y + 1) / 5", r"the divisor must be a compile-time power of two",
        _div_parser(_DIV_CALL.format("16").replace("m.x = 16;", "m.y = 3; m.x = 16;").replace("m.x = (m.x + 1) / 5;", "m.y = (m.y + 1) / 5;"),
                    top=_DIV_SUB.format("transition s1; } state s1 {"))),
    # an action called directly is inlined with its arguments: a division over its parameter folds
    # where every call passes a constant (not a field, nor a parameter a table's entries set)
    "division_of_action_parameter_given_a_field": (
        program(locals="    action b(bit<8> v) { m.x = v / 5; }\n", body="        b(8w10);\n        b(hdr.h.a);"), "v / 5",
        r"the divisor must be a compile-time power of two",
        program(locals="    action b(bit<8> v) { m.x = v / 5; }\n", body="        b(8w10);\n        b(8w20 + 1);")),
    "division_of_action_parameter_set_by_a_table": (
        program(locals="    action b(bit<8> v) { m.x = v / 5; }\n    table t { key = { hdr.h.a: exact; } actions = { b; } }\n",
                body="        t.apply();"), "v / 5", r"the divisor must be a compile-time power of two",
        program(locals="    action b(bit<8> v) { m.x = v / 5; }\n    table t { key = { hdr.h.a: exact; } actions = { b; } }\n",
                body="        b(8w10);")),
    "division_of_function_parameter_given_a_field": (
        program(top="bit<8> f(in bit<8> x) { return x / 5; }\n", body="        m.x = f(8w10) + f(hdr.h.a);"), "x / 5",
        r"the divisor must be a compile-time power of two",
        program(top="bit<8> f(in bit<8> x) { return x / 5; }\n", body="        m.x = f(8w10) + f(8w7);")),
    "division_in_control_of_unknown_value": (
        program(body="        m.x = hdr.h.a;\n        if (hdr.h.c == 1) { m.x = (m.x + 1) / 5; }"), "(m.x + 1) / 5",
        r"the divisor must be a compile-time power of two",
        program(locals="    bit<8> t = 4;\n", body="        m.x = t;\n        if (hdr.h.c == 1) { m.x = (m.x + 1) / 5; }")),
    # a parameter of a generic extern type without type arguments (p4c: "Type parameters needed
    # for c", at the parameter): was accepted, or -- an untyped top-level counter -- a crash
    # (V1MODEL_VERSION 20200408) or an error at the counter (mutz19's open `far` item)
    "untyped_counter_constructor_parameter": (
        _ctr("counter<bit<32>>(8, CounterType.packets) gc;", "counter"), "(counter c)", r"Type parameters needed for c",
        _ctr("counter<bit<32>>(8, CounterType.packets) gc;", "counter<bit<32>>")),
    "untyped_counter_to_untyped_constructor_parameter": (
        _ctr("counter(8, CounterType.packets) gc;", "counter"), "(counter c)", r"Type parameters needed for c",
        _ctr("counter(8, CounterType.packets) gc;", "counter", typed=False)),
    "untyped_top_level_counter_to_typed_parameter": (
        _ctr("counter(8, CounterType.packets) gc;", "counter<bit<32>>"), "counter(8", r"counter has 1 type parameter",
        _ctr("counter<bit<32>>(8, CounterType.packets) gc;", "counter<bit<32>>")),
    "untyped_register_constructor_parameter": (
        _ctr("register<bit<8>>(8) gc;", "register", "c.write(0, 1);", typed=False), "(register c)",
        r"Type parameters needed for c", _ctr("register<bit<8>>(8) gc;", "register<bit<8>>", "c.write(0, 1);", typed=False)),
    # @name(".") leaves a kept object an empty control-plane name: p4c's P4Runtime serializer dies
    # ("Compiler Bug: Null or empty symbol name?"; p4c_mutate kind name_clash, seed 63: accepted)
    "empty_name_action": (_named(a='@name(".")'), '@name(".") action', r"empty control-plane name", _named(a='@name(".a")')),
    "empty_name_table": (_named(t='@name(".")'), '@name(".") table', r"empty control-plane name", _named(t='@name("x.y")')),
    "empty_name_counter": (_named(c='@name(".")'), '@name(".") counter', r"empty control-plane name", _named(c='@name("")')),
    # a typed counter parameter before V1MODEL_VERSION 20200408 (seed 63, kind extern_ctor: accepted)
    "typed_counter_parameter_before_20200408": (
        _ctr("counter(8, CounterType.packets) gc;", "counter<bit<32>>", typed=False), "(counter<bit<32>> c)",
        r"counter has 0 type parameter", _ctr("counter(8, CounterType.packets) gc;", "counter", typed=False)),
    # p4c has no log_msg of three arguments ("log_msg: declaration not found"; seed 63: accepted)
    "log_msg_three_arguments": (program(body='        log_msg("a={}", {hdr.h.a}, 8w1);'), "log_msg", r"log_msg takes 1 or 2",
                                program(body='        log_msg("a={}", {hdr.h.a});')),
    # checksum data of one scalar (p4c dies) or with a bool literal ("Computations are not
    # supported in verify_checksum"; seed 63, kind extern_call: accepted)
    "checksum_data_one_field": (_checksum("hdr.h.a"), "verify_checksum", r"must be a list expression", _checksum("hdr.h")),
    "checksum_data_bool_literal": (_checksum("{hdr.h.a, true}"), "verify_checksum", r"a bool literal",
                                   _checksum("{hdr.h.a, 8w1}")),
    # p4c parses @brief / @description (and @name) as exactly one string literal (a syntax error
    # otherwise; p4c_mutate seed 64 put an @name("...") inside a @description's text: accepted)
    "description_two_tokens": (_named(a='@description("copies the @name(".t") action")'), "@description",
                               r"@description takes one string", _named(a='@description("copies the action")')),
    "brief_two_strings": (_named(t='@brief("a" "b")'), "@brief", r"@brief takes one string", _named(t='@brief("ab")')),
    "name_string_and_tokens": (_named(c='@name("a" .t "b")'), "@name", r"@name takes one string", _named(c='@name("a.t.b")')),
    # a top-level action is copied into the control that lists it and named there like a local
    # action: beside a local action of that name p4c's JSON has one label twice (seed 64: accepted)
    "top_level_action_named_like_a_local_one": (
        program(top='@name("fwd") action g() { }\n', locals="    action fwd() { }\n"
                "    table t { key = { hdr.h.a: exact; } actions = { fwd; g; } }\n", body="        t.apply();"),
        "actions = { fwd; g; }", r"both named I.fwd",
        program(top='@name(".fwd") action g() { }\n', locals="    action fwd() { }\n"
                "    table t { key = { hdr.h.a: exact; } actions = { fwd; g; } }\n", body="        t.apply();")),
    # hash's data is a struct for p4c's BMv2 back end ("expected a struct"; seed 65: accepted)
    "hash_data_one_field": (program(body="        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, hdr.h.a, 16w64); hdr.h.b = r;"),
                            "hash(r", r"hash data must be a list expression",
                            program(body="        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, hdr.h, 16w64); hdr.h.b = r;")),
    # a shift by a header field declared bool: p4c's BMv2 back end dies naming the field's
    # declaration (mutz19's open `far` item: was reported at the shift)
    "shift_by_bool_header_field": (program(body="        hdr.h.a = hdr.h.a << hdr.h.c;").replace("bit<8> c; }", "bool c; }"),
                                   "bool c;", r"header field declared bool",
                                   program(body="        hdr.h.a = hdr.h.a << hdr.h.c;")),
    # p4c names the 'SelectExpression' of a value set of the wrong type (p4c_mutate `far`: was the
    # case's line)
    "value_set_struct_mismatch_at_select": (_vs_select(15), "transition select", r"value_set P.vs holds vs_t", _vs_select(16)),
    # an integer in a list expression for a header's varbit field: p4c's type error at the
    # assignment, before the late error of a one-argument extract (p4c_mutate `far`: was the extract)
    "list_integer_into_varbit_field": (
        _varbit(program(body="        hdr.h = {1, 2, 3};")), "hdr.h = {1, 2, 3}", r"not with 'varbit<8>'",
        _varbit(program(body="        hdr.h.c = 3;")).replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h, 8);")),
    # a serializable enum is made from its own underlying type only (p4c: "Cannot unify type
    # 'bit<8>' with type 'Color'"; p4c_mutate `far`: accepted, a later cast out of it named)
    "cast_into_enum_of_other_width": (
        program(top="enum bit<7> Color { Red = 1 }\n", body="        Color c = (Color)hdr.h.a;"), "(Color)hdr.h.a",
        r"cannot cast bit<8> to enum Color", program(top="enum bit<8> Color { Red = 1 }\n", body="        Color c = (Color)hdr.h.a;")),
    # a selector key without an action_selector in a table with const entries: p4c's P4Runtime
    # serializer refuses it without a position; named at the key (p4c_mutate `far`: at the entry)
    "selector_key_without_selector_and_const_entries": (
        program(locals="    action a() { }\n    table t { key = { hdr.h.c: selector; }\n        actions = { a; }\n"
                       "        const entries = { 1: a(); } }\n", body="        t.apply();"),
        "hdr.h.c: selector", r"selector key but no action_selector",
        program(locals="    action a() { }\n    table t { key = { hdr.h.c: exact; }\n        actions = { a; }\n"
                       "        const entries = { 1: a(); } }\n", body="        t.apply();")),
    # p4c type-checks the value of a table property it ignores (p4c_mutate seed 73: accepted)
    "ignored_table_property_type_error": (
        program(locals="    table t { key = { hdr.h.a: ternary; } actions = { NoAction; }\n        priority_delta = (true) / 0; foo = 1; }\n",
                body="        t.apply();"), "priority_delta", r"expected bool, got int",
        program(locals="    table t { key = { hdr.h.a: ternary; } actions = { NoAction; }\n        priority_delta = -2; foo = 1; }\n",
                body="        t.apply();")),
    "unknown_table_property_unknown_field": (
        program(locals="    table t { key = { hdr.h.a: ternary; } actions = { NoAction; }\n        foo = hdr.h.zz; }\n",
                body="        t.apply();"), "foo = hdr.h.zz", r"no field zz",
        program(locals="    table t { key = { hdr.h.a: ternary; } actions = { NoAction; }\n        foo = hdr.h.a; }\n",
                body="        t.apply();")),
    "priority_string": (_table('@priority("x")'), "@priority", r"@priority takes one integer", _table("@priority(3)")),
    "priority_two_args": (_table("@priority(1, 2)"), "@priority", r"@priority takes one integer", _table("@priority(3)")),
    "priority_negative": (_table("@priority(-1)"), "@priority", r"@priority takes one integer", _table("@priority(0)")),
    "id_empty": (_table("@id()"), "@id", r"@id takes one integer", _table("@id(7)")),
    "id_string": (_table('@id("a")'), "@id", r"@id takes one integer", _table("@id(7)")),
    "hidden_with_arg": (_table("@hidden(1)"), "@hidden", r"@hidden should not have any arguments", _table("@hidden")),
    "atomic_with_arg": (_table("@atomic(x)"), "@atomic", r"@atomic should not have any arguments", _table("@atomic()")),
    "nowarn_integer": (_table("@noWarn(1)"), "@noWarn", r"@noWarn takes one string", _table('@noWarn("unused")')),
    "deprecated_integer": (_table("@deprecated(2)"), "@deprecated", r"@deprecated takes one string",
                           _table('@deprecated("old")')),
    "key_id_twice": (_table(kanno="@id(4)", kanno2="@id(4)"), "hdr.h.c", r"@id 4 is used",
                     _table(kanno="@id(4)", kanno2="@id(5)")),
    "v1switch_type_arg_undeclared": (program().replace("V1Switch(", "V1Switch<headers, meta_x>("), "V1Switch<",
                                     r"unknown type meta_x", program().replace("V1Switch(", "V1Switch<headers, meta_t>(")),
    "v1switch_type_args_swapped": (program().replace("V1Switch(", "V1Switch<meta_t, headers>("), "V1Switch<",
                                   r"type argument H is meta_t", program().replace("V1Switch(", "V1Switch<headers, meta_t>(")),
    "hash_type_arg_base": (_hash("<bit<16>, bool, hd_t, bit<16>>"), "hash<", r"expected bool, got bit<8>",
                           _hash("<bit<16>, bit<8>, hd_t, bit<16>>")),
    "hash_type_arg_result": (_hash("<bit<32>, bit<8>, hd_t, bit<16>>"), "hash<", r"type argument O is bit<32>",
                             _hash("<bit<16>, bit<8>, hd_t, bit<16>>")),
    "hash_type_arg_max": (_hash("<bit<16>, bit<8>, hd_t, bit<32>>"), "hash<", r"expected bit<32>, got bit<16>",
                          _hash("<bit<16>, bit<8>, hd_t, bit<16>>")),
    "isvalid_with_argument": (program(body="        if (hdr.h.isValid(1)) { hdr.h.a = 1; }"), "isValid(1)",
                              r"isValid\(\) takes no arguments", program(body="        if (hdr.h.isValid()) { hdr.h.a = 1; }")),
    "int_variable": (program(body="        int x = 1;\n        hdr.h.a = (bit<8>)x;"), "int x", r"variables of type int",
                     program(body="        const int x = 1;\n        hdr.h.a = (bit<8>)x;")),
    "inout_param_default": (program().replace("control E(inout headers hdr", "control E(inout headers hdr = {}"),
                            "control E(", r"inout parameters cannot have default values", program()),
    "shift_amount_16_bits": (program(body="        hdr.h.a = hdr.h.a << hdr.h.b;"), "<< hdr.h.b",
                             r"shift amount limited to 8 bits", program(body="        hdr.h.a = hdr.h.a << hdr.h.c;")),
    # in an action only when the action is used (p4c drops an unused one before the check; an
    # amount that is constant once p4c has inlined the call is folded away: not checked here)
    "shift_amount_in_used_action": (
        program(locals="    action s(bit<8> v) { hdr.h.a = v << 9w1; }\n", body="        s(hdr.h.c);"), "9w1",
        r"shift amount limited to 8 bits", program(locals="    action s(bit<8> v) { hdr.h.a = v << 9w1; }\n")),
    "shift_amount_in_called_function": (
        program(top="bit<8> f(in bit<8> x, in bit<16> y) { return x << y; }\n", body="        hdr.h.a = f(hdr.h.a, hdr.h.b);"),
        "return x << y", r"shift amount limited to 8 bits",
        program(top="bit<8> f(in bit<8> x, in bit<16> y) { return x << y; }\n")),
    "selector_key_struct": (
        program(locals="    action a() { }\n    table t { key = { hdr.h.a: exact; m: selector; } actions = { a; }\n"
                       "        @name(\"sel\") implementation = action_selector(HashAlgorithm.crc16, 32w8, 32w8); }\n", body="        t.apply();"),
        "m: selector", r"scalar type, not meta_t",
        program(locals="    action a() { }\n    table t { key = { hdr.h.a: exact; m.x: selector; } actions = { a; }\n"
                       "        @name(\"sel\") implementation = action_selector(HashAlgorithm.crc16, 32w8, 32w8); }\n", body="        t.apply();")),
    "named_argument_twice": (program(top="void f(in bit<8> y) { }\n", body="        f(y = hdr.h.a, y = 1);"), "f(y =",
                             r"argument y given twice", program(top="void f(in bit<8> y) { }\n", body="        f(y = hdr.h.a);")),
    # two declarations a call cannot tell apart (an unused pair is fine, as in p4c)
    "function_same_arity_called": (
        program(top="void f(in bit<8> y) { }\nvoid f(in bit<8> z) { }\n", body="        f(1);"), "f(1)",
        r"multiple matching declarations", program(top="void f(in bit<8> y) { }\nvoid f(in bit<8> z) { }\n")),
    "control_instantiates_itself": (program(locals="    I() again;\n"), "I() again", r"instantiates itself", program()),
    "subcontrol_instantiates_itself": (
        program(top="control S(inout bit<8> x) { S() s; apply { x = 1; } }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h.a);"), "S() s;", r"instantiates itself",
        program(top="control S(inout bit<8> x) { apply { x = 1; } }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h.a);")),
    # p4c resolves a function where the (sub-)control using it is declared: also for a control
    # instantiated inside another and for one passed as a constructor argument
    "subcontrol_calls_later_function": (
        program(top="control S(inout bit<8> x) { apply { x = g(); } }\nbit<8> g() { return 1; }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h.a);"), "x = g()", r"g: declaration not found",
        program(top="bit<8> g() { return 1; }\ncontrol S(inout bit<8> x) { apply { x = g(); } }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h.a);")),
    "ctor_arg_control_calls_later_function": (
        program(top=_CTOR_SUB.format(s="control S(inout bit<8> x) { apply { x = g(); } }\nbit<8> g() { return 1; }"),
                locals="    W(S()) w;\n", body="        w.apply(hdr.h.a);"), "x = g()", r"g: declaration not found",
        program(top=_CTOR_SUB.format(s="bit<8> g() { return 1; }\ncontrol S(inout bit<8> x) { apply { x = g(); } }"),
                locals="    W(S()) w;\n", body="        w.apply(hdr.h.a);")),
    # a match_kind is found where the control is declared (p4c: "late_mk: declaration not found")
    "match_kind_declared_after_use": (
        program(locals=_MK_TABLE, body="        t.apply();") + "match_kind { late_mk }\n", "late_mk;",
        r"late_mk: declaration not found", program(top="match_kind { late_mk }\n", locals=_MK_TABLE, body="        t.apply();")),
    # @field_list's index is checked in the metadata struct, at any depth (p4c: "Annotation must
    # be a constant integer"); an unused struct or a local's struct may carry any (VALID below)
    "field_list_string_index_in_meta": (
        program(top=_FL_STRUCT).replace("struct meta_t { bit<8> x;", "struct meta_t { fl_t q; bit<8> x;"), '@field_list("a")',
        r"@field_list\(a\) on fl_t.f: the index must be", program(top=_FL_STRUCT.replace('"a"', "1")).replace(
            "struct meta_t { bit<8> x;", "struct meta_t { fl_t q; bit<8> x;")),
    # an exit of a control inlined at two places: p4c 1.2.4.8 fails on it ("table tbl_... has
    # multiple successors" -- fuzzt seed 187 -- or a def-use "Compiler Bug"); applied once it is fine
    "subcontrol_exit_applied_by_two_instances": (
        program(top=_EXIT_SUB % "if (!t.apply().hit) { exit; } else { h.c = 2; exit; }", locals="    S() s1;\n    S() s2;\n",
                body="        s1.apply(hdr.h);\n        s2.apply(hdr.h);"), "exit;", r"exit in a control that is applied at two places",
        program(top=_EXIT_SUB % "if (!t.apply().hit) { exit; } else { h.c = 2; exit; }", locals="    S() s1;\n    S() s2;\n",
                body="        s1.apply(hdr.h);")),
    "subcontrol_exit_applied_twice": (
        program(top=_EXIT_SUB % "if (h.a == 1) { exit; }", locals="    S() s1;\n",
                body="        s1.apply(hdr.h);\n        hdr.h.c = 3;\n        s1.apply(hdr.h);"), "exit;",
        r"exit in a control that is applied at two places",
        program(top=_EXIT_SUB % "if (h.a == 1) { exit; }", locals="    S() s1;\n", body="        s1.apply(hdr.h);\n        hdr.h.c = 3;")),
    # a function's directionless parameter takes a compile-time constant (tools/p4c_mutate.py seed 7)
    "function_directionless_param_runtime_arg": (
        program(top="bit<8> f(bit<8> v) { return v + 1; }\n", body="        hdr.h.a = f(hdr.h.c);"), "f(hdr.h.c)",
        r"argument used for directionless parameter 'v' must be a compile-time constant",
        program(top="bit<8> f(in bit<8> v) { return v + 1; }\n", body="        hdr.h.a = f(hdr.h.c);")),
    # ... but names are resolved and constants folded before that (p4c rejects these)
    "dead_branch_unknown_function": (program(body="        if (false) { undefined_fn(); }"), "undefined_fn",
                                     r"unknown function", program(body="        if (false) { hdr.h.a = 1; }")),
    "dead_branch_division_by_zero": (program(body="        if (false) { hdr.h.a = 8w1 / 8w0; }"), "8w0",
                                     r"division by zero", program(body="        if (false) { hdr.h.a = 8w1 / 8w1; }")),
    "dead_branch_duplicate_local": (program(body="        if (false) { bit<8> x = 1; bit<8> x = 2; }"), "bit<8> x = 2",
                                    r"x", program(body="        if (false) { bit<8> x = 1; bit<8> y = 2; }")),
    "hash_type_arg_data_field_type": (_hash("<bit<16>, bit<8>, hd_t, bit<16>>").replace("{ hdr.h.a }", "{ hdr.h.b }"),
                                      "hash<", r"expected bit<8>, got bit<16>", _hash("<bit<16>, bit<8>, hd_t, bit<16>>")),
    "hash_type_arg_data_arity": (_hash("<bit<16>, bit<8>, hd_t, bit<16>>").replace("{ hdr.h.a }", "{ hdr.h.a, hdr.h.a }"),
                                 "hash<", r"2 element\(s\) for type hd_t", _hash("<bit<16>, bit<8>, hd_t, bit<16>>")),
    "parser_local_after_state": (
        program().replace("transition accept; }\n}", "transition accept; }\n    bit<8> late;\n}", 1), "bit<8> late",
        r"expected 'state'", program().replace("state start", "bit<8> early;\n    state start", 1)),
    "control_local_after_apply": (
        program().replace("apply { } }\ncontrol CC", "apply { } bit<8> z; }\ncontrol CC"), "bit<8> z; }",
        r"expected '}'", program().replace("apply { } }\ncontrol CC", "bit<8> z; apply { } }\ncontrol CC")),
    "control_two_apply_blocks": (
        program().replace("apply { } }\ncontrol CC", "apply { } apply { } }\ncontrol CC"), "apply { } apply",
        r"expected '}'", program()),
    # a struct inside V1Switch's headers struct must hold headers only, at any depth
    "headers_struct_nested_bits": (
        program(top="struct inner_t { h_t x; bit<8> b; }\n").replace("struct headers { h_t h; }", "struct headers { h_t h; inner_t in2; }"),
        "out headers hdr", r"headers: the type should be a struct of headers",
        program(top="struct inner_t { h_t x; }\n").replace("struct headers { h_t h; }", "struct headers { h_t h; inner_t in2; }")),
    "stack_index_bool": (
        program(body="        hdr.s[true].a = 1;").replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[2] s; }"),
        "[true]", r"stack index must be an integer, not bool",
        program(body="        hdr.s[1].a = 1;").replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[2] s; }")),
    "switch_in_parser_state": (
        program().replace("transition accept; }", "switch (hdr.h.a) { 1: {} } transition accept; }", 1), "switch (",
        r"switch", program().replace("transition accept; }", "if (hdr.h.a == 1) { hdr.h.c = 2; } transition accept; }", 1)),
    "switch_nested_in_parser": (
        program().replace("transition accept; }", "if (hdr.h.a == 1) { switch (hdr.h.a) { 1: {} } } transition accept; }", 1),
        "switch (", r"switch statements are not allowed in a parser",
        program().replace("transition accept; }", "if (hdr.h.a == 1) { hdr.h.c = 2; } transition accept; }", 1)),
    "resubmit_index_16_bits": (program(body="        resubmit_preserving_field_list(16w1);"), "16w1",
                               r"expected bit<8>, got bit<16>", program(body="        resubmit_preserving_field_list(1);")),
    "direct_meter_read_other_type": (
        program(locals="    direct_meter<bit<2>>(MeterType.packets) dm;\n    action r() { dm.read(hdr.h.a); }\n"
                       "    table t2 { key = { hdr.h.a: exact; } actions = { r; } meters = dm; }\n", body="        t2.apply();"),
        "dm.read", r"direct_meter<bit<2>>.read: the result has type bit<8>",
        program(locals="    direct_meter<bit<8>>(MeterType.packets) dm;\n    action r() { dm.read(hdr.h.a); }\n"
                       "    table t2 { key = { hdr.h.a: exact; } actions = { r; } meters = dm; }\n", body="        t2.apply();")),
    # two V1Switch arguments swapped, the deparser given as verify_checksum: named at the argument
    # (was at the deparser's parameter; p4c: v1model.p4's V1Switch, then the argument)
    "v1switch_deparser_and_verify_swapped": (program().replace("VC(), I(), E(), CC(), D())", "D(), I(), E(), CC(), VC())"),
                                             "V1Switch(", r"argument verify_checksum: control D has the parameters "
                                             r"of v1model's deparser type", program()),
    "pkginfo_name_not_string": (program().replace("V1Switch(", "@pkginfo(name=1) V1Switch("), "@pkginfo",
                                r"'name' key in @pkginfo annotation is not a string",
                                program().replace("V1Switch(", "@pkginfo(name=\"x\") V1Switch(")),
    "controller_header_integer": (   # was a TypeError
        program(top="@controller_header(1) header pin_t { bit<9> port; bit<7> pad; }\n"), "@controller_header",
        r"@controller_header takes one string",
        program(top="@controller_header(\"packet_in\") header pin_t { bit<9> port; bit<7> pad; }\n")),
    "controller_header_no_argument": (
        program(top="@controller_header header pin_t { bit<9> port; bit<7> pad; }\n"), "@controller_header",
        r"@controller_header takes one string",
        program(top="@controller_header(\"packet_in\") header pin_t { bit<9> port; bit<7> pad; }\n")),
    # BMv2 predicates an action's ifs: no method or extern call inside one (in a used action)
    "count_in_if_in_action": (
        program(locals="    counter(4, CounterType.packets) c;\n    action b() { if (hdr.h.a == 1) { c.count(0); } }\n",
                body="        b();"), "c.count", r"conditional execution in actions",
        program(locals="    counter(4, CounterType.packets) c;\n    action b() { if (hdr.h.a == 1) { c.count(0); } }\n")),
    "setinvalid_in_else_in_action": (
        program(locals="    action b() { if (hdr.h.a == 1) { hdr.h.c = 1; } else { hdr.h.setInvalid(); } }\n", body="        b();"),
        "setInvalid", r"conditional execution in actions",
        program(locals="    action b() { hdr.h.setInvalid(); if (hdr.h.a == 1) { hdr.h.c = 1; } }\n", body="        b();")),
    "mark_to_drop_in_if_in_action": (
        program(locals="    action b() { if (hdr.h.a == 1) { mark_to_drop(sm); } }\n", body="        b();"), "mark_to_drop",
        r"conditional execution in actions",
        program(locals="    action b() { mark_to_drop(sm); }\n", body="        if (hdr.h.a == 1) { b(); }")),
    "hash_untyped_base": (program(body="        bit<16> r; hash(r, HashAlgorithm.crc16, 0, { hdr.h.a }, 16w4); hdr.h.b = r;"),
                          "hash(r", r"hash base: could not infer a width",
                          program(body="        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w4); hdr.h.b = r;")),
    "table_applied_in_action_argument": (
        program(locals="    action a(bit<8> v) { hdr.h.a = v; }\n    table t { key = { hdr.h.a: exact; } actions = { a; } }\n"
                       "    action b(bool x) { }\n", body="        b(t.apply().hit);"), "b(t.apply()",
        r"apply cannot be called from actions",
        program(locals="    action a(bit<8> v) { hdr.h.a = v; }\n    table t { key = { hdr.h.a: exact; } actions = { a; } }\n"
                       "    action b(bool x) { }\n", body="        bool h = t.apply().hit;\n        b(h);")),
    "function_declared_after_use": (
        program(body="        hdr.h.a = g();") + "bit<8> g() { return 1; }\n", "= g()", r"g: declaration not found",
        program(top="bit<8> g() { return 1; }\n", body="        hdr.h.a = g();")),
    "control_declared_after_main": (
        program().replace("V1Switch(P(), VC(), I(), E(), CC(), D()) main;", "V1Switch(P(), VC(), I(), E(), CC(), D2()) main;\n"
                          "control D2(packet_out pkt, in headers hdr) { apply { } }"), "D2()", r"D2: declaration not found",
        program().replace("V1Switch(P(), VC(), I(), E(), CC(), D()) main;", "control D2(packet_out pkt, in headers hdr) "
                          "{ apply { } }\nV1Switch(P(), VC(), I(), E(), CC(), D2()) main;")),
    # a header field declared bool is held in one bit, but takes and compares with bools only
    "bool_header_field_assigned_int": (
        program(top="header bh_t { bool f; bit<7> p; }\n", body="        hdr.b.f = 1;").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; bh_t b; }"), "hdr.b.f = 1", r"expected bool, got",
        program(top="header bh_t { bool f; bit<7> p; }\n", body="        hdr.b.f = true;").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; bh_t b; }")),
    "bool_header_field_compared_int": (
        program(top="header bh_t { bool f; bit<7> p; }\n", body="        if (hdr.b.f == 1) { hdr.h.a = 1; }").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; bh_t b; }"), "hdr.b.f == 1", r"bool header field",
        program(top="header bh_t { bool f; bit<7> p; }\n", body="        if (hdr.b.f == true) { hdr.h.a = 1; }").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; bh_t b; }")),
    "action_called_in_deparser": (
        program().replace("control D(packet_out pkt, in headers hdr) {", "control D(packet_out pkt, in headers hdr) {"
                          " action q() { }").replace("pkt.emit(hdr.h); }", "q(); pkt.emit(hdr.h); }"), "q();",
        r"a call of action q is not supported within a deparser",
        program().replace("control D(packet_out pkt, in headers hdr) {", "control D(packet_out pkt, in headers hdr) {"
                          " action q() { }")),
    "error_key_integer_entry": (
        program(locals="    action a(bit<8> v) { hdr.h.a = v; }\n    table t2 { key = { sm.parser_error: exact; } actions = { a; }"
                       " const entries = { 32w1: a(1); } }\n", body="        t2.apply();"), "32w1:",
        r"entry value of type bit<32> for key sm.parser_error of type error",
        program(locals="    action a(bit<8> v) { hdr.h.a = v; }\n    table t2 { key = { sm.parser_error: exact; } actions = { a; } }\n",
                body="        t2.apply();")),
    "extract_next_of_varbit_header": (
        program(top="header vh_t { varbit<16> v; }\n").replace("struct headers { h_t h; }", "struct headers { h_t h; vh_t[2] vs; }")
        .replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); pkt.extract(hdr.vs.next);"), "pkt.extract(hdr.vs.next)",
        r"has a varbit field",
        program(top="header vh_t { varbit<16> v; }\n").replace("struct headers { h_t h; }", "struct headers { h_t h; vh_t[2] vs; }")
        .replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); pkt.extract(hdr.vs.next, 32w8);")),
    # a field made varbit: p4c's type errors on its uses come first, the one-argument extract of
    # its header is refused by a later pass (late_errors in elab_types.py)
    "varbit_field_compared": (_varbit(program(body="        if (hdr.h.a == 1) { hdr.h.c = 2; }")), "hdr.h.a == 1",
                              r"varbit", program(body="        if (hdr.h.a == 1) { hdr.h.c = 2; }")),
    "varbit_field_as_key": (_varbit(program(locals=_KEY_TABLE, body="        t.apply();")), "key =", r"scalar type, not varbit",
                            program(locals=_KEY_TABLE, body="        t.apply();")),
    # the key is the header's second varbit field (was reported at the header, whose two varbit
    # fields p4c refuses only after type checking; mutz16)
    "second_varbit_field_as_key": (program(locals=_KEY_TABLE, body="        t.apply();").replace(
        "header h_t { bit<8> a;", "header h_t { varbit<8> z; varbit<8> a;"), "key =", r"scalar type, not varbit",
        program(locals=_KEY_TABLE, body="        t.apply();")),
    # a select on a header field declared bool with an integer label (was accepted: the field
    # is kept as bit<1>; mutz17 seed 34, a field made bool)
    "select_bool_header_field_int_label": (_bool_select("1"), "1: accept", r"select label of type int for a bool key",
                                           _bool_select("true")),
    # ... and given for a bit<8> parameter: the mismatch names its declared type (was "bit<1>")
    "bool_header_field_for_bit8_param": (
        program(top="bit<8> g(in bit<8> v) { return v; }\n", body="        hdr.h.c = g(hdr.h.a);")
        .replace("header h_t { bit<8> a;", "header h_t { bool a; bit<7> p;"), "g(hdr.h.a)", r"expected bit<8>, got bool$",
        program(top="bit<8> g(in bit<8> v) { return v; }\n", body="        hdr.h.c = g((bit<8>)(bit<1>)hdr.h.a);")
        .replace("header h_t { bit<8> a;", "header h_t { bool a; bit<7> p;")),
    # an empty @name on an anonymous profile: p4c dies (a compiler bug), checkmate-p4c refuses it
    "anonymous_profile_empty_name": (program(locals=_PROFILE_TABLE.format('""'), body="        t.apply();"), "implementation",
                                     r"empty @name", program(locals=_PROFILE_TABLE.format('"ap"'), body="        t.apply();")),
    # the `meters` property dropped: p4c names the meter's declaration, not its read
    "direct_meter_not_attached": (program(locals=_DM.format(""), body="        t.apply();"), "direct_meter<bit<2>>",
                                  r"no table attaches it", program(locals=_DM.format(" meters = dm;"), body="        t.apply();")),
    # p4c refuses the field's type at the field, before the use that elaboration would refuse first
    "struct_field_int_used": (program(top="struct s_t { int x; bit<8> y; }\n", body="        s_t v; v.x = hdr.h.a; hdr.h.c = v.x;"),
                              "struct s_t", r"field 'x' of 'struct s_t' cannot have type 'int'",
                              program(top="struct s_t { bit<8> x; bit<8> y; }\n", body="        s_t v; v.x = hdr.h.a; hdr.h.c = v.x;")),
    # p4c's lexer reads a name declared as a type as that type wherever it is visible (inside
    # `control I` the name I too); an action, a table or an action parameter does not hide it,
    # so each use of one named like a type is a syntax error (parser_scopes.py)
    "action_named_like_its_control": (program(locals=_ACT.format("I"), body="        I();"), "I();",
                                      r"I is a type name here", program(locals=_ACT.format("J"), body="        J();")),
    "action_named_like_header_in_actions": (program(locals=_ACT.format("h_t") + _ACT_TABLE.format("h_t"), body="        t.apply();"),
                                            "table t", r"h_t is a type name here",
                                            program(locals=_ACT.format("h2") + _ACT_TABLE.format("h2"), body="        t.apply();")),
    "action_named_like_header_default": (program(locals=_ACT.format("h_t") + _DEF_TABLE.format("h_t"), body="        t.apply();"),
                                         "default_action", r"h_t is a type, not an action: .*cannot invoke a constructor",
                                         program(locals=_ACT.format("h_t") + _DEF_TABLE.format("NoAction"), body="        t.apply();")),
    "action_param_named_like_struct": (program(locals="    action a(bit<8> headers) { hdr.h.a = headers; }\n",
                                               body="        a(1);"), "action a", r"headers is a type name here",
                                       program(locals="    action a(bit<8> hs) { hdr.h.a = hs; }\n", body="        a(1);")),
    "switch_label_named_like_header": (program(locals=_ACT.format("h_t") + _ACT_TABLE.format("h_t"),
                                               body="        switch (t.apply().action_run) { h_t: { } }")
                                       .replace("actions = { h_t; }", "actions = { NoAction; }"), "switch",
                                       r"h_t is a type name here",
                                       program(locals=_ACT.format("h2") + _ACT_TABLE.format("h2"),
                                               body="        switch (t.apply().action_run) { h2: { } }")),
    "table_named_like_header_applied": (program(locals=_ACT.format("a") + _ACT_TABLE.format("a").replace("table t", "table h_t"),
                                                body="        h_t.apply();"), "h_t.apply", r"the type h_t has no field apply",
                                        program(locals=_ACT.format("a") + _ACT_TABLE.format("a"), body="        t.apply();")),
}

# p4c accepts these (the other direction: checkmate-p4c used to refuse them)
VALID = {
    # p4c reads largest_priority_wins / priority_delta only to number `entries`: beside `const
    # entries` it warns "Unknown table property" whatever their value (p4c_mutate seed 52)
    "priority_properties_beside_const_entries": program(
        locals="    action s(bit<8> x) { hdr.h.c = x; }\n"
               "    table t { key = { hdr.h.a: ternary; } actions = { s; } priority_delta = -2; largest_priority_wins = 1;\n"
               "        const entries = { 1 &&& 0xff: s(5); 2 &&& 0xff: s(6); } }\n"
               "    table u { key = { hdr.h.a: exact; } actions = { s; } priority_delta = true; const entries = { 1: s(5); } }\n",
        body="        t.apply();\n        u.apply();"),
    # what p4c leaves to a generic block's instantiation (a T in a field list, a T action parameter)
    "generic_control_type_variable_uses": program(
        top="control GG<T>(inout T x, in T y, inout bit<16> o) { register<T>(4) r; T tmp;\n"
            "    action a(T v) { x = v; } table t { key = { } actions = { a; } }\n"
            "    apply { tmp = y; r.read(x, 0); x = tmp; hash(o, HashAlgorithm.crc16, 16w0, { x }, 16w100); t.apply(); } }\n",
        locals="    GG<bit<8>>() g;\n", body="        g.apply(hdr.h.a, hdr.h.c, hdr.h.b);"),
    "uninstantiated_blocks_with_back_end_errors": program(top=_UNUSED_BACK_END),
    "signed_constant_shift": program(body="        hdr.h.a = hdr.h.a << 8s2;"),
    # objects hide a type of the same name: a control's or function's parameter, a variable, a
    # constant, an instance (p4c warns that they shadow it); an action named like a type is
    # declared without complaint as long as nothing uses it
    "objects_named_like_types": program(top="bit<8> f(in bit<8> meta_t) { return meta_t + 1; }\n",
                                        locals="    action I() { }\n    counter(4, CounterType.packets) h_t;\n"
                                               "    bit<8> headers = 2;\n",
                                        body="        { const bit<8> I = 3; hdr.h.a = f(headers) + I; h_t.count(0); }"),
    # p4c reads @id / @priority only on what it keeps: not on an unused action or table
    "bad_id_priority_on_unused": program(locals="    @priority(\"x\") action b() { }\n    action c() { }\n"
                                                "    @id(\"a\") table t9 { key = { hdr.h.a: exact; } actions = { c; } }\n"),
    # ... nor on an action only a table nothing applies lists (p4c removes the table, then it)
    "bad_priority_on_action_of_unapplied_table": program(locals="    @priority(\"x\") action b() { }\n"
                                                                "    table t9 { key = { hdr.h.a: exact; } actions = { b; } }\n"),
    # ... and a table named like a type applied only in an operand p4c folds away (a type error
    # there is none: open7_folded_away_operand_not_type_checked renamed, mutz16 seed 29)
    "type_named_table_in_folded_operand": program(locals=_ACT.format("a") + _ACT_TABLE.format("a").replace("table t", "table h_t"),
                                                  body="        if ((1 == 2) && h_t.apply().hit) { hdr.h.c = 4; }"),
    # p4c unifies a constant's `int` with its bit<N> value's type (f5_const_int_casts mutant, seed 30)
    "const_int_given_a_sized_value": program(top="const int F = (bit<7>)3;\n",
                                             body="        const int G = 8w250;\n        hdr.h.a = (bit<8>)F + G;"),
    "field_list_string_index_unused": program(top=_FL_STRUCT),
    "field_list_string_index_in_local": program(top=_FL_STRUCT, body="        fl_t v; v.f = hdr.h.a; hdr.h.c = v.f;"),
    "function_directionless_param_constant_arg": program(top="bit<8> f(bit<8> v) { return v + 1; }\nconst bit<8> K = 4;\n",
                                                         body="        hdr.h.a = f(K) + f(3);"),
    # an error as a selector key: its 32-bit code (tools/p4c_mutate.py seed 8)
    "selector_key_error": program(locals="    action a() { }\n    table t { key = { hdr.h.a: exact; sm.parser_error: selector; } actions = { a; }\n"
                                         "        @name(\"sel\") implementation = action_selector(HashAlgorithm.crc16, 32w8, 32w8); }\n",
                                  body="        t.apply();"),
    # an action_selector output width above 64 (p4c's JSON has no width; seed 8 swapped size and width)
    "selector_output_width_1024": program(locals="    action a() { }\n    table t { key = { hdr.h.a: exact; hdr.h.c: selector; } actions = { a; }\n"
                                                 "        @name(\"sel\") implementation = action_selector(HashAlgorithm.crc16, 32w8, 32w1024); }\n",
                                          body="        t.apply();"),
    # p4c removes the dead branch of a literal condition before it checks types (mutants of
    # gauntlet_exit_combination_*): an unknown field or a type mismatch there is no error
    "dead_branch_unknown_field": program(body="        if (true) { exit; } else { hdr.h.zz = 1; }\n"
                                              "        if (1 == 2) { hdr.zz.a = 16w1; hdr.h.a = 16w1; }"),
    # divisions by 5 p4c's constant propagation folds (p4c_mutate seed 54 and its probes): through a
    # sub-parser's argument into it and back, a state merged into its predecessor, a control-local
    # initializer, a constant-assigned field in an action, a branch p4c's strength reduction removes
    "division_folded_through_subparser": _div_parser(_DIV_CALL.format("16"), top=_DIV_SUB.format("p.extract(hdr_x); cnt = (cnt + 1) / 5;")
                                                     .replace("inout bit<8> cnt", "inout bit<8> cnt, out h_t hdr_x")
                                                     ).replace("sp.apply(pkt, m.x)", "sp.apply(pkt, m.x, hdr.h)"),
    "division_folded_in_merged_states": _div_parser(_DIV_CHAIN.format("s2;")),
    "division_folded_in_control_and_action": program(
        locals="    bit<8> t = 0x10;\n    action a() { m.x = 3; m.x = (m.x + 9) / 5; }\n",
        body="        a();\n        hdr.h.a = t / 5;\n        if (hdr.h.a - hdr.h.a != 0) { hdr.h.c = hdr.h.c / 5; }"),
    # @name(".") on what p4c removes first (an unapplied table, an action only it lists)
    "empty_name_on_removed_objects": program(locals='    @name(".") action a() { hdr.h.a = 1; }\n'
                                                    '    @name(".") table t { key = { hdr.h.a: exact; } actions = { a; } }\n'),
    # compiles (p4c too), though simple_switch cannot load p4c's JSON for it
    "lookahead_bool": program().replace("state start { pkt.extract(hdr.h);",
                                        "state start { bool b = pkt.lookahead<bool>(); pkt.extract(hdr.h); m.x = (bit<8>)(bit<1>)b;"),
}


def _p4c_accepts(src: str) -> bool:
    """p4c's verdict (with the P4Info, as the judge compiles), cached by the source's hash in
    the same folder as tools/p4c_corpus.py uses."""
    import hashlib
    import os

    from switch.bmv2json.p4c import run_p4c_cached
    cache = Path(os.environ.get("CHECKMATE_CORPUS_CACHE") or Path(tempfile.gettempdir()) / f"cmcorpus-p4c-{os.getuid()}")
    digest = hashlib.sha256(src.encode()).hexdigest()[:20]
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.p4"
        p.write_text(src)
        return not isinstance(run_p4c_cached(p, cache / f"p4c-{digest}"), str)


def p4c_wrong_verdicts(cases: dict, valid: dict, twins: bool = False) -> list[str]:
    """What real p4c decides otherwise than a table of mutants says: every mutant (``cases[name][0]``)
    rejected, every ``valid`` program -- and with ``twins`` every mutant's valid twin
    (``cases[name][3]``) -- accepted.  Four p4c runs at a time (~1.5 s each)."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = [(f"{name}: p4c accepts the mutant", c[0], True) for name, c in cases.items()]
    if twins:
        jobs += [(f"{name}: p4c rejects the twin", c[3], False) for name, c in cases.items()]
    jobs += [(f"{name}: p4c rejects it", src, False) for name, src in valid.items()]
    with ThreadPoolExecutor(4) as ex:
        verdicts = list(ex.map(lambda j: _p4c_accepts(j[1]), jobs))
    return [what for (what, _src, is_mutant), ok in zip(jobs, verdicts) if ok == is_mutant]


def mutant_table_tests(cases: dict, valid: dict, twins: bool = True):
    """The three tests of a table of mutants, for its module to bind: every VALID program compiles,
    every mutant is rejected on its line, and with p4c on PATH p4c agrees on all of them -- on the
    mutants' valid twins too where ``twins`` (the tables of test_mutants2 on; this module's first
    table only compiles its twins)."""
    @pytest.mark.parametrize("name", list(valid))
    def test_valid_program_compiles(name):
        compile_source(valid[name], "ok.p4")

    @pytest.mark.parametrize("name", list(cases))
    def test_mutant_rejected_on_its_line(name):
        assert_rejected_on_line(*cases[name])

    @pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c (../shared/p4ref) to confirm its verdicts")
    def test_p4c_agrees():
        wrong = p4c_wrong_verdicts(cases, valid, twins=twins)
        assert not wrong, wrong
    return test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees


test_valid_twin_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID,
                                                                                               twins=False)


def test_mutator_kinds_make_one_located_change():
    """tools/p4c_mutate.py (no p4c needed here): every mutation kind, over a few seeds, either
    declines or changes the program, reports the changed line, and is reproducible; whatever
    it makes, checkmate-p4c compiles or refuses with file:line:col (never another error)."""
    import random

    from tools.p4c_mutate import MUTATORS
    base = program(top="const bit<8> K = 3;\nbit<8> f(in bit<8> x) { return x + K; }\n",
                   locals="    counter(4, CounterType.packets) c;\n    action a(out bit<8> o, bit<8> v) { hdr.h.a = v; o = v; }\n"
                          "    @name(\"tt\") table t { key = { hdr.h.a: exact; m.x: ternary; } actions = { a(m.x); NoAction; }\n"
                          "        default_action = NoAction(); const entries = { (1, 2 &&& 3): NoAction(); } }\n",
                   body="        switch (t.apply().action_run) { a: { hdr.h.c = f(hdr.h.c); } }\n"
                        "        hdr.h.b = hdr.h.b << 2;\n        c.count((bit<32>)hdr.h.a);")
    compile_source(base, "base.p4")
    made = 0
    for kind, fn in MUTATORS.items():
        for seed in range(3):
            m1, m2 = fn(random.Random(seed), base), fn(random.Random(seed), base)
            if m1 is None:
                continue
            assert m2 is not None and m1.text == m2.text, kind
            assert 1 <= m1.line <= m1.text.count("\n") + 1, (kind, m1.line)
            made += m1.text != base
            try:
                compile_source(m1.text, "mut.p4")
            except P4CompileError as e:
                assert re.match(r"mut\.p4:\d+:\d+: ", str(e)), (kind, m1.desc, str(e))
    assert made >= 2 * len(MUTATORS), made
