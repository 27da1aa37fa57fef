"""Constructs p4c 1.2.4.8 accepts that checkmate-p4c refused, found by mutating valid programs
(tools/p4c_mutate.py and mutz's hand probes of the same kinds, issue #15): a shift by a signed
compile-time constant that is not negative; functions overloaded by their number of parameters; ``hash<O, T, D, M>`` whose type argument D
gives the widths of untyped literals in the data list; a header field declared ``bool`` compared
with a bool.  (``lookahead<bool>()`` is accepted too, but
simple_switch cannot load p4c's JSON for it -- "Invalid 'type' in expression: 'lookahead'" --
so it is a compile-only case in tests/p4c/test_mutants.py.)"""
from .base import H, VALUES, case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # 8s3 / 8s1 as shift amounts: p4c takes a signed constant >= 0 (an amount of at most 8 bits)
    case("mutz_signed_constant_shift", CAT, program(
        "        hdr.h.a = hdr.h.a << 8s3;\n        hdr.h.d = hdr.h.d >> 8s1;\n        hdr.h.c = hdr.h.c << 4s7;\n"),
        frames=VALUES + [(1, H(0x80, 1, 0x1234, 0x80000001))]),
    # two functions named f, told apart by their number of arguments (p4c resolves each call)
    case("mutz_function_overload_by_arity", CAT, program(
        "        hdr.h.a = f(hdr.h.a) + f(hdr.h.b, 8w3);\n        hdr.h.c = g(hdr.h.c);\n",
        top="bit<8> f(in bit<8> y) { return y ^ 8w0x0f; }\n"
            "bit<8> f(in bit<8> y, in bit<8> z) { return y + z; }\n"
            "bit<16> g(in bit<16> v) { return v + 1; }\n")),
    # D = hd_t types the list { 5, hdr.h.c }: the literal 5 is a bit<8>
    case("mutz_hash_typed_data_literals", CAT, program(
        "        bit<16> r;\n        hash<bit<16>, bit<8>, hd_t, bit<16>>(r, HashAlgorithm.crc16, 8w0, { 5, hdr.h.c }, 16w1024);\n"
        "        hdr.h.c = r;\n", top="struct hd_t { bit<8> a; bit<16> b; }\n")),
    # a bool header field (held in one bit) compared with true / false, on either side
    case("mutz_bool_header_field_compared", CAT, program(
        "        hdr.b.setValid();\n        hdr.b.f = hdr.h.a == 1;\n        hdr.b.p = 0;\n"
        "        if (hdr.b.f == true) { hdr.h.b = 0x11; }\n        if (false != hdr.b.f) { hdr.h.c = 0x22; }\n",
        headers="header bh_t { bool f; bit<7> p; }\n", fields="    bh_t b;\n")),
]
