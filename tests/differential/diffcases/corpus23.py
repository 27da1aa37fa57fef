"""Constructs seen in public v1model programs not measured before (helper corpus23, issue #15:
netx-ulx/dataplaneChangeDetection's sketches, jonadmark/intsight-bmv2, ...), each written here
as a small program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Found: a function's directionless ``int`` parameter (``void UpdateRow(int num, inout metadata
meta)`` reading ``extra_op_counter.read(meta.counter, num)``) was refused wherever the body used
it as a ``bit<W>`` value ("cannot convert an untyped integer expression to bit<32>": a register
index, an assignment, an operand of ``+``/``|+|``).  p4c inlines the function, so each call's
constant stands for the parameter (elab_calls.bind_int_params elaborates one function per set of
values).  (The same program's ``UpdateRow(0, meta)`` also makes p4c write a JSON simple_switch
cannot load: tests/p4c/test_load_refused3.py.)"""
from .base import H, case, eth, PAYLOAD, program

CASES = []

_SLOTS = """register<bit<16>>(8) r;
void bump(int slot, inout bit<16> v) {
    r.read(v, slot);
    v = v + slot;
    r.write(slot, v |+| slot);
}
bit<8> scaled(int k, in bit<8> x) { return x * k + (bit<8>)k; }
"""

# a directionless int parameter used as a register index and an operand; two calls
# with other constants (one elaborated body each), a function result computed with it
CASES.append(case("corpus23_function_int_parameter_as_bits", "frontend", program(
    "        bit<16> x = hdr.h.c;\n        bump(1, x);\n        hdr.h.c = x;\n        bit<16> y = 0;\n"
    "        bump(3, y);\n        hdr.h.d = (bit<32>)y;\n        hdr.h.b = scaled(5, hdr.h.a);\n",
    top=_SLOTS), frames=[(1, H(1, 2, 3, 4)), (1, H(2, 0, 0x10)), (1, H(3)), (1, H(4, 4, 0xffff)),
                         (1, eth(0x0800) + PAYLOAD)]))
