"""Run diffcases several times in a row on both switches and list the ones whose comparison
changes from run to run: a case that depends on BMv2's timing rather than on the program.

The usual cause is a read of a field of an invalid header.  BMv2 takes each packet's PHV from a
pool and only marks its headers invalid, so such a field holds whatever the packet that used
that PHV last left there -- and which PHV a packet gets (one of this program's earlier packets, a
fresh one) depends on BMv2's threads, also across SetForwardingPipelineConfig of the same
program.  A case that reads one without writing it first passes most of the time and fails
now and then (CI, the conformance report, the suite's slower second look); running each case
back to back, as here, shows it within a few runs.  The cure is in the case: write the field
before the read (see ``diffcases/fuzz_fuzzx.py``, ``copyback11.py``).

    python tests/differential/repeat_cases.py [--match SUBSTRING] [--runs 4] [--start N]

Needs real p4c and simple_switch_grpc on PATH.  Cases BMv2 cannot load (``p4info_only``) and
known differences are left out, as in ``test_differential.py``.  Prints ``DIFFERS name k/n``
per case that differed in k of n runs and exits 1 if there was one.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from diff_harness import TargetError, compile_both  # noqa: E402
from diff_session import Targets, both  # noqa: E402
from diffcases import KNOWN, all_cases  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--match", default="", help="only cases whose name contains this")
    ap.add_argument("--runs", type=int, default=4, help="runs per case, back to back")
    ap.add_argument("--start", type=int, default=0, help="skip the first N selected cases")
    a = ap.parse_args(argv)
    cases = [c for c in all_cases() if a.match in c.name and not c.p4info_only and c.name not in KNOWN][a.start:]
    print(f"{len(cases)} cases x {a.runs} runs", flush=True)
    targets, varied = Targets(), 0
    try:
        for k, case in enumerate(cases, a.start):
            ref, ours = compile_both(case)
            bad = 0
            for _ in range(a.runs):
                try:
                    expected, got = both(targets, case, ref, ours, 0.25)
                except TargetError as e:   # a switch died or hung: report, restart, go on
                    print(f"SWITCH {k} {case.name}: {str(e)[:200]}", flush=True)
                    targets.check()
                    targets.restart(str(e).split(":", 1)[0])
                    bad += 1
                    continue
                bad += bool(expected.diff(got))
            if bad:
                varied += 1
                print(f"DIFFERS {k} {case.name} {bad}/{a.runs}", flush=True)
            if k % 50 == 0:
                print(f"... {k}", flush=True)
    finally:
        targets.stop()
    return 1 if varied else 0


if __name__ == "__main__":
    sys.exit(main())
