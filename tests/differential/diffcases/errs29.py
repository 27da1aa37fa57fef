"""Programs found by helper errs29 (issue #15): locals of the user metadata type that p4c's mid end
removes (probes kept in /work/errs29, outside the repository: a_*, b_*), each decided by real p4c
1.2.4.8 and simple_switch_grpc.

``CASES``: programs p4c accepts and simple_switch loads that checkmate-switch refused to load.
The load refusals themselves: tests/p4c/test_errs29_loads.py.
"""
from .base import VALUES, case, program

CAT = "load (simple_switch decides)"

CASES = []

# A control-level local of the user metadata type written by register reads whose values nothing
# reads (in a table's action, in the body before a store overwrites it, beside an action that reads
# it that no table applies): p4c removes the reads and the local, simple_switch loads the JSON
# (/work/errs29 a_c_reg_action_dead, a_c_reg_body_overwritten, a_c_reg_action_reads_unapplied);
# checkmate-switch refused the build ("No field 'userMetadata.m8'") as the control's tables were
# not followed (elab_load_refusals.refuse_metadata_local_copies -> meta_locals).
CASES.append(case("errs29_control_metadata_local_dead_register_reads", CAT, program(
    "        r.write(0, hdr.h.a);\n        t.apply();\n        r.read(s.m8, 0);\n        s.m8 = hdr.h.b;\n"
    "        hdr.h.c = (bit<16>)s.m8;\n",
    ingress_decls="    register<bit<8>>(4) r;\n    meta_t s;\n"
                  "    action a() { r.read(s.m8, 0); hdr.h.b = hdr.h.a + 1; }\n"
                  "    action unused() { hdr.h.d = (bit<32>)s.m8; }\n"
                  "    table t { actions = { a; } default_action = a(); }\n"),
    frames=VALUES))
