"""Fixed seeds of the random table/action/extern programs (fuzz_tables.py) on real p4c -> BMv2
and checkmate-p4c -> checkmate-switch: same P4Info, same frames/digests/counters, and p4c's
JSON on checkmate-switch gives BMv2's output too.  Longer runs: the module's CLI."""
from __future__ import annotations

from fuzz_tables import generate
from seed_tests import fuzz_seed_tests

# seeds whose programs p4c accepts (a seed p4c rejects is a generator matter, not a test), spread
# over every feature the generator has
SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 18, 19, 20]
SEEDS += [3399]   # a table action's store before execute_meter's out argument after the apply (fixed by helper fuzz42)


targets, pytestmark, test_generator_is_deterministic, test_random_tables_program = fuzz_seed_tests(
    generate, SEEDS, "fuzz_tables", same=("source", "frames", "entries", "defaults"),
    reason="random-program differential needs real BMv2")
