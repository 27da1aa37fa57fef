"""Lead, session 42: a parser store p4c's front-end def-use keeps because a ``select`` whose only
case is a tuple of don't-cares, ``(_, _)``, is no default case to it (a list expression, not a
``DefaultExpression``: the select may reject, which reads everything), while ``default`` or a lone
``_`` is one (the store is dead when the next state overwrites it, and p4c drops it).  Observable
when a sub-parser rejects between the two stores: BMv2 ends the parse there and ingress sees what
the first store wrote, or the field's earlier value where p4c dropped it.  checkmate-p4c took
``(_, _)`` for a default case and dropped the store (fuzz_parsers seed 4803).
"""
from .base import PAYLOAD, case, eth, hdr, program
from .fuzz_fuzzp import SUB_REJECT_REPORT

CAT = "random programs: parsers"

_SUB = """
parser SubR(packet_in p, out h_t x, inout bit<8> c) {
    state start { p.extract(x); c = c + 1; transition select(x.a) { 0x5: reject; default: accept; } }
}
"""


def _parser(cases: str) -> str:
    return """
    SubR() sub;
    state start { pkt.extract(hdr.eth); meta.m16 = hdr.eth.src[15:0];
                  transition select(hdr.eth.etype, hdr.eth.dst[7:0]) { %s } }
    state ph { sub.apply(pkt, hdr.h, meta.m8); meta.m16 = (bit<16>)hdr.h.b; transition accept; }""" % cases


_FRAMES = [(1, eth(0x1234) + hdr(5, 1, 2, 3) + hdr(7, 8, 9, 10) + PAYLOAD),
           (2, eth(0x1234) + hdr(6, 1, 2, 3) + PAYLOAD)]

CASES = [
    case(f"lead42_store_before_select_{name}_and_rejecting_sub_parser", CAT,
         program(SUB_REJECT_REPORT, top=_SUB, parser=_parser(cases)), frames=_FRAMES, json_path=True)
    for name, cases in (("dont_care_tuple", "(_, _): ph;"), ("dont_care_and_default", "(_, default): ph;"),
                        ("default", "default: ph;"), ("lone_dont_care", "_: ph;"))
]
