"""Fixed seeds of the random replication / state programs (fuzz_pre.py) on real p4c -> BMv2 and
checkmate-p4c -> checkmate-switch: same P4Info, same frames (frame by frame where registers carry
state), counters, and p4c's JSON on checkmate-switch gives BMv2's output too.  Longer runs: the
module's CLI."""
from __future__ import annotations

import pytest

from diff_targets import bmv2_available
from fuzz_pre import generate
from fuzz_run import assert_agrees

# seeds whose programs p4c accepts and BMv2 runs, spread over the generator's features (clone
# chains, resubmit, recirculation, multicast with repeated ports, registers frame by frame)
SEEDS = list(range(20))


@pytest.fixture(scope="module")
def targets():
    """The module's switches, p4c compiling the seeds' programs ahead (the conftest fixture without that)."""
    from diff_session import targets_compiling_ahead
    yield from targets_compiling_ahead(generate(s) for s in SEEDS)


SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"random-program differential needs real BMv2: {SKIP}")


def test_generator_is_deterministic():
    a, b = generate(3), generate(3)
    assert (a.source, a.frames, a.mcast, a.clones, a.one_by_one) == (b.source, b.frames, b.mcast, b.clones, b.one_by_one)
    assert generate(4).source != a.source


@pytest.mark.parametrize("seed", SEEDS)
def test_random_replication_program(targets, seed):
    case = generate(seed)
    assert_agrees(targets, case, seed, "fuzz_pre")
