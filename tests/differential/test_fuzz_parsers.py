"""A fixed set of random parser / deparser programs (``fuzz_parsers``) against real p4c + BMv2:
for each seed p4c accepts the program, checkmate-p4c compiles it to the same P4Info, and
checkmate-switch (from checkmate-p4c's output and from p4c's JSON) gives BMv2's output for
every frame.  The seeds include those that found the bugs fixed in ``diffcases/fuzz_fuzzp.py``;
longer runs go through the CLI (``python -m tests.differential.fuzz_parsers --seeds 0-500``)."""
from __future__ import annotations

from fuzz_parsers_gen import generate
from seed_tests import fuzz_seed_tests

SEEDS = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 24, 26, 27, 28]


targets, pytestmark, test_generator_is_deterministic, test_random_parser_program = fuzz_seed_tests(
    generate, SEEDS, "fuzz_parsers", det_seeds=(5, 6))
