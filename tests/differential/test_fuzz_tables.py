"""Fixed seeds of the random table/action/extern programs (fuzz_tables.py) on real p4c -> BMv2
and checkmate-p4c -> checkmate-switch: same P4Info, same frames/digests/counters, and p4c's
JSON on checkmate-switch gives BMv2's output too.  Longer runs: the module's CLI."""
from __future__ import annotations

import pytest

from diff_targets import bmv2_available
from fuzz_run import assert_agrees
from fuzz_tables import generate

# seeds whose programs p4c accepts (a seed p4c rejects is a generator matter, not a test), spread
# over every feature the generator has
SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 18, 19, 20]


@pytest.fixture(scope="module")
def targets():
    """The module's switches, p4c compiling the seeds' programs ahead (the conftest fixture without that)."""
    from diff_session import targets_compiling_ahead
    yield from targets_compiling_ahead(generate(s) for s in SEEDS)


SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"random-program differential needs real BMv2: {SKIP}")


def test_generator_is_deterministic():
    a, b = generate(3), generate(3)
    assert (a.source, a.frames, a.entries, a.defaults) == (b.source, b.frames, b.entries, b.defaults)
    assert generate(4).source != a.source


@pytest.mark.parametrize("seed", SEEDS)
def test_random_tables_program(targets, seed):
    case = generate(seed)
    assert_agrees(targets, case, seed, "fuzz_tables")
