"""Disagreements found by helper corpus6 (issue #15) re-measuring p4c's public test corpus
(``testdata/p4_16_samples`` STF tests, fetched outside the repository), each decided by real
p4c 1.2.4.8 / BMv2 1.15.5 and kept as a case of our own.

A ``varbit`` local variable (issue447-5-bmv2: a varbit value swapped through a local): p4c's
BMv2 JSON holds it in a metadata instance of a one-field ``$varbit<N>`` header type, written
and read with ``assign_VL``.  checkmate-p4c's own build was right; p4c's JSON on
checkmate-switch raised on every packet (the loader gave that metadata field an integer, with
no current length), so the cases run on the JSON path too.
"""
from .base import PAYLOAD, case, eth, varbit_program

CAT = "p4c JSON loader"

CASES = []

# x holds len.n bits (0, 8, 16, 24, 32; other lengths are parser errors), y 16 bits
_FRAMES = [(1, eth(0x1234) + bytes([n]) + bytes(range(0x11, 0x11 + n // 8)) + b"\xa1\xa2\x7e" + PAYLOAD)
           for n in (0, 8, 16, 24, 32, 4)]

CASES += [
    # a local swaps the two varbit fields (copies of different lengths, both ways)
    case("corpus6_varbit_local_swap", CAT, varbit_program("""
    apply {
        varbit<32> s;
        s = hdr.x.v;
        hdr.x.v = hdr.y.v;
        hdr.y.v = s;
        sm.egress_spec = 2;
    }"""), frames=_FRAMES, json_path=True),
    # in an action, with a control-level local read by a later action
    case("corpus6_varbit_local_in_actions", CAT, varbit_program("""
    varbit<32> keep;
    action save() { keep = hdr.x.v; }
    action put() { hdr.y.v = keep; hdr.tail.t = hdr.tail.t + 1; }
    apply {
        save();
        if (hdr.len.n == 8) { hdr.x.v = hdr.y.v; }
        put();
        sm.egress_spec = 3;
    }"""), frames=_FRAMES, json_path=True),
]
