"""Programs of helper errs27's probe sweep that p4c 1.2.4.8 compiles and simple_switch 1.15.5
refuses to load (the method and the checks are test_load_refused.py's; /work/errs27 probes
c_ie_same*, c2_ie_*, sscheck.py on simple_switch_grpc):

* one control given as V1Switch's ingress and egress: p4c's JSON has both pipelines name the same
  tables and conditionals, and simple_switch refuses it ("Duplicate objects of type 'control node'";
  simple_switch_grpc answers SetForwardingPipelineConfig, then dies); checkmate-switch ran it
  (elab_blocks.build now notes the load refusal).  A control whose body p4c empties (declarations,
  an ``if`` with empty branches) loads, as does one with constructor arguments (p4c specializes
  each instantiation, the same arguments or not).
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_Q = "control Q(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { %s } }"
_Q2 = ("control Q2(inout headers hdr, inout meta_t m, inout standard_metadata_t sm)(bit<8> k) "
       "{ apply { hdr.h.a = k; } }")


def _both(body: str | None, args: str = "Q(), Q()") -> str:
    top = _Q2 if body is None else _Q % body
    return program().replace("V1Switch(P(), VC(), I(), E(), CC(), D())", f"{top}\nV1Switch(P(), VC(), {args}, CC(), D())")


_DUP = "Duplicate objects of type 'control node'"

REFUSED = {
    "control_as_ingress_and_egress_assigns": (_both("hdr.h.a = 1;"), "Q(), CC()", _DUP),
    "control_as_ingress_and_egress_drops": (_both("if (hdr.h.isValid()) { mark_to_drop(sm); }"), "Q(), CC()", _DUP),
    "control_as_ingress_and_egress_exits": (_both("exit;"), "Q(), CC()", _DUP),
}

LOADED = {
    "control_as_ingress_and_egress_empty": _both(""),
    "control_as_ingress_and_egress_declares": _both("bit<8> x = hdr.h.a;"),
    "control_as_ingress_and_egress_empty_if": _both("if (hdr.h.isValid()) { }"),
    "control_as_ingress_and_egress_two_specializations": _both(None, "Q2(1), Q2(2)"),
    "control_as_ingress_and_egress_same_arguments": _both(None, "Q2(1), Q2(1)"),
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))
