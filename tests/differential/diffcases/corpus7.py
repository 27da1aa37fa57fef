"""Disagreements found by helper corpus7 (issue #15) widening p4c's public test corpus
(``testdata/p4_16_samples`` v1model programs without an STF, fetched outside the repository),
each decided by real p4c 1.2.4.8 / BMv2 1.15.5 and kept as a program of our own.

A top-level action with a relative ``@name("n")`` (p4c's issue-4969-bmv2 sample): p4c copies
the action into each control that uses it and reads the name there, so the P4Info lists one
action ``C.n`` per such control (``I.n``, ``E.n``; a use inside a sub-control instance of ``I``
counts for ``I``).  checkmate-p4c listed one action ``n``.  Table entries name the copies, so
the control plane reaches each through its own id (switch/compiler/action_copies.py).
"""
from .base import H, case, Entry, program

CAT = "P4Info names"

CASES = []

_TOP = """
@name("mark") action set_b(inout h_t h, bit<8> v) { h.b = v; }
@name("bump") action inc_c(inout h_t h) { h.c = h.c + 1; }
@name(".keep") action set_d(inout h_t h) { h.d = 0x11223344; }
action plain(inout h_t h) { h.a = h.a + 0x10; }
control Sub(inout headers_t hdr) {
    table ts { key = { hdr.h.c: exact; } actions = { inc_c(hdr.h); NoAction; } default_action = NoAction(); }
    apply { ts.apply(); }
}
"""

CASES += [
    case("corpus7_toplevel_action_relative_name", CAT, program("""
        if (hdr.h.isValid()) {
            switch (ti.apply().action_run) {
                set_b: { hdr.h.c = hdr.h.c | 0x100; }
                default: { }
            }
            inc_c(hdr.h);
            s1.apply(hdr);
        }
""", ingress_decls="""
    Sub() s1;
    table ti {
        key = { hdr.h.a: exact; }
        actions = { set_b(hdr.h); set_d(hdr.h); plain(hdr.h); NoAction; }
        default_action = NoAction();
    }""", egress="""
        if (hdr.h.isValid()) { te.apply(); }
""", egress_decls="""
    table te {
        key = { hdr.h.b: exact; }
        actions = { set_b(hdr.h); inc_c(hdr.h); NoAction; }
        default_action = inc_c(hdr.h);
    }""", top=_TOP),
        frames=[(1, H(1, 2, 3, 4)), (2, H(2, 7, 0x20, 9)), (3, H(3, 9, 0x21, 5)), (4, H(5, 0x44, 4, 4))],
        entries=[Entry("I.ti", {"hdr.h.a": 1}, "I.mark", {"v": 0x44}),
                 Entry("I.ti", {"hdr.h.a": 2}, "keep"),
                 Entry("I.ti", {"hdr.h.a": 3}, "plain"),
                 Entry("I.s1.ts", {"hdr.h.c": 0x22}, "I.bump"),
                 Entry("E.te", {"hdr.h.b": 0x44}, "E.mark", {"v": 0x55}),
                 Entry("E.te", {"hdr.h.b": 7}, "NoAction")]),
]
