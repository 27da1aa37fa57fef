"""Fixtures for the checkmate-switch tests: real switch processes, real gRPC clients,
hosts that are UDP sockets speaking raw Ethernet frames (the switch's no-root port
mode), and the test P4 programs compiled by the embedded compiler."""
from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from p4.v1 import p4runtime_pb2
from switch.ready import SwitchNotReady, wait_ready
from tests.childproc import LoggedProc
from tests.p4rt_raw import RawClient, update, write_errors

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
REPO = HERE.parents[1]


# ------------------------------------------------------------------ programs
@pytest.fixture(scope="session")
def l3_program():
    """(device_config dict, P4Info) of programs/l3_cpu.p4."""
    from switch.compiler import compile_file
    prog = compile_file(PROGRAMS / "l3_cpu.p4")
    return prog.device_config, prog.p4info


@pytest.fixture(scope="session")
def l3_config(l3_program):
    ir, p4info = l3_program
    cfg = p4runtime_pb2.ForwardingPipelineConfig(p4_device_config=json.dumps(ir).encode())
    cfg.p4info.CopyFrom(p4info)
    cfg.cookie.cookie = 0xC0FFEE
    return cfg


class P4Names:
    """Name -> id lookups in a P4Info (tests speak names, the wire speaks ids)."""

    def __init__(self, p4info):
        self.p4info = p4info

    def table(self, name):
        return next(t for t in self.p4info.tables if t.preamble.name.endswith(name))

    def table_id(self, name):
        return self.table(name).preamble.id

    def field_id(self, table, field):
        return next(m.id for m in self.table(table).match_fields if m.name == field)

    def action_id(self, name):
        return next(a.preamble.id for a in self.p4info.actions if a.preamble.name.endswith(name))

    def counter_id(self, name):
        return next(c.preamble.id for c in self.p4info.counters if c.preamble.name.endswith(name))

    def digest_id(self, name):
        return next(d.preamble.id for d in self.p4info.digests if d.preamble.name.endswith(name))

    def cpm(self, hdr, field):
        c = next(c for c in self.p4info.controller_packet_metadata if c.preamble.name == hdr)
        return next(m.id for m in c.metadata if m.name == field)


@pytest.fixture(scope="session")
def names(l3_program):
    return P4Names(l3_program[1])


# ------------------------------------------------------------------ switch processes
class SwitchProc(LoggedProc):
    """A running ``checkmate-switch``; ``info`` is its READY line (stderr in a temp log, tests/childproc.py)."""

    def __init__(self, args, timeout=30.0):
        super().__init__([sys.executable, "-m", "switch.cli", *map(str, args)], prefix="cmswitch-",
                         stdout=subprocess.PIPE, text=True, cwd=REPO)
        try:
            self.info = wait_ready(self.proc, timeout)
        except SwitchNotReady as e:
            err = self.stderr()
            self.stop()
            raise AssertionError(f"{e}:\n{err}") from None
        self.grpc_addr = self.info["grpc"]

    def stderr(self) -> str:
        return self.logtext()


class Host:
    """A host on a UDP-tunnel switch port: ``send`` a frame in, ``recv`` frames out."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.addr = self.sock.getsockname()
        self.switch_addr = None

    def port_arg(self, n):
        return f"{n}@udp:127.0.0.1:0:127.0.0.1:{self.addr[1]}"

    def send(self, frame: bytes):
        self.sock.sendto(frame, self.switch_addr)

    def recv(self, timeout=5.0):
        r, _, _ = select.select([self.sock], [], [], timeout)
        return self.sock.recv(65535) if r else None

    def drain(self, wait=0.2):
        out = []
        while (f := self.recv(wait)) is not None:
            out.append(f)
        return out

    def close(self):
        self.sock.close()


@pytest.fixture
def start_switch():
    """Factory: start_switch(hosts={1: Host, ...}, extra=[...]) -> SwitchProc (stopped at teardown)."""
    procs = []

    def start(hosts=None, extra=(), cpu_port=255):
        args = ["--grpc-server-addr", "127.0.0.1:0", "--log-level", "warning"]
        if cpu_port is not None:
            args += ["--cpu-port", cpu_port]
        for n, h in (hosts or {}).items():
            args += ["-i", h.port_arg(n)]
        args += list(extra)
        sp = SwitchProc(args)
        procs.append(sp)
        for n, h in (hosts or {}).items():
            host, port = sp.info["ports"][str(n)].split(":")[1:3]
            h.switch_addr = (host, int(port.split("-")[0]))
        return sp

    yield start
    for sp in procs:
        sp.stop()


@pytest.fixture
def hosts():
    hs = {n: Host() for n in (1, 2, 3)}
    yield hs
    for h in hs.values():
        h.close()


@pytest.fixture
def connect():
    ctls = []

    def make(addr, device_id=0):
        c = RawClient(addr, device_id)
        ctls.append(c)
        return c

    yield make
    for c in ctls:
        c.close()


@pytest.fixture
def upd():
    return update


@pytest.fixture
def decode_write_errors():
    return write_errors
