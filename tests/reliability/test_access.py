"""Access (issue #11): a shadow accepts copies only for its job and shard and only from the switch-facing
link; the shadow's management API and the switch's control channels listen only on the addresses given;
a switch port (UDP-tunnel link) takes frames only from its peer; only the primary controller writes
(see also test_p4rt_malformed.py::test_only_primary_writes)."""
from __future__ import annotations

import dataclasses
import os
import re
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from checkmate import wire
from shadow.packets import gradient_packets

from .conftest import JOB, SwitchProcess, bits_equal, state_bits, valid_chunk

SHADOW_BIN = Path(sys.executable).parent / "checkmate-shadow"


def listening_sockets(pid: int) -> dict[str, list[tuple[str, int]]]:
    """{'tcp': [(ip, port)], 'udp': [...]} of the IPv4/IPv6 sockets process ``pid`` has bound (TCP: LISTEN only)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            t = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if m := re.match(r"socket:\[(\d+)\]", t):
            inodes.add(m.group(1))
    out = {"tcp": [], "udp": []}
    for proto in ("tcp", "udp", "tcp6", "udp6"):
        try:
            lines = open(f"/proc/{pid}/net/{proto}").read().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            f = ln.split()
            local, state, inode = f[1], f[3], f[9]
            if inode not in inodes or (proto.startswith("tcp") and state != "0A"):
                continue
            hexip, hexport = local.split(":")
            if len(hexip) == 8:
                ip = socket.inet_ntoa(bytes.fromhex(hexip)[::-1])
            else:
                ip = socket.inet_ntop(socket.AF_INET6, b"".join(bytes.fromhex(hexip[i:i + 8])[::-1]
                                                                  for i in range(0, 32, 8)))
            if ip.startswith("::ffff:"):  # IPv4-mapped (gRPC binds 127.0.0.1 on a dual-stack socket)
                ip = ip[7:]
            out[proto[:3]].append((ip, int(hexport, 16)))
    return out


# ------------------------------------------------------------------ shadow: job and shard
def test_shadow_accepts_only_its_job_and_shard(shadow_node, small_run):
    node = shadow_node
    before = state_bits(node.fetch())
    g = small_run.grads[0]
    other_job = gradient_packets(JOB + 1, 1, {p: g[p] for p in node.owned})
    other_shard = gradient_packets(JOB, 1, {p: g[p] for p in g if p not in node.owned})
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        for what, pkts, field in (("other job", other_job, "job_id"), ("other shard", other_shard, "param_id")):
            base = node.counters.rejected
            for d in pkts:
                u.sendto(d, node.data_address)
            assert node.wait_for(lambda n: n.counters.rejected - base == len(pkts), 10), \
                f"{what}: {node.counters.rejected - base} of {len(pkts)} copies rejected"
            assert f"'{field}'" in node.counters.last_error, node.counters.last_error
    node.manifest(small_run.manifests[0])
    time.sleep(0.3)
    assert state_bits(node.fetch()) == before and node.status().latest_iteration == 0


def test_shadow_management_refuses_other_job_and_shard(shadow_node, small_run):
    from shadow.client import ShadowClient, ShadowError
    from shadow.protocol import Bootstrap, Manifest, ShardMap
    node = shadow_node
    before = state_bits(node.fetch())
    owner = {p.param_id: p.param_id % 2 for p in small_run.params}
    with ShadowClient(*node.mgmt_address, timeout=10) as c:
        for job, shard, field in ((JOB + 1, 0, "job_id"), (JOB, 1, "shard")):
            b = Bootstrap(job, shard, 5, small_run.params, ShardMap(job, 2, owner, ["a:1", "b:2"]), small_run.spec,
                          {p: torch.zeros_like(small_run.init[p]) for p in node.owned}, {})
            with pytest.raises(ShadowError) as ei:
                c.bootstrap(b)
            assert f"'{field}'" in str(ei.value), str(ei.value)
        with pytest.raises(ShadowError) as ei:
            c.manifest(Manifest(JOB + 1, 1, [1e-3], None, False))
        assert "'job_id'" in str(ei.value)
    assert state_bits(node.fetch()) == before


# ------------------------------------------------------------------ shadow: only from the switch-facing link
SOURCE_OPTION_HINTS = ("allow", "source", "peer", "iface", "interface", "device", "switch")


def _source_option(cfg_cls) -> str | None:
    for f in dataclasses.fields(cfg_cls):
        if any(h in f.name for h in SOURCE_OPTION_HINTS):
            return f.name
    return None


def test_shadow_has_a_switch_link_restriction():
    """The shadow must be able to restrict its data port to the switch-facing link: an allowed-source
    (address/CIDR) option and/or binding to the switch-facing interface (SO_BINDTODEVICE), in both
    ShadowConfig and ``checkmate-shadow``."""
    from shadow.cli import build_parser
    from shadow.node import ShadowConfig
    opt = _source_option(ShadowConfig)
    flags = [a for a in build_parser()._option_string_actions if any(h in a for h in SOURCE_OPTION_HINTS)]
    fields = [f.name for f in dataclasses.fields(ShadowConfig)]
    assert opt and flags, (
        "MISSING in shadow/: no way to accept copies only from the switch-facing link. ShadowConfig fields: "
        f"{fields}; checkmate-shadow flags: {sorted(build_parser()._option_string_actions)}. Needed: e.g. "
        "ShadowConfig.allowed_sources (list of addresses/CIDRs checked against recvfrom's source in "
        "ShadowNode._ingest_loop) + --allow-from CIDR, and/or ShadowConfig.data_iface + --data-iface IFACE "
        "(SO_BINDTODEVICE on the UDP socket); rejected datagrams counted in 'rejected' with last_error "
        "naming the source.")


def test_forged_copy_from_off_link_source_cannot_damage_checkpoint(tmp_path, small_run):
    """A datagram for the shadow's own job/shard/iteration from a host that is not the switch (127.0.0.2
    here; the switch side is 127.0.0.1) arrives before the real copy.  It must be rejected and the
    published iteration must still be the trainer's, bit for bit.  Without a source restriction the
    forged payload wins and the real copy is dropped as a duplicate: a wrong checkpoint is published."""
    from shadow.node import ShadowConfig, ShadowNode
    from shadow.protocol import Bootstrap, ShardMap
    owner = {p.param_id: p.param_id % 2 for p in small_run.params}
    kw = {}
    opt = _source_option(ShadowConfig)
    if opt:  # whatever D names it: only the switch side (127.0.0.1) may send copies
        kw[opt] = ["127.0.0.1"] if "iface" not in opt and "device" not in opt else "lo"
    node = ShadowNode(ShadowConfig(job_id=JOB, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                   ckpt_dir=tmp_path, loss_timeout=30.0, **kw)).start()
    try:
        own = [p for p, o in owner.items() if o == 0]
        node.bootstrap(Bootstrap(JOB, 0, 0, small_run.params, ShardMap(JOB, 2, owner, ["a:1", "b:2"]),
                                 small_run.spec, {p: small_run.init[p] for p in own}, {}))
        g = small_run.grads[0]
        forged = gradient_packets(JOB, 1, {p: torch.full_like(g[p], 1e6) for p in own})
        real = gradient_packets(JOB, 1, {p: g[p] for p in own})
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as attacker, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as switch:
            attacker.bind(("127.0.0.2", 0))
            switch.bind(("127.0.0.1", 0))
            for d in forged:
                attacker.sendto(d, node.data_address)
            assert node.wait_for(lambda n: n.counters.packets >= len(forged), 10)
            for d in real:
                switch.sendto(d, node.data_address)
        node.manifest(small_run.manifests[0])
        node.wait_for(lambda n: n.latest.iteration >= 1, 10)
        st = node.fetch()
        params, _ = small_run.after[0]
        damaged = st.iteration == 1 and not all(bits_equal(st.tensors[p], params[p]) for p in own)
        assert not damaged, ("a forged copy from 127.0.0.2 (not the switch-facing link) was accepted and a WRONG "
                             f"iteration 1 was published (rejected={node.counters.rejected}, "
                             f"duplicates={node.counters.duplicates}); shadow/node.py:ShadowNode._ingest_loop "
                             "does not check the datagram's source")
        assert st.iteration == 1, f"the real iteration 1 was not published: {node.status()}"
    finally:
        node.stop()


# ------------------------------------------------------------------ shadow: management address only
def test_shadow_process_listens_only_where_told(tmp_path):
    p = subprocess.Popen([str(SHADOW_BIN), "--job-id", "3", "--shard", "0", "--data", "127.0.0.1:0",
                          "--mgmt", "127.0.0.1:0", "--ckpt-dir", str(tmp_path), "--no-final-persist"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        r, _, _ = select.select([p.stdout], [], [], 60)
        line = p.stdout.readline() if r else ""
        m = re.search(r"data=([\d.]+):(\d+) mgmt=([\d.]+):(\d+)", line)
        assert m, f"no ready line: {line!r} {p.stderr.read() if p.poll() is not None else ''}"
        mgmt = (m[3], int(m[4]))
        data = (m[1], int(m[2]))
        socks = listening_sockets(p.pid)
        assert socks["tcp"] == [("127.0.0.1", mgmt[1])], f"TCP listeners {socks['tcp']}, expected only {mgmt}"
        assert socks["udp"] == [("127.0.0.1", data[1])], f"UDP sockets {socks['udp']}, expected only {data}"
        with pytest.raises(OSError):  # another local address of the host: nothing there
            socket.create_connection(("127.0.0.2", mgmt[1]), timeout=3).close()
        socket.create_connection(mgmt, timeout=5).close()
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
        p.stdout.close()
        p.stderr.close()


def test_shadow_default_addresses():
    """Defaults of checkmate-shadow: management on loopback only."""
    from shadow.cli import build_parser
    a = build_parser().parse_args(["--job-id", "1", "--shard", "0", "--ckpt-dir", "x"])
    assert a.mgmt.split(":")[0] in ("127.0.0.1", "localhost", "::1"), f"management listens on {a.mgmt} by default"


# ------------------------------------------------------------------ switch: control channels and links
def test_switch_listens_only_where_told(tmp_path):
    sp = SwitchProcess([1, 2], tmp_path)
    try:
        socks = listening_sockets(sp.proc.pid)
        grpc_port = int(sp.grpc_addr.rsplit(":", 1)[1])
        want_tcp = sorted([("127.0.0.1", grpc_port), ("127.0.0.1", sp.tm_addr[1])])
        tcp = sorted(set(socks["tcp"]))
        assert tcp == want_tcp, f"switch TCP listeners {tcp}, expected only gRPC and TM {want_tcp}"
        assert sorted(socks["udp"]) == sorted(sp.side.values()), f"switch UDP sockets {socks['udp']}"
    finally:
        sp.close()


def test_switch_default_grpc_address_is_loopback():
    from switch.cli import build_parser
    a = build_parser().parse_args([])
    assert a.grpc_server_addr[0] in ("127.0.0.1", "localhost", "::1"), a.grpc_server_addr
    assert a.tm_server_addr is None


def test_switch_udp_port_takes_frames_only_from_its_peer(programmed_switch):
    """A UDP-tunnel port is a point-to-point link: a frame sent to the switch's port-1 socket by anyone
    but port 1's peer must not enter the switch (else any local process can inject FINAL chunks as a
    trainer and have them copied to a shadow)."""
    sp = programmed_switch
    before = sp.stats()["rx"]
    f = valid_chunk(param_id=1, iteration=4242)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as intruder:
        intruder.bind(("127.0.0.1", 0))
        intruder.sendto(f, sp.side[1])
    copy = sp.recv(4, 1.5)
    fwd = sp.recv(2, 0.2)
    assert copy is None and fwd is None, "a frame from a non-peer address entered port 1 and was forwarded/copied"
    assert sp.stats()["rx"] == before
    sp.send(1, f)  # the peer still gets through
    assert sp.recv(2, 5) is not None and sp.recv(4, 5) is not None
