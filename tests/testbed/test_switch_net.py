"""The real data plane in the testbed network (needs root): ``checkmate-switch`` processes started by
``EmbeddedSwitch`` on Mininet veths, programmed over P4Runtime by the testbed's controller
(``topologies/control.py``), then real traffic: every host pair pings, and a FINAL gradient chunk sent
from one trainer to the next arrives at that trainer *and*, rewritten, at the shadow that owns the
parameter, while the controller receives the heartbeat digest.  Both topologies."""
import os
import shutil
import sys
import time

import pytest

from checkmate import wire
from topologies import generate
from topologies import net as tnet
from topologies.control import Control
from topologies.procs import ProcessTable
from topologies.runner import free_port_block

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                                 reason="needs root and mnexec (apt package mininet)")]
PY = sys.executable

RECV = ("import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], int(sys.argv[2])));"
        " s.settimeout(20); d,a=s.recvfrom(9000); print(d.hex(), a[0], a[1])")


@pytest.mark.timeout(150)
@pytest.mark.parametrize("kind,trainers", [("star", 3), ("leafspine", 4)])
def test_p4_switch_forwards_and_replicates_final_chunks(kind, trainers, tmp_path):
    import secrets
    tag = secrets.token_hex(2)[:3]
    topo = generate.generate(kind, trainers, 2, grpc_base=free_port_block(3), job_id=7)
    procs = ProcessTable(tmp_path / "state.json", "switch-net")
    net = tnet.build_network(topo, tag, tnet.EmbeddedSwitch, procs, tmp_path)
    ctl = None
    try:
        ctl = Control(time.monotonic(), topo, {0: 0, 1: 0, 2: 1, 3: 1})  # params 0-1 -> shard 0, 2-3 -> shard 1
        ctl.start()
        assert net.pingAll(timeout=2) == 0.0
        # the last trainer (on the other leaf in the leaf-spine) sends a FINAL chunk of param 2 to rank 0
        src = net.get(f"h{trainers}")
        hdr = wire.ChunkHeader(job_id=7, iteration=5, rank=trainers - 1, param_id=2, offset=16, count=4,
                               flags=wire.FLAG_FINAL)
        payload = wire.encode(hdr, bytes(range(16)))
        rx_trainer = net.get("h1").popen([PY, "-c", RECV, "10.77.0.1", str(wire.CHECKMATE_UDP_PORT)], text=True)
        rx_shadow = net.get("sh2").popen([PY, "-c", RECV, "10.77.0.102", str(wire.SHADOW_UDP_PORT)], text=True)
        time.sleep(1.0)
        src.cmd(f"{PY} -c \"import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
                f" s.bind(('10.77.0.{trainers}', {wire.CHECKMATE_UDP_PORT}))\n"
                f"for i in range(3): s.sendto(bytes.fromhex('{payload.hex()}'), ('10.77.0.1', {wire.CHECKMATE_UDP_PORT})); time.sleep(0.3)\"")
        out_t, _ = rx_trainer.communicate(timeout=30)
        out_s, _ = rx_shadow.communicate(timeout=30)
        data_t, ip_t, _ = out_t.split()
        data_s, ip_s, _ = out_s.split()
        assert bytes.fromhex(data_t) == payload and ip_t == f"10.77.0.{trainers}"
        got, body = wire.decode(bytes.fromhex(data_s))  # the copy: same header and payload ...
        assert got == hdr and bytes(body) == bytes(range(16))
        deadline = time.monotonic() + 10
        while not ctl.heartbeats and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any(h["rank"] == trainers - 1 and h["iteration"] == 5 and h["job_id"] == 7 for h in ctl.heartbeats)
        counters = ctl.counters()
        assert any(c.get("CheckmateEgress.shard_replicas", {}).get("packets", 0) >= 1 for c in counters.values())
    finally:
        if ctl is not None:
            ctl.stop()
        tnet.teardown_network(net, procs, topo, tag)
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{tag}")]


@pytest.mark.timeout(120)
def test_switch_restart_is_reprogrammed_and_tm_changes_at_run_time(tmp_path):
    """The hooks the fault scenarios use: a restarted switch process comes back empty, the controller
    reconnects and reprograms it, traffic flows again; the TM control channel changes a port live."""
    import secrets
    from switch.tm_client import TMClient
    tag = secrets.token_hex(2)[:3]
    base = free_port_block(2)
    topo = generate.star(2, 1, grpc_base=base)
    topo["switches"]["s1"]["tm_port"] = base + 1
    procs = ProcessTable(tmp_path / "state.json", "restart")
    net = tnet.build_network(topo, tag, tnet.EmbeddedSwitch, procs, tmp_path)
    ctl = None
    try:
        ctl = Control(time.monotonic(), topo, None)
        ctl.start()
        h1 = net.get("h1")
        assert " 0% packet loss" in h1.cmd("ping -c 2 -W 2 10.77.0.2")
        sw = net.get("s1")
        pid = sw.proc.pid
        procs.stop(sw.proc_name)
        assert "100% packet loss" in h1.cmd("ping -c 1 -W 1 10.77.0.2")
        sw.start([])
        assert sw.proc.pid != pid
        assert "100% packet loss" in h1.cmd("ping -c 1 -W 1 10.77.0.2")  # no program, no forwarding
        ctl.reconnect("s1")
        assert " 0% packet loss" in h1.cmd("ping -c 2 -W 2 10.77.0.2")
        with TMClient("127.0.0.1", base + 1) as tm:
            tm.set(2, drop_prob=1.0)  # port 2 faces h2: everything to h2 is dropped
            assert "100% packet loss" in h1.cmd("ping -c 2 -W 1 10.77.0.2")
            assert tm.stats()[2]["fault_drops"] >= 2
            tm.set(2, drop_prob=0.0)
        assert " 0% packet loss" in h1.cmd("ping -c 2 -W 2 10.77.0.2")
    finally:
        if ctl is not None:
            ctl.stop()
        tnet.teardown_network(net, procs, topo, tag)
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{tag}")]
