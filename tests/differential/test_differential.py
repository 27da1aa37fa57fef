"""Every case of diffcases on real p4c -> simple_switch_grpc and on checkmate-p4c ->
checkmate-switch: same P4Runtime writes, same frames; output frames per port, digests
and counters must be equal (BMv2 is the reference).  Both switches are started once per
session and take each program with SetForwardingPipelineConfig."""
from __future__ import annotations

import pytest

from diff_harness import compile_both, compile_p4c
from diff_session import compare, only_bmv2, redo_if_bmv2_died, targets_compiling_ahead
from diff_targets import bmv2_available
from diffcases import KNOWN, all_cases

CASES = all_cases()
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"differential suite needs real BMv2: {SKIP}")


@pytest.fixture(scope="module")
def targets():
    yield from targets_compiling_ahead(CASES)


def params():
    # a case BMv2 cannot load (p4info_only says why) is compared by test_p4info_equal only
    for c in (c for c in CASES if not c.p4info_only):
        marks = []
        if c.name in KNOWN:
            _, strict, reason = KNOWN[c.name]
            marks = [pytest.mark.xfail(strict=strict, reason=reason)]
        yield pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("case", list(params()))
def test_same_as_bmv2(targets, case):
    ref, ours = compile_both(case)
    expected = _compare(targets, case, ref, ours)
    assert expected.ports or expected.digests or any(expected.counters.values()), \
        "BMv2 produced no frame, digest or counter: the case would compare nothing"


@pytest.mark.parametrize("case", [c for c in CASES if c.json_path], ids=lambda c: c.name)
def test_p4c_json_same_as_bmv2(targets, case):
    """p4c's BMv2 JSON on checkmate-switch gives BMv2's output (loader bugs, not compiler ones)."""
    ref = compile_p4c(case)
    assert not isinstance(ref, str), f"the case itself is not valid for p4c:\n{ref}"
    _compare(targets, case, ref, ref)


def _compare(targets, case, ref, ours):
    """Run ``case`` on BMv2 (``ref``) and checkmate-switch (``ours``); assert the same observation.
    Returns BMv2's."""
    expected, diff, dead = redo_if_bmv2_died(lambda: compare(targets, case, ref, ours),
                                             lambda r: only_bmv2(r[2]))
    assert not dead, "a switch died on this program:\n" + "\n".join(dead)
    assert not diff, "\n".join(diff)
    return expected
