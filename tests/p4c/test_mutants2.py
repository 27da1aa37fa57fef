"""More one-mistake programs of the kinds tools/p4c_mutate.py makes (helper mutz21 on; the
first ones are in test_mutants.py, which has the design notes): each mutant is rejected with
``file:line:col`` on its line and a message naming the problem, its valid twin compiles, and
with p4c on PATH p4c agrees on both (and on every VALID program)."""
from __future__ import annotations

import re
import shutil


from p4c_helpers import program
from switch.compiler import P4CompileError, compile_source
from test_mutants import _p4c_accepts, mutant_table_tests

_T = "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ {0}; }} }}\n"
_UT = "header_union u_t { h_t x; }\n"
_TR = '@p4runtime_translation(32, "x.org/T") type bit<8> T;\n'


def _states(extra: str, to: str = "accept") -> str:
    """The template program with parser states ``extra`` after ``start``, which goes to ``to`` when
    ``hdr.h.a`` is 1."""
    return program().replace("    state start { pkt.extract(hdr.h); transition accept; }",
                             "    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { 1: "
                             f"{to}; default: accept; }} }}\n{extra}")


def _act(param: str, listed: bool, body: str = "") -> str:
    """An action with one directionless parameter ``param``, listed by an applied table or not."""
    return program(top=_UT, locals=f"    action a({param}) {{ {body} }}\n" + (_T.format("a") if listed else ""),
                   body="        t.apply();" if listed else "")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # a directionless parameter the control plane cannot set: refused where a kept table lists
    # the action (p4c's P4Runtime serializer, at the parameter), not at the declaration
    "header_action_param_listed": (_act("h_t v", True), "action a(", r"not bit<>, int<>, bool", _act("h_t v", False)),
    "union_action_param_listed": (_act("u_t v", True), "action a(", r"not bit<>, int<>, bool", _act("u_t v", False)),
    "error_action_param_listed": (_act("error v", True), "action a(", r"not bit<>, int<>, bool", _act("error v", False)),
    "tuple_action_param_listed": (_act("tuple<bit<8>> v", True), "action a(", r"not bit<>, int<>, bool",
                                  _act("tuple<bit<8>> v", False)),
    "bool_action_param_listed": (_act("bool v", True), "action a(", r"must be bit<> or int<>", _act("bool v", False)),
    # ... a string where a call makes it a variable; an int or an extern type anywhere
    "string_action_param_called": (program(locals="    action a(string v) { hdr.h.a = 1; }\n", body='        a("x");'),
                                   "action a(", r"type string", _act("string v", False)),
    "int_action_param": (_act("int v", False), "action a(", r"type int", _act("bit<8> v", False)),
    "extern_action_param": (_act("counter v", False), "action a(", r"extern types", _act("bit<8> v", False)),
    # a signed literal of width 0 (an unsigned one is a bit<0> zero)
    "signed_zero_width_literal": (program(body="        hdr.h.a = (bit<8>)(bit<1>)0s0;"), "0s0", r"int<0>",
                                  program(body="        hdr.h.a = (bit<8>)0w0;")),
    # explicit type arguments of v1model externs are checked as by p4c (p4c_mutate seed 84:
    # `random<error>(x16, 1000, 1003)` was accepted; a method that is not generic takes none)
    "random_type_argument_mismatch": (program(body="        random<error>(hdr.h.b, 1000, 1003);"), "random<",
                                      r"type argument error does not match", program(body="        random<bit<16>>(hdr.h.b, 1000, 1003);")),
    "random_two_type_arguments": (program(body="        random<bit<16>, bit<8>>(hdr.h.b, 1, 3);"), "random<",
                                  r"takes 1 type argument", program(body="        random<_>(hdr.h.b, 1, 3);")),
    "register_read_type_argument": (program(locals="    register<bit<8>>(4) r;\n", body="        r.read<bit<8>>(hdr.h.a, 0);"),
                                    "r.read<", r"takes 0 type argument",
                                    program(locals="    register<bit<8>>(4) r;\n", body="        r.read(hdr.h.a, 0);")),
    "execute_meter_type_argument_mismatch": (
        program(locals="    meter(4, MeterType.packets) mt;\n", body="        bit<2> c; mt.execute_meter<bit<8>>(0, c); hdr.h.a = (bit<8>)c;"),
        "execute_meter<", r"type argument bit<8> does not match",
        program(locals="    meter(4, MeterType.packets) mt;\n", body="        bit<2> c; mt.execute_meter<bit<2>>(0, c); hdr.h.a = (bit<8>)c;")),
    # a local constant named like a parameter of the enclosing block (a variable was refused)
    "local_constant_shadows_parameter": (program(body="        const bit<8> sm = 3; hdr.h.a = sm;"), "const bit<8> sm",
                                         r"shadows a parameter 'sm'", program(body="        const bit<8> s2 = 3; hdr.h.a = s2;")),
    # `{#}` without a cast: p4c 1.2.4.8 infers no header type for it (was accepted)
    "untyped_invalid_header_assigned": (program(body="        hdr.h = {#};"), "{#}", r"no type here",
                                        program(body="        hdr.h = (h_t){#};")),
    "untyped_invalid_header_argument": (program(locals="    action a(in h_t x) { hdr.h = x; }\n", body="        a({#});"),
                                        "a({#})", r"no type here",
                                        program(locals="    action a(in h_t x) { hdr.h = x; }\n", body="        a((h_t){#});")),
    # p4c counts no `switch` as returning on every path, `default` and all (was accepted)
    "function_returning_only_in_switch": (
        program(top="bit<8> f(in bit<8> x) {\n    switch (x) { 1: { return 1; } default: { return 2; } }\n}\n",
                body="        hdr.h.a = f(hdr.h.a);"), "bit<8> f(", r"does not return a value on all paths",
        program(top="bit<8> f(in bit<8> x) {\n    switch (x) { 1: { return 1; } default: { return 2; } }\n    return 3;\n}\n",
                body="        hdr.h.a = f(hdr.h.a);")),
    # `_` as a type argument of the program's own generic function: p4c infers nothing from it
    "dontcare_type_argument_of_generic_function": (
        program(top="bit<8> g<T>(in T x) { return 1; }\n", body="        hdr.h.a = g<_>(hdr.h.a);"), "g<_>",
        r"could not infer a type", program(top="bit<8> g<T>(in T x) { return 1; }\n", body="        hdr.h.a = g<bit<8>>(hdr.h.a);")),
    # ... but not of a run-time value
    "runtime_cast_changes_width_and_sign": (program(body="        int<8> v = 5; hdr.h.b = (bit<16>)v;"), "(bit<16>)v",
                                            r"change width and sign in two casts",
                                            program(body="        int<8> v = 5; hdr.h.b = (bit<16>)(bit<8>)v;")),
    "signed_division_of_negative_constant": (program(body="        hdr.h.a = (bit<8>)((-8s7) / 8s2);"), "/ 8s2",
                                             r"not defined for negative numbers", program(body="        hdr.h.a = (bit<8>)(8s7 / 8s2);")),
    "signed_division_at_run_time": (program(body="        int<8> v = 7; hdr.h.a = (bit<8>)(v / 2);"), "v / 2",
                                    r"not defined on signed", program(body="        int<8> v = 7; hdr.h.a = (bit<8>)(v + 2);")),
    "parser_instance_applied_in_control": (
        program(top="parser SP(inout bit<8> x) { state start { x = 1; transition accept; } }\n", locals="    SP() sp;\n",
                body="        sp.apply(hdr.h.a);"), "sp.apply", r"instantiation of parser in control",   # (p4c: at the call)
        program(top="parser SP(inout bit<8> x) { state start { x = 1; transition accept; } }\n", locals="    SP() sp;\n")),
    # an int or string parameter with a direction, used or not
    "int_parameter_with_direction": (program(top="control S(inout h_t h, in int x) { apply { } }\n"), "in int x",
                                     r"type int must be directionless", program(top="control S(inout h_t h, int x) { apply { } }\n")),
    "string_parameter_with_direction": (program(top="void f(in string x) { }\n"), "in string x",
                                        r"type string cannot have a direction", program(top="void f(in bit<8> x) { }\n")),
    # a sub-control's or sub-parser's directionless parameter takes a compile-time constant
    "subcontrol_directionless_param_runtime_arg": (
        program(top="control S(inout h_t h, bit<8> x) { apply { h.a = x; } }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h, hdr.h.c);"), "s.apply", r"must be a compile-time constant",
        program(top="control S(inout h_t h, bit<8> x) { apply { h.a = x; } }\n", locals="    S() s;\n",
                body="        s.apply(hdr.h, 3);")),
    "subparser_directionless_param_runtime_arg": (
        program(top="parser SP(packet_in p, out h_t h, bit<8> x) { state start { p.extract(h); transition accept; } }\n").replace(
            "    state start { pkt.extract(hdr.h); transition accept; }",
            "    SP() sp;\n    state start { sp.apply(pkt, hdr.h, m.x); transition accept; }"), "sp.apply", r"must be a compile-time constant",
        program(top="parser SP(packet_in p, out h_t h, bit<8> x) { state start { p.extract(h); transition accept; } }\n").replace(
            "    state start { pkt.extract(hdr.h); transition accept; }",
            "    SP() sp;\n    state start { sp.apply(pkt, hdr.h, 3); transition accept; }")),
    # a default_action missing an argument: p4c names the parameter left unassigned (seed 93, `far`)
    "default_action_missing_argument": (
        program(locals="    action nop(bit<8> zz) { }\n    table t { key = { hdr.h.a: exact; }\n        actions = { nop; }\n"
                       "        default_action = nop(); }\n", body="        t.apply();"), "action nop(", r"takes 1 argument",
        program(locals="    action nop(bit<8> zz) { }\n    table t { key = { hdr.h.a: exact; }\n        actions = { nop; }\n"
                       "        default_action = nop(1); }\n", body="        t.apply();")),
    # a serializable enum cast to `int` (p4c_mutate seed 87, kind cast: was accepted)
    "serializable_enum_cast_to_int": (
        program(top="enum bit<8> C { R = 1, G = 2 }\n", body="        C c = C.R; hdr.h.a = (bit<8>)(int)c;"), "(int)c",
        r"illegal cast from C to int", program(top="enum bit<8> C { R = 1, G = 2 }\n", body="        C c = C.R; hdr.h.a = (bit<8>)(int)(bit<8>)c;")),
    # a default value on a parameter the control plane sets: p4c names the parameter, not the
    # table (p4c_mutate seed 85, kind action_param: was `far`)
    "default_value_on_control_plane_parameter": (
        program(locals="    action a(bit<8> v = 3) { hdr.h.a = v; }\n    table t { key = { hdr.h.a: exact; }\n        actions = { a; } }\n",
                body="        t.apply();"), "action a(", r"has a default value",
        program(locals="    action a(bit<8> v = 3) { hdr.h.a = v; }\n", body="        a();")),
    # a match_kind value reaching p4c's BMv2 back end (helper mutz22): an operand of == after an
    # action is inlined with a constant argument, two match_kind constants compared
    "match_kind_parameter_compared": (
        program(locals="    action a(match_kind k) { if (k == exact) { hdr.h.a = 1; } }\n", body="        a(exact);"),
        "k == exact", r"match_kind: type not yet handled on this target",
        program(locals="    action a(match_kind k) { if (true) { hdr.h.a = 1; } }\n", body="        a(exact);")),
    "match_kind_constants_compared": (
        program(top="const match_kind K = exact;\n", body="        if (K != lpm) { hdr.h.a = 3; }"), "const match_kind K",
        r"exact: could not convert expression to Json",
        program(top="const match_kind K = exact;\n", body="        if (true) { hdr.h.a = 3; }")),
    # a control named like a contextual keyword: `key()` in main's arguments is a call for p4c
    # (p4c_mutate seed 99, reserved_name; was accepted)
    "control_named_key_in_main": (
        program().replace("control I(", "control key(").replace("VC(), I(),", "VC(), key(),"), "V1Switch(",
        r"key is not a method", program().replace("control I(", "control key_c(").replace("VC(), I(),", "VC(), key_c(),")),
    # V1Switch's ingress and verify_checksum swapped, ingress calling clone: p4c's type error at
    # V1Switch (clone outside ingress/egress is a back-end check, after type checking; seed 100)
    "v1switch_swapped_ingress_with_clone": (
        program(body="        clone(CloneType.I2E, 5);").replace("V1Switch(P(), VC(), I(),", "V1Switch(P(), I(), VC(),"),
        "V1Switch(", r"V1Switch argument verify_checksum: control I has 3 parameter", program(body="        clone(CloneType.I2E, 5);")),
    # a bad @p4runtime_translation on a `type` a header field uses (unused: VALID)
    "bad_translation_on_used_type": (
        program(top='@p4runtime_translation(32, "x.org/T") type bit<8> T;\nheader t_h { T x; }\n'), "@p4runtime_translation",
        r"takes two arguments", program(top='@p4runtime_translation("x.org/T", 32) type bit<8> T;\nheader t_h { T x; }\n')),
    # bit<0> in a select p4c does not fold, a zero-width lookahead: p4c's back end dies ("Compiler
    # Bug: unknown width"; mutz21's open item; `select(0w0)` alone is folded: VALID)
    "select_zero_width_key": (
        _states("    state s1 { transition select(hdr.h.b, 0w0) { (1, _): accept; default: accept; } }\n", "s1"),
        "0w0", r"bit<0> select key", _states("    state s1 { transition select(hdr.h.b, 1w0) { (1, _): accept; default: accept; } }\n", "s1")),
    "lookahead_zero_width": (
        _states("    state s1 { bit<0> z = pkt.lookahead<bit<0>>(); transition accept; }\n", "s1"), "lookahead<bit<0>>",
        r"zero-width lookahead", _states("    state s1 { bit<1> z = pkt.lookahead<bit<1>>(); transition accept; }\n", "s1")),
    # a stack index p4c's propagation reads from a struct initializer (seed 106's kind)
    "stack_index_from_struct_initializer": (
        program(top="struct pr_t { bit<8> a; bit<8> b; }\n", body="        pr_t p = { 8w5, 8w0 };\n        hdr.s[p.a].a = 1;").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; h_t[3] s; }"), "hdr.s[p.a]", r"Array index 8w5 larger",
        program(top="struct pr_t { bit<8> a; bit<8> b; }\n", body="        pr_t p = { 8w2, 8w0 };\n        hdr.s[p.a].a = 1;").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; h_t[3] s; }")),
    # a value set as one component of a tuple keyset (p4c: "must evaluate to a compile-time
    # constant"; was accepted), a value set's size a run-time value (was "unknown name hdr")
    "value_set_in_tuple_keyset": (
        _states("    state s1 { transition select(hdr.h.a, hdr.h.b) { (vs, 1): accept; default: accept; } }\n", "s1").replace(
            "    state start", "    value_set<bit<8>>(4) vs;\n    state start"), "(vs, 1)", r"vs: must evaluate to a compile-time constant",
        _states("    state s1 { transition select(hdr.h.a) { vs: accept; default: accept; } }\n", "s1").replace(
            "    state start", "    value_set<bit<8>>(4) vs;\n    state start")),
    "value_set_runtime_size": (
        _states("").replace("    state start", "    value_set<bit<8>>(hdr.h.a) vs;\n    state start"), "value_set<",
        r"value_set size must be a compile-time integer constant",
        _states("").replace("    state start", "    value_set<bit<8>>(4) vs;\n    state start")),
    # @id of a kept table's key element or of its action's parameter: a positive integer, an
    # explicit one not repeated; @pkginfo without a key twice (hand probes of helper mutz22)
    "key_id_zero": (program(locals="    table t { key = { hdr.h.a: exact @id(0); } actions = { NoAction; } }\n", body="        t.apply();"),
                    "@id(0)", r"KeyElement: 0 is not a valid @id value",
                    program(locals="    table t { key = { hdr.h.a: exact @id(0); } actions = { NoAction; } }\n")),
    "action_param_id_repeated": (
        program(locals="    action a(@id(1) bit<8> x, @id(1) bit<8> y) { hdr.h.a = x + y; }\n" + _T.format("a"), body="        t.apply();"),
        "action a(", r"y: @id 1 is used multiple times",
        program(locals="    action a(bit<8> x, @id(1) bit<8> y) { hdr.h.a = x + y; }\n" + _T.format("a"), body="        t.apply();")),
    "controller_header_metadata_id_twice": (
        program(top='@controller_header("packet_in") header pi_t { @id(5) bit<8> port; @id(5) bit<8> x; }\n'), "@controller_header",
        r"x: @id 5 is used multiple times",
        program(top='@controller_header("packet_in") header pi_t { @id(5) bit<8> port; @id(6) bit<8> x; }\n')),
    "pkginfo_key_twice": (program().replace("V1Switch(", '@pkginfo(name="a", version="1", name="b")\nV1Switch('), "@pkginfo",
                          r"name: Duplicates declaration name",
                          program().replace("V1Switch(", '@pkginfo(name="a", version="1")\nV1Switch(')),
    # an action named default_action listed by a table without a default_action: p4c adds one and
    # dies on the name ("Compiler Bug: Could not find type of <Property> default_action"; was accepted)
    "action_named_default_action_listed": (
        program(locals="    action default_action() { }\n" + _T.format("default_action; NoAction"), body="        t.apply();"),
        "actions = {", r"an action named default_action",
        program(locals="    action default_action() { }\n" + _T.format("default_action; NoAction").replace(
            "} }", "} default_action = NoAction(); }"), body="        t.apply();")),
    # `@name(".NoAction")` on a listed action of another body, and no default_action: p4c's
    # implicit NoAction default is a second JSON action of that name (was accepted)
    "action_named_NoAction_and_implicit_default": (
        program(locals='    @name(".NoAction") action a() { hdr.h.a = 1; }\n' + _T.format("a"), body="        t.apply();"),
        "table t", r"@name'd NoAction, the default action p4c adds",
        program(locals='    @name(".NoAction") action a() { hdr.h.a = 1; }\n' + _T.format("a").replace("} }", "} default_action = a(); }"),
                body="        t.apply();")),
    # entries on a table without a key, even none (`const entries = { }`: p4c dies; was accepted)
    "empty_entries_without_key": (
        program(locals="    table t { actions = { NoAction; } const entries = { } }\n", body="        t.apply();"), "const entries",
        r"entries cannot be specified for a table with no key",
        program(locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } const entries = { } }\n", body="        t.apply();")),
    # two sub-control instances or value sets of one name (p4c: "Duplicates declaration"; was accepted)
    "subcontrol_instance_declared_twice": (
        program(top="control S(inout h_t h) { apply { h.a = h.a + 1; } }\n", locals="    S() s;\n    S() s;  // again\n", body="        s.apply(hdr.h);"),
        "// again", r"s: duplicates declaration s",
        program(top="control S(inout h_t h) { apply { h.a = h.a + 1; } }\n", locals="    S() s;\n    S() s2;\n", body="        s.apply(hdr.h);")),
    "value_set_declared_twice": (
        _states("    state s1 { transition select(hdr.h.a) { vs: accept; default: accept; } }\n", "s1").replace(
            "    state start", "    value_set<bit<8>>(4) vs;\n    value_set<bit<8>>(4) vs;  // again\n    state start"), "// again",
        r"vs: duplicates declaration vs",
        _states("    state s1 { transition select(hdr.h.a) { vs: accept; default: accept; } }\n", "s1").replace(
            "    state start", "    value_set<bit<8>>(4) vs;\n    value_set<bit<8>>(4) vs2;\n    state start")),
    "strength_reduced_branch_unbound_out_argument": (
        program(locals="    action b2(out bit<8> o) { o = 1; }\n", body="        if ((hdr.h.a * 0) != 0) { b2(); }"),
        "b2();", r"no argument for parameter o",
        program(locals="    action b2(out bit<8> o) { o = 1; }\n", body="        if ((hdr.h.a * 0) != 0) { b2(hdr.h.c); }")),
    # @optional on a function's or a constructor's parameter, used or not (p4c: "optional
    # parameter not allowed here"; a hand probe of helper mutz22 -- was accepted)
    "optional_function_parameter": (
        program(top="bit<8> f(in bit<8> y, @optional in bit<8> x) { return y; }\n", body="        hdr.h.a = f(1, 2);"),
        "@optional", r"optional parameter not allowed here",
        program(top="bit<8> f(in bit<8> y, in bit<8> x) { return y; }\n", body="        hdr.h.a = f(1, 2);")),
    "optional_constructor_parameter": (
        program(top="control S(inout h_t h)(@optional bit<8> k) { apply { h.a = 1; } }\n"),
        "@optional", r"optional parameter not allowed here", program(top="control S(inout h_t h)(bit<8> k) { apply { h.a = 1; } }\n")),
    # ... and ingress given as compute_checksum, calling digest (seed 115)
    "v1switch_swapped_ingress_with_digest": (
        program(body="        digest<bit<8>>(1, hdr.h.a);").replace("VC(), I(), E(), CC(),", "VC(), CC(), E(), I(),"),
        "V1Switch(", r"V1Switch argument ingress: control CC has 2 parameter", program(body="        digest<bit<8>>(1, hdr.h.a);")),
    # a back-end error in a parser state p4c keeps (the same state unreachable: VALID)
    "mark_to_drop_in_reachable_parser_state": (
        _states("    state s1 { mark_to_drop(sm); transition accept; }\n", "s1"), "mark_to_drop(sm)",
        r"not supported in a parser", _states("    state s1 { transition accept; }\n", "s1")),
    # helper mutz23: a bad @p4runtime_translation is p4c's syntax error once something kept uses the
    # type -- a listed action's parameter, a used typedef of it, a called function (their unused
    # twins compile: p4c removes them before it parses the annotation)
    "bad_translation_listed_action_param": (program(top=_TR, locals="    action a(T v) { }\n" + _T.format("a"),
                                                    body="        t.apply();"), "@p4runtime_translation",
                                            r"takes two arguments", program(top=_TR.replace('(32, "x.org/T")', '("x.org/T", 32)'), locals="    action a(T v) { }\n" + _T.format("a"),
                                                                            body="        t.apply();")),
    "bad_translation_used_typedef": (program(top=_TR + "typedef T T2;\n", body="        T2 x = (T2)hdr.h.a; hdr.h.a = (bit<8>)x;"),
                                     "@p4runtime_translation", r"takes two arguments",
                                     program(top=_TR.replace('(32, "x.org/T")', '("x.org/T", 32)') + "typedef T T2;\n",
                                             body="        T2 x = (T2)hdr.h.a; hdr.h.a = (bit<8>)x;")),
    "bad_translation_called_function": (program(top=_TR + "bit<8> f(in bit<8> x) { T y = (T)x; return (bit<8>)y; }\n",
                                                body="        hdr.h.a = f(hdr.h.a);"), "@p4runtime_translation", r"takes two arguments",
                                        program(top=_TR.replace('(32, "x.org/T")', '("x.org/T", 32)') + "bit<8> f(in bit<8> x) { T y = (T)x; return (bit<8>)y; }\n",
                                                body="        hdr.h.a = f(hdr.h.a);")),
    # `@name(".NoAction")` on an action with NoAction's empty body listed by a table without a
    # default_action: p4c adds core.p4's NoAction beside it (duplicate JSON label; was merged)
    "named_noaction_same_body_listed_without_default": (
        program(locals='    @name(".NoAction") action my_na() { }\n' + _T.format("my_na"), body="        t.apply();"),
        "table t", r"@name'd NoAction, the default action p4c adds",
        program(locals='    @name(".NoAction") action my_na() { }\n' + _T.format("my_na").replace(" }\n", " default_action = my_na(); }\n"),
                body="        t.apply();")),
    # a digest of a header union: p4c's back end names the union's declaration (was accepted)
    "digest_of_header_union": (program(top=_UT, body="        u_t u; u.x = hdr.h; digest(1, u);"), "header_union u_t",
                               r"expected a struct type", program(top=_UT, body="        u_t u; u.x = hdr.h; digest(1, u.x.a);")),
    # an entry's argument for a bound directional parameter is checked before the count: p4c names
    # the `2` given for `in y` listed as set(m.y), not the action's parameter x (a hand probe)
    "entry_argument_for_bound_parameter": (
        program(locals="    action set(in bit<16> y, bit<8> x) { m.y = y; m.x = x; }\n"
                       "    table t { key = { hdr.h.a: exact; } actions = { set(m.y); } const entries = {\n        1: set(2);\n    } }\n",
                body="        t.apply();"), "1: set(2)", r"does not match m\.y bound in the actions list",
        program(locals="    action set(in bit<16> y, bit<8> x) { m.y = y; m.x = x; }\n"
                       "    table t { key = { hdr.h.a: exact; } actions = { set(m.y); } const entries = {\n        1: set(m.y, 2);\n    } }\n",
                body="        t.apply();")),
    # an untyped literal in a tuple entry for a `type` key: p4c cannot cast it implicitly (accepted)
    "untyped_entry_value_for_newtype_key": (
        program(top="type bit<9> pt_t;\n", locals="    pt_t pp = (pt_t)9w3;\n    table t { key = { pp: exact; hdr.h.a: exact; } "
                "actions = { NoAction; } const entries = {\n        (1, 2): NoAction();\n    } }\n", body="        t.apply();"),
        "(1, 2)", r"cannot cast implicitly to pt_t",
        program(top="type bit<9> pt_t;\n", locals="    pt_t pp = (pt_t)9w3;\n    table t { key = { pp: exact; hdr.h.a: exact; } "
                "actions = { NoAction; } const entries = {\n        ((pt_t)1, 2): NoAction();\n    } }\n", body="        t.apply();")),
    # `@pragma` with nothing after it on its line: p4c's "unexpected END_PRAGMA" (was accepted)
    "pragma_without_a_name": (program(locals="    @pragma\n    action a() { }\n"), "@pragma", r"END_PRAGMA",
                              program(locals="    @pragma x 1\n    action a() { }\n")),
    # a generic parser with constructor constants is type-checked on its own too: extract of a T
    # (p4c: "h: argument must be a header"; it was accepted while nothing instantiated it)
    "generic_parser_with_constructor_extracts_a_type_variable": (
        program(top="parser GP<T>(packet_in pkt, out T h)(bit<8> k) { state start { pkt.extract(h); transition accept; } }\n"),
        "parser GP<T>", r"extract into a value of type T",
        program(top="parser GP<T>(packet_in pkt, out h_t h)(bit<8> k) { state start { pkt.extract(h); transition accept; } }\n")),
    # an action named like a table property called in the default_action or an entry: p4c resolves
    # the name to the property and dies (p4c_mutate seed 125, reserved_name; was accepted)
    "action_named_actions_as_default_action": (
        program(locals="    action actions(bit<8> v) { hdr.h.a = v; }\n    table t { key = { hdr.h.a: exact; } actions = { actions; "
                       "NoAction; }\n        default_action = actions(1); }\n", body="        t.apply();"),
        "default_action = actions(1)", r"Could not find type of <Property> actions",
        program(locals="    action actions(bit<8> v) { hdr.h.a = v; }\n    table t { key = { hdr.h.a: exact; } actions = { actions; "
                       "NoAction; }\n        default_action = NoAction(); }\n", body="        t.apply();")),
    "action_named_default_action_in_an_entry": (
        program(locals="    action default_action() { hdr.h.a = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { NoAction; "
                       "default_action; } default_action = NoAction();\n        const entries = { 1: default_action(); } }\n",
                body="        t.apply();"), "const entries = { 1: default_action(); }", r"<Property> default_action",
        program(locals="    action default_action() { hdr.h.a = 1; }\n    table t { key = { hdr.h.a: exact; } actions = { NoAction; "
                       "default_action; } default_action = NoAction();\n        const entries = { 1: NoAction(); } }\n",
                body="        t.apply();")),
    # a list as verify_checksum's checksum: p4c dies without a message (exit 245; p4c_mutate seed 130,
    # kind extern_operand; was accepted)
    "verify_checksum_list_as_the_checksum": (
        program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control VC(inout headers hdr, inout meta_t m) { apply { verify_checksum(true, { hdr.h.a }, "
                          "{ 8w1, 8w2 }, HashAlgorithm.csum16); } }"), "verify_checksum(", r"checksum argument is a list",
        program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control VC(inout headers hdr, inout meta_t m) { apply { verify_checksum(true, { hdr.h.a }, "
                          "hdr.h.b, HashAlgorithm.csum16); } }")),
    # a member of v1model.p4's own enums as hash's base or max: p4c's JSON has no number for it
    # ("could not convert expression to Json"; p4c_mutate seed 131, extern_operand) -- a program's enum has one
    "model_enum_as_hash_base": (
        program(body="        bit<16> r; hash(r, HashAlgorithm.crc16, HashAlgorithm.crc16, { hdr.h.a }, 16w100); hdr.h.b = r;"),
        "hash(r", r"HashAlgorithm: could not convert expression to Json",
        program(top="enum EE { A, B }\n",
                body="        bit<16> r; hash(r, HashAlgorithm.crc16, EE.B, { hdr.h.a }, 16w100); hdr.h.b = r;")),
    # an extern call spread over lines whose out argument cannot be assigned to: p4c names the call's
    # line (p4c_mutate seed 132, extern_operand; was the argument's line -- mutz20's open `far` item)
    "extern_out_argument_not_an_lvalue_on_a_later_line": (
        program(body="        hash(\n            false,\n            HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w8);"), "        hash(",
        r"cannot be assigned to", program(body="        hash(\n            hdr.h.b,\n            HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w8);")),
    "verify_checksum_model_enum_as_the_checksum": (
        program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control VC(inout headers hdr, inout meta_t m) { apply { verify_checksum(true, { hdr.h.a }, "
                          "HashAlgorithm.crc16, HashAlgorithm.csum16); } }"), "verify_checksum(", r"could not convert expression to Json",
        program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control VC(inout headers hdr, inout meta_t m) { apply { verify_checksum(true, { hdr.h.a }, "
                          "hdr.h.b, HashAlgorithm.csum16); } }")),
    # ... and so are a function's and an extern method's (an action's stays at the argument, as p4c names it)
    "function_out_argument_not_an_lvalue_on_a_later_line": (
        program(top="void f(out bit<8> x) { x = 1; }\n", body="        f(\n            8w3);"), "        f(",
        r"cannot be assigned to", program(top="void f(out bit<8> x) { x = 1; }\n", body="        f(\n            hdr.h.a);")),
    "register_read_result_not_an_lvalue_on_a_later_line": (
        program(locals="    register<bit<8>>(4) r;\n", body="        r.read(\n            8w3, 0);"), "        r.read(",
        r"cannot be assigned to", program(locals="    register<bit<8>>(4) r;\n", body="        r.read(\n            hdr.h.a, 0);")),
    # update_checksum over a struct or header holding the result field, under a condition that is not
    # `true`: p4c copies it into a temporary its back end refuses (p4c_mutate seed 133; was accepted)
    "update_checksum_data_holds_the_result": (
        program().replace("control CC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(hdr.h.isValid(), hdr, "
                          "hdr.h.b, HashAlgorithm.csum16); } }"), "update_checksum(", r"is inside hdr, which is in the data",
        program().replace("control CC(inout headers hdr, inout meta_t m) { apply { } }",
                          "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, hdr, "
                          "hdr.h.b, HashAlgorithm.csum16); } }")),
    "digest_of_a_v1model_enum": (program(body="        digest(1, HashAlgorithm.crc16);"), "digest(1,", r"digest data must be",
                                 program(top="enum EE { A }\n", body="        digest(1, EE.A);")),
    # a switch on a match_kind with a case label (p4c's back end: no representation for it)
    "match_kind_switch_with_label": (program(body="        switch (exact) { exact: { hdr.h.a = 1; } default: { hdr.h.a = 2; } }"),
                                     "switch (exact)", r"switch on a value of type match_kind",
                                     program(body="        switch (exact) { default: { hdr.h.a = 2; } }")),
}

# p4c accepts these (checkmate-p4c used to refuse them)
VALID = {
    "non_control_plane_action_params_unused_or_called": program(
        top=_UT + "header e_t { bit<8> v; }\n",
        locals="    action ah(h_t v) { hdr.h.a = v.a; }\n    action am(meta_t v) { hdr.h.b = v.y; }\n"
               "    action ae(error e) { }\n    action au(u_t v) { }\n    action s(string v) { }\n"
               "    action k(e_t[2] st, tuple<bit<8>> tp, match_kind mk) { }\n"
               "    action b(bool f) { hdr.h.c = f ? 8w1 : 8w0; }\n"
               "    table unapplied { key = { hdr.h.a: exact; } actions = { ah; b; } }\n",
        body="        ah(hdr.h);\n        am(m);\n        ae(sm.parser_error);\n        b(true);"),
    # `_` as a type argument of a generic call (p4c infers it; was a syntax error)
    "dontcare_type_arguments": program(body="        bit<16> r; hash<_, _, _, _>(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w100);\n"
                                            "        hash<bit<16>, _, _, _>(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w100);\n"
                                            "        random<_>(hdr.h.b, 1, 3); hdr.h.b = hdr.h.b + r;"),
    # a plain action declared after one @name'd like it, both only called directly (p4c_mutate
    # seed 85, name_clash): twins, as two @name'd ones (was "declared twice")
    "plain_action_after_one_named_like_it": program(
        locals='    @name("d") action b(in bit<8> x) { hdr.h.a = x; }\n    action d(bit<8> v) { hdr.h.c = v; }\n',
        body="        b(1);\n        d(2);"),
    # a cast changing width and sign of a compile-time constant (p4c folds it first)
    "constant_casts_change_width_and_sign": program(
        top="const int<8> K = -1;\n",
        locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } const entries = { (bit<8>)4s7: NoAction(); } }\n",
        body="        const int<8> L = -3; hdr.h.b = (bit<16>)(-8s5) + (bit<16>)L + (bit<16>)K;\n"
             "        int<16> q = (int<16>)8w200; hdr.h.a = (bit<8>)(int<8>)(int<4>)8w200; t.apply();\n"
             "        hdr.h.c = (bit<8>)(8s7 / 8s2) + (bit<8>)(K2 % 8s4);").replace("const int<8> K = -1;", "const int<8> K = -1;\nconst int<8> K2 = 7;"),
    # a control's `int` constructor parameter, given an untyped or a sized constant; a
    # constructor parameter as a table's size
    "control_int_constructor_parameter": program(
        top="control S(inout h_t h)(int k, bit<32> n) {\n    table t { key = { h.a: exact; } actions = { NoAction; } size = n; }\n"
            "    apply { h.a = h.a + (bit<8>)k; t.apply(); }\n}\n",
        locals="    S(300, 64) s1;\n    S(8w3, 16) s2;\n", body="        s1.apply(hdr.h);\n        s2.apply(hdr.h);"),
    # a parser instantiated in a control, a control in a parser: refused only where applied
    "misplaced_block_instances_unused": program(
        top="parser SP(inout bit<8> x) { state start { x = 1; transition accept; } }\n"
            "control S(inout h_t h) { apply { h.a = h.a + 1; } }\ncontrol Q(inout bit<8> y) { SP() sp; apply { } }\n",
        locals="    SP() sp;\n").replace("    state start {", "    S() s;\n    state start {", 1),
    # a call with the wrong number of arguments in a branch p4c removes before it checks types,
    # `false && x` folded too (p4c_mutate seed 92, kind action_param: an action given a parameter)
    "dead_branch_call_arity": program(
        top="const bool K = false;\nbit<8> f(in bit<8> x) { return x; }\n",
        locals="    action a0(bit<8> v) { hdr.h.a = v; }\n    action b2(out bit<8> o) { o = 1; }\n",
        body="        if (1 == 2) { a0(); a0(1, 2); hdr.h.a = f(); hdr.h.a = f(1, 2); }\n        if (K && hdr.h.a == 1) { b2(); }"),
    # ... and a directionless action argument missing in a branch p4c's strength reduction removes
    # (p4c_mutate seed 114; mutz21's open `x * 0` item -- a type error there is still one)
    "strength_reduced_branch_unbound_action_argument": program(
        locals="    action a0(bit<8> v) { hdr.h.a = v; }\n    action a1(tuple<bit<8>> z) { hdr.h.a = 2; }\n",
        body="        if (((bit<4>)hdr.h.a * 0) != 0) { a0(); } else if ((hdr.h.c & 0) == 1) { a1(); } else { hdr.h.b = 1; }"),
    "zero_width_literals": program(body="        bit<0> z = 0w1;\n        hdr.h.a = hdr.h.a ++ 0w0;\n"
                                        "        if (0w1 == 0) { hdr.h.c = (bit<8>)z + (bit<8>)(int)0w0; }"),
    "varbit_zero": program(top="header vb_t { bit<8> w; varbit<0> v; }\n").replace(
        "struct headers { h_t h; }", "struct headers { h_t h; vb_t vb; }").replace(
        "pkt.extract(hdr.h);", "pkt.extract(hdr.h); pkt.extract(hdr.vb, 0);"),
    # match_kind members as values where p4c's midend removes them before its back end: arguments
    # of parameters nothing reads, unused locals and constants, a comparison in an unused action
    # or function (mutz21's open item: `a(exact)` was "unknown name exact")
    # back-end errors in parser states unreachable from start: p4c removes the states first
    # (p4c_mutate seed 97, extern_in_parser)
    "back_end_errors_in_unreachable_parser_states": _states(
        "    state s1 { mark_to_drop(sm); transition accept; }\n    state s2 { mark_to_drop(); transition s1; }\n"
        "    state s3 { random(hdr.h.a, 1, 5); pkt.lookahead<bit<0>>(); hdr.h.c = hdr.h.c / 3; transition accept; }\n"
        "    state s4 { transition select(hdr.h.b, 0w0) { (1, 0): accept; default: accept; } }\n"
        "    state s5 { transition select(0w0) { 0: accept; default: accept; } }\n", "s5"),
    # a bad @p4runtime_translation on a `type` nothing uses: p4c parses it only for a used type
    # (p4c_mutate seed 100, swap_args; still refused for an unused action's parameter, a typedef ...)
    "bad_translation_on_unused_type": program(top='@p4runtime_translation(32, "x.org/T") type bit<8> T;\n'
                                                  '@p4runtime_translation("x.org/U") type bit<8> U;\n'),
    # helper mutz23: cpp forms p4c's `cc -E` takes -- a computed #include, `?:` and C's integer
    # division in #if (were "#include expects <file>", "cannot evaluate #if expression")
    "cpp_computed_include_and_conditional_if": program(body="#if defined(__LINE__) && (1 ? 7 / 2 == 3 : 0)\n        hdr.h.a = 1;\n#endif").replace(
        "#include <v1model.p4>", "#define V1 <v1model.p4>\n#include V1"),
    "match_kind_values_unused": program(
        top="const match_kind K = exact;\nbit<8> f(in match_kind k) { return 2; }\n"
            "bit<8> g(in match_kind k) { return k == lpm ? 8w1 : 8w2; }\n",
        locals="    action a(match_kind k, bit<8> v) { hdr.h.a = v; }\n    match_kind mk = ternary;\n"
               "    action unused(match_kind k) { if (k == exact) { hdr.h.a = 1; } }\n",
        body="        a(exact, 1);\n        a(k = lpm, v = 2);\n        hdr.h.b = (bit<16>)f(K);\n        match_kind x; x = exact;"),
    # helper mutz23 (mutz22's open items): a match_kind constructor parameter, a constant switch on a
    # match_kind with only a default (p4c folds it) or with no case; a bad @p4runtime_translation on
    # a type only an unused action's parameter, a constant, a typedef or an uncalled function names
    "match_kind_ctor_param_and_constant_switch": program(
        top="control S(inout h_t h)(match_kind k) { apply { h.a = 1; } }\n",
        locals="    S(exact) s;\n", body="        s.apply(hdr.h);\n        switch (exact) { default: { hdr.h.b = 2; } }\n"
                                       "        switch (lpm) { }"),
    # a local never read whose initializer compares match_kinds: p4c removes both (mutz22's open item)
    "match_kind_comparison_in_unread_local": program(body="        bool b = exact == exact;\n        bool b2 = exact != lpm;"),
    "bad_translation_type_only_unused_declarations_name": program(
        top=_TR + "const T K = (T)1;\ntypedef T T2;\nbit<8> f(in T x) { return (bit<8>)x; }\n",
        locals="    action a(T v) { }\n"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)


def test_form_kinds_agree_with_p4c():
    """tools/p4c_mutate_forms.py's kinds (action parameters, literals) over a few seeds: each
    mutant changes one line and checkmate-p4c compiles it or refuses it with file:line:col;
    with p4c on PATH, both compilers give the same verdict (these kinds found the fixes above)."""
    import random

    from tools.p4c_mutate import MUTATORS
    base = program(top=_UT + "const bit<8> K = 8w3;\n",
                   locals="    action a(out bit<8> o, bit<8> v) { o = v + 0x10; hdr.h.b = 16w7; }\n"
                          "    action d(h_t x) { hdr.h.a = x.a; }\n" + _T.format("a(m.x)"),
                   body="        t.apply();\n        d(hdr.h);\n        hdr.h.c = 2;")
    compile_source(base, "base.p4")
    seen, disagree = set(), []
    for kind in ("action_param", "literal"):
        for seed in range(12):
            m = MUTATORS[kind](random.Random(seed), base)
            if m is None or m.text in seen:
                continue
            seen.add(m.text)
            try:
                compile_source(m.text, "mut.p4")
                ours = True
            except P4CompileError as e:
                assert re.match(r"mut\.p4:\d+:\d+: ", str(e)), (kind, m.desc, str(e))
                ours = False
            if shutil.which("p4c") and _p4c_accepts(m.text) != ours:
                disagree.append((kind, m.desc, ours))
    assert len(seen) >= 12, len(seen)
    assert not disagree, disagree
