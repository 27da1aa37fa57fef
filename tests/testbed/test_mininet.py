"""Mininet plumbing of the testbed, for real: topology JSON -> Mininet hosts in namespaces -> a switch
process per switch on root-namespace veths -> ping / UDP / TCP between hosts -> teardown with nothing
left behind, and ``checkmate testbed --stop`` after a crashed or still-running runner.

The switch here is ``l2fwd.py`` (a learning L2 forwarder started through ``ProcessSwitch`` exactly like
``checkmate-switch``), so these tests check the testbed's own parts independent of the P4 switch.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from topologies import generate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import netkit  # noqa: E402

needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mnexec") is None,
                                reason="needs root and mnexec (apt package mininet)")

PY = sys.executable


# -- topology generators (no root needed) ----------------------------------------------------------

@pytest.mark.parametrize("kind,n,k", [("star", 3, 2), ("star", 2, 1), ("star", 8, 3),
                                      ("leafspine", 4, 2), ("leafspine", 3, 2), ("leafspine", 6, 3)])
def test_generated_topologies_validate_with_the_controller_loader(kind, n, k):
    from controller.topology import Topology
    raw = generate.generate(kind, n, k)
    generate.validate(raw)
    t = Topology.from_dict(json.loads(json.dumps(raw)))
    assert [h.rank for h in t.trainers()] == list(range(n))
    assert [h.shard for h in t.shadows()] == list(range(k))
    for sw in t.switches:
        # shadows sit on dedicated ports: no port faces both a trainer and a shadow
        assert not set(t.shadow_ports(sw)) & set(t.trainer_ports(sw))
        assert set(t.routes(sw)) == set(raw["hosts"])  # every host reachable from every switch
    assert sum(len(t.shadow_ports(sw)) for sw in t.switches) == k
    for name, h in raw["hosts"].items():
        if h["role"] == "shadow":
            link = [lk for lk in raw["links"] if lk[0] == name][0]
            assert link[2]["lossless"] is True
    if kind == "leafspine":
        assert set(t.switches) == {"s1", "s2", "s3"}
        assert len(t.trainer_ports("s1")) >= 1 and len(t.trainer_ports("s2")) >= 1
        assert t.trainer_ports("s3") == [] and t.shadow_ports("s3") == []


def test_generator_rejects_bad_sizes():
    with pytest.raises(ValueError):
        generate.star(1, 1)
    with pytest.raises(ValueError):
        generate.leafspine(4, 0)
    bad = generate.star(3, 2)
    bad["links"].append(["h1", "s1-p9"])
    with pytest.raises(ValueError, match="exactly one link"):
        generate.validate(bad)


def test_shadow_link_attributes_reach_the_switch_command_line():
    from topologies.net import EmbeddedSwitch
    topo = generate.star(3, 2, shadow_loss=0.01, shadow_delay_ms=2)
    sw = EmbeddedSwitch.__new__(EmbeddedSwitch)
    sw.port_tm = {4: topo["links"][3][2], 5: topo["links"][4][2]}
    args = sw.tm_args()
    assert args == ["--tm", "4:lossless=true,drop_prob=0.01,delay_s=0.002",
                    "--tm", "5:lossless=true,drop_prob=0.01,delay_s=0.002"]
    from switch.tm import parse_tm_flag  # the switch's own parser accepts them
    assert parse_tm_flag(args[1])[0] == 4


# -- Mininet bring-up / traffic / teardown -------------------------------------------------------

def _our_intfs(tag):
    return sorted(n for n in os.listdir("/sys/class/net") if n.startswith(f"cm{tag}"))


def _alive(pid, st):
    from topologies.procs import alive
    return alive(pid, st)


def _assert_gone(state, tag):
    assert _our_intfs(tag) == []
    left = [p["name"] for p in state["procs"] if _alive(p["pid"], p["starttime"])]
    assert left == []


@pytest.mark.root
@needs_root
@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["star", "leafspine"])
def test_bring_up_traffic_and_clean_teardown(kind, tmp_path):
    net, procs, topo, tag = netkit.bring_up(kind, tmp_path)
    try:
        state = json.loads((tmp_path / "state.json").read_text())
        assert len(_our_intfs(tag)) == sum(1 for _, pa, _, pb, _ in generate.links(topo)
                                           for p in (pa, pb) if p is not None)
        kinds = sorted(p["kind"] for p in state["procs"])
        assert kinds.count("switch") == len(topo["switches"])
        assert kinds.count("host") == len(topo["hosts"]) + len(topo["switches"])
        # offloads are off on both ends
        sw_if = _our_intfs(tag)[0]
        feats = subprocess.run(["ethtool", "-k", sw_if], capture_output=True, text=True).stdout
        assert "tcp-segmentation-offload: off" in feats and "generic-receive-offload: off" in feats
        assert "generic-segmentation-offload: off" in net.get("h1").cmd("ethtool -k eth0")
        # all pairs ping, through the switch process(es)
        assert net.pingAll(timeout=2) == 0.0
        # UDP from a trainer to a shadow's data port
        sh2, h1 = net.get("sh2"), net.get("h1")
        rx = sh2.popen([PY, "-c", "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                        "s.bind(('10.77.0.102', 48880)); s.settimeout(15); d, a = s.recvfrom(2048); "
                        "print(d.decode(), a[0])"], text=True)
        h1.cmd(f"{PY} -c \"import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
               f"for i in range(30): s.sendto(b'grad-chunk', ('10.77.0.102', 48880)); time.sleep(0.1)\"")
        out, _ = rx.communicate(timeout=20)
        assert out.split() == ["grad-chunk", "10.77.0.1"]
        # TCP bulk transfer (fails with veth offloads on through a user-space switch)
        srv = sh2.popen([PY, "-c", "import socket; l=socket.create_server(('10.77.0.102', 48881)); "
                         "l.settimeout(15); c,_=l.accept(); n=0\nwhile True:\n d=c.recv(65536)\n if not d: break\n"
                         " n+=len(d)\nprint(n)"], text=True)
        time.sleep(0.5)
        h1.cmd(f"{PY} -c \"import socket; c=socket.create_connection(('10.77.0.102', 48881), timeout=15); "
               f"c.sendall(b'x' * 2000000); c.close()\"")
        out, _ = srv.communicate(timeout=30)
        assert out.strip() == "2000000"
    finally:
        from topologies.net import teardown_network
        teardown_network(net, procs, topo, tag)
    _assert_gone(state, tag)
    # the host shells (and with them the namespaces) are gone
    assert all(not _alive(p["pid"], p["starttime"]) for p in state["procs"] if p["kind"] == "host")


@pytest.mark.root
@needs_root
@pytest.mark.timeout(60)
def test_jumbo_mtu(tmp_path):
    net, procs, topo, tag = netkit.bring_up("star", tmp_path, trainers=2, shadows=1, mtu=9000)
    try:
        assert "mtu 9000" in net.get("h1").cmd("ip link show eth0")
        assert " 0% packet loss" in net.get("h1").cmd("ping -c 2 -W 2 -M do -s 8900 10.77.0.101")
    finally:
        from topologies.net import teardown_network
        teardown_network(net, procs, topo, tag)
    assert _our_intfs(tag) == []


def _start_helper(logs, kind="star"):
    p = subprocess.Popen([PY, str(HERE / "netkit.py"), str(logs), kind], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (logs / "up.json").exists():
        if p.poll() is not None or time.monotonic() > deadline:
            out = p.stdout.read().decode() if p.poll() is not None else ""
            p.kill()
            pytest.fail(f"helper did not come up: {out}")
        time.sleep(0.1)
    up = json.loads((logs / "up.json").read_text())
    state = json.loads((logs / "state.json").read_text())
    return p, up["tag"], state


def _stop(logs):
    from topologies.runner import main
    return main(["--stop", "--logs", str(logs.parent)])


@pytest.mark.root
@needs_root
@pytest.mark.timeout(120)
def test_stop_after_a_crashed_runner(tmp_path):
    logs = tmp_path / "run1"
    p, tag, state = _start_helper(logs)
    try:
        assert _our_intfs(tag) and any(p_["name"] == "sleeper" for p_ in state["procs"])
        os.killpg(p.pid, signal.SIGKILL)  # the runner dies without any teardown
        p.wait(10)
        time.sleep(0.3)
        sleeper = [x for x in state["procs"] if x["name"] == "sleeper"][0]
        assert _alive(sleeper["pid"], sleeper["starttime"])  # orphans really are left behind ...
        assert _our_intfs(tag)
        assert _stop(logs) == 0  # ... and --stop removes exactly them
        _assert_gone(state, tag)
        assert not (logs / "state.json").exists()
        assert _stop(logs) == 0  # idempotent
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        _stop(logs)


@pytest.mark.root
@needs_root
@pytest.mark.timeout(120)
def test_stop_asks_a_live_runner_to_tear_down(tmp_path):
    logs = tmp_path / "run2"
    p, tag, state = _start_helper(logs, "leafspine")
    try:
        assert _stop(logs) == 0
        assert p.wait(30) == 0  # it exited through its own SIGTERM teardown
        _assert_gone(state, tag)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        _stop(logs)


def test_stop_with_nothing_recorded(tmp_path, capsys):
    from topologies.runner import main
    assert main(["--stop", "--logs", str(tmp_path)]) == 0
    assert "nothing recorded" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["star.json", "leafspine.json"])
def test_example_topology_files_become_mininet_topos(name):
    """``checkmate testbed --topo topologies/<file>``: the hand-written examples pass the runner's checks
    and become a Mininet Topo with every switch port and tagged interface name in place."""
    from topologies.net import JsonTopo, switch_intfs
    path = Path(__file__).resolve().parents[2] / "topologies" / name
    if not path.exists():
        pytest.skip(f"{path} not written yet")
    topo = json.loads(path.read_text())
    generate.validate(topo)
    t = JsonTopo(topo, tag="abc")
    assert set(t.hosts()) == set(topo["hosts"]) and set(t.switches()) == set(topo["switches"])
    assert len(t.links()) == len(topo["links"])
    names = switch_intfs(topo, "abc")
    assert len(names) == len(set(names)) and all(len(n) <= 15 and n.startswith("cmabc") for n in names)


def test_switch_command_lines(tmp_path):
    """``-i PORT@IFACE`` per port and the simple_switch_grpc option layout (target options after ``--``)."""
    from topologies.net import BMv2Switch, EmbeddedSwitch, switch_class

    class FakeIntf:
        def __init__(self, name):
            self.name = name

    def make(cls):
        sw = cls.__new__(cls)
        sw.name, sw.device_id, sw.grpc_port, sw.cpu_port = "s1", 2, 50100, 255
        sw.ports = {FakeIntf("lo"): 0, FakeIntf("cmabcs1p2"): 2, FakeIntf("cmabcs1p1"): 1}
        sw.log_dir, sw.pcap_dir, sw.trace, sw.program, sw.extra_args = tmp_path, tmp_path / "pc", False, None, []
        sw.port_tm, sw.tm_port = {2: {"lossless": True}}, 50101
        return sw

    emb = make(EmbeddedSwitch).command()
    assert emb[-1] == "--no-p4" and emb[emb.index("--tm-server-addr") + 1] == "127.0.0.1:50101"
    i = emb.index("-i")
    assert emb[i:i + 4] == ["-i", "1@cmabcs1p1", "-i", "2@cmabcs1p2"]
    assert emb[emb.index("--grpc-server-addr") + 1] == "127.0.0.1:50100" and "--log-file" not in emb
    assert emb[emb.index("--tm") + 1] == "2:lossless=true" and emb[emb.index("--pcap") + 1] == str(tmp_path / "pc" / "s1")
    bm = make(BMv2Switch).command()
    assert bm[0] == "simple_switch_grpc" and bm[1:5] == ["-i", "1@cmabcs1p1", "-i", "2@cmabcs1p2"]
    sep = bm.index("--")
    assert "--no-p4" in bm[:sep] and bm[sep + 1:] == ["--grpc-server-addr", "127.0.0.1:50100", "--cpu-port", "255"]
    assert switch_class("embedded") is EmbeddedSwitch
    assert switch_class("auto") is (BMv2Switch if shutil.which("simple_switch_grpc") else EmbeddedSwitch)
    if not shutil.which("simple_switch_grpc"):
        with pytest.raises(RuntimeError, match="not on PATH"):
            switch_class("bmv2")
