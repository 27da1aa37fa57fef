"""The order in which BMv2 1.15.5 makes and runs the copies of a multicast group or a clone session.

simple_switch_grpc keeps both as multicast groups of its packet replication engine (PI's
PreMcMgr; a P4Runtime clone session is a group too, PI's PreCloneMgr): one node per instance
(rid), the nodes in the reverse order of their first appearance in the write, the ports of a
node ascending.  ``SimpleSwitch::multicast()`` walks the group in that *node order*: each copy
takes a PHV from the pool there (``clone_with_phv_ptr``) and is enqueued at once, so the copies
take the pool's PHVs in node order (helper p4rt68's stamped probes: after a frame that left two
PHVs, a group ``[(2, 0), (3, 1)]`` gives the top one to port 3, in every fresh run).

Their egress passes run on BMv2's four egress threads, port ``p`` on thread ``p % 4``: the copies
of one thread run in node order (a register bumped in egress: ports 2 and 6 of ``[(2, 0), (6, 1)]``
read 1 and 0, every run), the threads against each other race: helper p4rt73's probe
(tests/differential/probe_copy_order.py, 4 fresh BMv2 runs of 8 frames per group, seven groups on
two or three threads) saw more than one order for each group but ``[(2, 0), (3, 1)]`` (node order
32 times of 32), node order in 143 of 224 frames and the written order in 93 (the same order for
the one-node ``[(1, 0), (2, 0)]``) -- ``[(3, 0), (2, 1)]`` ran in written order 29 times of 32.  checkmate-switch runs the copies one after the other: in the order they were
written, except that the copies of one egress thread take that thread's places in node order
(:func:`replica_plan`).  Written order across threads is one of BMv2's outcomes and keeps a
Checkmate group's forward (the controller writes instance 0 first: ``McastGroup.written``) ahead
of its shadow copy where the two ports are on different threads (switch/daemon.py,
``send_order="frame"``).
"""
from __future__ import annotations

#: simple_switch's egress threads (``nb_egress_threads``); a port's packets go to thread port % 4
EGRESS_THREADS = 4


def node_order(replicas) -> list[tuple[int, int]]:
    """``replicas`` ``[(port, rid)]`` in BMv2's node order (see the module docstring): how
    simple_switch_grpc replicates them and how it reads a group or clone session back."""
    rids = list(dict.fromkeys(rid for _, rid in replicas))[::-1]
    return [(port, rid) for rid in rids for port in sorted({p for p, r in replicas if r == rid})]


def replica_plan(replicas) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(takes, runs)``: indices into ``replicas`` in the order the copies take their PHVs (node
    order) and in the order their egress passes run (written order, the copies of each egress
    thread in node order)."""
    index = {r: i for i, r in enumerate(replicas)}
    takes = tuple(index[r] for r in node_order(replicas))
    by_thread: dict[int, list[int]] = {}
    for i in takes:
        by_thread.setdefault(replicas[i][0] % EGRESS_THREADS, []).append(i)
    runs = tuple(by_thread[p % EGRESS_THREADS].pop(0) for p, _ in replicas)
    return takes, runs
