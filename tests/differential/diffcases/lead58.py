"""Found by the lead of session s58 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A sub-control's scalar ``out`` argument: p4c's inliner passes it in place without initialising it
(``--top4 FrontEnd_57_InlineFunctions``: ``if (hdr.h.b == 1) { hdr.h.a = meta.m8 + 2; }``), so where
the body writes nothing the caller's variable keeps its value -- we started the parameter from 0
(runtime gen_subcontrol) -- and p4c's front-end def-use counts the argument as a write at the apply,
so a store to it that nothing reads before is gone (``out_arg_stores``); an ``in`` argument another
argument of the apply overlaps goes through SideEffectOrdering's temporary and leaves the out one in
place (subcontrol_copies.end_copies_after), and p4c's copy propagation puts the argument into the
single-case switch's copy: one that then reads its own target is none
(switch_copies.drop_self_reading_copies).  Actions with such out parameters already agreed (guards).
"""
from .base import H, case, program
from .fuzz28 import CAT

CASES = []
_S = """control S(in bit<8> sel, in bit<8> i, out bit<8> o) {
    apply {
        %s
    }
}
"""
_FR = [(1, H(a, b, 0x1234, 0x5678)) for a in (3, 200) for b in (0, 1, 7)]
_M8 = "meta.m8 = hdr.h.a;"
for _name, _body, _args, _after, _pre in [
        ("switch_case", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("switch_case_exit", "switch (sel) { 1: { o = i + 1; exit; } }", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("write_then_read", "o = 7; o = o + i;", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("if_write", "if (sel == 1) { o = i + 2; }", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("sel_is_out", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, hdr.h.a, hdr.h.b", "hdr.h.c = (bit<16>)hdr.h.b;", _M8),
        ("switch_two", "switch (sel) { 1: { o = i + 1; } 7: { o = i + 9; } }", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("switch_case_ret", "switch (sel) { 1: { o = i + 1; return; } } o = i + 5;", "hdr.h.b, hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8),
        ("meta", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, meta.m8, meta.m8", "hdr.h.c = (bit<16>)meta.m8;", _M8),
        ("noovl_if_write", "if (sel == 1) { o = i + 2; }", "hdr.h.b, meta.m8, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8 + "\n        meta.m16 = 0x1234;"),
        ("noovl_switch", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, meta.m8, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", _M8 + "\n        meta.m16 = 0x1234;"),
        ("noovl_if_write_meta", "if (sel == 1) { o = i + 2; }", "hdr.h.b, hdr.h.a, meta.m16[7:0]", "hdr.h.c = meta.m16;", _M8 + "\n        meta.m16 = 0x1234;"),
        ("noovl_if_write_m8", "if (sel == 1) { o = i + 2; }", "hdr.h.b, hdr.h.a, meta.m8", "hdr.h.c = (bit<16>)meta.m8;", _M8 + "\n        meta.m16 = 0x1234;"),
        ("noovl_switch_m16", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, meta.m16[7:0], hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", "meta.m16 = 0x1234;"),
        ("noovl_switch_indep", "switch (sel) { 1: { o = i + 1; } }", "hdr.h.b, meta.m8, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;", "meta.m8 = 0x42;"),
        ]:
    CASES.append(case(f"lead58_sub_control_out_scalar_{_name}", CAT,
                      program(f"        {_pre}\n        s.apply({_args});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_S % _body), frames=_FR))
CASES.append(case("lead58_sub_control_out_scalar_direct_switch", CAT, program(
    "        meta.m8 = hdr.h.a;\n        switch (hdr.h.b) { 1: { hdr.h.a = meta.m8 + 1; } }\n        hdr.h.c = (bit<16>)hdr.h.a;\n"), frames=_FR))
_S2 = """control S(in bit<8> sel, out bit<8> o) {
    apply {
        %s
    }
}
"""
for _name, _body, _pre, _args, _after in [
        ("dead_before", "if (sel == 1) { o = 9; }", "meta.m8 = hdr.h.a; hdr.h.d = (bit<32>)meta.m8; meta.m8 = 5;", "hdr.h.b, meta.m8", "hdr.h.c = (bit<16>)meta.m8;"),
        ("dead_before_hdr", "if (sel == 1) { o = 9; }", "hdr.h.a = 5;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("dead_before_if", "if (sel == 1) { o = 9; }", "hdr.h.a = 5; if (hdr.h.b == 7) { hdr.h.d = 1; }", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("live_before_sel", "if (sel == 1) { o = 9; }", "hdr.h.a = 5;", "hdr.h.a, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("twice", "if (sel == 1) { o = 9; }", "hdr.h.a = 5;", "hdr.h.b, hdr.h.a); s.apply(hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ]:
    CASES.append(case(f"lead58_sub_control_out_scalar_{_name}", CAT,
                      program(f"        {_pre}\n        s.apply({_args});\n        {_after}\n",
                              ingress_decls="    S() s;\n", top=_S2 % _body), frames=_FR))
_A = """    action A(in bit<8> sel, out bit<8> o) { if (sel == 1) { o = 9; } }
"""
for _name, _pre, _call in [
        ("action_out", "", "A(hdr.h.b, hdr.h.a);"),
        ("action_out_dead", "hdr.h.a = 5;", "A(hdr.h.b, hdr.h.a);"),
        ]:
    CASES.append(case(f"lead58_sub_control_out_scalar_{_name}", CAT,
                      program(f"        {_pre}\n        {_call}\n        hdr.h.c = (bit<16>)hdr.h.a;\n",
                              ingress_decls=_A), frames=_FR))
