"""Found by helper mutz25 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles that checkmate-p4c refused (their invalid neighbours are in tests/p4c/test_mutants4.py)."""
from controller.entities import Entry

from .base import H, case, program

CAT = "front end (p4c-compatible)"

_F = [(1, H(1, 1, 0x10)), (1, H(2, 3, 0x20)), (1, H(3, 7, 0x30)), (1, H(5, 1, 0x40))]

CASES = [
    # mutz24's open item: a match_kind comparison stored into an action's, a function's or a
    # sub-control's out/inout parameter whose argument the caller overwrites before reading it --
    # p4c inlines the body and its copy-out, and its def-use pass drops both (checkmate-p4c refused
    # it: "could not convert expression to Json"); also a table's bound out argument
    case("mutz25_match_kind_out_param_stores_dropped", CAT, program("""
        bool b; bool c = true;
        a(b);
        ai(c);
        f(b);
        s.apply(c);
        t.apply();
        b = hdr.h.a == 2;
        c = hdr.h.b == 3;
        meta.m8 = hdr.h.a + 1;
        hdr.h.d = (b ? 32w0x100 : 32w0) + (c ? 32w0x20 : 32w0) + (bit<32>)meta.m8;
""", top="void f(out bool o) { o = exact == lpm; }\n"
         "control S(out bool o) { apply { o = exact != ternary; } }\n",
        ingress_decls="""\
    action a(out bool o) { o = exact == lpm; }
    action ai(inout bool o) { bool t = exact == lpm; o = t; }
    action s8(out bit<8> o, bit<8> v) { o = (exact == lpm) ? v : 8w2; hdr.h.c = hdr.h.c + (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { s8(meta.m8); NoAction; } default_action = s8(meta.m8, 9); }
    S() s;
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s8", {"v": 0x11})]),

    # p4c_mutate seed 152 (action_param): a direct action call leaving out a directionless
    # argument is p4c's "parameter must be bound" only in code it keeps -- not in an unused action,
    # an unapplied sub-control instance, or after a return (checkmate-p4c refused them all)
    case("mutz25_unbound_action_arguments_in_removed_code", CAT, program("""
        c1.apply(hdr.h);
        if (hdr.h.b == 7) {
            hdr.h.c = 0x77;
            return;
            a();
        }
        hdr.h.d = 5;
""", top="""\
control C(inout h_t h) { apply { h.b = h.b + 1; } }
control Bad(inout h_t h) {
    action a(bit<8> z) { h.a = z; }
    apply { a(); }
}
""", ingress_decls="""\
    action a(bit<8> z) { hdr.h.a = z; }
    action b() { a(); }
    C() c1;
    Bad() c2;
"""), frames=_F),
]
