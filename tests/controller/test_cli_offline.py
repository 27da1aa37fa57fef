"""checkmate-ctl without a switch: usage, and connection errors that say what was tried."""
import pytest

from controller import cli


def test_unreachable_switch_is_a_sentence(capsys):
    rc = cli.main(["--switch", "127.0.0.1:9", "--timeout", "0.3", "mcast"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "cannot control switch at 127.0.0.1:9 (device id 0, election id 1)" in err
    assert "no gRPC server answered" in err and "switch log" in err


def test_bad_switch_spec_and_topology(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        cli.main(["--switch", "nohost", "entries"])
    assert e.value.code == 2 and "expected HOST:PORT[/DEVICE_ID]" in capsys.readouterr().err
    bad = tmp_path / "t.json"
    bad.write_text('{"hosts": {}, "switches": {}, "links": [["a", "b"]]}')
    assert cli.main(["program", str(bad)]) == 1
    assert "links[0][0]: 'a' is neither a host nor SWITCH-pPORT" in capsys.readouterr().err


def test_help_lists_every_command(capsys):
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for name in ("tables", "entries", "counters", "mcast", "shards", "heartbeats", "program", "shell"):
        assert name in out


def test_program_with_an_address_not_in_the_topology(capsys, tmp_path):
    """An address that matches no topology switch is an error before anything is contacted, not an
    empty 'programmed' table with exit 0."""
    import json

    from checkmate.paths import ROOT
    d = json.loads((ROOT / "topologies" / "star.json").read_text())
    d["switches"]["s1"]["grpc_port"] = 9  # nothing answers there (never another test's live switch)
    topo = tmp_path / "mystar.json"
    topo.write_text(json.dumps(d))
    rc = cli.main(["--switch", "127.0.0.1:50051", "--timeout", "0.3", "program", str(topo)])
    cap = capsys.readouterr()
    assert rc == 1 and "programmed" not in cap.out
    assert "--switch 127.0.0.1:50051 matches no switch of topology" in cap.err
    assert "s1 at 127.0.0.1:9" in cap.err and "mystar.json" in cap.err
    # the topology's own address (also spelled localhost) selects s1, which is then tried
    rc = cli.main(["--switch", "localhost:9", "--timeout", "0.3", "program", str(topo)])
    assert rc == 1 and "cannot control switch at 127.0.0.1:9" in capsys.readouterr().err


def test_shard_plan_replaces_the_topology_shard_map(capsys, tmp_path):
    from checkmate.paths import ROOT
    topo = str(ROOT / "topologies" / "realhosts.json")
    plan = tmp_path / "plan.json"
    plan.write_text('{"shards": 2, "owner": {"0": 0, "1": 0, "2": 1, "3": 1, "4": 0}}')
    t = cli.with_shard_plan(topo, str(plan))
    assert sorted(t.shard_ranges()) == [(0, 0, 1), (0, 4, 4), (1, 2, 3)]
    assert t.switches["s1"].grpc_addr == "10.78.0.1:50051"  # a switch box's management address
    plan.write_text('["not", "a", "plan"]')
    assert cli.main(["program", topo, "--shard-plan", str(plan)]) == 1
    assert "--shard-plan" in capsys.readouterr().err
