"""Programs found by helper errs23 (issue #15): a tenth sweep of probe programs of our own (kept in
/work/errs23, outside the repository: default parameter values and named arguments, `@optional`,
v1model externs with odd types (registers, counters, meters, random, hash, checksums, digests,
clone/resubmit/recirculate and field lists), `match_kind`/`enum`/`error` declarations, header
unions, varbit operations, `int` at run time, `type` in keys and `@p4runtime_translation`,
`@name`/`@id`/`@hidden` in the P4Info, action selectors and table properties of the wrong kinds,
priorities, `exit`/`return` placement, shadowing, generics), each decided by real p4c 1.2.4.8
and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused.  ``INVALID`` (read by
tests/differential/test_invalid.py): programs p4c rejects that checkmate-p4c accepted.  Positions
and P4Info refusals: tests/p4c/test_errs23.py; the load refusal: tests/p4c/test_load_refused2.py.
"""
from .base import case, program, varbit_program

CAT = "front end (p4c-compatible)"

CASES = []

# A control whose constructor parameters all have default values, applied directly
# (`C.apply(hdr.h)` for `control C(inout h_t h)(bit<8> k = 8w3)`): p4c instantiates it with the
# defaults; checkmate-p4c refused "control C has constructor parameters" (/work/errs23 a_ctor_inline_default)
CASES.append(case("errs23_control_with_default_constructor_arguments_applied_directly", CAT, program(
    "        C.apply(hdr.h);\n        D2.apply(hdr.h);\n",
    top="control C(inout h_t h)(bit<8> k = 8w3) { apply { h.b = h.b + k; } }\n"
        "control D2(inout h_t h)(bit<16> j = 16w0x101, bool z = true) { apply { if (z) { h.c = h.c ^ j; } } }\n")))

# clone(ct, 5) with `CloneType ct = CloneType.I2E;` a local of the apply block: p4c's constant
# propagation gives clone its type; checkmate-p4c refused "expected a CloneType member" (b_clone_type_nonconst)
CASES.append(case("errs23_clone_type_from_a_local", CAT, program(
    "        CloneType ct = CloneType.I2E;\n        if (hdr.h.a == 9) { clone(ct, 32w5); }\n        hdr.h.b = 7;\n")))

# register<PE> of a plain enum: p4c's cells are 32 bits holding the member's number, its P4Info
# type_spec the enum; checkmate-p4c refused "register values must be bit<N>/int<N> or a
# serializable enum" (b_reg_type_8_rw)
CASES.append(case("errs23_register_of_a_plain_enum", CAT, program(
    "        PE w = hdr.h.a == 1 ? PE.B : (hdr.h.a == 0 ? PE.C : PE.A);\n"
    "        r.write((bit<32>)hdr.h.b & 3, w);\n"
    "        PE v; r.read(v, (bit<32>)hdr.h.b & 3);\n"
    "        if (v == PE.B) { hdr.h.c = 2; } else if (v == PE.C) { hdr.h.c = 3; } else { hdr.h.c = 1; }\n",
    top="enum PE { A, B, C }\n", ingress_decls="    register<PE>(4) r;\n")))

# random() of a serializable enum between two members: p4c's modify_field_rng_uniform of the
# enum's bits; checkmate-p4c refused "random result must be bit<N> or bool" (b_rand_enum)
CASES.append(case("errs23_random_of_a_serializable_enum", CAT, program(
    "        E8 e; random(e, E8.Y, E8.Y);\n        hdr.h.b = (bit<8>)e;\n",
    top="enum bit<8> E8 { X = 1, Y = 2 }\n")))

# ... and of a plain enum (32-bit: the members' numbers; g_rand_plain_enum)
CASES.append(case("errs23_random_of_a_plain_enum", CAT, program(
    "        PE p; random(p, PE.C, PE.C);\n        if (p == PE.C) { hdr.h.b = 3; } else { hdr.h.b = 9; }\n",
    top="enum PE { A, B, C }\n")))

# `@name("NoAction") action a()` listed beside core.p4's NoAction: p4c names the first I.NoAction
# and keeps NoAction's own name (it localizes every top-level action but NoAction), the JSON
# loads; checkmate-p4c refused "both named I.NoAction" (d_name_action_same_as_noaction)
CASES.append(case("errs23_action_named_noaction_beside_noaction", CAT, program(
    "        t.apply();\n",
    ingress_decls='    @name("NoAction") action a() { }\n'
                  "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = a(); }\n")))

# `x.v = c ? y.v : x.v` of varbit header fields: p4c writes an if/else of two assign_VL copies
# (a ?: of one field twice folds to nothing); checkmate-p4c refused "varbit values can only be
# copied from one header field to another" (c_vb_ternary)
_VB_FRAMES = [(1, bytes.fromhex("000000000002000000000001") + b"\x12\x34" + bytes([n]) + bytes(range(1, 9)) + b"\x77")
              for n in (0, 8, 16, 24)]
CASES.append(case("errs23_varbit_choice", CAT, varbit_program(
    "    apply {\n        sm.egress_spec = 1;\n"
    "        hdr.x.v = hdr.len.n == 8 ? hdr.y.v : (hdr.len.n == 16 ? hdr.x.v : hdr.y.v);\n"
    "        hdr.y.v = hdr.len.n == 0 ? hdr.y.v : hdr.y.v;\n    }"), frames=_VB_FRAMES))

# a generic function of a tuple of its type parameter given a list (`first({ a, c })` for
# `T first<T>(in tuple<T, T> x)`): p4c infers T from the list's elements; checkmate-p4c refused
# "cannot infer type argument T" (e_gen_fn_tuple_T)
CASES.append(case("errs23_generic_function_of_a_tuple_of_t", CAT, program(
    "        hdr.h.b = first({ hdr.h.a, hdr.h.b });\n        hdr.h.c = first({ hdr.h.c, 16w7 }) + 1;\n",
    top="T first<T>(in tuple<T, T> x) { return x[1]; }\n")))

# a control's @optional `out` and `inout` apply parameters left out: p4c passes a temporary (an
# uninitialized scalar, 0 on BMv2); checkmate-p4c refused "no argument for parameter k" (f_ctl_opt_out, _inout)
CASES.append(case("errs23_control_optional_out_and_inout_left_out", CAT, program(
    "        c.apply(hdr.h);\n        c.apply(hdr.h, meta.m8);\n        hdr.h.d = (bit<32>)meta.m8;\n",
    top="control C(inout h_t h, @optional inout bit<8> k, @optional out bit<8> o) {\n"
        "    apply { h.b = h.b + k; k = k + 5; o = h.a; }\n}\n", ingress_decls="    C() c;\n")))

INVALID = {
    # a parser's @optional apply parameter left out: p4c 1.2.4.8 dies without a message (exit 245; f_sp_opt_omitted)
    "errs23_parser_apply_leaving_out_an_optional_argument": (
        program("", top="parser SP(packet_in p, inout bit<8> v, @optional in bit<8> k) { state start { v = k; transition accept; } }\n",
                parser="    SP() sp;\n    state start { pkt.extract(hdr.eth); sp.apply(pkt, meta.m8); transition accept; }"),
        ("optional",)),
    # named arguments of digest: p4c 1.2.4.8 dies in its front end ("Compiler Bug: Two parameters
    # with the same name receiver in a substitution"; a_v1_digest_named, b_dg_named_*)
    "errs23_digest_with_named_arguments": (
        program("        digest(receiver = 1, data = { hdr.h.a });\n"), ("Compiler Bug",)),
    # a function returning int, its value used: "tmp: Cannot declare variables with type int" (c_int_function_ret)
    "errs23_int_function_value": (
        program("        hdr.h.b = (bit<8>)g();\n", top="int g() { return 3; }\n"), ("type int",)),
    # a dropped lookahead of a header with a varbit field (c_vb_lookahead)
    "errs23_dropped_lookahead_of_a_varbit_header": (
        program("", headers="header vb3_t { bit<8> l; varbit<16> a; }\n",
                parser="    state start { pkt.extract(hdr.eth); pkt.lookahead<vb3_t>(); transition accept; }"),
        ("fixed-width",)),
    # an untyped integer for an action parameter of a `type` (d_tr_default_arg_untyped)
    "errs23_untyped_integer_for_a_type_action_parameter": (
        program("        t.apply();\n", top="type bit<9> P_t;\n",
                ingress_decls="    action ap(P_t v) { sm.egress_spec = (bit<9>)v; }\n"
                              "    table t { key = { hdr.h.a: exact; } actions = { ap; } default_action = ap(3); }\n"),
        ("Cannot unify",)),
}
