"""Programs p4c 1.2.4.8 refuses where checkmate-p4c refused at another line (helpers errs19,
/work/e19 pd and t5, errs20, /work/e20 pa, pb, t2, t4, corpus22, and errs21, /work/e21): the line of
the error is p4c's (``file:line:col`` of the culprit) and its message matches the case's pattern;
with p4c on PATH p4c refuses each too.  Each failed before."""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program

_TWO_T = "void twoT<A, B>(out A a, in B b) { a = (A)b; }\nvoid sw<T>(inout T a, inout T b) { T t = a; a = b; b = t; }"
_UE = "extern UE { UE(); T get<T>(); void put<T>(in T v); }"

_SUB = "control Sub(inout h_t h)(bit<8> k) { apply { h.a = k; } }"
_F = "bit<8> f(in bit<8> a, in bit<8> b = 16w5) { return a + b; }"
_OV = "extern Ov {\n    Ov();\n    void put<T>(in T v);\n}"

# name -> (program, text at p4c's error line, pattern of the message)
CASES = {
    # (errs19)
    # a generic function's body is checked at its declaration, before a call's error further down
    # (p4c: "A: cast not supported"; checkmate-p4c checked generic bodies after everything else)
    "generic_body_before_a_later_call_error": (program(top=_TWO_T, body="        sw(hdr.h.a, hdr.h.b);"),
                                               "a = (A)b", "type parameter"),
    # an extern method called with type arguments parses (`ue.put<bit<8>>(x)`, `>>` closing them):
    # checkmate-p4c's syntax error at the call came before p4c's at the extern
    "extern_method_type_arguments_parse": (program(top=_UE, locals="    UE() ue;",
                                                   body="        ue.put<bit<8>>(hdr.h.a);"),
                                           "void put<T>", "Unknown extern method put"),
    # const entries in a table with no key: p4c names the table, not the property
    "entries_in_a_table_without_key": (program(locals="    action a() { }\n    table tk {\n        actions = { a; }\n"
                                                      "        const entries = { _: a(); }\n    }", body="        tk.apply();"),
                                       "table tk", "no key"),
    # a value_set<bool> a select on a bool key uses: p4c (with --p4runtime-files, as run_p4c calls it)
    # names the declaration ("invalid type parameter for Value Set"; its type error at the select shows
    # only without them -- errs25); a bit<1> key stays the select's type error (test_errs25)
    "bool_value_set_used": (program().replace("state start { pkt.extract(hdr.h); transition accept; }",
                                              "value_set<bool>(2) vb;\n    state start { pkt.extract(hdr.h); "
                                              "transition select(hdr.h.a == 0) { vb: accept; default: accept; } }"),
                            "value_set<bool>", "bool"),
    # (errs20)
    # a constructor invocation that does not match -- too few, too many, a wrong name or type --
    # is named at the control's declaration ("'control Sub' ... k: No argument supplied")
    "constructor_argument_missing": (program(top=_SUB, locals="    Sub() s;", body="        s.apply(hdr.h);"),
                                     "control Sub", "constructor argument"),
    "constructor_argument_too_many": (program(top=_SUB, locals="    Sub(1, 2) s;", body="        s.apply(hdr.h);"),
                                      "control Sub", "constructor argument"),
    "constructor_argument_wrong_type": (program(top=_SUB, locals="    Sub(true) s;", body="        s.apply(hdr.h);"),
                                        "control Sub", "type mismatch"),
    "constructor_argument_wrong_name": (program(top=_SUB, locals="    Sub(z = 1) s;", body="        s.apply(hdr.h);"),
                                        "control Sub", "no constructor parameter"),
    # a default argument of the wrong type is p4c's error at the call that uses it
    "default_argument_wrong_type_at_the_call": (program(top=_F, body="        hdr.h.c = f(hdr.h.a);"),
                                                "hdr.h.c = f(", "type mismatch"),
    # a program's own extern: a constructor argument of the wrong type is named at the instance,
    # before the back end's "unknown extern instance" at the declaration
    "own_extern_constructor_argument_type": (program(top="extern Ex<T> { Ex(T init); T get(); }",
                                                     locals="    Ex<bit<8>>(16w1) e;", body="        hdr.h.a = 1;"),
                                             "Ex<bit<8>>(16w1) e", "does not match|type mismatch"),
    # a bool action parameter of a table's action given in its default action: the table's error
    # names the parameter (checkmate-p4c refused the argument `true` against bit<1>)
    "bool_action_parameter_with_a_default_action": (
        program(locals="    action x(bool v) { hdr.h.a = v ? 8w1 : 8w2; }\n    table t { key = { hdr.h.a: exact; } "
                       "actions = { x; } default_action = x(true); }", body="        t.apply();"),
        "action x(bool v)", "bool"),
    # a bare list given for a struct constructor parameter is a tuple to p4c: reading a field of it
    # is the error, at the read (checkmate-p4c refused the parameter type at the instance)
    "struct_constructor_argument_given_as_a_list": (
        program(top="struct k_t { bit<8> a; bit<8> b; }\ncontrol Sub(inout h_t h)(k_t k) {\n    apply { h.a = k.b; }\n}",
                locals="    Sub({ 1, 2 }) s;", body="        s.apply(hdr.h);"), "h.a = k.b", "Cannot extract field b"),
    # a generic control instantiated without type arguments its constructor cannot give: p4c cannot
    # unify T at the instance's apply ("'s.apply' ... Cannot unify type 'header h_t' with type 'T'")
    "generic_control_type_argument_not_inferred": (
        program(top="control Sub<T>(inout T h) { apply { } }", locals="    Sub() s;",
                body="        hdr.h.a = 1;\n        s.apply(hdr.h);"), "s.apply(hdr.h)", "type argument"),
    # (corpus22) a serializable enum member for an action's bit<W> parameter in a default action:
    # p4c types action arguments without the enum's implicit cast -- named at the call (up4)
    "serenum_member_for_an_action_bit_parameter": (
        program(top="enum bit<8> Sl { DEF = 1 }", locals="    action x(bit<8> v) { hdr.h.a = v; }\n    table t { "
                "key = { hdr.h.c: exact; } actions = { x; } const default_action = x(Sl.DEF); }",
                body="        t.apply();"), "const default_action = x(", "Sl"),
    # (corpus22) a program's own extern instance whose method an action calls: p4c's JSON conversion
    # refuses the call at the method's declaration and never reaches the instance (klagrassa/prog_tm_bmv2)
    "own_extern_method_called_in_an_action": (
        program(top="extern Tm<T> {\n    Tm();\n    void set_rank(in bit<32> day, in T v);\n}",
                locals="    Tm<bit<8>>() tm;\n    action r() { tm.set_rank(0, hdr.h.a); }\n"
                       "    table t { key = { hdr.h.c: exact; } actions = { r; NoAction; } }",
                body="        t.apply();"), "void set_rank", "Unknown extern method set_rank"),
    # (corpus22) extracting a header stack is refused after type checking: a type error further down
    # (in a control) is p4c's first (multip4/P4-SFC sfc-HA.p4)
    "stack_extract_after_a_later_type_error": (
        program(top="struct hs_t { h_t[2] s; }", locals="    hs_t q;", body="        hdr.h.a = hdr.h.zz;")
        .replace("state start { pkt.extract(hdr.h); transition accept; }",
                 "hs_t st;\n    state start { pkt.extract(st.s); pkt.extract(hdr.h); transition accept; }"),
        "hdr.h.a = hdr.h.zz", "zz"),
    # an instance of the program's own package whose argument does not fit: named at the package
    "own_package_instance_wrong_argument": (program(top="control Qt(inout h_t h);\npackage Pk(Qt q);\nPk(3) pk;"),
                                            "package Pk", "package Pk"),
    # (errs21)
    # a tuple lookahead into a local that is read: p4c's back end names the local's type ("unexpected
    # type in lookahead argument"); unread, it compiles (diffcases/errs21)
    "tuple_lookahead_read": (program().replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "state start {\n        tuple<bit<8>, bit<8>> la = pkt.lookahead<tuple<bit<8>, bit<8>>>();\n"
        "        pkt.extract(hdr.h);\n        hdr.h.c = la[1];\n        transition accept;\n    }"),
        "tuple<bit<8>, bit<8>> la", "unexpected type in lookahead"),
    # ... named at the program's first tuple type equal to it (p4c's canonical type: a metadata field)
    "tuple_lookahead_read_named_at_the_first_equal_tuple_type": (program().replace(
        "struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; tuple<bit<8>, bit<8>> tt; }").replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "state start {\n        tuple<bit<8>, bit<8>> la = pkt.lookahead<tuple<bit<8>, bit<8>>>();\n"
        "        pkt.extract(hdr.h);\n        hdr.h.c = la[1];\n        transition accept;\n    }"),
        "tuple<bit<8>, bit<8>> tt", "unexpected type in lookahead"),
    # a slice past the width of a constructor parameter is no constant to p4c's first folding: the
    # type checker's "Bit index 11 greater than width 8" (a `const`'s is folded: diffcases/errs21)
    "slice_of_a_constructor_parameter_past_its_width": (
        program(top="control SubK(inout h_t h)(bit<8> k) {\n    apply { h.c = k[11:4]; }\n}", locals="    SubK(3) s;",
                body="        s.apply(hdr.h);"), "h.c = k[11:4]", "out of range"),
    # user externs (/work/e21 pd): p4c's front-end errors at the call come before its back end's
    # "Unknown extern method" at the declaration, which checkmate-p4c named
    "extern_method_type_argument_mismatch": (
        program(top=_OV, locals="    Ov() ov;", body="        ov.put<bit<16>>(hdr.h.a);"), "ov.put<bit<16>>", "type mismatch"),
    "extern_generic_method_untyped_literal": (
        program(top=_OV, locals="    Ov() ov;", body="        ov.put(5);"), "ov.put(5)", "could not infer a width"),
    "extern_two_methods_of_one_arity": (
        program(top="extern X2 {\n    X2();\n    void go();\n    void go();\n}", locals="    X2() x1;",
                body="        x1.go();"), "x1.go()", "Ambiguous method go"),
    "extern_method_named_like_its_extern": (
        program(top="extern X2 {\n    X2();\n    void X2();\n}", locals="    X2() x1;", body="        hdr.h.a = 1;"),
        "void X2()", "cannot have a return type"),
    "two_instances_named_alike_before_a_back_end_error": (
        program(top="extern X2 {\n    X2();\n    void go();\n}", locals="    X2() x1;\n    X2()  x1;",
                body="        x1.go();"), "X2()  x1", "duplicates declaration"),
    "extern_constructors_of_one_arity": (
        program(top="extern X2 {\n    X2(bit<8> k);\n    X2(bit<16> k);\n    void go();\n}", locals="    X2(3) x1;",
                body="        x1.go();"), "extern X2 {", "Ambiguous method X2"),
    "generic_extern_instance_type_named_at_its_use": (
        program(top="extern X3<T> {\n    X3();\n    T get();\n}", locals="    X3() x3;",
                body="        hdr.h.a = 1;\n        hdr.h.c = x3.get();"), "hdr.h.c = x3.get()", "Cannot cast implicitly"),
    "string_constant_for_a_string_constructor_parameter": (
        program(top='const string G = "g";\ncontrol SubS(inout h_t h)(string k) { apply { log_msg(k); } }',
                locals="    SubS(G) s;", body="        s.apply(hdr.h);"), 'const string G', "Cannot evaluate initializer"),
    "generic_extern_instance_given_a_literal": (
        program(top="extern X3<T> {\n    X3(T init);\n    T get();\n}", locals="    X3(5) x3;",
                body="        hdr.h.c = x3.get();"), "X3(5) x3", "could not infer a width"),
    "generic_extern_function_value": (
        program(top="extern T ef<T>(in T a);", body="        hdr.h.a = ef(hdr.h.c);"), "hdr.h.a = ef(", "not supported|cannot be used"),
    # a string constructor parameter given a number: named at the control's declaration
    "string_constructor_parameter_given_a_number": (
        program(top="control SubS(inout h_t h)(string k) { apply { log_msg(k); } }", locals="    SubS(3) s;",
                body="        s.apply(hdr.h);"), "control SubS", "type mismatch"),
    # (errs22) an #if left open: cpp names the innermost open conditional's line ("unterminated
    # #ifndef"); checkmate-p4c named the last line of the file (/work/e22 pc c_def_unterminated_if)
    "unterminated_if_named_at_its_line": (
        program(top="#if 1\n#ifndef NOPE\nconst bit<8> KX = 1;\n#endif\n#ifdef NOPE2\n#else\nconst bit<8> KY = 1;"),
        "#ifdef NOPE2", "unterminated #if"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*CASES[name], tmp_path)
