"""Programs p4c 1.2.4.8 compiles that simple_switch 1.15.5 refuses to load, found by helper errs62
(probes /work/errs62 ``gen_a.py``; the method and the checks are test_load_refused.py's):

* ``pkt.extract(hdr.s[i])`` into a stack element at a run-time index (``hdr.h.a``,
  ``hdr.s.lastIndex``): p4c writes the index expression where simple_switch wants a header's name
  and simple_switch dies loading the JSON ("Json::LogicError: Type is not convertible to string");
  checkmate-switch loaded it (elab_packets; ``elab_load_refusals.load_refusal``).  A constant index,
  ``hdr.s.next`` and a computed index (p4c extracts into a temporary copy) load.
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_W = "Type is not convertible to string"


def _st(start: str, states: str = "") -> str:
    return program().replace("struct headers { h_t h; }", "struct headers { h_t h; h_t[3] s; }").replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        f"    state start {{ pkt.extract(hdr.h); {start} }}\n{states}").replace(
        "pkt.emit(hdr.h);", "pkt.emit(hdr.h); pkt.emit(hdr.s);")


REFUSED = {
    "extract_at_a_header_field_index": (_st("pkt.extract(hdr.s[hdr.h.a]); transition accept;"), "[hdr.h.a]", _W),
    "extract_at_the_last_index": (_st("pkt.extract(hdr.s.next); pkt.extract(hdr.s[hdr.s.lastIndex]); transition accept;"),
                                  "[hdr.s.lastIndex]", _W),
}

LOADED = {
    "extract_at_a_constant_index": _st("pkt.extract(hdr.s[1]); transition accept;"),
    "extract_next": _st("pkt.extract(hdr.s.next); transition accept;"),
    # (a computed index: p4c extracts into a temporary copy: errs18_extract_into_a_stack_element_at_a_computed_index)
    "extract_at_a_computed_index": _st("pkt.extract(hdr.s[hdr.h.a[1:0]]); transition accept;"),
}

DIES = {}

globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
