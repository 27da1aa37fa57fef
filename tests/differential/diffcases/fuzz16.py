"""Disagreements found by helper fuzz16 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

A header assigned a struct expression that reads the header itself (``hdr.h2 = {a = hdr.h2.a,
...}``) is built by p4c in a temporary it never makes valid, so BMv2 leaves the header invalid
with its fields unchanged; one that does not read it makes it valid.  Whether an element reads
the header is decided after p4c's constant folding and strength reduction, and an element that
is a ``?:`` as a whole is evaluated into a temporary beforehand (no read).  checkmate-p4c had
three parts of that wrong:

* the reductions on ``int<W>`` (``x ^ x``, ``x - x``, ``x & 0``, ``x * 0`` are 0, ``x + 0`` is
  ``x``) -- it reduced ``bit<W>`` only (fuzz_exprs seed 3002: ``e2 = ... |+| (hdr.opt.e2 ^
  hdr.opt.e2)`` on an ``int<16>``; BMv2 emitted the header, checkmate-switch did not);
* ``c ? x : x`` is ``x``, a read (fuzz_exprs seed 2881, also after folding ``true ? x : y``
  or ``x + 0`` in an arm) -- but not where the expression calls ``isValid()`` (fuzz_exprs seed
  1025, which broke the first fix of 2881): the strength reduction takes every method call for
  a side effect, and so keeps ``(h.isValid() ? x : y) & 0`` as it is too;
* an element ``true ? x : y`` is ``x`` (constant folding comes first), a read, not a hoisted ``?:``.

Saturating operators are not reduced (``x |-| x``, ``(c ? x : 1) |+| 0``).  The header's
fields are read only when h2 was parsed."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

_FR = [(1, H2(5, 6, d=d)) for d in range(16)] + [(1, H(1, d=d)) for d in range(16)]

CASES = [
    case("fuzz16_header_initializer_strength_reduction", CAT, program("""
        if (hdr.h.d == 0) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a ^ (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 1) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a - (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 2) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a * 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 3) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a & 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 4) { hdr.h2 = {a = 1, b = (bit<8>)((int<8>)hdr.h2.a |-| (int<8>)hdr.h2.a), c = 2, d = 3}; }
        else if (hdr.h.d == 5) { hdr.h2 = {a = 1, b = (bit<8>)((hdr.h.b > 2 ? (int<8>)hdr.h2.a : 8s1) + 8s0), c = 2, d = 3}; }
        else if (hdr.h.d == 6) { hdr.h2 = {a = 1, b = hdr.h2.a |-| hdr.h2.a, c = 2, d = 3}; }
        else if (hdr.h.d == 7) { hdr.h2 = {a = 1, b = (hdr.h.b > 2 ? hdr.h2.a : 8w1) |+| 0, c = 2, d = 3}; }
        else if (hdr.h.d == 8) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 9) { hdr.h2 = {hdr.h2.isValid() ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 10) { hdr.h2 = {hdr.h.isValid() ? hdr.h2.a : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 11) { hdr.h2 = {a = 1, b = ((hdr.h.isValid() ? hdr.h2.a : 8w1) & 0), c = 2, d = 3}; }
        else if (hdr.h.d == 12) { hdr.h2 = {true ? hdr.h2.a : 8w1, 1, 2, 3}; }
        else if (hdr.h.d == 13) { hdr.h2 = {hdr.h.b > 2 ? (true ? hdr.h2.a : 8w1) : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 14) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a + 0 : hdr.h2.a, 1, 2, 3}; }
        else if (hdr.h.d == 15) { hdr.h2 = {hdr.h.b > 2 ? hdr.h2.a : hdr.h2.a, (bit<8>)((int<8>)hdr.h.a ^ (int<8>)hdr.h.a), 2, 3}; }
        hdr.h.b = hdr.h2.isValid() ? 8w1 : 8w0;
        if (hdr.h.a == 0xee) { hdr.h.c = hdr.h2.a ++ hdr.h2.b; }
"""), frames=_FR),
]
