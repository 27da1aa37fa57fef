"""Front-end constructs p4c 1.2.4.8 accepts that checkmate-p4c refused or listed differently
(front7, issue #15): extern instances declared through a typedef (p4c lists a counter or meter
so declared only once a call uses it, and such a register never)."""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # `typedef register<..> R; R(4) r;` read into a dead local: p4c drops the read and leaves
    # the register out of its P4Info; a typedef'd counter is listed when counted, not when idle;
    # a plain idle counter stays listed
    case("fe_typedef_extern_instances", CAT, program("""\
        bit<8> x;
        tr.read(x, 1);
        used_c.count(1);
        hdr.h.b = 0x5;
""", top="typedef register<bit<8>> Reg8_t;\ntypedef counter Ctr_t;\ntypedef Ctr_t Ctr2_t;\n",
        ingress_decls="""    Reg8_t(4) tr;
    Ctr2_t(4, CounterType.packets) used_c;
    Ctr_t(8, CounterType.bytes) idle_c;
    counter(2, CounterType.packets) plain_idle;""")),
]
