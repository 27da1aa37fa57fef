"""Constructs p4c 1.2.4.8 accepts that checkmate-p4c refused, left open by the earlier fuzz
rounds and taken up by helper open6 (issue #15): a compile-time bool cast to a bit or int
type of any width (p4c folds it to 1 or 0; a run-time bool still casts to bit<1> only)."""
from .base import VALUES, case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # (int<8>)true, (bit<8>)K with K a bool constant, !K, false - 1 in int<8>, a folded && :
    # each is a constant of the cast's type
    case("open6_constant_bool_cast_any_width", CAT, program(
        "        hdr.h.a = (bit<8>)K + (bit<8>)(!K) + (bit<8>)((int<8>)true);\n"
        "        hdr.h.b = (bit<8>)((int<8>)false - 1);\n"
        "        hdr.h.c = (bit<16>)(true && K) + (bit<16>)(bit<1>)(int<1>)true;\n",
        top="const bool K = true;\n"), frames=VALUES),
]
