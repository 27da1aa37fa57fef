"""Disagreements found by helper fuzz13 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

An ``if`` whose condition p4c's strength reduction and constant folding make constant is
no conditional execution: ``!(8w1 != (x - x))`` is ``false`` (``x - x`` is 0), so the
``else { return; }`` left is an unconditional return and the rest of the action -- a header
initializer, which p4c's BMv2 backend refuses under a condition -- is dead code (fuzz_exprs
seed 2682).  checkmate-p4c folded only ``x * 0`` and ``x & 0`` inside comparisons, not
``x - x``, ``x ^ x`` or identities, nor through ``!``, ``&&`` and ``||``, and refused the
program."""
from .base import H, case, program  # noqa: F401

CAT = "front end (p4c-compatible)"

CASES = [
    case("fuzz13_folded_condition_makes_return_unconditional", CAT, program(
        "        a0();\n        a1();\n",
        ingress_decls="""
    action a0() {
        if (!(8w1 != (hdr.h.c[7:0] - hdr.h.c[7:0]))) { hdr.h.b = 1; } else { return; }
        hdr.h2 = {1, 2, 3, 4};
    }
    action a1() {
        if ((hdr.h.a ^ hdr.h.a) == 0 || hdr.h.b == 1) { return; }
        hdr.h2.setValid();
    }"""), json_path=True),
]
