"""Probe: in which order BMv2's egress threads run the copies of a multicast group or an I2E clone
session whose ports sit on different egress threads (port % 4), frame after frame, on fresh BMv2
processes (helper p4rt73; p4rt68 probed copies on one thread, ``diffcases/p4rt68.py``).

Every copy's egress reads a register, writes the value it read into ``h.d`` and adds
``1 + 16 * egress_port``: the value each copy read says which copies ran before it.  Output per
frame: the ports in the order their egress passes ran (``3<0`` = port 3's copy ran first), and
``node`` the group's node order (``switch.runtime.replication.node_order``), BMv2's read-back order.

    PYTHONPATH=$PWD PATH=/opt/p4lang/bin:$PATH .venv/bin/python tests/differential/probe_copy_order.py \\
        [VARIANT,...] [--frames 6] [--runs 3] [--checkmate]
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from diff_harness import compile_both  # noqa: E402
from diff_session import Targets, both  # noqa: E402
from diffcases.base import H, case, program  # noqa: E402
# (the register program of p4rt68's one-thread cases: each copy records which ran before it)
from diffcases.p4rt68 import _ORDER_EGRESS as _EGRESS, _ORDER_INGRESS as _INGRESS  # noqa: E402
from switch.runtime.replication import node_order  # noqa: E402

# name -> (h.b: 2 = I2E clone to session 5, 3 = multicast group 7; replicas written)
VARIANTS = {
    "i2e_0r0_3r2": (2, [(0, 0), (3, 2)]),
    "mc_2r0_3r1": (3, [(2, 0), (3, 1)]),
    "mc_3r0_2r1": (3, [(3, 0), (2, 1)]),
    "mc_1r0_2r1_3r2": (3, [(1, 0), (2, 1), (3, 2)]),
    "mc_fwd2_shadow4": (3, [(2, 0), (4, 1)]),
    "mc_shadow4_fwd2": (3, [(4, 1), (2, 0)]),
    "mc_one_node_1_2": (3, [(1, 0), (2, 0)]),
}


def the_case(name: str, frames: int):
    b, reps = VARIANTS[name]
    return case(f"probe_copy_order_{name}", "replication",
                program(_INGRESS, egress=_EGRESS, egress_decls="    register<bit<32>>(1) r;", forward=False),
                frames=[(1, H(0x10 + i, b)) for i in range(frames)], clones={5: (reps, 0)}, mcast={7: reps},
                one_by_one=True)


def run_order(obs, ncopies: int) -> list[str]:
    """Per frame: the ports in the order their copies' egress passes ran."""
    out = []
    base = 0
    for fr in obs.ports["seq"]:
        got = sorted((int(h[36:44], 16) - base, p) for p, h in fr)
        base += sum(1 + 16 * p for p, _ in fr)
        out.append("<".join(str(p) for _, p in got) if len(fr) == ncopies else f"?{fr}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="?", default=",".join(VARIANTS))
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--checkmate", action="store_true", help="print checkmate-switch's order too")
    a = ap.parse_args(argv)
    t = Targets()
    try:
        for name in a.variants.split(","):
            reps = VARIANTS[name][1]
            c = the_case(name, a.frames)
            ref, ours = compile_both(c)
            seen: Counter = Counter()
            for r in range(a.runs):
                t.restart(t.bmv2.name)
                bo, m = both(t, c, ref, ours, 0.5)
                order = run_order(bo, len(reps))
                seen.update(order)
                print(f"{name} run{r} bmv2: {' '.join(order)}", flush=True)
                if a.checkmate and r == 0:
                    print(f"{name} run{r} cm  : {' '.join(run_order(m, len(reps)))}", flush=True)
            node = "<".join(str(p) for p, _ in node_order(reps))
            print(f"{name}: written {reps} node {node}; bmv2 {dict(seen)}", flush=True)
    finally:
        t.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
