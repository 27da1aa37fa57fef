"""Fixed seeds of the random header/stack/union/varbit/deparser programs (fuzz_headers.py) on
real p4c -> BMv2 and checkmate-p4c -> checkmate-switch: same P4Info, same frames, and p4c's
JSON on checkmate-switch gives BMv2's output too.  Longer runs: the module's CLI."""
from __future__ import annotations

from fuzz_headers import generate
from seed_tests import fuzz_seed_tests

# seeds whose programs p4c accepts and BMv2 runs (a seed p4c refuses, or on whose JSON
# simple_switch_grpc dies, is a generator matter, not a test), spread over stacks of 2-4,
# stacks of unions, headers in metadata, varbit copies, checksums and struct-at-once emits
SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]
SEEDS += [5000, 5001, 5002, 5005]   # from fuzz_headers.V2_SEED: switch, conditional exit, keyless tables
SEEDS += [5648]   # a single-case switch's copy of a header field (fixed by helper fuzz22)
SEEDS += [5783]   # a union store before a sub-control writing its out parameter (fixed by helper fuzz23)
SEEDS += [8205]   # a union member's copy read in a sub-control body (fixed by helper fuzz30)
SEEDS += [8548]   # a union store dead across an action call (fixed by helper fuzz31)
SEEDS += [8764]   # a whole-stack copy out of a single-case switch's own local (fixed by helper fuzz32)
SEEDS += [10375]   # a single-case switch's copy into a copy_args sub-control's copy-back (fixed by helper fuzz39)
SEEDS += [11327, 11387]   # a dead header initializer under an if in an action; a sub-control's single-case switch copies (a header initializer, isValid values) read after its apply (fixed by helper fuzz50)
SEEDS += [11664]   # a union store dead across an action call with it as an inout argument the body only writes (fixed by helper fuzz66)


targets, pytestmark, test_generator_is_deterministic, test_random_headers_program = fuzz_seed_tests(
    generate, SEEDS, "fuzz_headers", reason="random-program differential needs real BMv2")
