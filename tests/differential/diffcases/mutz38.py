"""Found by helper mutz38 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, case, program
from .fuzz27 import _SC, _SC_FR
from .mutz29 import _COPY_PARSER

CAT = "front end (p4c-compatible)"

# fuzz_mutants --kinds mux_expr seed 6 (on mutz31_division_in_a_store_dropped_across_an_exiting_sub_
# control_read_by_the_store): p4c's front-end SideEffectOrdering makes `x = c ? a : b` an
# `if (c) { tmp = a; } else { tmp = b; } x = tmp;` before its def-use.  Blind to SC's exit, the def-use
# drops `x = tmp` (overwritten after the apply) and then the arms' stores to tmp, but the emptied `if`
# still reads c until SimplifyControlFlow removes it after the pass -- so a store c reads is kept, and
# where SC exits (h.b != 0) BMv2 sends it (s[0].x = h.a + 1).  checkmate-p4c dropped the `?:` store
# whole and the store it read with it (s[0].x as parsed).  A store only the arms read goes with them.
_X = "hdr.s[0].x = hdr.h.a + 1; "
_MUX = {
    "condition_and_arms": _X + "hdr.s[0].x = ((hdr.s[0].x % 5) == hdr.s[0].x) ? (hdr.s[0].x % 5) : hdr.s[0].x;",
    "condition_only": _X + "hdr.s[0].x = (hdr.s[0].x == 3) ? 8w7 : 8w8;",
    "nested_condition": _X + "hdr.s[0].x = (hdr.h.c == 1) ? ((hdr.s[0].x == 2) ? 8w7 : 8w8) : 8w6;",
    "arms_only": _X + "hdr.s[0].x = (hdr.h.c == 1) ? hdr.s[0].x : 8w3;",
}
CASES = [
    case(f"mutz38_store_read_by_a_conditional_expression_dropped_across_an_exiting_sub_control_{name}_{end}",
         CAT, program(f"        {store}\n        sc.apply(hdr.h.b);\n        {last}\n", **_SC), frames=_SC_FR)
    for name, store in _MUX.items()
    for end, last in [("whole_copy", "hdr.s[0] = {9, 9};"), ("field_store", "hdr.s[0].x = 9;")]
]

# fuzz_mutants --kinds cast_slice,exit_stmt,switch_wrap seed 2915 (exit_stmt on a mutz32 copy case):
# after a single-case switch whose case exits, p4c's front-end SimplifyDefUse sees the flow past the
# switch as unreachable, so a read there uses no store and `v = 7` (v live before: read in the case) is
# dropped -- BMv2 sends v's earlier value in h.b -- and the mid end's LocalCopyPropagation, taking the
# case as always run, sends the case's `v + 1` in h.d where no case ran.  checkmate-p4c kept `v = 7`
# (h.b = 7), which also ended the copy (h.d = 3).  A later read past the join of an `if` round them keeps
# the store.
_V = "bit<8> v = 4; if (hdr.h.c == 0x1111) { v = 2; } meta.m8 = 3; "
_SW = "switch (hdr.h.a) { 5: { meta.m8 = v + 1; exit; } } "
_UNV = {
    "read_after_it": _V + _SW + "v = 7; hdr.h.b = v; hdr.h.d = (bit<32>)meta.m8;",
    "read_in_an_if_after_it": _V + _SW + "v = 7; if (hdr.h.b == 9) { hdr.h.b = v; } hdr.h.d = (bit<32>)meta.m8;",
    "read_past_the_join_of_an_if_round_them": _V + "if (hdr.h.b == 9) { " + _SW + "v = 7; hdr.h.b = v; } "
                                              "hdr.h.d = (bit<32>)v;",
}
CASES += [
    case(f"mutz38_local_store_past_a_single_case_switch_whose_case_exits_{name}", CAT,
         program("        " + body + "\n"),
         frames=[(1, H(a, b, c, 0x22222222)) for a in (5, 6) for b in (9, 1) for c in (0x1111, 0x1112)])
    for name, body in _UNV.items()
]

# fuzz_mutants --kinds mux_expr seeds 125 and 196 (a `?:` in the case of a single-case switch, on mutz32's
# and fuzz25's copy cases): p4c's front end makes the case's `m = c ? a : b` an `if` assigning a
# temporary and `m = tmp`, and the mid end's LocalCopyPropagation, taking the case as always run,
# propagates `tmp` past the switch -- 0 where the case did not run (BMv2: h.d = 0, or 0 + 1 in an else
# branch).  checkmate-p4c propagated nothing (the `?:` reads m) or the `?:` itself.  A write in one
# branch of a later `if` ends the copy at its join (h.b = 3 where no case ran).
_M = {
    "reading_its_target": "switch (hdr.h.a) { 5: { meta.m8 = hdr.h.b; meta.m8 = (meta.m8 < 8) ? meta.m8 : meta.m8 + 3; } } "
                          "if (hdr.h.c == 0x1111) { hdr.h.d = (bit<32>)meta.m8; meta.m8 = 4; } "
                          "else { hdr.h.d = (bit<32>)meta.m8 + 1; } hdr.h.b = meta.m8;",
    "twice": "bit<8> v = 4; switch (hdr.h.a) { 5: { meta.m8 = ((v + 1) == meta.m8) ? (v + 1) : meta.m8; "
             "meta.m8 = (meta.m8 == 1) ? meta.m8 + 1 : meta.m8; } } hdr.h.d = (bit<32>)meta.m8;",
    "of_fields_only": "switch (hdr.h.a) { 5: { meta.m8 = (hdr.h.b == 9) ? 8w7 : hdr.h.b; } } hdr.h.d = (bit<32>)meta.m8;",
}
CASES += [
    case(f"mutz38_conditional_expression_in_a_single_case_switch_copied_as_its_temporary_{name}", CAT,
         program("        meta.m8 = 3; " + body + "\n"),
         frames=[(1, H(a, b, c, 0x22222222)) for a in (5, 6) for b in (9, 1) for c in (0x1111, 0x1112)])
    for name, body in _M.items()
]

# fuzz_mutants --kinds mux_expr seed 20 (a parser `?:` on mutz29_stack_copies_propagated_past_extract_
# next), in part: p4c's front end makes a parser's `x = c ? a : b` an `if`, which RemoveParserControlFlow
# turns into new states, so the mid end's copy propagation (per state) forgets the copies made before
# it: `meta.m16 = (bit<16>)hdr.s[1].b` is no longer read after the extracts as `s[1].b` (BMv2: h.c = 0,
# s[1] not yet extracted where it was stored).  checkmate-p4c propagated it across (h.c = s[1].b).
# (m16 from h, not from s[1] before any extract: with the copies ended that read is of a header never
# extracted, BMv2's stale pooled PHV, which made the case flaky in long runs -- helper mutz39 -- so
# these are guards now; mutz39_parser_conditional_expression_store_copied_as_its_temporary_* tests the fix)
_MUX_PARSER = _COPY_PARSER.replace("meta.m32 = 5;", "meta.m32 = {mux};").replace(
    "meta.m16 = (bit<16>)hdr.s[1].b;", "meta.m16 = (bit<16>)hdr.h.b;")
CASES += [
    case(f"mutz38_parser_conditional_expression_ends_the_stack_copies_before_it_{name}", CAT, program(
        "", fields="    h_t[3] s;\n", parser=_MUX_PARSER.replace("{mux}", mux),
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))])
    for name, mux in [("of_a_field", "(hdr.h.b == 2) ? 32w5 : 32w6"), ("nested", "(hdr.h.b == 2) ? 32w5 : ((hdr.h.a == 7) ? 32w9 : 32w6)")]
]
