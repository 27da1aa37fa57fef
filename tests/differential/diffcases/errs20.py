"""Programs found by helper errs20 (issue #15): a seventh sweep of probe programs of our own (kept in
/work/e20, outside the repository: constructor parameters, generic functions and externs, default
arguments, annotations, const entries, action parameters with directions, `switch`, scoping,
`type`/typedef, casts between structs/headers/tuples, parsers), each decided by real p4c 1.2.4.8
and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused or ran differently.  ``INVALID`` (read by
tests/differential/test_invalid.py): name -> (program, words the message must contain (any of)) --
programs p4c rejects that checkmate-p4c accepted (or crashed on).  Positions: tests/p4c/test_error_lines.py.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# A plain enum and an `error` as constructor parameters of a control (p4c specializes each
# instance); checkmate-p4c refused both types ("type Ek is not supported"; /work/e20 pa
# a_c_ctrl_ctor_plain_enum, t1 ctor_plain_enum_default, ctor_error_param)
CASES.append(case("errs20_plain_enum_and_error_constructor_parameters", CAT, program("""
        s.apply(hdr.h); hdr.h.c = (bit<16>)hdr.h.b; s2.apply(hdr.h); se.apply(hdr.h2);""",
    top="enum Ek { A, B }\n"
        "control Sub(inout h_t h)(Ek k) { apply { if (k == Ek.B) { h.b = 1; } else { h.b = 2; } } }\n"
        "control SubE(inout h_t h)(error k) { apply { if (k == error.NoMatch) { h.d = 7; } } }\n",
    ingress_decls="    Sub(Ek.B) s;\n    Sub(Ek.A) s2;\n    SubE(error.NoMatch) se;\n"), json_path=True))

# A constructor parameter as the size of an extern instance of the control (`register<bit<8>>(n)`,
# `counter(n * 2, ..)`, `action_profile(n)`); checkmate-p4c refused "unknown name n" (a table's `size = n` worked;
# /work/e20 pa a_c_ctrl_ctor_register_size, t1 ctor_*_size_*, t5 ap_size_ctor)
CASES.append(case("errs20_constructor_parameter_sizes_extern_instances", CAT, program("""
        s.apply(hdr.h);""",
    top="control Sub(inout h_t h)(bit<32> n) {\n    register<bit<8>>(n) r;\n"
        "    counter(n * 2, CounterType.packets) c;\n    action_profile(n) ap;\n    action a() { h.c = 5; }\n"
        "    table t { key = { h.a: exact; } actions = { a; NoAction; } implementation = ap; }\n"
        "    apply { r.write(n - 1, h.a); bit<8> v; r.read(v, n - 1); h.b = v + 1; c.count(n + 1); t.apply(); }\n}\n",
    ingress_decls="    Sub(8) s;\n"), json_path=True))

# An instance of the program's own package besides `main` (`Pk(Q()) pk;`): p4c type-checks it and
# builds `main` only; checkmate-p4c refused it ("cannot instantiate Pk at top level"; t1
# pkg_own_instance_other, pkg_own_instance_ctor_bit)
CASES.append(case("errs20_own_package_instance_besides_main", CAT, program("""
        hdr.h.b = 2;""", top="control Qt(inout h_t h);\npackage Pk(Qt q, bit<8> k);\n"
                            "control Q(inout h_t h) { apply { h.b = 9; } }\nPk(Q(), 3) pk;\n"), json_path=True))

# Two parameters of an action @name'd alike: p4c's P4Info lists both ("pp", ids 1 and 2) and
# simple_switch loads its JSON; the bmv2json loader generated a function with a duplicate argument
# (SyntaxError: "duplicate argument 'a1_pp'"; /work/e20 pb b_n_name_param_collision)
CASES.append(case("errs20_action_parameters_named_alike", CAT, program("""
        t.apply();""", ingress_decls="""
    action a1(@name("pp") bit<8> v, @name("pp") bit<8> w) { hdr.h.b = v; hdr.h.c = (bit<16>)w; }
    table t { key = { hdr.h.a: exact; } actions = { a1; NoAction; } const entries = { 1: a1(3, 4); 2: a1(5, 6); } }
"""), json_path=True))

# `_` for an out parameter of a function called inside an expression (`x = f(_)`, `if (f(_) == 3)`):
# p4c gives it a temporary; checkmate-p4c refused it ("expression cannot be assigned to"; /work/e20 t6
# dc_fn_out_ret, dc2_fn_ret_out_in_if)
CASES.append(case("errs20_dontcare_out_argument_in_an_expression", CAT, program("""
        hdr.h.b = f(_) + hdr.h.a;
        if (f(_) == 3) { hdr.h.c = 9; }
        bit<8> x = g(_, 5);
        hdr.h.d = (bit<32>)x;""", top="bit<8> f(out bit<8> a) { a = 1; return 3; }\n"
                                     "bit<8> g(out bit<8> a, in bit<8> b) { a = b; return b + 1; }\n"), json_path=True))

# Struct and tuple constructor parameters given constants (`Sub((k_t){ a = 1, b = 2 })`, a struct
# constant, `{ 1, 2 }` for a tuple): p4c specializes the block; checkmate-p4c refused every such
# parameter type ("type k_t is not supported"; /work/e20 t7)
CASES.append(case("errs20_struct_and_tuple_constructor_parameters", CAT, program("""
        s1.apply(hdr.h); s2.apply(hdr.h2); s3.apply(hdr.h);""",
    top="struct k_t { bit<8> a; bit<8> b; }\nconst k_t KK = { 3, 4 };\n"
        "control Sub(inout h_t h)(k_t k) { apply { h.b = k.b; } }\n"
        "control SubT(inout h_t h)(tuple<bit<8>, bit<16>> k) { apply { h.d = (bit<32>)k[1]; } }\n",
    ingress_decls="    Sub((k_t){ a = 1, b = 2 }) s1;\n    Sub(KK) s2;\n    SubT({ 5, 6 }) s3;\n"), json_path=True))

_SUB = "control Sub(inout h_t h)(bit<8> k) { apply { %s } }\n"
_TD = "typedef bit<8> D8;\nenum D8 Sx { A = 1, B = 2 }\n"

INVALID = {
    # constructor parameters with a direction: p4c's validation, used or not (pa a_c_ctrl_ctor_direction, t1)
    "errs20_control_constructor_parameter_with_direction": (
        program("        hdr.h.b = 1;\n", top="control Sub(inout h_t h)(in bit<8> k) { apply { } }\n"),
        ("Constructor parameters cannot have a direction",)),
    "errs20_parser_constructor_parameter_with_direction": (
        program("        hdr.h.b = 1;\n", top="parser SubP(packet_in pkt, out h_t h)(inout bit<8> k) "
                                             "{ state start { transition accept; } }\n"),
        ("Constructor parameters cannot have a direction",)),
    "errs20_package_parameter_with_direction": (
        program("        hdr.h.b = 1;\n", top="control Qt(inout h_t h);\npackage Pk(in Qt q);\n"),
        ("Constructor parameters cannot have a direction",)),
    "errs20_extern_constructor_parameter_with_direction": (
        program("        hdr.h.b = 1;\n", top="extern Ex { Ex(in bit<8> a); }\n"),
        ("Constructor parameters cannot have a direction",)),
    # a local of the apply block or of an action named like a constructor parameter (t1 shadow_ctor_*)
    "errs20_local_shadows_constructor_parameter": (
        program("        hdr.h.b = 1;\n", top=_SUB % "bit<8> k = 3; h.b = k;"), ("shadows a parameter",)),
    "errs20_action_local_shadows_constructor_parameter": (
        program("        s.apply(hdr.h);\n", top="control Sub(inout h_t h)(bit<8> k) { action x() { bit<8> k = 2; "
                "h.b = k; } apply { x(); } }\n", ingress_decls="    Sub(1) s;\n"), ("shadows a parameter",)),
    # a function calling itself: its name is not visible in its body; a generic one sent the
    # elaborator into endless recursion (RecursionError; pa a_f_generic_recursive, t1)
    "errs20_generic_function_calls_itself": (
        program("        hdr.h.b = f(hdr.h.a);\n", top="T f<T>(in T a) { return f(a); }\n"), ("declaration not found",)),
    "errs20_unused_generic_function_calls_itself": (
        program("        hdr.h.b = 1;\n", top="T f<T>(in T a) { return f<T>(a); }\n"), ("declaration not found",)),
    # `type` of an enum (pc c_sh_type_of_serenum, t3)
    "errs20_type_of_a_serializable_enum": (
        program("        hdr.h.b = 1;\n", top="enum bit<8> Sx { A = 1 }\ntype Sx B_t;\n"), ("can only be applied to base types",)),
    "errs20_type_of_a_plain_enum": (
        program("        hdr.h.b = 1;\n", top="enum Pe { X }\ntype Pe B_t;\n"), ("can only be applied to base types",)),
    # a serializable enum declared over a typedef in what the P4Info names: p4c's P4Runtime
    # serializer dies ("Compiler Bug: Type_Name is not a canonical type"; pc c_sh_serenum_key_typedef, t3)
    "errs20_enum_over_typedef_as_a_table_key": (
        program("        meta.se = (Sx)hdr.h.a;\n        t.apply();\n", headers=_TD, meta="    Sx se;\n",
                ingress_decls="    action x() { hdr.h.b = 1; }\n    table t { key = { meta.se: exact; } actions = { x; } }\n"),
        ("Compiler Bug",)),
    "errs20_enum_over_typedef_as_an_action_parameter": (
        program("        t.apply();\n", headers=_TD, meta="    Sx se;\n",
                ingress_decls="    action x(Sx v) { hdr.h.b = (bit<8>)v; }\n    table t { key = { hdr.h.a: exact; } "
                              "actions = { x; } default_action = x(Sx.B); }\n"),
        ("Compiler Bug",)),
    # a `_` beside an argument that names a run-time value, in a live call of a program's function
    # or action: p4c 1.2.4.8's alias analysis dies ("Compiler Bug: alias.h:232: Null result"; t6)
    "errs20_dontcare_beside_a_field_argument": (
        program("        f(_, hdr.h.a);\n", top="void f(out bit<8> a, in bit<8> b) { a = b; }\n"), ("Compiler Bug",)),
    "errs20_dontcare_beside_a_field_argument_of_an_action": (
        program("        x(hdr.h.b, _);\n", ingress_decls="    action x(out bit<8> v, out bit<8> w) { v = 1; w = 2; }\n"),
        ("Compiler Bug",)),
    # two field reads of a struct constructor argument: p4c 1.2.4.8's def-use pass dies ("Compiler
    # Bug: ... write set already set"; one read, or a copy of the whole struct, compiles; t8)
    "errs20_struct_constructor_argument_read_twice": (
        program("        s.apply(hdr.h);\n", top="struct k_t { bit<8> a; bit<8> b; }\n"
                "control Sub(inout h_t h)(k_t k) { apply { h.b = k.b; h.a = k.a; } }\n",
                ingress_decls="    Sub((k_t){ a = 1, b = 2 }) s;\n"), ("Compiler Bug",)),
    # a program's own generic extern instantiated without type arguments: p4c infers T from the
    # constructor that fits and its back end refuses the instance at the declaration ("Ex: unknown
    # extern instance"); checkmate-p4c refused the missing type argument at the instance (t2, t5)
    "errs20_own_generic_extern_type_inferred_from_the_constructor": (
        program("        hdr.h.b = 1;\n", top="extern Ex<T> { Ex(T init); T get(); }\n", ingress_decls="    Ex(8w1) e;\n"),
        ("unknown extern instance",)),
    "errs20_own_generic_extern_type_inferred_from_one_of_two_constructors": (
        program("        hdr.h.b = 1;\n", top="extern Ex<T> { Ex(T init); Ex(T init, bit<8> k); }\n",
                ingress_decls="    Ex(8w1, 2) e;\n"),
        ("unknown extern instance",)),
}
