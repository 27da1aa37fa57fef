"""Which pooled PHV BMv2 gives each frame of a burst: the probe behind fuzz_mutants seed 5090 (helper mutz67).

    PATH=/opt/p4lang/bin:$PATH python tests/differential/probe_burst_phv.py [RUNS] [FRAMES]

A program whose ingress copies the never-valid ``h2.d`` into ``h.d`` and then stamps ``h2.d`` with the
frame's ``h.a`` (1, 2, ...): each output frame shows the frame whose PHV it got (0: a fresh one).  The
frames go as the differential harness sends them (a burst, ``diff_harness.send_frames``), each run on a
fresh simple_switch_grpc process and again after a second pipeline push; then once on checkmate-switch.
BMv2 1.15.5 answered ``[0, 0, 0, 0, 0]`` in most runs, but also ``[0, 1, 0, 3, 2]``, ``[0, 1, 2, 3, 4]``
and ``[0, 0, 0, 2, 1]`` on the same machine: a frame received while earlier ones are still in the
pipeline takes a new PHV, one received after one finished takes that one, so its thread timing decides
(checkmate-switch: fresh headers within ``engine.REUSE_GAP_S``, BMv2's most common answer).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case, compile_checkmate, compile_p4c, run_case  # noqa: E402
from diffcases.base import H, program  # noqa: E402

SOURCE = program("        hdr.h.d = hdr.h2.d;\n        hdr.h2.d = (bit<32>)hdr.h.a;\n")


def _stamps(obs) -> list[int]:
    """The ``h.d`` of each output frame, in the order of the frames' ``h.a``."""
    outs = sorted(bytes.fromhex(f) for fs in obs.ports.values() for f in fs)
    return [int.from_bytes(f[18:22], "big") for f in sorted(outs, key=lambda f: f[14])]


def main(runs: int = 5, frames: int = 5) -> None:
    from diff_targets import BMv2Target, CheckmateTarget
    case = Case(name="burst_phv", category="probe", source=SOURCE, frames=[(1, H(i + 1)) for i in range(frames)])
    ref = compile_p4c(case)
    assert not isinstance(ref, str), ref
    for i in range(runs):
        t = BMv2Target()
        try:
            print("bmv2", i, [_stamps(run_case(t, case, ref, 0.5)) for _ in range(2)], flush=True)
        finally:
            t.stop()
    t = CheckmateTarget()
    try:
        print("checkmate", [_stamps(run_case(t, case, compile_checkmate(case), 0.5)) for _ in range(2)])
    finally:
        t.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
