"""Reconcile, errors and the digest pump against an in-process fake P4Runtime server
(unit level; tests/controller/test_grpc_*.py run the same against real checkmate-switch)."""

import pytest
from p4.v1 import p4runtime_pb2

from checkmate.paths import ROOT
from controller.client import SwitchConnection
from controller.device import Device
from controller.entities import Entry, McastGroup
from controller.errors import ConnectionFailed, WriteFailed
from controller.p4info import encode
from controller.plan import plan_switch
from controller.reconcile import program_device
from controller.topology import Topology
from controller.watchdog import DigestPump, Watchdog

STAR = Topology.load(ROOT / "topologies" / "star.json")


def test_program_idempotent_drift_and_restart(fake_switch, compiled_artifacts):
    fake, addr = fake_switch
    art = compiled_artifacts
    plan = plan_switch(STAR, "s1")
    want = {e.canonical(art.index).key(): e.canonical(art.index) for e in plan.entries}
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        dev = Device(conn, art.index)
        r = program_device(dev, plan, art.device_config)
        assert r.pipeline_pushed and r.inserted == len(want) and r.groups_inserted == len(plan.groups)
        assert {e.key(): e for e in dev.read_entries()} == want
        assert dev.read_groups() == sorted(plan.groups, key=lambda g: g.group_id)
        assert len(fake.digests) == 1
        writes = fake.writes
        r2 = program_device(dev, plan, art.device_config)
        assert r2.changes == 0 and fake.writes == writes, "a second run must not write"
        # drift
        route = next(e for e in want.values() if e.table.endswith("ipv4_route"))
        dev.delete(route)
        dev.insert(Entry("trainer_port", {"standard_metadata.ingress_port": 9}, "mark_trainer"))
        dev.write([dev.group_update(2, McastGroup.of(plan.groups[0].group_id, [(9, 0)]))])
        r3 = program_device(dev, plan, art.device_config)
        assert (r3.inserted, r3.deleted, r3.groups_modified, r3.pipeline_pushed) == (1, 1, 1, False)
        assert {e.key(): e for e in dev.read_entries()} == want
    # "restart": pipeline gone
    fake.config = None
    fake.entries.clear()
    fake.groups.clear()
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        r4 = program_device(Device(conn, art.index), plan, art.device_config)
        assert r4.pipeline_pushed and r4.inserted == len(want)


def test_write_error_sentence_names_table_field_value(fake_switch, compiled_artifacts):
    fake, addr = fake_switch
    art = compiled_artifacts
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        dev = Device(conn, art.index)
        e = Entry("shard_map", {"hdr.checkmate.job_id": 1, "hdr.checkmate.param_id": (0, 9)}, "set_shard",
                  {"rid": 1}, priority=1)
        dev.insert(e)
        with pytest.raises(WriteFailed) as err:
            dev.insert(Entry("trainer_port", {"standard_metadata.ingress_port": 3}, "mark_trainer"), e)
        msg = str(err.value)
        assert "refused 1 update(s)" in msg
        assert ("update #1 INSERT table CheckmateIngress.shard_map match {hdr.checkmate.job_id=1, "
                "hdr.checkmate.param_id=0..9} priority 1 action CheckmateIngress.set_shard(rid=1): "
                "ALREADY_EXISTS") in msg


def test_connection_failures(fake_switch):
    fake, addr = fake_switch
    with pytest.raises(ConnectionFailed, match=r"device id 7, election id 1\): the switch has no device 7"):
        SwitchConnection(addr, 7, 1, timeout=5).connect()
    with SwitchConnection(addr, 0, 10, timeout=5).connect():
        with pytest.raises(ConnectionFailed, match=r"primary with election id 10 .*--election-id 11"):
            SwitchConnection(addr, 0, 3, timeout=5).connect()


def test_digest_pump_acks_and_feeds_watchdog(fake_switch, compiled_artifacts):
    fake, addr = fake_switch
    art = compiled_artifacts
    did = art.index.id("digests", "heartbeat_digest_t")
    wd = Watchdog(lag_threshold=2, silence_s=100, clock=lambda: 0.0)
    verdicts = []
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        pump = DigestPump([Device(conn, art.index)], wd, on_verdict=verdicts.append).start()
        try:
            for lid, (rank, it) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]):
                dl = p4runtime_pb2.DigestList(digest_id=did, list_id=lid)
                m = dl.data.add().struct.members
                for v, w in ((1, 32), (rank, 16), (it, 32)):
                    m.add().bitstring = encode(v, w)
                fake.push_digest(dl)
            import time
            deadline = time.monotonic() + 5
            while (pump.received < 6 or len(fake.acks) < 6) and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            pump.stop()
    assert pump.received == 6 and sorted(fake.acks) == [(did, i) for i in range(6)]
    snap = {r["rank"]: r["iteration"] for r in wd.snapshot()}
    assert snap == {0: 2, 1: 2} and verdicts == []


def test_builtin_shell_has_dev_bound(fake_switch, compiled_artifacts, monkeypatch, capsys):
    import io

    from controller import cli
    fake, addr = fake_switch
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        program_device(Device(conn, compiled_artifacts.index), plan_switch(STAR, "s1"),
                       compiled_artifacts.device_config)
    monkeypatch.setattr("sys.stdin", io.StringIO("print('N=%d' % len(dev.read_entries('trainer_port')))\n"))
    assert cli.main(["--switch", addr, "shell"]) == 0
    captured = capsys.readouterr()
    assert "N=3" in captured.out and "tables: " in captured.err


def test_heartbeats_watch_prints_and_exits_zero_when_healthy(fake_switch, compiled_artifacts, capsys):
    import threading
    import time

    from controller import cli
    fake, addr = fake_switch
    with SwitchConnection(addr, 0, 1, timeout=5).connect() as conn:
        program_device(Device(conn, compiled_artifacts.index), plan_switch(STAR, "s1"),
                       compiled_artifacts.device_config)
    did = compiled_artifacts.index.id("digests", "heartbeat_digest_t")

    def feed():
        deadline = time.monotonic() + 5
        while not fake.streams and time.monotonic() < deadline:
            time.sleep(0.02)
        for it in range(3):
            for rank in range(3):
                dl = p4runtime_pb2.DigestList(digest_id=did, list_id=it * 3 + rank)
                m = dl.data.add().struct.members
                for v, w in ((1, 32), (rank, 16), (it, 32)):
                    m.add().bitstring = encode(v, w)
                fake.push_digest(dl)
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    rc = cli.main(["--switch", addr, "heartbeats", "--watch", "--duration", "1.5"])
    t.join(timeout=5)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert f"{addr}: job 1 rank 2 iteration 2" in out and "HUNG" not in out
