"""What the controller installs, derived from the topology (pure; no switch)."""
from checkmate.paths import ROOT
from controller.plan import group_id, plan_switch
from controller.topology import Topology

STAR = Topology.load(ROOT / "topologies" / "star.json")
LS = Topology.load(ROOT / "topologies" / "leafspine.json")


def _tables(plan):
    return {t: len(es) for t, es in plan.by_table().items()}


def test_star_plan_every_table():
    p = plan_switch(STAR, "s1")
    nh, ns, nt = len(STAR.hosts), len(STAR.shadows()), len(STAR.trainers())
    ports = len(STAR.port_map("s1"))
    assert _tables(p) == {"ipv4_route": nh, "arp_proxy": nh, "trainer_port": nt, "shadow_rewrite": ns,
                          "heartbeat_slot": nt, "shard_map": len(STAR.shard_ranges()), "replication": ports * ns}
    assert len(p.groups) == ports * ns and p.digests == ["heartbeat_digest_t"]
    # group for (port 1, shard 1) sends the original to port 1 and the copy to sh2's port with rid 2
    g = {g.group_id: g for g in p.groups}[group_id(1, 2)]
    assert g.replicas == ((1, 0), (STAR.next_hop("s1", "sh2"), 2))
    fwd = [e for e in p.entries if e.table == "ipv4_route" and e.match["hdr.ipv4.dstAddr"][0] == "10.77.0.101"][0]
    assert fwd.params == {"port": 4, "smac": STAR.switches["s1"].port_mac(4), "dmac": "08:00:00:00:01:01"}


def test_leafspine_only_leaves_copy():
    spine = plan_switch(LS, "s3")
    assert "shard_map" not in _tables(spine) and "trainer_port" not in _tables(spine) and not spine.groups
    leaf = plan_switch(LS, "s1")
    # the copy for sh2 (on the other leaf) leaves s1 on its uplink
    g = {g.group_id: g for g in leaf.groups}[group_id(1, 2)]
    assert g.replicas == ((1, 0), (10, 2))



def test_plan_limits_name_the_host():
    from dataclasses import replace

    import pytest

    from controller.topology import TopologyError
    hosts = dict(STAR.hosts)
    hosts["h1"] = replace(hosts["h1"], rank=1024)
    with pytest.raises(TopologyError, match=r"hosts.h1.rank: 1024 exceeds the 1024 heartbeat slots"):
        plan_switch(replace(STAR, hosts=hosts), "s1")
    hosts = dict(STAR.hosts)
    hosts["sh2"] = replace(hosts["sh2"], shard=127)
    with pytest.raises(TopologyError, match=r"hosts.sh2.shard: 127 exceeds the 127 shards"):
        plan_switch(replace(STAR, hosts=hosts), "s1")


def test_job_totals_sum_shards_once():
    from controller.views import job_totals
    rows = [{"job_id": 1, "rid": 1, "copies": {"packets": 2, "bytes": 20}},
            {"job_id": 1, "rid": 1, "copies": {"packets": 2, "bytes": 20}},  # second range of shard 0
            {"job_id": 1, "rid": 2, "copies": {"packets": 3, "bytes": 30}},
            {"job_id": 2, "rid": 3, "copies": None}]
    assert job_totals(rows) == {1: {"packets": 5, "bytes": 50}}
