"""Found by helper mutz32 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (fuzz_mutants: p4c_mutate's mutants of the
differential cases, run on both switches)."""
from .base import H, H2, PARSE_H2, case, eth, hdr, parse_h_state, program

CAT = "front end (p4c-compatible)"

_MARK = "        if (hdr.h.isValid()) { hdr.h.b = 0x77; }\n        if (hdr.h2.isValid()) { hdr.h2.b = 0x88; }\n"
_FRAMES = [(1, H(1, 2, 3, 4)), (2, H2(5, 6)), (3, eth(0x1235) + hdr(7, 8) + hdr(9, 10)), (1, eth(0x0800) + hdr(1))]


def _start(cases: str) -> str:
    return f"""\
    state start {{
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {{
            {cases}
        }}
    }}"""


CASES = [
    # fuzz_mutants seeds 86, 95, 97 (select_key): p4c's SimplifySelectCases drops every case after a
    # `default` or `_` keyset ("SelectCase: unreachable") -- the first one is taken for every packet
    # on BMv2; checkmate-switch kept them and took BMv2's rule for p4c's JSON (one default transition
    # per state, the last one, tried after the values): it parsed nothing past the Ethernet header, or
    # took a later value's state.  Guards: `(_)` is a one-element list for p4c, no default
    # expression -- nothing is dropped, and BMv2 takes the last default; a mask of 0 likewise.
    case(f"mutz32_select_cases_after_a_default_are_unreachable_{name}", CAT, program(
        _MARK, parser="\n".join((_start(cases), parse_h_state(), PARSE_H2))), frames=_FRAMES)
    for name, cases in [
        ("underscore_then_default", "_: parse_h; default: accept;"),
        ("default_then_a_value", "default: parse_h; 0x1234: parse_h2; 0x1235: accept;"),
        ("underscore_then_values", "_: parse_h2; 0x1234: parse_h; 0x1235: accept; default: reject;"),
        ("guard_parenthesised_underscore", "(_): parse_h; 0x1234: parse_h2; default: accept;"),
        ("guard_mask_of_zero", "0 &&& 0: parse_h; 0x1235: parse_h2; default: accept;"),
    ]
]
