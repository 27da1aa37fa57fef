"""Whole-file topology validation: unknown keys, roles, MACs, link settings -- each named by file, key
path and the allowed values -- and the module layering that keeps the loader free of import cycles."""
import ast
import copy
import json

import pytest

from checkmate.paths import ROOT
from controller.topology import Topology, TopologyError

STAR = ROOT / "topologies" / "star.json"


def _load(tmp_path, mutate):
    d = json.loads(STAR.read_text())
    mutate(d)
    p = tmp_path / "mytopo.json"
    p.write_text(json.dumps(d))
    with pytest.raises(TopologyError) as e:
        Topology.load(p)
    return str(e.value), p


@pytest.mark.parametrize("mutate,path,allowed", [
    (lambda d: d["hosts"]["sh1"].update(mgmt_prot=48881), "hosts.sh1.mgmt_prot: unknown key",
     "did you mean 'mgmt_port'?"),
    (lambda d: d.update(shardmap={}), "shardmap: unknown key", "did you mean 'shard_map'?"),
    (lambda d: d["switches"]["s1"].update(cpu=255), "switches.s1.cpu: unknown key", "cpu_port"),
    (lambda d: d["links"][3][2].update(losless=True), "links[3][2].losless: unknown key", "did you mean 'lossless'?"),
    (lambda d: d["hosts"]["h1"].update(role="trainr"), "hosts.h1.role: 'trainr' is not a role",
     "allowed: trainer, shadow, host"),
    (lambda d: d["hosts"]["h2"].update(mac="08:00:00:00:00"), "hosts.h2.mac: '08:00:00:00:00' is not a MAC",
     "aa:bb:cc:dd:ee:ff"),
    (lambda d: d["links"][3][2].update(loss=5), "links[3][2].loss: must be a drop probability 0..1", "got 5"),
    (lambda d: d["links"][4][2].update(lossless="yes"), "links[4][2].lossless: must be true or false", "'yes'"),
    (lambda d: d["hosts"]["h1"].update(shard=0), "hosts.h1.shard: only a shadow has a shard", "'trainer'"),
])
def test_whole_file_errors_name_file_key_and_allowed(tmp_path, mutate, path, allowed):
    msg, p = _load(tmp_path, mutate)
    assert msg.startswith(f"topology {p}: "), msg
    assert path in msg and allowed in msg, msg


def test_every_problem_listed_at_once(tmp_path):
    def many(d):
        d["hosts"]["sh1"]["mgmt_prot"] = 1
        d["hosts"]["h1"]["role"] = "trainr"
        d["hosts"]["h2"]["mac"] = "nope"
    msg, _ = _load(tmp_path, many)
    for culprit in ("hosts.sh1.mgmt_prot", "hosts.h1.role", "hosts.h2.mac"):
        assert culprit in msg, msg


def test_duplicate_json_key_is_an_error(tmp_path):
    p = tmp_path / "dup.json"
    text = STAR.read_text().replace('"job_id": 1,', '"job_id": 1, "job_id": 2,')
    p.write_text(text)
    with pytest.raises(TopologyError, match=r"topology .*dup.json: key 'job_id' appears twice"):
        Topology.load(p)


def test_comments_and_testbed_keys_are_allowed():
    d = json.loads(STAR.read_text())
    d["_comment"] = "three trainers"
    d["kind"] = "star"
    d["hosts"]["h1"]["_note"] = "rank 0"
    d["switches"]["s1"]["tm_port"] = 50100
    d["links"][3][2].update(loss=0.01, delay_ms=2, queue_depth=64, rate=1e9)
    t = Topology.from_dict(copy.deepcopy(d))
    assert t.hosts["h1"].extra == {"_note": "rank 0"} and t.switches["s1"].extra["tm_port"] == 50100


def test_shipped_topologies_validate():
    for f in (ROOT / "topologies").glob("*.json"):
        Topology.load(f)


def _imports(mod_path):
    tree = ast.parse(mod_path.read_text())
    out = set()
    for node in ast.walk(tree):  # lazy imports inside functions count too
        if isinstance(node, ast.ImportFrom):
            out.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_topology_modules_have_no_import_cycle():
    ctl = ROOT / "controller"
    types, load, topo = (_imports(ctl / f) for f in ("topology_types.py", "topology_load.py", "topology.py"))
    assert not {".topology", ".topology_load", "controller.topology", "controller.topology_load"} & types
    assert not {".topology", "controller.topology"} & load
    assert ".topology_load" in topo and ".topology_types" in topo
