"""Two hosts in network namespaces talk through checkmate-switch over veths (AF_PACKET
ports, root): UDP datagrams of every size up to the MTU arrive intact, ping works,
and the ``--pcap`` files open in scapy with the frames that crossed."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap

import pytest
from p4.v1 import p4runtime_pb2 as P

from benchmarks.bench_switch import Topology

pytestmark = pytest.mark.root

RECEIVER = textwrap.dedent("""
    import hashlib, json, socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.0.2.2", 40001)); s.settimeout(3)
    print("READY", flush=True)
    got = []
    try:
        while len(got) < int(sys.argv[1]):
            got.append(hashlib.sha256(s.recv(65535)).hexdigest())
    except socket.timeout:
        pass
    print(json.dumps(got), flush=True)
""")

SENDER = textwrap.dedent("""
    import os, socket, sys, time
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for n in map(int, sys.argv[1:]):
        s.sendto(os.urandom(n) if n % 2 else bytes(range(256)) * (n // 256) + bytes(n % 256), ("10.0.2.2", 40001))
        time.sleep(0.005)
""")


def _need_root():
    if os.geteuid() != 0:
        pytest.fail("this test needs root (network namespaces, AF_PACKET); run the suite as root")


@pytest.mark.parametrize("tx_ring", [False, True], ids=["send", "tx-ring"])
def test_frames_cross_the_switch_intact_and_pcaps_open(start_switch, connect, tmp_path, names, tx_ring):
    _need_root()
    from scapy.layers.inet import IP, UDP
    from scapy.utils import rdpcap

    pcaps = tmp_path / "pcaps"
    with Topology(tag=f"{os.getpid() % 10000}n") as topo:
        sp = start_switch(extra=["-i", f"1@{topo.sw_a}", "-i", f"2@{topo.sw_b}", "--pcap", pcaps,
                                 *(["--tx-ring"] if tx_ring else []),
                                 str(__import__("pathlib").Path(__file__).parent / "programs" / "l3_cpu.p4")])
        ctl = connect(sp.grpc_addr)
        ups = []
        for prefix, mac, port in ((b"\x0a\x00\x02\x00", topo.mac_b, 2), (b"\x0a\x00\x01\x00", topo.mac_a, 1)):
            te = P.TableEntry(table_id=names.table_id("ipv4_lpm"))
            fm = te.match.add(field_id=names.field_id("ipv4_lpm", "hdr.ipv4.dstAddr"))
            fm.lpm.value, fm.lpm.prefix_len = prefix, 24
            te.action.action.action_id = names.action_id("ipv4_forward")
            te.action.action.params.add(param_id=1, value=bytes.fromhex(mac.replace(":", "")))
            te.action.action.params.add(param_id=2, value=bytes([port]))
            ups.append(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)))
        ctl.write(*ups)

        sizes = [1, 2, 100, 513, 1000, 1471, 1472]
        rx = subprocess.Popen(["ip", "netns", "exec", topo.ns_b, sys.executable, "-c", RECEIVER, str(len(sizes))],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert rx.stdout.readline().strip() == "READY"
            tx = subprocess.run(["ip", "netns", "exec", topo.ns_a, sys.executable, "-c", SENDER, *map(str, sizes)],
                                capture_output=True, text=True, timeout=30)
            assert tx.returncode == 0, tx.stderr
            got = json.loads(rx.communicate(timeout=20)[0].strip().splitlines()[-1])
        finally:
            if rx.poll() is None:
                rx.kill()
                rx.wait(5)
        assert len(got) == len(sizes), f"received {len(got)} of {len(sizes)} datagrams\n{sp.stderr()[-2000:]}"

        ping = subprocess.run(["ip", "netns", "exec", topo.ns_a, "ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"],
                              capture_output=True, text=True, timeout=20)
        assert ping.returncode == 0, ping.stdout + ping.stderr
        sp.stop()  # flushes and closes the pcap files

        ins = rdpcap(str(pcaps / f"{topo.sw_a}_in.pcap"))
        outs = rdpcap(str(pcaps / f"{topo.sw_b}_out.pcap"))
        sent_payloads = [bytes(p[UDP].payload) for p in ins if UDP in p and p[UDP].dport == 40001]
        fwd_payloads = [bytes(p[UDP].payload) for p in outs if UDP in p and p[UDP].dport == 40001]
        assert len(sent_payloads) == len(sizes) and fwd_payloads == sent_payloads
        assert sorted(hashlib.sha256(x).hexdigest() for x in fwd_payloads) == sorted(got)
        for p in outs:
            if IP in p:
                assert p.dst == topo.mac_b and p[IP].ttl == 63
                ck = p[IP].chksum
                del p[IP].chksum
                assert IP(bytes(p[IP]))[IP].chksum == ck
        assert (pcaps / f"{topo.sw_b}_in.pcap").exists() and (pcaps / f"{topo.sw_a}_out.pcap").exists()
