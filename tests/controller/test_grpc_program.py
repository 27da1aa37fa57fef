"""The controller against real checkmate-switch processes over P4Runtime gRPC.

Programs a leaf-spine from its topology, reads back every table and group, checks that
a second run changes nothing, repairs drift, re-programs a restarted switch, checks the
CLI's JSON against what was installed, and decodes errors into sentences.
"""
from __future__ import annotations

import pytest
from p4.config.v1 import p4info_pb2

from controller import cli
from controller.client import SwitchConnection
from controller.device import DIGEST_MAX_LIST_SIZE, DIGEST_MAX_TIMEOUT_NS, Device
from controller.entities import Entry, McastGroup
from controller.errors import ConnectionFailed, WriteFailed
from controller.plan import plan_switch
from controller.reconcile import program_device


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    """build/ exactly as `make build` writes it (the embedded pair; python -m controller.artifacts)."""
    import subprocess
    import sys

    from checkmate.paths import P4SRC
    d = tmp_path_factory.mktemp("build")
    subprocess.run([sys.executable, "-m", "controller.artifacts", str(P4SRC / "checkmate.p4"), "-o", str(d),
                    "--target", "embedded"], check=True, timeout=120)
    assert (d / "checkmate.embedded.json").is_file()
    return d


def canonical_plan(topo, name, index):
    plan = plan_switch(topo, name)
    return {e.canonical(index).key(): e.canonical(index) for e in plan.entries}, plan


def connect(topo, name, election_id=1):
    sw = topo.switches[name]
    return SwitchConnection(sw.grpc_addr, sw.device_id, election_id, name=name, timeout=10).connect()


def test_program_readback_idempotent_reconcile_restart(leafspine_fabric, build_dir, ctl):
    topo, path, procs = leafspine_fabric
    rc, rep = ctl("--build", str(build_dir), "--json", "program", str(path))
    assert rc == 0, rep
    from controller.artifacts import load_artifacts
    art = load_artifacts(build_dir)
    index = art.index
    for name in topo.switches:
        want, plan = canonical_plan(topo, name, index)
        r = rep[name]
        assert r["pipeline_pushed"] and r["inserted"] == len(want) and r["deleted"] == r["modified"] == 0
        assert r["groups_inserted"] == len(plan.groups) and r["digests"] == ["heartbeat_digest_t"]
        with connect(topo, name) as conn:
            dev = Device(conn, index)
            have = {e.key(): e for e in dev.read_entries()}
            assert have == want
            assert dev.read_groups() == sorted(plan.groups, key=lambda g: g.group_id)
            cfg = dev.read_digest_config("heartbeat_digest_t")
            assert cfg is not None and (cfg.config.max_list_size, cfg.config.max_timeout_ns) == (
                DIGEST_MAX_LIST_SIZE, DIGEST_MAX_TIMEOUT_NS)

    # second run: nothing to do
    rc, rep2 = ctl("--build", str(build_dir), "--json", "program", str(path))
    assert rc == 0 and all(r["changes"] == 0 and not r["pipeline_pushed"] for r in rep2.values()), rep2

    # drift on s1: one entry deleted, one modified, one extra, one group changed, one extra group
    want, plan = canonical_plan(topo, "s1", index)
    with connect(topo, "s1") as conn:
        dev = Device(conn, index)
        route = next(e for e in want.values() if e.table.endswith("ipv4_route"))
        arp = next(e for e in want.values() if e.table.endswith("arp_proxy"))
        dev.delete(route)
        dev.modify(Entry(arp.table, arp.match, arp.action, {"mac": 0x0A0B0C0D0E0F}))
        dev.insert(Entry("ipv4_route", {"hdr.ipv4.dstAddr": ("10.99.0.1", 32)}, "drop_no_route"))
        g = plan.groups[0]
        dev.write([dev.group_update(2, McastGroup.of(g.group_id, [(7, 0)])),
                   dev.group_update(1, McastGroup.of(999, [(1, 0)]))])
        rep3 = program_device(dev, plan, art.device_config)
        assert (rep3.inserted, rep3.modified, rep3.deleted) == (1, 1, 1)
        assert (rep3.groups_modified, rep3.groups_deleted) == (1, 1) and not rep3.pipeline_pushed
        assert {e.key(): e for e in dev.read_entries()} == want
        assert dev.read_groups() == sorted(plan.groups, key=lambda g: g.group_id)

    # restart s2: empty switch, re-programmed to the same state
    procs["s2"].restart()
    rc, rep4 = ctl("--build", str(build_dir), "--json", "program", str(path))
    assert rc == 0
    assert rep4["s2"]["pipeline_pushed"] and rep4["s2"]["inserted"] == len(canonical_plan(topo, "s2", index)[0])
    assert rep4["s1"]["changes"] == 0 and rep4["s3"]["changes"] == 0
    with connect(topo, "s2") as conn:
        want2, plan2 = canonical_plan(topo, "s2", index)
        assert {e.key(): e for e in Device(conn, index).read_entries()} == want2

    # the CLI's JSON is what was installed
    rc, entries = ctl("--topology", str(path), "--json", "entries")
    assert rc == 0
    for name in topo.switches:
        want, plan = canonical_plan(topo, name, index)
        got = {Entry(d["table"], {k: tuple(v) if isinstance(v, list) else v for k, v in d["match"].items()},
                     d["action"], d["params"], d["priority"]).key() for d in entries[name]}
        assert got == set(want)
    rc, one = ctl("--switch", topo.switches["s1"].grpc_addr, "--json", "entries", "shard_map")
    assert rc == 0 and len(one["127.0.0.1:%d" % topo.switches["s1"].grpc_port]) == len(topo.shard_ranges())
    rc, groups = ctl("--topology", str(path), "--json", "mcast")
    assert groups["s1"] == [g.to_json() for g in sorted(plan_switch(topo, "s1").groups, key=lambda g: g.group_id)]
    assert groups["s3"] == []
    rc, shards = ctl("--topology", str(path), "--json", "shards")
    assert rc == 0
    rows = shards["s1"]
    assert [(r["param_lo"], r["param_hi"], r["shard"], r["shadow"]["host"]) for r in rows] == \
        [(lo, hi, s, topo.shadow_for_shard(s).name) for s, lo, hi in topo.shard_ranges()]
    assert rows[0]["shadow"]["udp_port"] == 48880 and shards["s3"] == []
    rc, tables = ctl("--topology", str(path), "--json", "tables")
    assert {t["alias"] for t in tables} >= {"ipv4_route", "arp_proxy", "trainer_port", "shard_map",
                                             "replication", "heartbeat_slot", "shadow_rewrite"}
    rc, counters = ctl("--topology", str(path), "--json", "counters", "shard_replicas", "--all")
    assert rc == 0 and len(counters["s1"]) == index.get("counters", "shard_replicas").size


def test_write_errors_are_sentences(star_fabric, build_dir, ctl):
    topo, path, procs = star_fabric
    assert ctl("--build", str(build_dir), "program", str(path))[0] == 0
    from controller.artifacts import load_artifacts
    index = load_artifacts(build_dir).index
    with connect(topo, "s1") as conn:
        dev = Device(conn, index)
        dup = Entry("ipv4_route", {"hdr.ipv4.dstAddr": ("10.77.0.1", 32)}, "forward",
                    {"port": 1, "smac": "02:00:00:00:00:01", "dmac": "08:00:00:00:00:01"})
        with pytest.raises(WriteFailed) as e:
            dev.insert(dup, Entry("trainer_port", {"standard_metadata.ingress_port": 9}, "mark_trainer"))
        msg = str(e.value)
        assert "1 update(s)" in msg and "update #0 INSERT table CheckmateIngress.ipv4_route" in msg
        assert "hdr.ipv4.dstAddr=10.77.0.1/32" in msg and "ALREADY_EXISTS" in msg
        assert "port=1" in msg and "dmac=08:00:00:00:00:01" in msg
        with pytest.raises(WriteFailed, match=r"DELETE table CheckmateIngress.trainer_port match "
                                              r"\{standard_metadata.ingress_port=77\}.*NOT_FOUND"):
            dev.delete(Entry("trainer_port", {"standard_metadata.ingress_port": 77}, "mark_trainer"))


def test_connection_errors_say_what_was_tried(star_fabric, ctl):
    topo, path, procs = star_fabric
    sw = topo.switches["s1"]
    # another device id: the arbitration succeeds, as on simple_switch_grpc (PI makes the client
    # primary of that absent device); the first pipeline push says there is no such device
    with SwitchConnection(sw.grpc_addr, 42, 1, timeout=5).connect() as other:
        with pytest.raises(ConnectionFailed, match=rf"{sw.grpc_addr} \(device id 42, election id 1\).*"
                                                   r"device id 42 is not this switch.*switch log"):
            other.set_pipeline(p4info_pb2.P4Info(), b"{}")
    with SwitchConnection(sw.grpc_addr, sw.device_id, 10, timeout=5).connect():
        with pytest.raises(ConnectionFailed, match="another controller is primary with election id 10.*--election-id 11"):
            SwitchConnection(sw.grpc_addr, sw.device_id, 5, timeout=5).connect()
    rc, _ = ctl("--switch", sw.grpc_addr, "entries")
    assert rc == 1  # no program yet: says so



def final_chunk(topo, src, dst, iteration, param_id=0):
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    from checkmate import wire
    s, d = topo.host(src), topo.host(dst)
    hdr = wire.ChunkHeader(job_id=topo.job_id, iteration=iteration, rank=s.rank, param_id=param_id,
                           count=4, flags=wire.FLAG_FINAL)
    return bytes(Ether(src=s.mac, dst=d.mac) / IP(src=s.ip, dst=d.ip)
                 / UDP(sport=40000, dport=wire.CHECKMATE_UDP_PORT) / wire.encode(hdr, bytes(16)))


def test_watchdog_flags_stalled_rank_from_switch_digests(star_fabric, build_dir, ctl):
    """Trainers send FINAL chunks through s1; rank 2 stalls at iteration 3 and is flagged
    once the others reach iteration 5 (within 2 iterations); every DigestList is acked."""
    import time

    from controller.watchdog import DigestPump, Watchdog
    topo, path, procs = star_fabric
    assert ctl("--build", str(build_dir), "program", str(path))[0] == 0
    from controller.artifacts import load_artifacts
    index = load_artifacts(build_dir).index
    sw = procs["s1"]
    wd = Watchdog(lag_threshold=2, silence_s=60, expected=[(topo.job_id, r) for r in range(3)])
    verdicts = []
    with connect(topo, "s1") as conn:
        pump = DigestPump([Device(conn, index)], wd, on_verdict=verdicts.append).start()
        try:
            flagged_at = None
            for it in range(8):
                for h in ("h1", "h2", "h3"):
                    if h == "h3" and it > 3:
                        continue  # rank 2 stalls after iteration 3
                    port = topo.attachment(h).port
                    sw.send(port, final_chunk(topo, h, "h1" if h != "h1" else "h2", it))
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    snap = {r["rank"]: r["iteration"] for r in wd.snapshot()}
                    if snap.get(0) == it and snap.get(1) == it:
                        break
                    time.sleep(0.02)
                else:
                    raise AssertionError(f"no heartbeat for iteration {it}: {wd.snapshot()}")
                if flagged_at is None and wd.hung():
                    flagged_at = it
        finally:
            pump.stop()
    assert flagged_at == 5, (flagged_at, verdicts)
    assert [(v.rank, v.hung) for v in verdicts] == [(2, True)]
    assert pump.received == 8 + 8 + 4  # one digest per rank per new iteration, no repeats
    for p in procs["s1"].socks:  # the copies went to the shadows' ports
        procs["s1"].drain(p, 0.05)


def test_cli_heartbeats_exit_code(star_fabric, build_dir, ctl):
    import threading
    import time
    topo, path, procs = star_fabric
    assert ctl("--build", str(build_dir), "program", str(path))[0] == 0
    sw = procs["s1"]
    stop = threading.Event()

    def traffic():
        time.sleep(1.0)
        for it in range(6):
            for h in ("h1", "h2"):
                sw.send(topo.attachment(h).port, final_chunk(topo, h, "h3", it))
            time.sleep(0.05)
            if stop.is_set():
                return
    t = threading.Thread(target=traffic, daemon=True)
    t.start()
    try:
        rc, out = ctl("--topology", str(path), "--json", "heartbeats", "--duration", "3")
    finally:
        stop.set()
        t.join(timeout=5)
    assert rc == cli.EXIT_HUNG, out
    ranks = {r["rank"]: r for r in out["ranks"]}
    assert ranks[0]["iteration"] == 5 and ranks[1]["iteration"] == 5 and ranks[2]["iteration"] is None
    assert [r["rank"] for r in out["hung"]] == [2] and "never reported" in out["hung"][0]["reason"]
