"""A digest's values cut again at its P4Info struct's fields, as BMv2 delivers them.

BMv2's learn list (p4c's JSON ``learn_lists``) sends a digest's values as one bit string,
which its P4Runtime server cuts at the P4Info struct's members in declaration order.  Where
the two disagree -- p4c 1.2.4.8 writes the learn list of ``digest<S>(1, { b = x, a = y })`` in
the initializer's written order, not S's -- the members get bits of other values (for
``struct S { bit<8> a; bit<16> b; }`` and x = 16w3, y = 8w1: a = 0x00, b = 0x0301; BMv2
1.15.5, helper corpus22).  :func:`resliced` builds that in the IR both front ends share
(switch/compiler for checkmate-p4c's build, switch/bmv2json for p4c's JSON): the values
concatenated in the order given, sliced at ``widths``.
"""
from __future__ import annotations


def resliced(items: list, widths: list) -> list:
    """IR values ``items`` (each ``{"t": ["bit", w], ...}``) concatenated in order and cut into
    ``widths`` (their sum is the same), the first width taking the top bits."""
    cat = None
    for v in items:
        cat = v if cat is None else {"op": "bin", "o": "++", "a": cat, "b": v,
                                     "t": ["bit", cat["t"][1] + v["t"][1]]}
    out, hi = [], cat["t"][1] - 1
    for w in widths:
        out.append({"op": "slice", "a": cat, "hi": hi, "lo": hi - w + 1, "t": ["bit", w]})
        hi -= w
    return out
