"""Found by helper mutz33 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (fuzz_mutants: p4c_mutate's mutants of the
differential cases, run on both switches)."""
from .base import DEFAULT_DEPARSER, case, program

CAT = "front end (p4c-compatible)"

_TOP = "struct dg_t { bit<16> c; }\nstruct dg2_t { bit<8> a; }\n"
_DIG = "        digest<dg2_t>(1, { hdr.h.a });\n"

# fuzz_mutants seeds 711, 735 (op_swap, select_key on open6_digest_in_deparser): p4c puts a
# deparser's extern calls in the deparser's `primitives` (generate_digest, log_msg, assert,
# truncate), which simple_switch runs -- a digest there sends nothing (BMv2 learns at the end of
# ingress); the BMv2-JSON loader refused p4c's JSON ("deparser primitives are not supported").
# (A hash there: simple_switch refuses the JSON -- tests/p4c/test_load_refused.py.)
CASES = [
    case(f"mutz33_deparser_primitives_on_p4c_json_{name}", "digests", program(
        "        if (hdr.h.a <= 1) { digest<dg_t>(1, { hdr.h.c }); }\n", top=_TOP, deparser=dep),
        json_path=True)
    for name, dep in [
        ("digest_before_the_emits", _DIG + DEFAULT_DEPARSER),
        ("digest_after_the_emits", DEFAULT_DEPARSER + "\n" + _DIG),
        ("log_msg", "        log_msg(\"a={}\", {hdr.h.a});\n" + DEFAULT_DEPARSER),
        ("truncate", "        truncate(20);\n" + DEFAULT_DEPARSER),
    ]
]
