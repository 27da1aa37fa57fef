"""Found by helper mutz35 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .fuzz28 import CASES as _FUZZ28
from .mutz34 import _sub_wrap

# fuzz_mutants seed 2240 (sub_wrap on fuzz28_whole_header_copy_in_a_single_case_switch_read_by_kept_an_
# is_valid_of_the_source): the whole-header copy `hdr.s[1] = hdr.o` a single-case switch leaves is
# ended by an isValid() of either header in a sub-control's body as it is inline -- p4c inlines the body
# before its LocalCopyPropagation, and its JSON keeps `s[0] = s[1]` after `hdr.h.c = hdr.o.isValid() ?
# 1 : 2` there, so BMv2 copies hdr.s[1]; checkmate-p4c carried the copy past the apply (only a write
# in the body ended it) and copied hdr.o.
_W28 = "fuzz28_whole_header_copy_in_a_single_case_switch_read_by_"
CASES = [
    _sub_wrap(_FUZZ28, _W28 + "kept_an_is_valid_of_the_source", "hdr.h.c = hdr.o.isValid() ? 16w1 : 16w2;",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_an_is_valid_of_the_source_in_a_sub_control"),
    _sub_wrap(_FUZZ28, _W28 + "kept_an_is_valid_between", "hdr.h.c = hdr.s[1].isValid() ? 16w1 : 16w2;",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_an_is_valid_of_the_copy_in_a_sub_control"),
    _sub_wrap(_FUZZ28, _W28 + "an_assignment", "hdr.s[0] = hdr.s[1];",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_a_comparison_in_a_sub_control",
              "if (hdr.o == hdr.s[2]) { hdr.h.c = 7; }", keep=True),
]
