"""Traffic manager / packet replication: multicast groups (egress_rid per replica),
I2E and E2E clones (instance_type, session port and rid, preserved field lists),
resubmit and recirculate with preserved field lists.

BMv2 simple_switch.cpp (ingress_thread / egress_thread / multicast) and
simple_switch.md "after-ingress / after-egress pseudocode":
* multicast: the original is discarded, each replica gets instance_type REPLICATION
  (5) and the replica's egress_rid;
* I2E clone: a copy of the packet as it *entered* ingress (re-parsed; ingress header
  changes are not visible), metadata reset except the preserved field list,
  instance_type INGRESS_CLONE (1), sent to the session's port;
* E2E clone: copy of the headers at the end of egress (egress changes visible),
  metadata reset except the field list, instance_type EGRESS_CLONE (2);
* resubmit: the original packet restarts ingress, metadata reset except the field
  list, instance_type RESUBMIT (6); the first pass produces no output;
* recirculate: the deparsed packet restarts at the parser, instance_type RECIRC (4);
* unicast packets enter egress with instance_type NORMAL (0).
Clone sessions and multicast groups are configured P4Runtime-style as
[(egress_port, instance/rid)].  Replicas on different ports have no defined relative
order, so outputs are compared sorted by port.
"""
import pytest

from p4conf import (EGRESS_CLONE, INGRESS_CLONE, NORMAL, RECIRC, REPLICATION, RESUBMIT,
                    Switch, by_port, eth, u8, u16)

PROG = "replication.p4"
PAYLOAD = b"replicated-payload"


@pytest.fixture
def sw():
    return Switch(PROG)


def frame(op, mark=0, keep=0, lose=0, it_i=0xFF, it_e=0xFF, rid=0xFFFF, eport=0xFFFF, e1=0):
    return eth(0x88B9) + u8(op, mark, keep, lose, it_i, it_e) + u16(rid, eport) + u8(e1) + \
        PAYLOAD


def test_multicast_replicas_with_rid_and_instance_type(sw):
    sw.pipe.mcast_group_set(5, [(1, 10), (2, 20), (3, 30)])
    out = by_port(sw.send(4, frame(1)))
    # replicas carry the ingress user metadata (meta.lose = 0x99, written to lose in egress)
    assert out == [
        (p, frame(1, lose=0x99, it_i=NORMAL, it_e=REPLICATION, rid=rid, eport=p))
        for p, rid in [(1, 10), (2, 20), (3, 30)]
    ]


def test_multicast_same_port_twice_distinct_rids(sw):
    sw.pipe.mcast_group_set(5, [(4, 1), (4, 2)])
    out = by_port(sw.send(9, frame(1)))
    assert out == by_port([(4, frame(1, lose=0x99, it_i=0, it_e=REPLICATION, rid=r, eport=4))
                           for r in (1, 2)])


def test_multicast_group_updated_and_deleted(sw):
    sw.pipe.mcast_group_set(5, [(1, 1)])
    sw.pipe.mcast_group_set(5, [(7, 70)])
    assert sw.send(4, frame(1)) == [(7, frame(1, lose=0x99, it_i=0, it_e=REPLICATION, rid=70,
                                             eport=7))]
    sw.pipe.mcast_group_delete(5)
    assert sw.send(4, frame(1)) == []


def test_multicast_to_unconfigured_group_sends_nothing(sw):
    assert sw.send(4, frame(7)) == []


def test_i2e_clone_sees_original_packet(sw):
    sw.pipe.clone_session_set(7, [(9, 0)])
    out = by_port(sw.send(4, frame(2, mark=0x01)))
    assert out == [
        # original: ingress set mark=0x11 and it_i; normal unicast to port 1
        (1, frame(2, mark=0x11, it_i=NORMAL, it_e=NORMAL, rid=0, eport=1)),
        # clone: the packet as received (mark 0x01, it_i 0xFF), metadata reset
        (9, frame(2, mark=0x01, lose=0, it_i=0xFF, it_e=INGRESS_CLONE, rid=0, eport=9)),
    ]


def test_i2e_clone_session_replicas_carry_rid(sw):
    sw.pipe.clone_session_set(7, [(9, 3), (10, 4)])
    out = by_port(sw.send(4, frame(2)))
    assert out == [
        (1, frame(2, mark=0x11, it_i=0, it_e=0, rid=0, eport=1)),
        (9, frame(2, it_e=INGRESS_CLONE, rid=3, eport=9, lose=0)),
        (10, frame(2, it_e=INGRESS_CLONE, rid=4, eport=10, lose=0)),
    ]


def test_i2e_clone_preserving_field_list(sw):
    sw.pipe.clone_session_set(7, [(9, 0)])
    out = by_port(sw.send(4, frame(6)))
    assert out == [
        (1, frame(6, it_i=0, it_e=0, rid=0, eport=1)),
        (9, frame(6, lose=0x5A, it_e=INGRESS_CLONE, rid=0, eport=9)),
    ]


def test_clone_without_session_only_original(sw):
    assert sw.send(4, frame(2)) == [(1, frame(2, mark=0x11, it_i=0, it_e=0, rid=0, eport=1))]


def test_e2e_clone_sees_egress_changes(sw):
    sw.pipe.clone_session_set(8, [(11, 0)])
    out = by_port(sw.send(4, frame(5)))
    assert out == [
        (1, frame(5, it_i=0, it_e=NORMAL, rid=0, eport=1, e1=0xE5)),
        (11, frame(5, it_i=0, it_e=EGRESS_CLONE, rid=0, eport=11, e1=0xE5)),
    ]


def test_resubmit_preserves_only_field_list(sw):
    out = sw.send(4, frame(3, keep=0x01, lose=0x02))
    # one packet only: the resubmitted one, re-parsed from the original bytes
    assert out == [(2, frame(3, keep=0x33, lose=0x00, it_i=RESUBMIT, it_e=NORMAL,
                             rid=0, eport=2))]


def test_recirculate_reparses_deparsed_packet(sw):
    out = sw.send(4, frame(4))
    # pass 1: egress writes it_e=0, eport=1, e1=0xE4 and recirculates (no output);
    # pass 2: ingress sees RECIRC and rkeep=0x66, unicast to port 3
    assert out == [(3, frame(4, keep=0x66, it_i=RECIRC, it_e=NORMAL, rid=0, eport=3, e1=0xE4))]


# simple_switch.md after-ingress pseudocode: clone / resubmit "preserve the final
# ingress values" of the field list; v1model.p4: with several calls only the last
# session and field list are used.

def test_resubmit_preserves_final_ingress_value(sw):
    out = sw.send(4, frame(8))
    assert out == [(2, frame(8, keep=0x77, lose=0, it_i=RESUBMIT, it_e=NORMAL, rid=0, eport=2))]


def test_clone_preserves_final_ingress_value(sw):
    sw.pipe.clone_session_set(7, [(9, 0)])
    out = by_port(sw.send(4, frame(9)))
    assert out == [
        (1, frame(9, it_i=0, it_e=0, rid=0, eport=1)),
        (9, frame(9, lose=0x5B, it_e=INGRESS_CLONE, rid=0, eport=9)),
    ]


def test_last_clone_call_wins(sw):
    sw.pipe.clone_session_set(7, [(9, 0)])
    sw.pipe.clone_session_set(12, [(13, 0)])
    out = by_port(sw.send(4, frame(10)))
    assert out == [
        (1, frame(10, it_i=0, it_e=0, rid=0, eport=1)),
        (13, frame(10, it_e=INGRESS_CLONE, rid=0, eport=13)),
    ]


def test_drop_in_egress_wins_over_recirculate(sw):
    # after-egress pseudocode: egress_spec == 511 -> drop, else if recirculate ...
    assert sw.send(4, frame(11)) == []


def test_e2e_clone_made_even_if_original_dropped_in_egress(sw):
    sw.pipe.clone_session_set(8, [(11, 0)])
    assert sw.send(4, frame(12)) == [
        (11, frame(12, it_i=0, it_e=EGRESS_CLONE, rid=0, eport=11, e1=0xEC))]


def test_i2e_clone_made_even_if_original_dropped_in_ingress(sw):
    sw.pipe.clone_session_set(7, [(9, 0)])
    assert sw.send(4, frame(13)) == [(9, frame(13, it_e=INGRESS_CLONE, rid=0, eport=9))]


def test_pre_control_plane_errors(sw):
    from switch.runtime import EntryNotFound

    with pytest.raises(EntryNotFound):
        sw.pipe.mcast_group_delete(77)
    with pytest.raises(EntryNotFound):
        sw.pipe.clone_session_delete(77)
    sw.pipe.clone_session_set(7, [(9, 0)])
    sw.pipe.clone_session_delete(7)
    assert sw.send(4, frame(2)) == [(1, frame(2, mark=0x11, it_i=0, it_e=0, rid=0, eport=1))]
