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

# p4c's Predication of an action's nested ifs (switch/compiler/predication.py): BMv2 runs the
# Muxes p4c builds, which pick the wrong value in these shapes (probes of our own; p4c's
# nested_ifs_in_action-bmv2 sample shows the second one)
_PRED_FRAMES = [(1, H(a, b, 0, 0)) for a in (0, 1, 2, 3) for b in (0, 1, 2)]


def _pred(name: str, body: str):
    return case(name, "p4c Predication", program("""
        x = 0x11; y = 0x22;
        act();
        hdr.h.c = x ++ y;
""", ingress_decls="""
    bit<8> x;
    bit<8> y;
    action act() {
        %s
    }""" % body), frames=_PRED_FRAMES)


CASES += [
    # a then-branch value read in the same branch, both written again under the else-if
    _pred("corpus7_predication_dependent_else_if",
          "if (hdr.h.a == 1) { x = 1; y = x; } else if (hdr.h.a == 2) { y = 2; x = y; }"),
    # a value written in the then-branch, read deeper in the else branch
    _pred("corpus7_predication_nested_else_read",
          "if (hdr.h.a == 1) { y = 0xf0; } else if (hdr.h.a == 2) { if (hdr.h.b == 1) { x = y; } "
          "else if (hdr.h.b == 2) { x = y; } }"),
    # p4c's front end drops a store every path overwrites (y = 0x77) before predicating
    _pred("corpus7_predication_after_dead_store",
          "if (hdr.h.a == 1) { x = 3; y = x; } else if (hdr.h.a == 2) { if (hdr.h.b == 1) { y = 0x77; } "
          "y = 5; x = y; }"),
    # a bool local as the condition is read where each Mux is evaluated, not aliased
    _pred("corpus7_predication_bool_local_condition",
          "bool f = hdr.h.b == 1; if (f) { x = 9; f = false; y = x; } else if (hdr.h.a == 3) { y = 4; x = y; }"),
]

# a run-time stack index read inside a field path (st[i].a) in a predicated action: the store to i
# before the if stays (predication.py's liveness counts what the indexes along a path read; BMv2 and
# checkmate-switch agree with and without that, so this case covers the shape rather than a fix)
CASES += [
    case("corpus7_predication_stack_index_read_keeps_its_store", "p4c Predication", program("""
        st[0] = hdr.h;
        st[1] = hdr.h;
        st[1].a = hdr.h.b;
        x = 0x11; y = 0x22; i = 0;
        act();
        hdr.h.c = x ++ y;
""", ingress_decls="""
    h_t[2] st;
    bit<8> x;
    bit<8> y;
    bit<1> i;
    action act() {
        i = 1;
        if (hdr.h.a == 1) { x = st[i].a; } else if (hdr.h.a == 2) { y = st[i].a; }
    }"""), frames=_PRED_FRAMES),
]
