"""Stamped probe: which pooled PHV each copy of an I2E clone or a multicast group takes on BMv2,
frame after frame, on fresh BMv2 processes (helper p4rt68; p4rt61 probed E2E clones so).

Every pass stamps the never-valid header ``st`` with ``h.a << 8 | kind`` (1: a received packet's
ingress, 2: a resubmitted pass's, 0x80 | port: a copy's egress) after writing the stamp it found
into the frame (a copy: ``h.d``), so each output names the PHV its copy got.  Frame ``b`` values:
1 resubmits once (leaving two PHVs in a known order), 2 clones I2E to session 5, 3 multicasts to
group 7.  What ``diffcases/p4rt68.py`` checks is the deterministic part (the frame after the
resubmit); the frames after a frame with copies come out several ways from run to run (BMv2's
egress and transmit threads release the copies' PHVs in racing order), alone or beside
checkmate-switch.

    PYTHONPATH=$PWD PATH=/opt/p4lang/bin:$PATH .venv/bin/python tests/differential/probe_clone_phvs.py \\
        [VARIANT,...] [--frames 1,2,2,2] [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import compile_both, run_case  # noqa: E402
from diff_session import Targets, both  # noqa: E402
from diffcases.base import H, case, program  # noqa: E402

_CLONE = "clone(CloneType.I2E, 5);"
_CLONE_FL = "clone_preserving_field_list(CloneType.I2E, 5, 1);"
# name -> (clone statement, the original forwarded, clone session replicas, multicast group replicas)
VARIANTS = {
    "drop_2rep_one_thread": (_CLONE, False, [(2, 0), (6, 1)], []),
    "drop_2rep_two_threads": (_CLONE, False, [(2, 0), (3, 1)], []),
    "fwd_2rep": (_CLONE, True, [(2, 0), (3, 1)], []),
    "drop_3rep_field_list": (_CLONE_FL, False, [(2, 0), (3, 1), (4, 2)], []),
    "fwd_1rep_field_list": (_CLONE_FL, True, [(2, 0)], []),
    "mc_2nodes": (_CLONE, False, [(2, 0)], [(2, 0), (3, 1)]),
    "mc_2nodes_3ports": (_CLONE, False, [(2, 0)], [(3, 0), (2, 0), (4, 1)]),
}


def source(clone: str, forward: bool) -> str:
    ingress = f"""
        if (sm.instance_type == 0) {{
            hdr.h.c = hdr.st.x[15:0];
            hdr.st.x = (bit<32>)hdr.h.a << 8 | 1;
            meta.keep = hdr.st.x + 0x10000;
            if (hdr.h.b == 1) {{ resubmit_preserving_field_list(0); }}
            else if (hdr.h.b == 2) {{ {clone} }}
            {"sm.egress_spec = 1;" if forward else "mark_to_drop(sm);"}
            if (hdr.h.b == 3) {{ sm.mcast_grp = 7; }}
        }} else {{
            hdr.st.x = (bit<32>)hdr.h.a << 8 | 2;
            mark_to_drop(sm);
        }}"""
    egress = """
        hdr.h.d = hdr.st.x;
        hdr.h.c = meta.keep[15:0] ^ (bit<16>)sm.instance_type << 12;
        hdr.st.x = (bit<32>)hdr.h.a << 8 | 0x80 | (bit<32>)sm.egress_port;"""
    return program(ingress, egress=egress, headers="header s_t { bit<32> x; }\n", fields="    s_t st;\n",
                   meta="    @field_list(1) bit<32> keep;\n", forward=False)


def show(obs) -> str:
    """Per frame, per output: port, h.a, h.c (the preserved field, instance type), h.d (the stamp read)."""
    out = []
    for i, frame in enumerate(obs.ports["seq"]):
        parts = []
        for p, h in frame:
            b = bytes.fromhex(h)
            parts.append(f"p{p}:a{b[14]:02x} c{int.from_bytes(b[16:18], 'big'):04x} "
                         f"d{int.from_bytes(b[18:22], 'big'):08x} len{len(b)}")
        out.append(f"f{i}[" + " ".join(parts) + "]")
    return " ".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="?", default=",".join(VARIANTS))
    ap.add_argument("--frames", default="1,2,2,2", help="each frame's h.b (frame i has h.a = 0x11 * (i + 1))")
    ap.add_argument("--runs", type=int, default=3, help="fresh BMv2 runs (every other one also BMv2 alone)")
    a = ap.parse_args(argv)
    frames = [(1, H(0x11 * (i + 1), int(b))) for i, b in enumerate(a.frames.split(","))]
    t = Targets()
    try:
        for name in a.variants.split(","):
            clone, forward, reps, group = VARIANTS[name]
            c = case(f"p4rt68_probe_{name}", "replication", source(clone, forward), frames=frames,
                     clones={5: (reps, 0)}, mcast={7: group} if group else {}, one_by_one=True)
            ref, ours = compile_both(c)
            for r in range(a.runs):
                t.restart(t.bmv2.name)
                b, m = both(t, c, ref, ours, 0.5)
                print(f"{name} run{r} bmv2:  {show(b)}", flush=True)
                if r == 0:
                    print(f"{name} run{r} cm:    {show(m)}", flush=True)
                if r % 2:
                    t.restart(t.bmv2.name)
                    print(f"{name} run{r} alone: {show(run_case(t.bmv2, c, ref, 0.5))}", flush=True)
    finally:
        t.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
