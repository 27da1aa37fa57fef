"""Every case of diffcases on real p4c -> simple_switch_grpc and on checkmate-p4c ->
checkmate-switch: same P4Runtime writes, same frames; output frames per port, digests
and counters must be equal (BMv2 is the reference).  Both switches are started once per
session and take each program with SetForwardingPipelineConfig."""
from __future__ import annotations

import pytest

from diff_harness import compile_checkmate, compile_p4c, run_case
from diff_targets import BMv2Target, CheckmateTarget, bmv2_available
from diffcases import KNOWN, all_cases

CASES = all_cases()
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"differential suite needs real BMv2: {SKIP}")


@pytest.fixture(scope="module")
def targets():
    b = BMv2Target()
    try:
        c = CheckmateTarget()
    except Exception:
        b.stop()
        raise
    yield b, c
    b.stop()
    c.stop()


def params():
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[c.name])] if c.name in KNOWN else []
        yield pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("case", list(params()))
def test_same_as_bmv2(targets, case):
    from switch.compiler import P4CompileError

    ref = compile_p4c(case)
    assert not isinstance(ref, str), f"the case itself is not valid for p4c:\n{ref}"
    try:
        ours = compile_checkmate(case)
    except P4CompileError as e:
        pytest.fail(f"checkmate-p4c rejects a program p4c accepts: {e}")
    bmv2, cm = targets
    diff = run_case(bmv2, case, ref).diff(run_case(cm, case, ours))
    if diff:  # quiescence is a timeout: believe a difference only after a slower second look
        diff = run_case(bmv2, case, ref, idle=1.5).diff(run_case(cm, case, ours, idle=1.5))
    assert not diff, "\n".join(diff)
