"""Helper p4rt73: the order a Checkmate multicast group's copies run in on checkmate-switch.

BMv2 1.15.5 runs the copies of one egress thread (port % 4) in node order, and the threads against
each other race (tests/differential/probe_copy_order.py: six of the seven groups probed on two or
three threads came out in more than one order on BMv2; node order 143 times, written order 93 in
224 frames), so
checkmate-switch keeps the written order across threads (switch/runtime/replication.py).  The
controller writes each group instance 0 first (``McastGroup.written``), so the forward's egress
pass runs before its shadow copy's whenever the two ports sit on different egress threads --
before, it wrote the replicas by port, and a shadow reached through a lower port ran first.
"""
from __future__ import annotations

from controller.entities import McastGroup
from controller.plan import group_id
from switch.runtime.replication import EGRESS_THREADS, replica_plan


def _written(group: McastGroup) -> list[tuple[int, int]]:
    return [(r.egress_port, r.instance) for r in group.to_proto().multicast_group_entry.replicas]


def test_the_forward_runs_first_when_its_shadow_copy_is_on_another_egress_thread():
    for fwd in range(1, 9):
        for shadow in range(1, 9):
            if fwd % EGRESS_THREADS == shadow % EGRESS_THREADS:
                continue
            reps = _written(McastGroup.of(group_id(fwd, 1), [(fwd, 0), (shadow, 1)]))
            _takes, runs = replica_plan(reps)
            assert reps[runs[0]] == (fwd, 0), (fwd, shadow, reps)


def test_on_one_egress_thread_bmv2s_node_order_puts_the_shadow_copy_first():
    # what the controller cannot change: node order is the instances last-first, BMv2's on one thread
    reps = _written(McastGroup.of(group_id(1, 2), [(1, 0), (5, 2)]))
    assert reps == [(1, 0), (5, 2)]
    assert [reps[k] for k in replica_plan(reps)[1]] == [(5, 2), (1, 0)]


def test_the_written_order_is_by_instance_then_port_and_reads_back_equal():
    g = McastGroup.of(9, [(6, 1), (2, 1), (7, 0), (3, 2)])
    assert g.written() == [(7, 0), (2, 1), (6, 1), (3, 2)]
    assert _written(g) == g.written()
    assert McastGroup.from_proto(g.to_proto().multicast_group_entry) == g
