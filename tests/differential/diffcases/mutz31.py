"""Found by helper mutz31 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, case, program
from .fuzz27 import _SC_FR, _across

CAT = "front end (p4c-compatible)"

CASES = [
    # p4c_mutate seed 524 (late_store, mutz30's open item): a store p4c's def-use drops across a
    # sub-control apply that may `exit` (blind to the exit: exit_blind_stores) takes its division
    # with it, and a store read only by it goes next -- p4c compiles both, and where SC exits
    # (h.b != 0) BMv2 sends s[0].x as parsed (checkmate-p4c refused "% 5": its division check did
    # not see the stores as dead)
    case(f"mutz31_division_in_a_store_dropped_across_an_exiting_sub_control_{name}", CAT,
         _across(store, "", "hdr.s[hdr.h.a[0:0]].y = hdr.h.b;"), frames=_SC_FR)
    for name, store in [("read_by_the_store", "hdr.s[0].x = hdr.h.a + 1; hdr.s[0].x = hdr.s[0].x % 5;"),
                        ("read_only_by_a_dropped_store", "hdr.s[0].x = (hdr.h.a + 1) % 5; hdr.s[0].x = hdr.s[0].x + 1;")]
]

# p4c_mutate seed 528 (dead_store): p4c's def-use drops a parser store into a stack element's field
# (a constant index) that the next store to it overwrites -- with a division in it (p4c compiles
# it) or across an extract that may end the parse (BMv2: where `extract(hdr.h2)` is short, s[0].a
# stays 0; checkmate-switch had sent the 5 -- and refused `/ 3`: parser_defuse took no stack path)
_S0_PARSER = """    state start {{
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[1].setValid();
        hdr.s[0].a = {first};
        pkt.extract(hdr.h2);
        hdr.s[0].a = hdr.h.b;
        hdr.s[1].a = 6;
        transition accept;
    }}"""
CASES += [
    case(f"mutz31_parser_store_into_a_stack_element_dropped_{name}", CAT, program(
        "        if (sm.parser_error != error.NoError) { hdr.h.d = 0xee; }\n", fields="    h_t[2] s;\n",
        parser=_S0_PARSER.format(first=first), deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4, payload=b"")), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(40)))])
    for name, first in [("across_a_short_extract", "5"), ("with_a_division", "hdr.h.b / 3")]
]
