"""The CI tests of a random-program generator's fixed seeds, made once for every ``test_fuzz_*``
module that checks seeds the same way.

Each such module binds what :func:`fuzz_seed_tests` returns under its own names (pytest names a
test by the module attribute, so the test ids stay the module's)::

    targets, pytestmark, test_generator_is_deterministic, test_random_tables_program = \\
        fuzz_seed_tests(generate, SEEDS, "fuzz_tables", same=("source", "frames", "entries"))

-- a module-scoped ``targets`` fixture (one BMv2 + checkmate-switch pair while p4c compiles every
seed's program in the background), the skip mark when real BMv2 is missing, the generator's
determinism check, and one test per seed: p4c accepts the program and nothing disagrees
(:func:`fuzz_run.assert_agrees`).  A module that binds the list it later extends in place
XX
contents at that point.
"""
from __future__ import annotations

import pytest

from diff_targets import bmv2_available
from fuzz_run import assert_agrees


def fuzz_seed_tests(make_case, seeds: list[int], cli: str, *, same: tuple[str, ...] = ("source", "frames"),
                    det_seeds: tuple[int, int] = (3, 4), frames_required: bool = False,
                    reason: str = "random-program differential needs real p4c + BMv2"):
    """``(targets fixture, pytestmark, determinism test, seed test)`` for ``make_case(seed) -> Case``.

    ``same``: the case attributes two calls with one seed must agree on; ``det_seeds``: the seed
    generated twice and a second one whose program must differ; ``frames_required``: a seed whose
    program makes BMv2 emit nothing fails (it would compare nothing); ``cli``: the generator
    module named in a failure (its ``--seeds N --print`` shows the program)."""
    skip = bmv2_available()
    mark = pytest.mark.skipif(skip is not None, reason=f"{reason}: {skip}")

    @pytest.fixture(scope="module", name="targets")
    def targets():
        """The module's switches, p4c compiling the seeds' programs ahead (the conftest fixture without that)."""
        from diff_session import targets_compiling_ahead
        yield from targets_compiling_ahead(make_case(s) for s in seeds)

    def test_generator_is_deterministic():
        a, b = make_case(det_seeds[0]), make_case(det_seeds[0])
        assert [getattr(a, f) for f in same] == [getattr(b, f) for f in same]
        assert make_case(det_seeds[1]).source != a.source

    @pytest.mark.parametrize("seed", list(seeds))
    def test_seed(targets, seed):
        o = assert_agrees(targets, make_case(seed), seed, cli)
        if frames_required:
            assert not o.empty, f"seed {seed}: BMv2 emitted no frame, the program compares nothing"

    return targets, mark, test_generator_is_deterministic, test_seed
