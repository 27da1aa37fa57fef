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
from .base import case, program, start_state

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

INVALID = {
}
