"""Fixed seeds of the random replication / state programs (fuzz_pre.py) on real p4c -> BMv2 and
checkmate-p4c -> checkmate-switch: same P4Info, same frames (frame by frame where registers carry
state), counters, and p4c's JSON on checkmate-switch gives BMv2's output too.  Longer runs: the
module's CLI."""
from __future__ import annotations

from fuzz_pre import generate
from seed_tests import fuzz_seed_tests

# seeds whose programs p4c accepts and BMv2 runs, spread over the generator's features (clone
# chains, resubmit, recirculation, multicast with repeated ports, registers frame by frame)
SEEDS = list(range(20))


targets, pytestmark, test_generator_is_deterministic, test_random_replication_program = fuzz_seed_tests(
    generate, SEEDS, "fuzz_pre", same=("source", "frames", "mcast", "clones", "one_by_one"),
    reason="random-program differential needs real BMv2")
