"""Programs of helper errs27's probe sweep that p4c 1.2.4.8 compiles and simple_switch 1.15.5
refuses to load (the method and the checks are test_load_refused.py's; /work/errs27 probes
c_ie_same*, c2_ie_*, sscheck.py on simple_switch_grpc):

* one control given as V1Switch's ingress and egress: p4c's JSON has both pipelines name the same
  tables and conditionals, and simple_switch refuses it ("Duplicate objects of type 'control node'";
  simple_switch_grpc answers SetForwardingPipelineConfig, then dies); checkmate-switch ran it
  (elab_blocks.build now notes the load refusal).  A control whose body p4c empties (declarations,
  an ``if`` with empty branches) loads, as does one with constructor arguments (p4c specializes
  each instantiation, the same arguments or not).
* a header stack element emitted at a run-time index (``pkt.emit(hdr.hs[hdr.h.a])``): p4c writes a
  ``dereference_header_stack`` expression into the deparser's ``order``, and simple_switch dies
  loading it ("Type is not convertible to string"); checkmate-switch loaded checkmate-p4c's build
  (elab_packets.emit_stmts now notes the load refusal) and the switch/bmv2json loader raised a
  TypeError of its own (program.deparser now refuses it with BMv2's words).

``P4C_JSON_RUNS``: programs whose p4c JSON simple_switch loads and the switch/bmv2json loader
could not run (errs26's open items): a zero-size header stack (its header type left out of the
IR: NameError at the first packet; model.ir_headers) and ``random`` in a deparser (p4c's
scalars written there, and the deparser has no meta parameter; program.deparser).
"""
from __future__ import annotations

import json

import pytest

import test_load_refused as base
from p4c_helpers import p4c_accepts, program
from switch.bmv2json import translate
from switch.compiler import compile_source
from switch.runtime import Pipeline

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
    "emit_of_a_stack_element_at_a_run_time_index": (
        program().replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[3] hs; }").replace(
            "pkt.emit(hdr.h);", "pkt.emit(hdr.h); pkt.emit(hdr.hs[hdr.h.a]);"),
        "[hdr.h.a]", "Type is not convertible to string"),
}

LOADED = {
    "control_as_ingress_and_egress_empty": _both(""),
    "control_as_ingress_and_egress_declares": _both("bit<8> x = hdr.h.a;"),
    "control_as_ingress_and_egress_empty_if": _both("if (hdr.h.isValid()) { }"),
    "control_as_ingress_and_egress_two_specializations": _both(None, "Q2(1), Q2(2)"),
    "control_as_ingress_and_egress_same_arguments": _both(None, "Q2(1), Q2(1)"),
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))

P4C_JSON_RUNS = {
    "zero_size_stack": program(top="header z_t { bit<8> z; }").replace(
        "struct headers { h_t h; }", "struct headers { h_t h; z_t[0] zs; }"),
    "random_in_the_deparser": program().replace(
        "pkt.emit(hdr.h); }", "pkt.emit(hdr.h); bit<8> v; random(v, 0, 3); }"),
}


@pytest.mark.parametrize("name", sorted(P4C_JSON_RUNS))
def test_p4c_json_runs_as_our_build(name, tmp_path):
    text = P4C_JSON_RUNS[name]
    if not p4c_accepts(text, tmp_path):
        pytest.skip("needs real p4c on PATH")
    frame = bytes([1, 2, 3, 4]) + bytes(range(16))
    theirs = Pipeline(translate(json.loads((tmp_path / "prog.json").read_text()))).process(0, frame)
    ours = Pipeline(compile_source(text, "prog.p4").device_config).process(0, frame)
    assert theirs == ours
