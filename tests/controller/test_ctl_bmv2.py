"""``checkmate-ctl`` against real BMv2 (issue #14): program, tables, entries, counters, mcast,
shards and heartbeats on ``simple_switch_grpc``, its pipeline compiled by real p4c.

s1 of ``topologies/star.json`` is one ``simple_switch_grpc`` whose five ports are veths in the root
namespace; the test writes frames into the far ends with AF_PACKET sockets (FINAL chunks of ranks 0
and 1), so the copies, the replica counters and the heartbeat digests are the switch's own.  Only
what BMv2's P4Runtime server supports is used (no register access).  Needs root, p4c and
simple_switch_grpc (CI installs them from ../shared/p4ref); skipped with the reason otherwise.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from checkmate import wire
from checkmate.paths import ROOT
from controller.plan import plan_switch
from controller.topology import Topology
from tests.childproc import free_port

STAR = ROOT / "topologies" / "star.json"
PORTS = (1, 2, 3, 4, 5)

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(shutil.which("simple_switch_grpc") is None or shutil.which("p4c") is None,
                       reason="needs real p4c and simple_switch_grpc on PATH (CI installs them from "
                              "../shared/p4ref/install.sh)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (veth interfaces)"),
]


def _ip(*args) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def bmv2_star(tmp_path):
    """(topology, topology path, {port: far-end interface}) with s1 running on simple_switch_grpc."""
    from topologies.net import offloads_off
    tag = f"{os.getpid() % 10000}"
    sw_if = {p: f"cmb{tag}s{p}" for p in PORTS}
    far_if = {p: f"cmb{tag}h{p}" for p in PORTS}
    raw = json.loads(STAR.read_text())
    grpc_port, thrift_port = free_port(), free_port()
    raw["switches"]["s1"]["grpc_port"] = grpc_port
    path = tmp_path / "star.json"
    path.write_text(json.dumps(raw))
    ipc = f"/tmp/checkmate-bmv2-test-{grpc_port}.ipc"
    proc = None
    try:
        for p in PORTS:
            _ip("link", "add", sw_if[p], "type", "veth", "peer", "name", far_if[p])
            for i in (sw_if[p], far_if[p]):
                offloads_off(i)
                _ip("link", "set", "dev", i, "up")
            with open(f"/proc/sys/net/ipv6/conf/{far_if[p]}/disable_ipv6", "w") as f:
                f.write("1")  # no neighbour discovery from the host side
        log = open(tmp_path / "s1.log", "w")
        argv = ["simple_switch_grpc", "--no-p4", "--device-id", "0", "--thrift-port", str(thrift_port),
                "--notifications-addr", f"ipc://{ipc}"]
        for p in PORTS:
            argv += ["-i", f"{p}@{sw_if[p]}"]
        argv += ["--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port", "255"]
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "s1.log").read_text()[-2000:]
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", grpc_port), timeout=0.5):
                break
            assert time.monotonic() < deadline, "simple_switch_grpc did not open its gRPC port in 30 s"
            time.sleep(0.1)
        yield Topology.load(path), path, far_if
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for p in PORTS:
            subprocess.run(["ip", "link", "del", sw_if[p]], capture_output=True, timeout=10)
        with contextlib.suppress(OSError):
            os.unlink(ipc)


def final_chunk(topo, src: str, dst: str, iteration: int, param_id: int = 0) -> bytes:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    s, d = topo.host(src), topo.host(dst)
    hdr = wire.ChunkHeader(job_id=topo.job_id, iteration=iteration, rank=s.rank, param_id=param_id,
                           count=4, flags=wire.FLAG_FINAL)
    return bytes(Ether(src=s.mac, dst=d.mac) / IP(src=s.ip, dst=d.ip)
                 / UDP(sport=40000, dport=wire.CHECKMATE_UDP_PORT) / wire.encode(hdr, bytes(16)))


def _raw(iface: str) -> socket.socket:
    # protocol given at bind only: opened for ETH_P_ALL it would hear every interface until bound
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((iface, 0x0003))  # ETH_P_ALL; Python puts it in network order
    s.settimeout(5.0)
    return s


def _recv_udp(sock: socket.socket, dport: int) -> bytes:
    """The next frame *received* on ``sock`` that is IPv4/UDP to ``dport`` (skips anything else,
    including frames this host sends on the same interface, which a packet socket also sees)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        f, addr = sock.recvfrom(4096)
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        if len(f) > 42 and f[12:14] == b"\x08\x00" and f[23] == 17 and int.from_bytes(f[36:38], "big") == dport:
            return f
    raise AssertionError(f"no UDP frame to port {dport} within 5 s")


@pytest.mark.timeout(180)
def test_checkmate_ctl_on_real_bmv2(bmv2_star, tmp_path, ctl):
    topo, path, far_if = bmv2_star
    build = tmp_path / "build"
    # program: the BMv2 pair is compiled with p4c on demand (build/ is empty)
    rc, rep = ctl("--build", str(build), "--target", "bmv2", "--json", "program", str(path))
    assert rc == 0, rep
    plan = plan_switch(topo, "s1")
    assert rep["s1"]["pipeline_pushed"] and rep["s1"]["inserted"] == len(plan.entries)
    assert rep["s1"]["groups_inserted"] == len(plan.groups) and rep["s1"]["digests"] == ["heartbeat_digest_t"]
    assert (build / "checkmate.bmv2.json").is_file()
    rc, rep2 = ctl("--build", str(build), "--target", "bmv2", "--json", "program", str(path))
    assert rc == 0 and rep2["s1"]["changes"] == 0 and not rep2["s1"]["pipeline_pushed"], rep2

    t = ["--topology", str(path), "--json"]
    rc, tables = ctl(*t, "tables")
    assert rc == 0 and {x["alias"] for x in tables} >= {"ipv4_route", "shard_map", "replication", "shadow_rewrite"}
    rc, entries = ctl(*t, "entries")
    assert rc == 0 and len(entries["s1"]) == len(plan.entries)
    rc, groups = ctl(*t, "mcast")
    assert rc == 0 and groups["s1"] == [g.to_json() for g in sorted(plan.groups, key=lambda g: g.group_id)]
    rc, shards = ctl(*t, "shards")
    assert rc == 0
    assert [(r["param_lo"], r["param_hi"], r["shard"]) for r in shards["s1"]] == \
        [(lo, hi, s) for s, lo, hi in topo.shard_ranges()]

    # traffic: ranks 0 and 1 send FINAL chunks of changing iterations while `heartbeats` listens
    hb = subprocess.Popen([sys.executable, "-m", "controller.cli", *t, "heartbeats", "--duration", "4"],
                          cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tx1, tx2 = _raw(far_if[1]), _raw(far_if[2])
    rx2, rx_sh1 = _raw(far_if[2]), _raw(far_if[4])
    sent = 0
    try:
        it = 0
        while hb.poll() is None:
            it += 1
            tx1.send(final_chunk(topo, "h1", "h2", it))             # param 0: shard 0 -> sh1 (port 4)
            tx2.send(final_chunk(topo, "h2", "h1", it, param_id=5))  # param 5: shard 1 -> sh2 (port 5)
            sent += 1
            if sent == 1:  # the original reaches h2 unchanged, the copy reaches sh1 readdressed
                orig = _recv_udp(rx2, wire.CHECKMATE_UDP_PORT)
                copy = _recv_udp(rx_sh1, topo.host("sh1").udp_port)
                assert orig[42:] == copy[42:] == final_chunk(topo, "h1", "h2", 1)[42:]
            time.sleep(0.1)
        out, err = hb.communicate(timeout=30)
    finally:
        if hb.poll() is None:
            hb.kill()
        for s in (tx1, tx2, rx2, rx_sh1):
            s.close()
    assert hb.returncode in (0, 3), err
    beats = json.loads(out)
    ranks = {r["rank"]: r for r in beats["ranks"]}
    assert beats["digests"] > 0 and ranks[0]["iteration"] and ranks[1]["iteration"], beats
    assert ranks[2]["iteration"] is None  # rank 2 sent nothing

    # replica counters read over P4Runtime: one copy per chunk, per shard
    rc, counters = ctl(*t, "counters", "shard_replicas")
    assert rc == 0
    cells = {c["index"]: c for c in counters["s1"]}
    assert cells[1]["packets"] == sent and cells[2]["packets"] == sent, counters
