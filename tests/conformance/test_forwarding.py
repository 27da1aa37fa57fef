"""v1model forwarding: egress_spec, drop port 511, mark_to_drop, egress_spec default
0, multicast priority over drop, packet_length / ingress_port / egress_port.

BMv2 sources (docs/CONFORMANCE.md, "Forwarding"): simple_switch.md "Standard
metadata" (egress_spec, drop port 511, packet_length) and "after-ingress/after-egress
pseudocode" (order: clone, digest, resubmit, mcast_grp != 0, egress_spec == 511);
simple_switch.cpp receive_() (`reset_metadata()`, ingress_port/packet_length set,
so egress_spec starts at 0); primitives.cpp `drop`/mark_to_drop sets egress_spec to
511 and mcast_grp to 0.
"""
import pytest

from p4conf import Switch, by_port, eth, u8, u16, u32

PROG = "fwd.p4"
PAYLOAD = b"some payload bytes"


@pytest.fixture
def sw():
    return Switch(PROG)


def frame(op, port=0, eport=0, plen=0, iport=0, payload=PAYLOAD):
    return eth(0x1234) + u8(op) + u16(port) + u16(eport) + u32(plen) + u16(iport) + payload


FLEN = len(frame(0))


@pytest.mark.parametrize("port", [1, 7, 100, 510])
def test_unicast_to_egress_spec(sw, port):
    assert sw.send(3, frame(0, port)) == [(port, frame(0, port, port, FLEN, 3))]


def test_egress_spec_511_drops(sw):
    assert sw.send(3, frame(0, 511)) == []


def test_egress_spec_zero_is_port_zero_not_drop(sw):
    assert sw.send(9, frame(0, 0)) == [(0, frame(0, 0, 0, FLEN, 9))]


def test_egress_spec_unwritten_goes_to_port_zero(sw):
    assert sw.send(2, frame(3, 44)) == [(0, frame(3, 44, 0, FLEN, 2))]


def test_mark_to_drop_in_ingress(sw):
    assert sw.send(3, frame(1, 5)) == []


def test_egress_spec_written_after_mark_to_drop_wins(sw):
    assert sw.send(3, frame(2, 8)) == [(8, frame(2, 8, 8, FLEN, 3))]


def test_mark_to_drop_clears_mcast_grp(sw):
    sw.pipe.mcast_group_set(1, [(1, 0), (2, 0)])
    assert sw.send(3, frame(4)) == []


def test_mark_to_drop_in_egress_drops(sw):
    assert sw.send(3, frame(5, 4)) == []


def test_multicast_takes_priority_over_drop_port(sw):
    sw.pipe.mcast_group_set(1, [(1, 0), (2, 0)])
    out = by_port(sw.send(3, frame(7)))
    assert out == [(1, frame(7, 0, 1, FLEN, 3)), (2, frame(7, 0, 2, FLEN, 3))]


@pytest.mark.parametrize("n", [0, 1, 50, 1400])
def test_packet_length_is_frame_length(sw, n):
    f = frame(0, 1, payload=b"\xab" * n)
    assert sw.send(4, f) == [(1, frame(0, 1, 1, len(f), 4, payload=b"\xab" * n))]


def test_exit_in_egress_still_transmits(sw):
    # exit ends the egress control only; the packet is deparsed and sent
    assert sw.send(3, frame(8, 4)) == [(4, frame(8, 4, 0, FLEN, 3))]


def test_egress_counter_counts_received_length_not_grown_packet(sw):
    # BMv2 Counter::increment_counter adds pkt.get_ingress_length(): the length at
    # arrival, even after ingress added a 4-byte header.  The egress packet_length,
    # however, is BMv2's PACKET_LENGTH register, which add_header (setValid) grew by 4
    # (primitives.cpp add_header; simple_switch.cpp egress_thread sets packet_length
    # from the register), so egress writes len + 4 into ext.pad.
    f = frame(9, 2)
    assert sw.send(1, f) == [(2, frame(9, 2, 2, FLEN, 1, payload=b"") + u32(len(f) + 4)
                              + PAYLOAD)]
    assert sw.counter("MyEgress.c_eg", 0) == (1, len(f))
    sw.send(1, frame(0, 3))
    assert sw.counter("MyEgress.c_eg", 0) == (2, len(f) + FLEN)


@pytest.mark.parametrize("ecn", [0, 1, 2])
def test_queue_depth_zero_for_a_lone_packet(ecn):
    sw = Switch("queue.p4")
    f = eth(0x1234) + u8(ecn) + bytes(6) + b"q"
    assert sw.send(1, f) == [(2, f)]


def test_traffic_manager_owned_metadata_is_overwritten():
    # simple_switch.cpp: enqueue() uses egress_spec; egress_thread sets egress_port and
    # packet_length (from the length register) and the unicast path sets instance_type
    # NORMAL before enqueue; after egress only egress_spec == 511 matters
    sw = Switch("stdmeta.p4")
    f = eth(0x1234) + bytes(10) + b"tail"
    assert sw.send(3, f) == [(2, eth(0x1234) + u16(2) + u32(0) + u32(len(f)) + b"tail")]
