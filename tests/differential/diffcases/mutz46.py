"""Found by helper mutz46 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"
_FR = [(1, H(1, 2, 0x0102, 0x03040506)), (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)),
       (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=0x32))]

# fuzz_mutants seed 4903 (action_if on fuzz29's copy-back case): a store in an action body to the header
# an inout argument copies back whole is dead also where a `return` inside an `if` follows it -- p4c's
# RemoveReturns makes the rest `if (!hasReturned) {..}` and the copy-back runs on both paths, so its
# def-use drops `hdr.h2.c = 3` and BMv2 reads the invalid h2's old c (0 on a fresh PHV).  checkmate-p4c
# looked for the copy-back only after a `return` at the body's top level (dead_reads._following).
_BODIES = {
    "an_if_s_return": "if (hdr.h2.b == hdr.h.b) { hdr.h.b = hdr.h2.b; return; } hdr.h.b = hdr.h.b + 5;",
    "an_else_s_return": "if (hdr.h.a == 0x31) { hdr.h.b = 9; } else { return; } hdr.h.b = hdr.h.b + 5;",
    "a_nested_if_s_return": "if (hdr.h.a == 0x31) { if (hdr.h.b == 2) { return; } hdr.h.d = 1; } hdr.h.b = 7;",
}
CASES = [
    case(f"mutz46_action_copy_back_kills_a_store_before_{name}", CAT, program(
        "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=f"    action a0(inout h_t q) {{ hdr.h2.setValid(); hdr.h2.c = 3; {body} }}\n"), frames=_FR)
    for name, body in _BODIES.items()
]
