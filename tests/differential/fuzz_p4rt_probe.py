"""Probe: run a hand-written op list (fuzz_p4rt op tuples) for one seed's program on both switches and
print both answers side by side -- the tool used to pin down a finding of fuzz_p4rt before fixing it.

    python tests/differential/fuzz_p4rt_probe.py SEED FILE.py   (FILE defines ops(info, pb) -> [op])
"""
from __future__ import annotations

import runpy
import sys

import fuzz_p4rt as F


def main(seed: int, path: str) -> None:
    from diff_session import Targets
    from p4.v1 import p4runtime_pb2 as pb
    t = Targets()
    try:
        case = F.Case(name=f"probe_{seed}", category="probe", source=F.generate(seed))
        ref = F.compile_p4c(case)
        make = runpy.run_path(path)["ops"]
        base = (seed + 1) << 40
        config = F.pipeline_config(ref.p4info, ref.device_config)
        norm = F.Normalizer(ref.p4info)
        sides = []
        for tg in (t.bmv2, t.cm):
            s = F._open(tg, base, config)
            s.primary.set_pipeline(config, "VERIFY_AND_COMMIT", election_id=base)
            sides.append(s)
        for op in make(ref.p4info, pb):
            a, b = F.run_both(sides, op, norm)
            print(("   " if a == b else "!! ") + F.describe(op)[:600])
            print(f"     bmv2: {a}\n     ours: {b}")
        for s in sides:
            F._close(s)
    finally:
        t.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
