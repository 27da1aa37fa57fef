"""Programs of helper errs26's probe sweep that p4c 1.2.4.8 compiles and simple_switch 1.15.5
loads and dies executing (the method and the checks are test_load_refused.py's; /work/errs26
probes s_sb_sp_stack_next, ss3/*, sscheck.py on simple_switch_grpc):

* a sub-parser given a stack's ``.next`` as its ``out`` header argument: p4c inlines the call and
  writes, where it starts, ``remove_header`` of a ``stack_field`` ``[stack, "next"]`` (the
  argument made invalid), which simple_switch dies executing ("Default switch case should not be
  reachable", bm_sim/actions.h) -- as for ``hs.next.setInvalid()`` (errs22); checkmate-switch
  extracted into the element (elab_calls.apply_subparser now drops the packet there).
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program, with_stack

_SP = "parser SP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }"


def _subparser_next() -> str:
    return with_stack(program(top=_SP)).replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        "    SP() sp;\n    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { 9: s1; default: accept; } }\n"
        "    state s1 { sp.apply(pkt, hdr.hs.next); transition accept; }")


DIES = {
    "subparser_out_argument_stack_next": (_subparser_next(), "sp.apply(pkt, hdr.hs.next);"),
}

globals().update(base.load_refusal_tests({}, {}, DIES))
