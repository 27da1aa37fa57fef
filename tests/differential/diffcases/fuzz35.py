"""Disagreements found by helper fuzz35 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz34's open item, probed: p4c's front-end def-use (SimplifyDefUse) tracks the bits a slice
writes wherever it drops dead stores, so a store that a later slice holding all its bits
overwrites before a read is dead -- also for the single-case switch copies
(:mod:`switch.compiler.switch_copies`, whose copy such a dead store does not end:
``dead_reads.drop_dead_field_stores``) and for an action body used by one table apply
(``dead_reads.drop_dead_action_stores``).
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
