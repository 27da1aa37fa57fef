"""Programs found by helper errs24 (issue #15): the open items of errs23's probe sweep (kept in
/work/errs23 and /work/errs24, outside the repository), each decided by real p4c 1.2.4.8 and
simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused.
"""
from .base import case, H, program, varbit_program

CAT = "front end (p4c-compatible)"

CASES = []

_VB_FRAMES = [(1, bytes.fromhex("000000000002000000000001") + b"\x12\x34" + bytes([n]) + bytes(range(1, 9)) + b"\x77")
              for n in (0, 8, 16, 24)]

# A list initializer (or a local's) for a header with a varbit field: p4c writes add_header, then
# the fields one at a time (assign_VL for the varbit: its bits and its length); one that reads the
# header itself goes through a temporary p4c never makes valid (assign_header from it: the header
# ends invalid).  checkmate-p4c refused "type mismatch: expected bit<32>, got varbit" (/work/errs23
# c_vb_init_list: `hdr.v2 = { 1, hdr.v2.v }`)
CASES.append(case("errs24_varbit_header_list_initializer", CAT, varbit_program(
    "    apply {\n        sm.egress_spec = 1;\n"
    "        if (hdr.len.n == 8) { hdr.x = { hdr.x.v }; }\n"
    "        else if (hdr.len.n == 16) { hdr.y = { hdr.x.v }; }\n"
    "        else if (hdr.len.n == 24) { hdr.y = { v = hdr.x.v }; hdr.x.setInvalid(); }\n"
    "        else { vb_t t = { hdr.y.v }; hdr.x = t; }\n    }"), frames=_VB_FRAMES))

# clone() whose CloneType is an action's (or a function's) parameter, the action called directly
# with a member or a constant, also through another action: p4c inlines each call and its
# constant propagation gives the clone its type; checkmate-p4c refused "expected a CloneType
# member" (/work/errs23 g_clone_ct_param_action; probes /work/errs24/c)
CASES.append(case("errs24_clone_type_from_an_action_parameter", CAT, program(
    "        if (hdr.h.a == 1) { a(CloneType.I2E, 5); } else if (hdr.h.a == 2) { b(GCT); }\n"
    "        else if (hdr.h.a == 3) { f(CloneType.I2E); }\n",
    top="const CloneType GCT = CloneType.I2E;\n"
        "void f(in CloneType t) { clone(t, 32w5); }\n",
    ingress_decls="    action a(CloneType ct, bit<32> s) { clone(ct, s); hdr.h.b = 1; }\n"
                  "    action b(CloneType c) { a(c, 32w5); hdr.h.c = 3; }\n"),
    frames=[(1, H(a, 1, 2, 3)) for a in range(4)], clones={5: ([(3, 0)], 0)}))

# A varbit field of a local struct (read, written, the struct copied, passed to an action): p4c
# makes the local a metadata header instance of the struct (assign_VL into and out of it), which
# simple_switch runs; checkmate-p4c refused "varbit fields are only supported in headers (and the
# user metadata) by the embedded target" (/work/errs23 open item; probes /work/errs24/s, s2)
CASES.append(case("errs24_varbit_field_of_a_local_struct", CAT, varbit_program(
    "    action b(in vs_t q) { hdr.y.v = q.a; }\n"
    "    action c() { vs_t w; w.l = 1; w.a = hdr.x.v; b(w); if (hdr.len.n == 0) { w.l = 2; } hdr.len.n = w.l; }\n"
    "    apply {\n        sm.egress_spec = 1;\n"
    "        vs_t s; s.l = hdr.len.n; s.a = hdr.x.v;\n"
    "        vs_t t = s;\n"
    "        if (hdr.len.n == 8) { s.a = hdr.y.v; }\n"
    "        hdr.x.v = hdr.y.v;\n"
    "        hdr.y.v = s.a;\n"
    "        if (hdr.len.n == 16) { hdr.x.v = t.a; } else if (hdr.len.n == 24) { b(t); } else { c(); }\n    }",
    top="struct vs_t { bit<8> l; varbit<32> a; }\n"), frames=_VB_FRAMES))
