"""checkmate-p4c's P4Info equals p4c's for every program of the differential suite: the
whole protobuf (names, ids, aliases, annotations, match fields, action params and their
widths, counters, meters, registers, digests with type_info, pkg_info), every entity list
in p4c's order too -- the same message."""
from __future__ import annotations

import difflib

import pytest

from switch.compiler.p4info import canonical_text as canonical
from diff_harness import compile_both
from diff_targets import bmv2_available
from diffcases import KNOWN, all_cases

CASES = all_cases()
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"needs real p4c: {SKIP}")

# Programs whose P4Info still differs, with the reason (strict xfail: a fix must remove it):
# those checkmate-p4c cannot compile yet (diffcases.KNOWN, "compile") and any listed here.
KNOWN_P4INFO: dict[str, str] = {name: reason for name, (where, _, reason) in KNOWN.items() if where == "compile"}


def params():
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_P4INFO[c.name])] if c.name in KNOWN_P4INFO else []
        yield pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("case", list(params()))
def test_p4info_equal(case):
    ref, ours = compile_both(case)
    a, b = canonical(ref.p4info), canonical(ours.p4info)
    if a != b:
        diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "p4c", "checkmate-p4c", lineterm="", n=2))
        pytest.fail(f"P4Info differs from p4c's:\n{diff[:6000]}")
