"""Which pooled PHV a clone takes on BMv2 1.15.5 when its clone session comes from P4Runtime
(helper p4rt61, fuzz_mutants 5068 and 6013 of mutz51's open seeds; real p4c 1.2.4.8 / BMv2).

PI's PreCloneMgr makes every P4Runtime clone session a multicast group (``mc_grp_id``, no egress
port), so simple_switch clones through ``multicast()``: the egress thread first clones the packet
into a PHV from the pool (``clone_with_phv_reset_metadata``), each replica then takes a PHV of its
own and copies the valid headers, and the session's copy goes back on top of the pool at once.  A
clone reading a header that is invalid in it (a metadata stack element the original popped) sees
the values that PHV held: two frames later that is the session copy's.  checkmate-switch gave the
replica the pool's top PHV and made no session copy (``switch/runtime/engine.Engine._session_copy``;
an I2E clone goes the same way on BMv2, but racily: see there)."""
from .base import H, case, eth, program, PAYLOAD

CASES = []

# fuzz_mutants 6013 / 5068 (stack_op on corpus13_metadata_headers_come_from_the_pooled_phv): the
# original pops a metadata stack, then assigns an invalid header to ms[1]; the clone reads ms[1]:
# frame 2's clone read 0 here, 0x55667788 on BMv2 (16 fresh BMv2 runs of each, all alike)
_POP = """
        if (sm.instance_type == 0) {
            meta.mh = hdr.h;
            meta.ms.pop_front(1); %s meta.ms[1] = hdr.h;
            clone(CloneType.E2E, 5);
        } else {
            hdr.h2.setValid();
            hdr.h2.a = meta.mh.a;
            hdr.h2.b = (meta.mh.isValid() ? 8w1 : 8w0) + (meta.ms[1].isValid() ? 8w4 : 8w0)
                       + (meta.ms[0].isValid() ? 8w8 : 8w0);
            hdr.h2.d = meta.ms[1].d;
        }"""
_FRAMES = [(1, H(0x11, 0x22, 0x3344, 0x55667788)), (2, eth(0x0800) + PAYLOAD), (1, eth(0x0801) + PAYLOAD)]
for name, extra in (("pop", ""), ("pop_and_bump", "meta.ms[0].d = meta.ms[0].d + 1;")):
    CASES.append(case(f"p4rt61_e2e_clone_reads_the_session_copys_pooled_phv_{name}", "replication",
                      program(meta="    h_t mh;\n    h_t[2] ms;\n", egress=_POP % extra),
                      frames=_FRAMES, clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))
