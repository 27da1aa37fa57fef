"""Found by helper fuzz66 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

fuzz_headers seed 11664 (frames): a direct call of an action with a header-union member as an
``inout`` argument whose parameter the body only writes (or leaves alone) is no read of the member
for p4c -- after RemoveActionParameters the copy-in ``y = hdr.u.x`` feeds only the copy-out
``hdr.u.x = y``, and SimplifyDefUse drops both and the store before the call where a later
assignment (an ``out`` copy-back) overwrites the member: BMv2 keeps the parsed sibling ``u.w``
valid.  checkmate-p4c took every ``inout`` argument as read (``union_defuse.inlined_action``).
"""
from .base import case, program
from .fuzz18 import _U
from .fuzz31 import _F, _V

CAT = "front end (p4c-compatible)"

CASES = []

_A = "    action a0(inout h_t y) { %s }\n    action a1(out h_t y) { meta.m8 = 1; }\n"
for _name, _a0, _body in [
        ("an_empty_body", "", "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"),
        ("a_body_writing_a_field", "y.a = 5;", "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"),
        ("a_body_making_it_valid", "y.setValid();", "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"),
        ("a_body_bumping_a_field_in_an_if", "if (hdr.h.b == 1) { y.c = y.c + 1; }",
         "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"),
        ("an_assignment_after", "y.a = 5;", "hdr.u.x = hdr.h; a0(hdr.u.x); hdr.u.x = hdr.h2;"),
        # (guards: the body reading the parameter into something else, no overwrite after the call)
        ("kept_by_a_body_reading_it", "hdr.h.d = (bit<32>)y.a;", "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"),
        ("kept_without_an_overwrite", "y.a = 5;", "hdr.u.x = hdr.h; a0(hdr.u.x);")]:
    CASES.append(case(f"fuzz66_union_store_across_an_inout_action_call_{_name}", CAT, program(
        "        " + _body + "\n" + _V, **dict(_U, ingress_decls=_A % _a0)), frames=_F))
