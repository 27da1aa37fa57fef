"""Helper mutz39 (issue #15): a parser `if` splits its state for p4c 1.2.4.8 (a `select` on the
condition, then states of their own), and its mid-end copy propagation starts each state afresh,
so a constant stored before the `if` is no constant after it: a division by a non-power of two of
it is p4c's error ("could not evaluate expression at compilation time"; fuzz_mutants --kinds
mux_expr seed 656, the `if` with a `?:` condition -- a plain condition does the same).  Before and
inside no `if`, the constant folds (VALID)."""
from __future__ import annotations

from test_mutants import mutant_table_tests

_PROG = """#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header h_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }
struct headers_t { ethernet_t eth; h_t h; h_t[2] s; }
struct meta_t { bit<8> m8; bit<16> m16; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        %s
        meta.m8 = hdr.s[0].a / 3;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.eth.etype = (bit<16>)meta.m8; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
_DIV = r".*(divisor|compilation time)"

CASES = {
    f"parser_division_of_a_constant_stored_before_an_if_{name}": (
        _PROG % stmt, "hdr.s[0].a / 3", _DIV, _PROG % "")
    for name, stmt in [
        ("with_a_conditional_expression_condition", "if ((hdr.eth.dst[7:0] == 0) ? (hdr.eth.src[7:0] != 2) : false) { hdr.s[0].c = 1; }"),
        ("plain", "if (hdr.eth.dst[7:0] == 0) { hdr.s[0].c = 1; }"),
        ("storing_a_conditional_expression", "hdr.s[0].c = (hdr.eth.dst[7:0] == 0) ? 16w1 : 16w2;")]
}
VALID = {
    "parser_division_of_a_constant_stored_before_it": _PROG % "",
    "parser_division_of_a_constant_stored_before_a_folded_if": _PROG % "if (true) { hdr.s[0].c = 1; }",
}

test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
