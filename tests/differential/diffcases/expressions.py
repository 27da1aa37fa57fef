"""Expressions: arithmetic, bit operations, shifts, slices, concatenation, casts, saturating
operators, signed values, conditional operator.  Each case writes its results into ``h``."""
from .base import case, program

CAT = "expressions"

# (name, statements) -- every statement writes a field of hdr.h from the input fields.
EXPRS = [
    ("add", "hdr.h.a = hdr.h.a + hdr.h.b; hdr.h.c = hdr.h.c + 16w0xffff;"),
    ("sub", "hdr.h.a = hdr.h.b - hdr.h.a; hdr.h.d = 32w0 - hdr.h.d;"),
    ("mul", "hdr.h.a = hdr.h.a * hdr.h.b; hdr.h.c = hdr.h.c * 3;"),
    ("and_or_xor", "hdr.h.a = hdr.h.a & hdr.h.b; hdr.h.b = hdr.h.b | 0x0f; hdr.h.c = hdr.h.c ^ 0xa5a5;"),
    ("not", "hdr.h.a = ~hdr.h.a; hdr.h.d = ~hdr.h.d;"),
    ("neg", "hdr.h.a = -hdr.h.a; hdr.h.c = -hdr.h.c;"),
    ("shl", "hdr.h.a = hdr.h.a << 3; hdr.h.c = hdr.h.c << hdr.h.b[2:0]; hdr.h.d = hdr.h.d << 40;"),
    ("shr", "hdr.h.a = hdr.h.a >> 3; hdr.h.c = hdr.h.c >> hdr.h.b[3:0]; hdr.h.d = hdr.h.d >> 31;"),
    ("shr_signed", "int<8> x = (int<8>)hdr.h.a; x = x >> 2; hdr.h.a = (bit<8>)x; "
                   "int<16> y = (int<16>)hdr.h.c; hdr.h.c = (bit<16>)(y >> hdr.h.b[2:0]);"),
    ("sat_add", "hdr.h.a = hdr.h.a |+| hdr.h.b; hdr.h.c = hdr.h.c |+| 16w0x8000;"),
    ("sat_sub", "hdr.h.a = hdr.h.a |-| hdr.h.b; hdr.h.c = hdr.h.c |-| 16w0x0100;"),
    ("sat_signed", "int<8> x = (int<8>)hdr.h.a; int<8> y = (int<8>)hdr.h.b; hdr.h.a = (bit<8>)(x |+| y); "
                   "hdr.h.b = (bit<8>)(x |-| y);"),
    ("slice_read", "hdr.h.a = hdr.h.d[7:0]; hdr.h.b = hdr.h.d[31:24]; hdr.h.c = hdr.h.d[19:4];"),
    ("slice_write", "hdr.h.d[15:8] = hdr.h.a; hdr.h.c[3:0] = hdr.h.b[7:4]; hdr.h.a[7:7] = 1w1;"),
    ("concat", "hdr.h.c = hdr.h.a ++ hdr.h.b; hdr.h.d = hdr.h.c ++ hdr.h.b ++ hdr.h.a;"),
    ("cast_widen", "hdr.h.d = (bit<32>)hdr.h.a + (bit<32>)hdr.h.c; hdr.h.c = (bit<16>)hdr.h.b;"),
    ("cast_narrow", "hdr.h.a = (bit<8>)hdr.h.d; hdr.h.c = (bit<16>)hdr.h.d;"),
    ("cast_signed_widen", "int<8> x = (int<8>)hdr.h.a; hdr.h.c = (bit<16>)(int<16>)x; "
                          "hdr.h.d = (bit<32>)(int<32>)(int<16>)hdr.h.c;"),
    ("cmp", "hdr.h.a = (hdr.h.a < hdr.h.b) ? 8w1 : 8w2; hdr.h.b = (hdr.h.c >= 0x8000) ? 8w3 : 8w4; "
            "hdr.h.c = (hdr.h.d == 0xdeadbeef) ? 16w5 : 16w6;"),
    ("cmp_signed", "int<8> x = (int<8>)hdr.h.a; int<8> y = (int<8>)hdr.h.b; hdr.h.a = x < y ? 8w1 : 8w0; "
                   "hdr.h.b = x >= 0 ? 8w1 : 8w0;"),
    ("bool_logic", "bool p = hdr.h.a > 3; bool q = hdr.h.b != 0; hdr.h.a = (p && q) ? 8w1 : 8w0; "
                   "hdr.h.b = (p || !q) ? 8w1 : 8w0; hdr.h.c = (p == q) ? 16w1 : 16w0;"),
    ("ternary_nested", "hdr.h.a = hdr.h.a > 0x40 ? (hdr.h.b > 0x40 ? 8w1 : 8w2) : (hdr.h.b > 0x40 ? 8w3 : 8w4);"),
    ("div_mod_const", "hdr.h.a = hdr.h.a / 4; hdr.h.b = hdr.h.b % 8; hdr.h.c = hdr.h.c / 16w16;"),
    ("wrap_intermediate", "hdr.h.a = (hdr.h.a + hdr.h.b) >> 1; hdr.h.c = (hdr.h.c << 4) >> 4;"),
    ("precedence", "hdr.h.a = hdr.h.a + hdr.h.b * 2 & 0xf0 | 3; hdr.h.b = hdr.h.a ^ hdr.h.b << 1;"),
    ("int_literal_ops", "hdr.h.a = 8w255 + 1; hdr.h.b = 8s1 - 2 == -1 ? 8w1 : 8w0; hdr.h.c = 16w1 << 15;"),
    ("bit128", "bit<128> w = (bit<128>)hdr.h.d << 96 | (bit<128>)hdr.h.c; hdr.h.d = w[127:96] ^ w[31:0]; "
               "hdr.h.c = w[111:96];"),
    ("bit1_bool", "bit<1> x = hdr.h.a[0:0]; bool y = (bool)x; hdr.h.b = y ? 8w1 : 8w0; "
                  "hdr.h.a = (bit<8>)(bit<1>)(hdr.h.c > 3);"),
    ("local_struct", "meta.m8 = hdr.h.a; meta.m16 = hdr.h.c; hdr.h.c = meta.m16 + (bit<16>)meta.m8;"),
    ("header_copy", "hdr.h2 = hdr.h; hdr.h2.a = 0x55;"),
    ("header_invalid_read", "hdr.h2.setInvalid(); hdr.h.a = hdr.h2.isValid() ? 8w1 : 8w2;"),
    ("set_valid_zero", "hdr.h2.setValid(); hdr.h2.b = hdr.h.b;"),
    ("struct_init", "meta = {hdr.h.a, hdr.h.c, hdr.h.d}; hdr.h.b = meta.m8 + 1;"),
    ("list_to_header", "hdr.h2 = {1, 2, 3, 4}; hdr.h2.d = hdr.h.d;"),
    ("max_width_arith", "hdr.h.d = hdr.h.d * hdr.h.d; hdr.h.c = hdr.h.c * hdr.h.c;"),
    ("shift_big", "hdr.h.a = hdr.h.a << 8; hdr.h.b = hdr.h.b >> 9; hdr.h.c = hdr.h.c << hdr.h.a;"),
    ("neg_literal", "int<16> x = -5; hdr.h.c = (bit<16>)(x + (int<16>)hdr.h.c);"),
    ("masked_cmp", "hdr.h.a = (hdr.h.d & 0xff00) == 0xbe00 ? 8w9 : 8w8;"),
    # setValid() on an invalid header zeroes it (BMv2's add_header); a read of an invalidated
    # header's field still gives the old value; copying an invalid header copies its validity
    ("revalidated_header_zeroed", "hdr.h.setInvalid(); hdr.h.setValid(); hdr.h.a = hdr.h.a + 1;"),
    ("invalid_field_read", "hdr.h.setInvalid(); hdr.eth.etype = hdr.h.c; hdr.h.b = 7; hdr.h.setValid();"),
    ("invalid_header_copy", "hdr.h.setInvalid(); hdr.h2 = hdr.h; hdr.h2.setValid(); hdr.h.setValid(); "
                            "hdr.h2.a = hdr.h2.isValid() ? 8w1 : 8w0;"),
    ("local_header_valid_cycle", "h_t t; t.setValid(); t.c = hdr.h.c ^ 0x00ff; t.setInvalid(); hdr.h2 = t; "
                                 "hdr.h2.setValid(); hdr.h.a = t.isValid() ? 8w1 : 8w2;"),
    # shifts of wide values by run-time amounts at or past the width give 0 (or the sign)
    ("wide_runtime_shift", "bit<64> w = (bit<64>)hdr.h.d << 32 | (bit<64>)hdr.h.d; bit<128> x = (bit<128>)w << 64 | 1; "
                           "w = w << hdr.h.b; x = x >> hdr.h.a; hdr.h.d = w[63:32] ^ w[31:0]; "
                           "hdr.h.c = x[127:112] ^ x[15:0]; int<64> s = (int<64>)w; s = s >> hdr.h.a; "
                           "hdr.h.a = (bit<8>)s[7:0];"),
]

CASES = [case(f"expr_{n}", CAT, program(f"        {s}\n")) for n, s in EXPRS]
