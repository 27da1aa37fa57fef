"""Found by the lead of session s59 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Probes of two paths lead58 left untested: a local's initialiser that a sub-control's ``out``
argument makes dead (``out_arg_stores``: the initialiser becomes BMv2's fresh 0), and the value a
single-case switch's copy reads reached through a chain of more than one store
(``switch_copies.drop_self_reading_copies``).
"""
from .base import H, case, program
from .fuzz28 import CAT

CASES = []
_FR = [(1, H(a, b, 0x1234, 0x5678)) for a in (3, 200) for b in (0, 1, 5, 7)]
_S2 = """control S(in bit<8> sel, out bit<8> o) {
    apply {
        %s
    }
}
"""
for _name, _body, _pre, _args, _after in [
        ("decl_init", "if (sel == 1) { o = 9; }", "bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_const", "if (sel == 1) { o = 9; }", "bit<8> m = 77;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_read", "if (sel == 1) { o = 9; }", "bit<8> m = hdr.h.a + 1; hdr.h.d = (bit<32>)m;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_if", "if (sel == 1) { o = 9; }", "bit<8> m = hdr.h.a + 1; if (hdr.h.b == 7) { hdr.h.d = 1; }", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_then_assign", "if (sel == 1) { o = 9; }", "bit<8> m = hdr.h.a + 1; m = 33;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("twice_hdr", "if (sel == 1) { o = 9; }", "hdr.h.a = 5; hdr.h.a = 6;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("read_by_dead", "if (sel == 1) { o = 9; }", "meta.m8 = 4; meta.m8 = meta.m8 + 1;", "hdr.h.b, meta.m8", "hdr.h.c = (bit<16>)meta.m8;"),
        ("hdr_read_by_dead", "if (sel == 1) { o = 9; }", "hdr.h.a = hdr.h.a + 3; hdr.h.a = hdr.h.a + 1;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("if_arm_then", "if (sel == 1) { o = 9; }", "if (hdr.h.b == 5) { hdr.h.a = 5; } hdr.h.a = 6;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("if_arm_read", "if (sel == 1) { o = 9; }", "hdr.h.a = 4; if (hdr.h.b == 5) { hdr.h.a = hdr.h.a + 5; }", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("decl_write_all", "o = sel + 2;", "bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ]:
    CASES.append(case(f"lead59_out_arg_{_name}", CAT,
                      program(f"        {_pre}\n        s.apply({_args});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_S2 % _body), frames=_FR))
for _name, _pre, _case in [
        ("chain_local", "bit<8> t = hdr.h.b + 1; meta.m8 = t;", "hdr.h.b = meta.m8 + 5;"),
        ("chain_meta", "meta.m16 = (bit<16>)hdr.h.b; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b = meta.m8 + 5;"),
        ("chain_three", "meta.m32 = (bit<32>)hdr.h.b; meta.m16 = (bit<16>)meta.m32; meta.m8 = (bit<8>)meta.m16 + 1;", "hdr.h.b = meta.m8 + 5;"),
        ("chain_broken", "meta.m16 = (bit<16>)hdr.h.b; meta.m8 = (bit<8>)meta.m16; meta.m16 = 3;", "hdr.h.b = meta.m8 + 5;"),
        ("chain_if", "meta.m16 = (bit<16>)hdr.h.b; if (hdr.h.a == 3) { meta.m8 = (bit<8>)meta.m16; } else { meta.m8 = 2; }", "hdr.h.b = meta.m8 + 5;"),
        ("chain_block", "meta.m16 = (bit<16>)hdr.h.b; { meta.m8 = (bit<8>)meta.m16; }", "hdr.h.b = meta.m8 + 5;"),
        ]:
    CASES.append(case(f"lead59_switch_copy_{_name}", CAT, program(
        f"        {_pre}\n        switch (hdr.h.a) {{ 3: {{ {_case} }} }}\n"
        "        hdr.h.c = (bit<16>)hdr.h.b;\n        hdr.h.b = 0;\n        hdr.h.d = (bit<32>)hdr.h.c;\n"), frames=_FR))
_T = """control T(in bit<8> x, out bit<8> y) {
    apply {
        %s
    }
}
"""
for _name, _body, _pre in [
        ("sub_direct", "y = x + 1;", ""),
        ("sub_local", "bit<8> q = x; y = q + 1;", ""),
        ("sub_local2", "bit<8> q = x + 1; bit<8> r = q; y = r;", ""),
        ("sub_if", "if (x == 9) { y = 1; } else { y = x + 1; }", ""),
        ("sub_block", "{ y = x + 1; }", ""),
        ("sub_then_meta", "y = x + 1;", "meta.m16 = 7;"),
        ]:
    CASES.append(case(f"lead59_switch_copy_{_name}", CAT, program(
        f"        t.apply(hdr.h.b, meta.m8);\n        {_pre}\n        switch (hdr.h.a) {{ 3: {{ hdr.h.b = meta.m8 + 5; }} }}\n"
        "        hdr.h.c = (bit<16>)hdr.h.b;\n        hdr.h.b = 0;\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        ingress_decls="    T() t;\n", top=_T % _body), frames=_FR))
_S3 = """control S(in bit<8> sel, in bit<8> i, out bit<8> o) {
    apply {
        switch (sel) { 1: { o = i + 1; } }
    }
}
"""
for _name, _pre, _args in [
        ("chain_in_arg", "meta.m16 = (bit<16>)hdr.h.a; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_local", "bit<8> t = hdr.h.a; meta.m8 = t;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_ovl", "meta.m16 = (bit<16>)hdr.h.a; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, meta.m8"),
        ("chain_in_arg_three", "meta.m32 = (bit<32>)hdr.h.a; meta.m16 = (bit<16>)meta.m32; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_block", "meta.m16 = (bit<16>)hdr.h.a; { meta.m8 = (bit<8>)meta.m16; }", "hdr.h.b, meta.m8, hdr.h.a"),
        ]:
    CASES.append(case(f"lead59_sub_copy_{_name}", CAT, program(
        f"        {_pre}\n        s.apply({_args});\n        hdr.h.c = (bit<16>)hdr.h.a;\n        hdr.h.d = (bit<32>)meta.m8;\n",
        ingress_decls="    S() s;\n", top=_S3), frames=_FR))
_T2 = """control T(in bit<8> x, inout bit<8> z, out bit<8> y) {
    apply {
        %s
    }
}
"""
for _name, _body, _args in [
        ("inout_local", "bit<8> q = x; z = q + z; y = z;", "hdr.h.b, meta.m8, meta.m8"),
        ("inout_chain", "bit<8> q = x; bit<8> r = q + 1; y = r;", "hdr.h.b, hdr.h.a, meta.m8"),
        ("expr_arg", "bit<8> q = x; y = q;", "hdr.h.b + 1, hdr.h.a, meta.m8"),
        ("twice", "bit<8> q = x; y = q + 1;", "hdr.h.b, hdr.h.a, meta.m8); t.apply(hdr.h.b, hdr.h.a, meta.m8"),
        ("local_reassigned", "bit<8> q = x; q = q + 2; y = q;", "hdr.h.b, hdr.h.a, meta.m8"),
        ("local_if", "bit<8> q = x; if (x == 5) { q = 1; } y = q;", "hdr.h.b, hdr.h.a, meta.m8"),
        ]:
    CASES.append(case(f"lead59_switch_copy_t2_{_name}", CAT, program(
        f"        meta.m8 = 9;\n        t.apply({_args});\n        switch (hdr.h.a) {{ 3: {{ hdr.h.b = meta.m8 + 5; }} }}\n"
        "        hdr.h.c = (bit<16>)hdr.h.b;\n        hdr.h.b = 0;\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        ingress_decls="    T() t;\n", top=_T2 % _body), frames=_FR))
for _name, _body, _pre, _args, _after in [
        ("nested_block", "if (sel == 1) { o = 9; }", "{ bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m; }"),
        ("in_if", "if (sel == 1) { o = 9; }", "if (hdr.h.a == 3) { hdr.h.a = 4;", "hdr.h.b, hdr.h.a", "} hdr.h.c = (bit<16>)hdr.h.a;"),
        ("switch_arm", "if (sel == 1) { o = 9; }", "switch (hdr.h.b) { 5: { hdr.h.a = 4; } 7: { hdr.h.a = 6; } }", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("slice_store", "if (sel == 1) { o = 9; }", "meta.m16[7:0] = hdr.h.a + 1;", "hdr.h.b, meta.m16[7:0]", "hdr.h.c = meta.m16;"),
        ("wide_store", "if (sel == 1) { o = 9; }", "meta.m16 = 0x1234;", "hdr.h.b, meta.m16[7:0]", "hdr.h.c = meta.m16;"),
        ("bool_out", "if (sel == 1) { o = 9; }", "meta.m8 = 3; bool f = hdr.h.a == 3;", "hdr.h.b, meta.m8", "hdr.h.c = (bit<16>)meta.m8; if (f) { hdr.h.d = 1; }"),
        ]:
    CASES.append(case(f"lead59_out_arg_{_name}", CAT,
                      program(f"        {_pre}\n        s.apply({_args});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_S2 % _body), frames=_FR))
_N = """control U(in bit<8> u, out bit<8> w) {
    apply {
        bit<8> k = u;
        w = k + 1;
    }
}
control T(in bit<8> x, out bit<8> y) {
    U() uu;
    apply {
        %s
    }
}
"""
for _name, _body, _sw in [
        ("nested_sub", "uu.apply(x, y);", "switch (hdr.h.a) { 3: { hdr.h.b = meta.m8 + 5; } }"),
        ("nested_sub_local", "bit<8> q; uu.apply(x, q); y = q;", "switch (hdr.h.a) { 3: { hdr.h.b = meta.m8 + 5; } }"),
        ("switch_in_body", "uu.apply(x, y); switch (x) { 3: { y = y + 1; } }", "hdr.h.b = meta.m8;"),
        ("switch_in_body2", "bit<8> q = x; switch (q) { 3: { q = q + 1; } } y = q;", "hdr.h.b = meta.m8;"),
        ]:
    CASES.append(case(f"lead59_switch_copy_nested_{_name}", CAT, program(
        f"        t.apply(hdr.h.b, meta.m8);\n        {_sw}\n"
        "        hdr.h.c = (bit<16>)hdr.h.b;\n        hdr.h.b = 0;\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        ingress_decls="    T() t;\n", top=_N % _body), frames=_FR))
