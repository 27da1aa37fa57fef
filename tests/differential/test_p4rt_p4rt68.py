"""Helper p4rt68: the order in which the copies of a multicast group or clone session take their
PHVs and run their egress passes (``switch/runtime/replication``), without BMv2.  The frames
against BMv2 are the diffcases ``p4rt68_*`` (``diffcases/p4rt68.py``)."""
from __future__ import annotations

from switch.runtime.replication import node_order, replica_plan


def test_node_order_is_the_order_bmv2_reads_a_group_back():
    # one node per rid, the nodes last-written first, the ports of a node ascending
    assert node_order([(2, 0), (3, 1)]) == [(3, 1), (2, 0)]
    assert node_order([(3, 0), (2, 0), (4, 1)]) == [(4, 1), (2, 0), (3, 0)]
    assert node_order([(5, 7), (1, 2), (4, 7)]) == [(1, 2), (4, 7), (5, 7)]


def test_copies_take_their_phvs_in_node_order():
    takes, _ = replica_plan([(2, 0), (3, 1)])
    assert takes == (1, 0)
    takes, _ = replica_plan([(3, 0), (2, 0), (4, 1)])
    assert takes == (2, 1, 0)


def test_copies_of_one_egress_thread_run_in_node_order_the_rest_as_written():
    # ports 2 and 6 share BMv2's egress thread 2: port 6 (rid 1's node) runs first
    assert replica_plan([(2, 0), (6, 1)])[1] == (1, 0)
    assert replica_plan([(6, 0), (2, 1)])[1] == (1, 0)
    # a Checkmate group (forward, then its shadow copy) on two threads keeps the forward first
    assert replica_plan([(1, 0), (2, 5)]) == ((1, 0), (0, 1))
    # thread 1's places (written 0 and 2) go to its copies in node order; thread 2's stays
    assert replica_plan([(1, 0), (2, 0), (5, 1)])[1] == (2, 1, 0)


def test_a_pipeline_keeps_the_plan_of_each_group_and_session():
    from diffcases.base import program
    from switch.compiler import compile_source
    from switch.runtime import Pipeline
    src = program("        sm.mcast_grp = 7;\n")
    pl = Pipeline(compile_source(src, "p4rt68_plan.p4").device_config)
    pl.mcast_group_set(7, [(2, 0), (6, 1)])
    pl.clone_session_set(5, [(3, 0), (2, 0), (4, 1)])
    assert pl.mcast_plans[7] == replica_plan([(2, 0), (6, 1)])
    assert pl.clone_plans[5] == replica_plan([(3, 0), (2, 0), (4, 1)])
    pl.mcast_group_delete(7)
    pl.clone_session_delete(5)
    assert not pl.mcast_plans and not pl.clone_plans
