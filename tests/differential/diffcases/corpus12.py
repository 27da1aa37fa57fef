"""Constructs seen in public v1model programs not measured before (research prototypes and
course repositories: an L2-learning switch that clones each frame of an unknown source to the
CPU port and truncates the clone, a DDoS-detection pipeline with sketches in registers, a load
balancer, p4c samples without an upstream STF; measured by helper corpus12 for issue #15), each
written here as a small program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

BMv2 takes every packet's PHV from a pool (the PHV released last is reused first) and a
parser only marks the headers invalid, so a header the parser does not extract keeps the
values of the packet that used that PHV before.  An I2E clone is a new packet whose frame is
parsed again into a PHV of its own taken from that pool (simple_switch.cpp's ingress cloning:
``clone_no_phv_ptr()`` then ``parser->parse()``), and so are resubmitted and recirculated
packets: an egress that reads a header the re-parse did not extract (the ProNA learning
switch copies ``hdr.ethernet.srcAddr`` into its CPU header for a frame too short for
Ethernet) sees an earlier packet's value on BMv2; checkmate-switch started these passes
from zeroed headers."""
from .base import H, PAYLOAD, case, eth, program

CASES = []

# the clone of the second frame re-parses a frame without `h`: its h keeps the values a PHV of
# the first frame's processing left (BMv2); checkmate gave zeros
_COPY_H = """
        if (!hdr.h.isValid()) {
            hdr.h2.setValid();
            hdr.h2.a = hdr.h.a; hdr.h2.b = hdr.h.b; hdr.h2.c = hdr.h.c; hdr.h2.d = hdr.h.d;
        }
        hdr.eth.src[7:0] = (bit<8>)sm.instance_type;"""
CASES.append(case("corpus12_i2e_clone_reparse_keeps_pool_values", "replication", program("""
        clone_preserving_field_list(CloneType.I2E, 5, 0);""", egress=_COPY_H),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (1, eth(0x0800) + PAYLOAD), (2, eth(0x0801) + PAYLOAD[:4])],
    clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))

# the first frame (cloned) leaves two PHVs in the pool; the second (no `h`) is recirculated /
# resubmitted once: the new pass re-parses into the other one and sees the first frame's h.
# (BMv2 sets instance_type back to 0 at the end of ingress: the recirculated frame is marked by
# its EtherType, the resubmitted pass copies in ingress.)
CASES.append(case("corpus12_recirculate_reparse_keeps_pool_values", "replication", program("""
        if (hdr.h.isValid()) { clone_preserving_field_list(CloneType.I2E, 5, 0); }""", egress="""
        if (hdr.eth.etype == 0x0800) { hdr.eth.etype = 0x0802; recirculate_preserving_field_list(0); }
        else if (hdr.eth.etype == 0x0802) {""" + _COPY_H + """
        }"""),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (1, eth(0x0800) + PAYLOAD), (2, eth(0x0801) + PAYLOAD[:4])],
    clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))
CASES.append(case("corpus12_resubmit_reparse_keeps_pool_values", "replication", program("""
        if (hdr.h.isValid()) { clone_preserving_field_list(CloneType.I2E, 5, 0); }
        if (sm.instance_type == 0 && hdr.eth.etype == 0x0800) { resubmit_preserving_field_list(0); }
        if (sm.instance_type == 6) {""" + _COPY_H + """
        }"""),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (1, eth(0x0800) + PAYLOAD), (2, eth(0x0801) + PAYLOAD[:4])],
    clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))
