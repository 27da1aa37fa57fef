"""Found by helper copy48 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import case, program
from .fuzz28 import _HC, _HC_FR, CAT

CASES = []
_SW = "        switch (hdr.h.a) { 5: { hdr.o = hdr.s[2]; } }\n"

# fuzz_mutants seed 5738 (stack_op on fuzz28_whole_header_copy_in_a_single_case_switch_read_by_of_a_stack_element):
# `switch (hdr.h.a) { 5: { hdr.o = hdr.s[2]; } } hdr.s[0] = hdr.s[2]; hdr.s[0] = hdr.o;` -- p4c's
# LocalCopyPropagation carries the single case's whole copy past a whole copy of its source into another
# element (dropped or not: with `hdr.h.b = hdr.s[0].x;` between, MidEndLast still has `hdr.s[0] = hdr.s[2];`
# last), and past a store to a third element, so BMv2 emits s[2] in s[0] where the case does not run.
# checkmate-p4c ended the copy there on mutz46's tree (3 of these fail there); fuzz42's rule that a whole copy
# of the source ends no whole-header copy (stack_copies.whole_step, 810588d3) fixed it on leadm.
for _name, _body in [
        ("a_dead_store_to_another_element",
         "        hdr.s[0] = hdr.s[2];\n        hdr.s[0] = hdr.o;\n"),
        ("a_dead_store_from_another_element", "        hdr.s[0] = hdr.s[1];\n        hdr.s[0] = hdr.o;\n"),
        ("a_read_store_to_the_destination", "        hdr.s[0] = hdr.s[2];\n        hdr.h.b = hdr.s[0].x;\n        hdr.s[0] = hdr.o;\n"),
        ("a_store_to_a_third_element", "        hdr.s[1] = hdr.s[2];\n        hdr.s[0] = hdr.o;\n"),
        ("a_field_store_to_another_element", "        hdr.s[1].x = 7;\n        hdr.s[0] = hdr.o;\n")]:
    CASES.append(case(f"copy48_single_case_stack_copy_across_{_name}", CAT, program(_SW + _body, **_HC), frames=_HC_FR))
