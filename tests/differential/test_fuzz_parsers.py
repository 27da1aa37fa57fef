"""A fixed set of random parser / deparser programs (``fuzz_parsers``) against real p4c + BMv2:
for each seed p4c accepts the program, checkmate-p4c compiles it to the same P4Info, and
checkmate-switch (from checkmate-p4c's output and from p4c's JSON) gives BMv2's output for
every frame.  The seeds include those that found the bugs fixed in ``diffcases/fuzz_fuzzp.py``;
longer runs go through the CLI (``python -m tests.differential.fuzz_parsers --seeds 0-500``)."""
from __future__ import annotations

import pytest

from diff_harness import compile_p4c
from diff_targets import bmv2_available
from fuzz_run import check_case
from fuzz_parsers_gen import generate

SEEDS = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 24, 26, 27, 28]
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"random-program check needs real p4c and BMv2: {SKIP}")


@pytest.fixture(scope="module")
def targets():
    from diff_session import targets_compiling_ahead
    yield from targets_compiling_ahead(generate(s) for s in SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_parser_program(targets, seed):
    case = generate(seed)
    assert not isinstance(compile_p4c(case), str), "p4c rejects this seed's program (the generator should not)"
    o = check_case(targets, case, seed)
    assert not o.findings, "\n".join(f"{kind}: {text[:3000]}" for kind, text in o.findings)


def test_generator_is_deterministic():
    a, b = generate(5), generate(5)
    assert a.source == b.source and a.frames == b.frames
    assert generate(6).source != a.source
