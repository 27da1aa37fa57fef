"""Regenerate the counts in docs/CONFORMANCE.md from a run of the differential suite.

    .venv/bin/python tools/conformance_report.py        (or: make conformance-report)

Runs ``tests/differential`` with pytest (needs real p4c and simple_switch_grpc on PATH,
see ../shared/p4ref), reads its JUnit XML and rewrites the block between the
``<!-- differential-report -->`` markers of docs/CONFORMANCE.md: per category, how many
programs behave as on BMv2, how many are known differences (listed with their reason
further down in that document), how many fail; the same for P4Info equality and for the
invalid programs.  Exits 1 when the suite could not run (no BMv2) or a test failed.
"""
from __future__ import annotations

import collections
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "CONFORMANCE.md"
BEGIN, END = "<!-- differential-report -->", "<!-- /differential-report -->"


def run_suite(xml: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            f"--junitxml={xml}", "tests/differential"], cwd=REPO, env=env)


def outcomes(xml: Path) -> dict[tuple[str, str], str]:
    """(test function, case id) -> passed | known | failed | skipped."""
    out = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        name = tc.get("name", "")
        func, _, rest = name.partition("[")
        case = rest.rstrip("]")
        tags = {c.tag for c in tc}
        skipped = tc.find("skipped")
        if skipped is not None and "xfail" in (skipped.get("type", "") + skipped.get("message", "")).lower():
            res = "known"
        elif "skipped" in tags:
            res = "skipped"
        elif tags & {"failure", "error"}:
            res = "failed"
        else:
            res = "passed"
        out[(func, case)] = res
    return out


def table(rows: dict, title: str, first: str, ok: str = "same as BMv2/p4c") -> list[str]:
    lines = [f"| {first} | programs | {ok} | known differences | failing |", "|---|---|---|---|---|"]
    tot = collections.Counter()
    for cat, c in sorted(rows.items()):
        n = sum(c.values())
        lines.append(f"| {cat} | {n} | {c['passed']} | {c['known']} | {c['failed']} |")
        tot.update(c)
        tot["n"] += n
    lines.append(f"| **all** | **{tot['n']}** | **{tot['passed']}** | **{tot['known']}** | **{tot['failed']}** |")
    return [f"**{title}**", ""] + lines + [""]


def main() -> int:
    sys.path.insert(0, str(REPO / "tests" / "differential"))
    sys.path.insert(0, str(REPO))
    from diffcases import all_cases

    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "report.xml"
        rc = run_suite(xml)
        if not xml.exists():
            print("the suite did not run", file=sys.stderr)
            return 1
        res = outcomes(xml)
    if any(v == "skipped" for v in res.values()):
        print("tests were skipped (p4c / simple_switch_grpc missing?): report not written", file=sys.stderr)
        return 1
    cats = {c.name: c.category for c in all_cases()}
    diff, p4i, inv = (collections.defaultdict(collections.Counter) for _ in range(3))
    for (func, case), r in res.items():
        if func == "test_same_as_bmv2":
            diff[cats.get(case, "?")][r] += 1
        elif func == "test_p4info_equal":
            p4i[cats.get(case, "?")][r] += 1
        elif func == "test_rejected_with_position":
            inv["invalid programs"][r] += 1
    from diffcases import KNOWN
    sys.path.insert(0, str(REPO / "tests" / "differential"))
    import test_invalid
    known = ["**Known differences** (case: reason)", ""]
    known += [f"* `{name}` ({where}): {reason}" for name, (where, _, reason) in sorted(KNOWN.items())]
    known += [f"* invalid `{name}`: checkmate-p4c {gap}" for name, (_, _, gap) in sorted(test_invalid.INVALID.items()) if gap]
    if len(known) == 2:
        known.append("none: every case of the suite matches BMv2 / p4c")
    body = known + [""] + (table(diff, "Output frames per port, digests and counters: checkmate-p4c → checkmate-switch "
                        "against p4c → simple_switch_grpc", "category")
            + table(p4i, "P4Info protobuf equal to p4c's", "category")
            + table(inv, "Programs p4c rejects, rejected by checkmate-p4c with file:line:col", "suite",
                    "rejected as p4c does"))
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        print(f"{DOC}: markers {BEGIN} / {END} missing", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + BEGIN + "\n" + "\n".join(body) + END + tail)
    print(f"{DOC} updated")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
