"""Fixtures for in-process tests of p4src/checkmate.p4 on switch.runtime.Pipeline.

The program is compiled once per session with the embedded compiler; each switch of a
topology gets a fresh Pipeline programmed with exactly the entries and groups the
controller would install (controller.plan), through the pipeline's name-based helpers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from checkmate import wire
from checkmate.paths import P4SRC, ROOT
from controller.p4info import P4InfoIndex
from controller.plan import plan_switch
from controller.topology import Topology

STAR = ROOT / "topologies" / "star.json"
LEAFSPINE = ROOT / "topologies" / "leafspine.json"


@pytest.fixture(scope="session")
def compiled():
    from switch.bmv2json.p4c import P4cFailed, compile_with_p4c, frontend
    if frontend() == "bmv2json":  # real p4c's JSON through switch/bmv2json (tests/bmv2compat)
        try:
            return compile_with_p4c(P4SRC / "checkmate.p4")
        except P4cFailed:  # a checkmate.p4 written for the typed v1model externs
            return compile_with_p4c(P4SRC / "checkmate.p4", args=["-DV1MODEL_VERSION=20200408"])
    from switch.compiler import compile_file
    return compile_file(P4SRC / "checkmate.p4")


@dataclass
class Sw:
    name: str
    pipe: object
    index: P4InfoIndex
    digests: list = field(default_factory=list)

    def counter(self, short: str, i: int):
        return self.pipe.counter_read(self.index.id("counters", short), i)


def make_switches(compiled, topo: Topology) -> dict[str, Sw]:
    from switch.runtime import Pipeline
    ix = P4InfoIndex(compiled.p4info)
    out = {}
    for name in topo.switches:
        pipe = Pipeline(compiled.device_config)
        sw = Sw(name, pipe, ix)
        pipe.on_digest = lambda did, vals, sw=sw: sw.digests.append((ix.name_of(did), tuple(vals)))
        plan = plan_switch(topo, name)
        for e in plan.entries:
            c = e.canonical(ix)
            pipe.insert(c.table, dict(c.match), c.action, dict(c.params), c.priority)
        for g in plan.groups:
            pipe.mcast_group_set(g.group_id, g.written())  # the order the controller writes
        out[name] = sw
    return out


@pytest.fixture
def star(compiled):
    topo = Topology.load(STAR)
    return topo, make_switches(compiled, topo)["s1"]


@pytest.fixture
def leafspine(compiled):
    topo = Topology.load(LEAFSPINE)
    return topo, make_switches(compiled, topo)


def chunk_frame(topo: Topology, src: str, dst: str, *, flags=wire.FLAG_FINAL, param_id=0, iteration=1,
                count=8, rank=None, job_id=None, version=wire.WIRE_VERSION, ttl=64, raw_payload=None) -> bytes:
    """Ethernet/IPv4/UDP(48879)/Checkmate/fp32 frame from host ``src`` to host ``dst``."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    s, d = topo.host(src), topo.host(dst)
    if raw_payload is None:
        hdr = wire.ChunkHeader(job_id=topo.job_id if job_id is None else job_id, iteration=iteration,
                               rank=s.rank if rank is None else rank, param_id=param_id, offset=16,
                               count=count, flags=flags, seq=7)
        body = bytes(range(count * 4))
        raw = bytearray(wire.encode(hdr, bytes(b % 256 for b in body)))
        raw[0] = version
        raw_payload = bytes(raw)
    pkt = (Ether(src=s.mac, dst=d.mac) / IP(src=s.ip, dst=d.ip, ttl=ttl, id=4242)
           / UDP(sport=40000, dport=wire.CHECKMATE_UDP_PORT) / raw_payload)
    return bytes(pkt)


@pytest.fixture
def mkframe():
    return chunk_frame


def _switchproc():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parent.parent / "controller" / "switchproc.py"
    spec = importlib.util.spec_from_file_location("checkmate_tests_switchproc_dp", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def switchproc():
    """tests/controller/switchproc.py: real checkmate-switch processes."""
    return _switchproc()


@pytest.fixture
def star_process(tmp_path, compiled):
    """s1 of the star as a real checkmate-switch process, programmed by the controller over gRPC."""
    import json as _json

    from controller.client import SwitchConnection
    from controller.device import Device
    from controller.reconcile import program_device
    topo, path, procs = _switchproc().start_fabric(STAR, tmp_path)
    try:
        sw = topo.switches["s1"]
        with SwitchConnection(sw.grpc_addr, sw.device_id, 1, timeout=10).connect() as conn:
            dev = Device(conn, P4InfoIndex(compiled.p4info))
            program_device(dev, plan_switch(topo, "s1"), _json.dumps(compiled.device_config).encode())
        yield topo, procs["s1"]
    finally:
        for p in procs.values():
            p.close()
