"""checkmate.p4 with real Linux hosts: network namespaces, veths, plain UDP sockets (root only).

Three namespaces (trainers h1, h2 and shadow sh1) hang off a checkmate-switch process on
AF_PACKET ports, programmed by the controller over P4Runtime.  h1 sends with an ordinary
socket; the kernel resolves h2 through the switch's proxy ARP; h2 receives every chunk and
sh1 receives exactly one copy of each FINAL chunk on its data port -- the receiving kernels
validate the IPv4 checksum the switch recomputed.  Everything created is removed, also on
failure.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from checkmate import wire

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, AF_PACKET)")]

TAG = f"cm{os.getpid() % 100000}"
HOSTS = {  # name: (switch port, ip, mac, role fields)
    "h1": (1, "10.77.0.1", "08:00:00:00:00:01", {"role": "trainer", "rank": 0}),
    "h2": (2, "10.77.0.2", "08:00:00:00:00:02", {"role": "trainer", "rank": 1}),
    "sh1": (3, "10.77.0.101", "08:00:00:00:01:01", {"role": "shadow", "shard": 0}),
}

RECEIVER = r"""
import json, socket, sys, time
port, want, idle = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", port))
print("bound", flush=True)
got, deadline = [], time.monotonic() + 15
while len(got) < want and time.monotonic() < deadline:
    s.settimeout(max(0.05, deadline - time.monotonic()))
    try:
        data, src = s.recvfrom(65536)
    except socket.timeout:
        break
    got.append([data.hex(), src[0]])
s.settimeout(idle)
try:
    while True:
        data, src = s.recvfrom(65536)
        got.append([data.hex(), src[0]])
except socket.timeout:
    pass
print(json.dumps(got), flush=True)
"""

SENDER = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for hexdata in sys.argv[2:]:
    s.sendto(bytes.fromhex(hexdata), (sys.argv[1], 48879))
    time.sleep(0.05)
"""


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True, timeout=20)


def ns(host):
    return f"{TAG}{host}"


@pytest.fixture
def netns_hosts():
    created_ns, created_links = [], []
    try:
        for host, (port, ip, mac, _) in HOSTS.items():
            sw_if, host_if = f"{TAG}p{port}", f"{TAG}q{port}"
            sh("ip", "netns", "add", ns(host))
            created_ns.append(ns(host))
            sh("ip", "link", "add", sw_if, "type", "veth", "peer", "name", host_if)
            created_links.append(sw_if)
            sh("ip", "link", "set", host_if, "netns", ns(host))
            n = ["ip", "netns", "exec", ns(host)]
            sh(*n, "ip", "link", "set", host_if, "name", "eth0")
            sh(*n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            sh(*n, "ip", "link", "set", "eth0", "address", mac)
            sh(*n, "ip", "addr", "add", f"{ip}/24", "dev", "eth0")
            sh(*n, "ethtool", "-K", "eth0", "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off",
               check=False)
            sh(*n, "ip", "link", "set", "eth0", "up")
            sh(*n, "ip", "link", "set", "lo", "up")
            sh("sysctl", "-qw", f"net.ipv6.conf.{sw_if}.disable_ipv6=1", check=False)
            sh("ethtool", "-K", sw_if, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off", check=False)
            sh("ip", "link", "set", sw_if, "up")
        yield {port: f"{TAG}p{port}" for port, *_ in HOSTS.values()}
    finally:
        for name in created_ns:
            sh("ip", "netns", "del", name, check=False)
        for link in created_links:
            if sh("ip", "link", "show", link, check=False).returncode == 0:
                sh("ip", "link", "del", link, check=False)


def test_plain_sockets_through_the_switch_and_copies_to_the_shadow(netns_hosts, tmp_path, switchproc, compiled):
    from controller.artifacts import Artifacts
    from controller.reconcile import program_topology
    from controller.topology import Topology

    proc = switchproc.SwitchProc("s1", 0, sorted(netns_hosts), tmp_path, ifaces=netns_hosts)
    try:
        raw = {"job_id": 7,
               "hosts": {h: {"ip": f"{ip}/24", "mac": mac, **extra} for h, (_, ip, mac, extra) in HOSTS.items()},
               "switches": {"s1": {"device_id": 0, "grpc_port": proc.grpc_port}},
               "links": [[h, f"s1-p{port}"] for h, (port, *_) in HOSTS.items()],
               "shard_map": {"0": [[0, 4294967295]]}}
        topo = Topology.from_dict(raw)
        art = Artifacts(compiled.p4info, json.dumps(compiled.device_config).encode(), "compiled", "embedded")
        reports = program_topology(topo, art, timeout=10)
        assert reports["s1"].inserted > 0

        def chunk(flags, iteration, param_id):
            h = wire.ChunkHeader(job_id=7, iteration=iteration, rank=0, param_id=param_id, count=16, flags=flags)
            return wire.encode(h, bytes(range(64)))
        msgs = [chunk(wire.FLAG_FINAL, 1, 3), chunk(0, 1, 4), chunk(wire.FLAG_FINAL, 2, 5)]
        run = ["ip", "netns", "exec"]
        rx_h2 = subprocess.Popen(run + [ns("h2"), sys.executable, "-c", RECEIVER, "48879", "3", "0.3"],
                                 stdout=subprocess.PIPE, text=True)
        rx_sh1 = subprocess.Popen(run + [ns("sh1"), sys.executable, "-c", RECEIVER, str(wire.SHADOW_UDP_PORT), "2", "0.8"],
                                  stdout=subprocess.PIPE, text=True)
        try:
            for rx in (rx_h2, rx_sh1):
                assert rx.stdout.readline().strip() == "bound"
            sh(*run, ns("h1"), sys.executable, "-c", SENDER, "10.77.0.2", *[m.hex() for m in msgs])
            out_h2, _ = rx_h2.communicate(timeout=30)
            out_sh1, _ = rx_sh1.communicate(timeout=30)
        finally:
            for rx in (rx_h2, rx_sh1):
                if rx.poll() is None:
                    rx.kill()
                    rx.wait(timeout=5)
        got_h2 = json.loads(out_h2.strip().splitlines()[-1])
        got_sh1 = json.loads(out_sh1.strip().splitlines()[-1])
        assert [bytes.fromhex(d) for d, _ in got_h2] == msgs, "h2 gets every chunk, byte for byte"
        assert all(src == "10.77.0.1" for _, src in got_h2 + got_sh1)
        assert [bytes.fromhex(d) for d, _ in got_sh1] == [msgs[0], msgs[2]], "sh1 gets one copy per FINAL chunk"
    finally:
        proc.close()
