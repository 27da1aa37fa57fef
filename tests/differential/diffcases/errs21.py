"""Programs found by helper errs21 (issue #15): an eighth sweep of probe programs of our own (kept in
/work/e21, outside the repository: constants and width inference, saturating operators, slices of
constants, struct/header/tuple comparisons, table properties and const entries, annotations,
`@controller_header`, `@p4runtime_translation`, direct counters and meters, header unions in
parsers and stacks, `switch` on action_run and on expressions, exit/return placement, `verify`,
value sets and lookahead, user extern overloads, v1model extern arguments, checksums, `#include`
forms, shadowing, nested structs/tuples in headers and keys), each decided by real p4c 1.2.4.8 and,
for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused or ran differently.  ``INVALID`` (read by
tests/differential/test_invalid.py): name -> (program, words the message must contain (any of)) --
programs p4c rejects that checkmate-p4c accepted (or crashed on).  Positions: tests/p4c/test_error_lines.py.
"""
from .base import case, H, program, start_state, VALUES

CAT = "front end (p4c-compatible)"

CASES = []

# A slice of a compile-time constant past its width (`K[16:9]` of a `const bit<16> K`,
# `16w0x1234[20:9]`, `(K + 1)[16:9]`): p4c folds it before checking the bounds (the bits above the
# width are zero); checkmate-p4c refused "slice [16:9] out of range" (/work/e21 pa
# a_c_const_slice_out_of_range; a run-time value's slice stays p4c's error)
CASES.append(case("errs21_slice_of_a_constant_past_its_width", CAT, program("""
        hdr.h.b = K[16:9];
        hdr.h.c = (bit<16>)16w0x1234[20:9];
        hdr.h.d = (bit<32>)(K + 1)[19:1];""", top="const bit<16> K = 0x1234;\n"), json_path=True))

# A tuple lookahead into a local of the state that nothing reads, and one whose value is dropped
# (`pkt.lookahead<tuple<bit<8>, bit<8>>>();`): p4c removes the local and keeps a 16-bit lookahead
# (PacketTooShort on a short packet); checkmate-p4c refused both ("lookahead of type list";
# errs20's open item /work/e20 pd d_u_lookahead_tuple, /work/e21 pc c_v_lookahead_tuple_*)
CASES.append(case("errs21_tuple_lookahead_nobody_reads", CAT, program(
    "        hdr.h.b = 1;\n", parser=start_state() + """
    state parse_h {
        tuple<bit<8>, bit<8>> la = pkt.lookahead<tuple<bit<8>, bit<8>>>();
        pkt.extract(hdr.h);
        pkt.lookahead<tuple<bit<8>, bit<32>>>();
        transition accept;
    }"""), json_path=True))

# A `string` constructor parameter of a control (given a string literal, read by `log_msg(k)`):
# p4c compiles it; checkmate-p4c refused the type (errs20's open item /work/e20 t7 string_ctor)
CASES.append(case("errs21_string_constructor_parameter", CAT, program("""
        s.apply(hdr.h);""", top="control Sub(inout h_t h)(string k) { apply { log_msg(k); h.b = 7; } }\n",
    ingress_decls="    Sub(\"sub says hi\") s;\n"), json_path=True))

# More tuple lookaheads nobody reads: one assigned to a local of the state declared without a value,
# one overwritten (`la = { 1, 2 };`: stores only), tuples holding a struct and a header, and a plain
# enum's dropped lookahead (32 bits in p4c's JSON); checkmate-p4c refused each ("lookahead of type
# list"; /work/e21 pe2 e_la_tuple_decl_no_init_then_assign, e_la_tuple_written_not_read,
# e_la_tuple_of_struct, e_la_tuple_of_header, pf f_se_lookahead_plain_enum)
CASES.append(case("errs21_tuple_lookahead_assigned_not_read", CAT, program(
    "        hdr.h.b = 1;\n", top="struct ls_t { bit<8> p; bit<8> q; }\nenum Pe { A, B }\n", parser=start_state() + """
    state parse_h {
        tuple<bit<8>, bit<8>> la;
        la = pkt.lookahead<tuple<bit<8>, bit<8>>>();
        tuple<bit<16>, bit<8>> lb = pkt.lookahead<tuple<bit<16>, bit<8>>>();
        lb = { 1, 2 };
        tuple<ls_t, bit<8>> lc = pkt.lookahead<tuple<ls_t, bit<8>>>();
        pkt.extract(hdr.h);
        tuple<h_t> ld = pkt.lookahead<tuple<h_t>>();
        Pe e = pkt.lookahead<Pe>();
        pkt.lookahead<Pe>();
        transition accept;
    }"""), json_path=True))

# A `return` in a checksum control that no condition guards: p4c removes it and what follows it
# (`apply { return; update_checksum(..); }` updates nothing); checkmate-p4c refused it ("return: only
# calls to update_checksum ... are allowed"; /work/e21 pc c_x_return_in_compute, pf f_rc_*)
CASES.append(case("errs21_return_in_checksum_controls", CAT, program(
    "        hdr.h.b = hdr.h.b + 1;\n",
    verify="apply { verify_checksum(hdr.h.isValid(), { hdr.h.a }, hdr.h.c, HashAlgorithm.csum16); return; }",
    compute="apply { { return; } update_checksum(hdr.h.isValid(), { hdr.h.b }, hdr.h.c, HashAlgorithm.csum16); }"),
    json_path=True))

# A lookahead of a serializable enum (its underlying bits), selected on and read: p4c compiles it;
# checkmate-p4c refused "lookahead of type Sy" (/work/e21 pc c_v_lookahead_serenum, pf f_se_*)
CASES.append(case("errs21_serializable_enum_lookahead", CAT, program(
    "        hdr.h.b = meta.m8;\n        hdr.h.c = meta.m16;\n",
    top="enum bit<8> Sy { A = 1, B = 0xee }\nenum bit<16> Sz { A = 1 }\n", parser=start_state() + """
    state parse_h {
        Sy b = pkt.lookahead<Sy>();
        meta.m16 = (bit<16>)pkt.lookahead<Sz>();
        pkt.extract(hdr.h);
        transition select(b) { Sy.B: parse_h2; default: accept; }
    }
    state parse_h2 {
        meta.m8 = (bit<8>)pkt.lookahead<Sy>();
        pkt.extract(hdr.h2);
        transition accept;
    }"""), json_path=True))

# A string constructor parameter handed on to an inner control's (`Sub2(k) s2;` inside Sub): p4c
# compiles it; checkmate-p4c refused "expected string, got k" (/work/e21 pe2 e_str_ctor_passed_on)
CASES.append(case("errs21_string_constructor_parameter_passed_on", CAT, program("""
        s.apply(hdr.h);""", top="control Sub2(inout h_t h)(string k) { apply { log_msg(k); h.c = 3; } }\n"
                               "control Sub(inout h_t h)(string k) { Sub2(k) s2; apply { s2.apply(h); } }\n",
    ingress_decls="    Sub(\"passed on\") s;\n"), json_path=True))

# A digest of a struct expression (`digest<dg_t>(1, { y = .., x = .. })`): p4c types it as dg_t;
# checkmate-p4c refused "digest data has type sinit" (/work/e21 pd d_v1_digest_struct_expr_named, pf f_dg_*)
CASES.append(case("errs21_digest_of_a_struct_expression", CAT, program("""
        digest<dg_t>(1, { y = hdr.h.c, x = hdr.h.a });
        hdr.h.b = 5;""", top="struct dg_t { bit<8> x; bit<16> y; }\n"), json_path=True))

# A plain enum's lookahead that is read: p4c's BMv2 back end makes the enum bit<32> (members 0, 1,
# ..), so the next 32 bits compare with the members' numbers; checkmate-p4c refused "lookahead of
# type Pe" (/work/e21 pf f_se_lookahead_plain_enum, read)
CASES.append(case("errs21_plain_enum_lookahead_read", CAT, program(
    "        hdr.h.b = meta.m8;\n", top="enum Pe { A, B, C }\n", parser=start_state() + """
    state parse_h {
        Pe e = pkt.lookahead<Pe>();
        pkt.extract(hdr.h);
        meta.m8 = e == Pe.A ? 8w1 : (e == Pe.B ? 8w2 : 8w3);
        transition select(e == Pe.C) { true: reject; default: accept; }
    }"""), frames=VALUES + [(1, H(0, 0, 0)), (2, H(0, 0, 1)), (3, H(0, 0, 2)), (1, H(0, 1, 0))], json_path=True))

INVALID = {
    # locals of two parser states with one name, both read: p4c 1.2.4.8 moves them to the parser and
    # finds a duplicate ("x: Duplicates declaration x"); checkmate-p4c compiled it (one unread is
    # removed first and compiles; pe2 e_la_tuple_shadowed_name_read_elsewhere)
    "errs21_live_state_locals_named_alike": (
        program("        hdr.h.b = meta.m8;\n", parser=start_state() + """
    state parse_h {
        bit<8> x = 1;
        meta.m16 = (bit<16>)x;
        pkt.extract(hdr.h);
        transition parse_h2;
    }
    state parse_h2 {
        bit<8> x = 2;
        meta.m8 = x;
        transition accept;
    }"""), ("Duplicates declaration",)),
    # a tuple lookahead into a local of another tuple type: p4c's type error at the local (the
    # errs21 tuple-lookahead change took the type argument's type for the local's; pe2 e_la_tuple_typed_mismatch)
    "errs21_tuple_lookahead_into_a_local_of_another_type": (
        program("        hdr.h.b = 1;\n", parser=start_state() + """
    state parse_h {
        tuple<bit<8>, bit<16>> la = pkt.lookahead<tuple<bit<8>, bit<8>>>();
        pkt.extract(hdr.h);
        transition accept;
    }"""), ("type mismatch",)),
    # isValid() of a constant header: p4c 1.2.4.8 dies ("Compiler Bug: ... typechecking should not
    # infer new types anymore"); checkmate-p4c compiled it (/work/e21 pa a_c_const_header_isvalid)
    "errs21_isvalid_of_a_constant_header": (
        program("        hdr.h.b = K.isValid() ? 8w1 : 8w2;\n", top="const h_t K = { 1, 2, 3, 4 };\n"),
        ("Compiler Bug",)),
    # a transition to a state named like a local of the state: p4c takes the local and dies ("Compiler
    # Bug: unexpected select expression"); checkmate-p4c went to the state (pf f_sl_same_name_as_state)
    "errs21_transition_to_a_state_a_local_shadows": (
        program("        hdr.h.b = 1;\n", parser=start_state() + """
    state parse_h {
        bit<8> parse_h2 = 1;
        pkt.extract(hdr.h);
        transition parse_h2;
    }
    state parse_h2 { transition accept; }"""), ("Compiler Bug",)),
}
