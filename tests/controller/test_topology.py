"""Topology loader/validator: example files, routing, port roles, and every error names its culprit."""
import copy
import json

import pytest

from checkmate.paths import ROOT
from controller.topology import Topology, TopologyError, balanced_shard_map

STAR = ROOT / "topologies" / "star.json"
LEAFSPINE = ROOT / "topologies" / "leafspine.json"


def test_star_roles_and_routes():
    t = Topology.load(STAR)
    assert [h.name for h in t.trainers()] == ["h1", "h2", "h3"]
    assert [h.name for h in t.shadows()] == ["sh1", "sh2"]
    assert t.trainer_ports("s1") == [1, 2, 3]
    assert t.shadow_ports("s1") == [4, 5]
    assert t.switch_ports("s1") == []
    assert t.routes("s1") == {"h1": 1, "h2": 2, "h3": 3, "sh1": 4, "sh2": 5}
    assert t.link_of("sh1", "s1").lossless and not t.link_of("h1", "s1").lossless
    assert t.switches["s1"].grpc_addr == "127.0.0.1:50051"
    assert t.shard_of(0) == 0 and t.shard_of(4) == 1 and t.shard_of(2**32 - 1) == 1


def test_leafspine_shortest_paths():
    t = Topology.load(LEAFSPINE)
    # trainers and shadows alternate over the leaves (as topologies/generate.py lays them out)
    assert t.routes("s1") == {"h1": 1, "h3": 2, "sh1": 3, "h2": 10, "h4": 10, "sh2": 10}
    assert t.routes("s3") == {"h1": 1, "h3": 1, "sh1": 1, "h2": 2, "h4": 2, "sh2": 2}
    assert t.trainer_ports("s1") == [1, 2] and t.shadow_ports("s1") == [3] and t.switch_ports("s1") == [10]
    assert t.trainer_ports("s3") == [] and t.switch_ports("s3") == [1, 2]
    assert t.attachment("h2").node == "s2" and t.attachment("h2").port == 1
    assert t.next_hop("s2", "sh1") == 10


def _raw():
    return json.loads(STAR.read_text())


@pytest.mark.parametrize("mutate,culprit", [
    (lambda d: d["hosts"]["h1"].update(ip="10.77.0.300/24"), "hosts.h1.ip"),
    (lambda d: d["hosts"]["h1"].update(mac="zz"), "hosts.h1.mac"),
    (lambda d: d["hosts"]["h2"].update(ip="10.77.0.1/24"), "hosts.h2.ip"),
    (lambda d: d["hosts"]["h2"].update(rank=0), "trainer ranks"),
    (lambda d: d["hosts"]["sh2"].update(shard=5), "shadow shards"),
    (lambda d: d["hosts"]["h1"].update(role="boss"), "hosts.h1.role"),
    (lambda d: d["links"].append(["h1", "s1-p9"]), "hosts.h1"),
    (lambda d: (d["switches"].update(s2={"device_id": 1, "grpc_port": 50052}),
               d["links"].append(["s1-p1", "s2-p7"])), "already wired"),
    (lambda d: d["links"].append(["s1-p8", "s1-p7"]), "links s1 to itself"),
    (lambda d: d["links"].append(["s1-p511", "s1-p7"]), "port 511"),
    (lambda d: d["links"].append(["s1-p255", "s1-p7"]), "CPU port"),
    (lambda d: d["links"].append(["h9", "s1-p7"]), "links[5][0]"),
    (lambda d: d["shard_map"].update({"1": [[2, 9]]}), "belong to both shard 0 and shard 1"),
    (lambda d: d["switches"]["s1"].update(grpc_host="switch.example"), "not an IP address"),
    (lambda d: d.pop("links"), "links: missing"),
])
def test_errors_name_the_culprit(mutate, culprit):
    d = copy.deepcopy(_raw())
    mutate(d)
    with pytest.raises(TopologyError) as e:
        Topology.from_dict(d, source="x.json")
    assert culprit in str(e.value) and "topology x.json" in str(e.value)


def test_unreachable_host_and_bad_json(tmp_path):
    d = _raw()
    d["switches"]["s2"] = {"device_id": 1, "grpc_port": 50052}
    d["links"][4] = ["sh2", "s2-p1"]
    with pytest.raises(TopologyError, match=r"switches.s1: cannot reach host\(s\) sh2"):
        Topology.from_dict(d)
    p = tmp_path / "t.json"
    p.write_text("{ nope")
    with pytest.raises(TopologyError, match="line 1 column 3: invalid JSON"):
        Topology.load(p)


def test_balanced_shard_map_covers_everything():
    m = balanced_shard_map([100, 1, 1, 100, 1, 1], 2)
    assert m == {0: ((0, 2),), 1: ((3, 2**32 - 1),)}
    m3 = balanced_shard_map([1], 3)
    spans = sorted(r for rs in m3.values() for r in rs)
    assert spans[0][0] == 0 and spans[-1][1] == 2**32 - 1
    assert all(a[1] + 1 == b[0] for a, b in zip(spans, spans[1:]))


def test_ranges_from_owner_merges_runs():
    from controller.topology import ranges_from_owner
    assert ranges_from_owner({0: 0, 1: 0, 2: 1, 3: 0, 4: 1, 5: 1}) == {0: ((0, 1), (3, 3)), 1: ((2, 2), (4, 5))}
