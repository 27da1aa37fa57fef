"""Registers larger than 2**24 cells (helper regs, issue #15).

p4c 1.2.4.8 compiles a register of any bit<32> size (its P4Info generator refuses one past the
int32 maximum 2**31-1, used or not: ``INVALID``); simple_switch 1.15.5 allocates every cell when it
loads the JSON, about 118 bytes a cell (2**22 cells: 0.5 GB and 1.6 s; 2**24: 2.0 GB and 5.5 s; 2**28
would take ~32 GB, so it cannot load on the 23 GB machines here, and under a 4 GB limit its
SetForwardingPipelineConfig answers UNKNOWN after the std::bad_alloc).  checkmate-p4c refused any
size above 2**24 ("register size must be <= 16777216") and the switch allocated every cell; the
switch now stores the cells of a large array sparsely (runtime/externs.py).

``regs_register_2_24_plus_1``: the smallest register checkmate refused, written and read by frames at
its first, last and a middle index, and past its end (BMv2: the write is ignored, the read writes
nothing); BMv2 needs ~2 GB for ~6 s to load it.  ``regs_register_2_28``: P4Info compared only.
"""
from .base import H, case, program

CAT = "registers"

_BODY = """\
        bit<32> old = 7;
        r.read(old, hdr.h.d);
        r.write(hdr.h.d, old + (bit<32>)hdr.h.c);
        bit<32> x = 9;
        r.read(x, (bit<32>)hdr.h.b << 24);
        hdr.h.d = old;
        hdr.h.c = x[15:0];
        hdr.h.a = x[23:16];
"""

_LAST = 1 << 24   # the last index of a register of 2**24 + 1 cells

CASES = [
    case("regs_register_2_24_plus_1", CAT, program(
        _BODY, ingress_decls="    register<bit<32>>((1 << 24) + 1) r;\n"),
        frames=[(1, H(0, 1, 5, _LAST)), (1, H(0, 1, 0x0102, _LAST)), (1, H(0, 0, 3, 0)),
                (1, H(0, 2, 4, _LAST + 1)), (1, H(0, 2, 4, _LAST + 1)), (1, H(0, 0, 0xffff, 0xffffffff)),
                (1, H(0, 1, 1, 0x00abcdef)), (1, H(0, 0, 1, 0x00abcdef)), (1, H(0, 1, 2, _LAST))],
        one_by_one=True, json_path=True),
    case("regs_register_2_28", CAT, program(
        _BODY, ingress_decls="    register<bit<32>>(1 << 28) r;\n    register<bit<8>>(32w0x7fffffff) r2;\n"
        "    counter(1 << 30, CounterType.packets) c;\n    meter(1 << 29, MeterType.bytes) m;\n"),
        frames=[(1, H(0, 1, 5, 1 << 27))],
        p4info_only="simple_switch allocates every cell at load (~118 bytes a register cell: ~32 GB here)"),
]

# name -> (program, words the message must contain (any of), reason when checkmate accepts it today)
INVALID = {
    # p4c: "Register 'I.r' has a size that doesn't fit in an integer: 32w0x80000000" (its P4Info's int32),
    # also for a register nothing uses
    "regs_register_size_past_int32": (program("        hdr.h.a = 1;\n",
                                              ingress_decls="    register<bit<32>>(32w0x80000000) r;\n"),
                                      ("doesn't fit in an integer",), ""),
}
