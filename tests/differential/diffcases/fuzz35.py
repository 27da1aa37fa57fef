"""Disagreements found by helper fuzz35 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz34's open item, probed (no fuzz seed showed it): p4c's front-end def-use (SimplifyDefUse)
tracks the bits a slice writes wherever it drops dead stores, so a store (a slice store or a whole
field's) that a later slice holding all its bits overwrites before a read is dead -- also for the
single-case switch copies (:mod:`switch.compiler.switch_copies`, whose copy such a dead store does
not end: ``dead_reads.drop_dead_field_stores``), for an action body used by one table apply
(``dead_reads.drop_dead_action_stores``) and for a store reading a stack at a run-time index
(``dead_reads.dead_store``: BMv2 never reads ``hdr.s[i]`` past the end for it).  As p4c's pass
repeats, a read of the field or a write of other bits of it in between that is itself overwritten
before a read goes first.  The covering slice may be in both branches of an ``if``, a directly
called action's body or a function's out argument.  Guards: a slice missing some stored bits, a
live read in between, keep the store.
"""
from .base import H, case, program
from .opens2 import _TD

CAT = "front end (p4c-compatible)"

CASES = []

_SW1 = "        hdr.h.d = 32w5;\n        switch (hdr.h.a) { 7: { hdr.h.d = 32w1 | (bit<32>)hdr.h.c; } }\n"
_RD1 = "meta.m16 = (bit<16>)hdr.h.d; } }\n        "
_FR = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]
for _name, _rest in [
        ("whole_store_killed_by_a_covering_slice", "switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1 + "hdr.h.c[15:0] = meta.m16;"),
        ("slice_store_killed_by_a_covering_slice", "switch (hdr.h.b) { 1: { hdr.h.c[11:4] = 9; " + _RD1 + "hdr.h.c[11:0] = meta.m16[11:0];"),
        ("slice_store_killed_by_a_whole_store", "switch (hdr.h.b) { 1: { hdr.h.c[7:0] = 9; " + _RD1 + "hdr.h.c = meta.m16;"),
        ("slice_of_a_slice_covering", "switch (hdr.h.b) { 1: { hdr.h.c[9:2] = 9; " + _RD1 + "hdr.h.c[13:0][9:0] = meta.m16[9:0];"),
        ("at_the_top_level", "hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; hdr.h.c[15:0] = meta.m16;"),
        # guards: a slice missing some stored bits keeps the store (it ends the copy)
        ("whole_store_partial_slice_keeps_it", "switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1 + "hdr.h.c[7:0] = meta.m16[7:0];"),
        ("slice_store_partial_slice_keeps_it", "switch (hdr.h.b) { 1: { hdr.h.c[11:4] = 9; " + _RD1 + "hdr.h.c[7:0] = meta.m16[7:0];"),]:
    CASES.append(case(f"fuzz35_single_case_switch_copy_past_a_slice_dead_store_{_name}", CAT, program(
        _SW1 + "        " + _rest + "\n"), frames=_FR))

_RD = "meta.m16 = (bit<16>)hdr.h.d + (bit<16>)meta.m8; "
for _name, _rest in [
        ("covering_slice", "t.apply(); " + _RD + "hdr.h.c[15:0] = meta.m16;"),
        ("partial_slice_keeps_it", "t.apply(); " + _RD + "hdr.h.c[15:1] = meta.m16[15:1];"),]:
    CASES.append(case(f"fuzz35_dead_action_store_{_name}", CAT, program(
        _SW1 + "        " + _rest + "\n", ingress_decls=_TD), frames=_FR))

# p4c's pass repeats: a write of other bits, or a read, that is itself dead goes first
for _name, _rest in [
        ("past_a_dead_partial_slice", "switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1 + "hdr.h.c[7:0] = 1; hdr.h.c = meta.m16;"),
        ("past_a_dead_read", "switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1 + "meta.m8 = (bit<8>)hdr.h.c; meta.m8 = 1; hdr.h.c = meta.m16;"),
        ("covering_slices_in_both_branches", "switch (hdr.h.b) { 1: { hdr.h.c[7:0] = 9; " + _RD1
         + "if (hdr.h.a == 7) { hdr.h.c[7:0] = 1; } else { hdr.h.c[15:0] = meta.m16; }"),]:
    CASES.append(case(f"fuzz35_single_case_switch_copy_past_a_slice_dead_store_{_name}", CAT, program(
        _SW1 + "        " + _rest + "\n"), frames=_FR))
CASES.append(case("fuzz35_single_case_switch_copy_past_a_slice_dead_store_past_a_live_read_ends_it", CAT, program(
    _SW1 + "        switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1
    + "meta.m8 = (bit<8>)hdr.h.c; hdr.h.b = meta.m8; hdr.h.c[7:0] = 1; hdr.h.c = meta.m16;\n"), frames=_FR))

# dead_reads.dead_store (a store reading a stack at a run-time index, fuzz22): a later slice holding
# every bit stored kills it too, so BMv2 never reads `hdr.s[i]` past the end for it
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
CASES.append(case("fuzz35_dead_store_of_a_stack_read_past_the_end_killed_by_a_covering_slice", "stacks", program("""
        if (hdr.h.d[7:0] == 1) {
            hdr.h.b = hdr.s[hdr.h.a[1:0]].x + 1;
            hdr.h.c = 5;
            hdr.h.b[7:0] = 7;
        } else if (hdr.h.d[7:0] == 2) {
            hdr.h.c[11:4] = (bit<8>)hdr.s[hdr.h.a[1:0]].x;
            hdr.h.c[15:2] = 9;
        }
""", headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
    deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
    frames=[(1, H(a, 0x11, 0x2233, d)) for d in (1, 2) for a in (0, 1, 2, 3)]))

# the covering slice in a directly called action's body, or a function's out argument (the
# inliner's copy-back writes the slice)
for _name, _rest in [
        ("in_a_called_action", "ws(); hdr.h.b = (bit<8>)meta.m16;"),
        ("as_a_function_out_argument", "fo2(hdr.h.c[15:0]); hdr.h.b = (bit<8>)meta.m16;"),]:
    CASES.append(case(f"fuzz35_single_case_switch_copy_past_a_slice_dead_store_{_name}", CAT, program(
        _SW1 + "        switch (hdr.h.b) { 1: { hdr.h.c = 9; " + _RD1 + _rest + "\n",
        ingress_decls="    action ws() { hdr.h.c[15:0] = 44; }\n", top="void fo2(out bit<16> o) { o = 16w77; }\n"),
        frames=_FR))

# fuzz_exprs seed 17783 (FRAMES; p4c's JSON on checkmate-switch agreed): exit_blind_stores looks
# past the end of a branch -- a store in an `if` arm is dropped when what follows the `if` crosses
# an exiting sub-control apply and overwrites it (a header initializer's field stores too; its
# setValid stays: BMv2 sends the header valid with zero fields) -- and a local declaration reading
# the store is no read when the local is next given whole as an `out` argument of a sub-control
# apply (p4c drops the initializer first).  A store in a switch case likewise.  Guard: the arm
# store read in between.
_SC = ("control SC(inout bit<8> x) { apply { if (x != 0) { exit; } } }\n"
       "control SC2(inout bit<8> x, out bit<16> o) { apply { o = 16w1; if (x != 0) { exit; } } }\n")


def _exit_case(name: str, body: str):
    return case(f"fuzz35_exit_blind_{name}", CAT, program(body, top=_SC, ingress_decls="    SC() sc;\n    SC2() sc2;"),
                frames=[(1, H(0x11, b, 0x2233, 0x44556677)) for b in (0, 5)])


CASES += [
    _exit_case("store_in_a_branch_dropped", """
        if (hdr.h.a == 0x11) { hdr.h.c = 7; hdr.h.d = 7; }
        sc.apply(hdr.h.b);
        hdr.h.c = 9;
        if (hdr.h.a == 0x12) { hdr.h.d = 8; }
"""),
    _exit_case("store_read_by_a_dead_local_dropped", """
        hdr.h.c = 7;
        bit<16> l = hdr.h.c;
        sc2.apply(hdr.h.b, l);
        hdr.h.c = 9;
"""),
    _exit_case("header_initializer_in_a_branch_fields_dropped", """
        if (!hdr.h2.isValid()) { hdr.h2.setValid(); hdr.h2 = {1, 2, 3, 4}; }
        sc.apply(hdr.h.b);
        hdr.h2 = hdr.h;
"""),
    _exit_case("store_in_a_switch_case_dropped", """
        switch (hdr.h.b) { 5: { hdr.h.c = 7; } default: { hdr.h.d = 1; } }
        sc.apply(hdr.h.b);
        hdr.h.c = 9;
"""),
    _exit_case("store_in_a_branch_read_after_kept", """
        if (hdr.h.a == 0x11) { hdr.h.c = 7; }
        sc.apply(hdr.h.b);
        hdr.h.b = hdr.h.c[7:0];
        hdr.h.c = 9;
"""),
]
