"""Fixtures for the checkmate-switch tests: real switch processes, real gRPC clients,
hosts that are UDP sockets speaking raw Ethernet frames (the switch's no-root port
mode), and the test P4 programs compiled by the embedded compiler."""
from __future__ import annotations

import json
import queue
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from switch.ready import SwitchNotReady, wait_ready
from tests.childproc import LoggedProc

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


# ------------------------------------------------------------------ P4Runtime client
class Controller:
    """A P4Runtime client: unary calls plus a StreamChannel read by a thread."""

    def __init__(self, addr, device_id=0):
        self.device_id = device_id
        self.channel = grpc.insecure_channel(addr)
        grpc.channel_ready_future(self.channel).result(timeout=10)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._out: queue.Queue = queue.Queue()
        self._in: queue.Queue = queue.Queue()
        self.election_id = None
        self.stream = None
        self.stream_error = None

    def open_stream(self):
        def reqs():
            while True:
                m = self._out.get()
                if m is None:
                    return
                yield m
        self.stream = self.stub.StreamChannel(reqs())

        def reader():
            try:
                for msg in self.stream:
                    self._in.put(msg)
            except grpc.RpcError as e:
                self.stream_error = e
                self._in.put(e)
        threading.Thread(target=reader, daemon=True).start()

    def arbitrate(self, election_id=None, device_id=None, role=None):
        if self.stream is None:
            self.open_stream()
        m = p4runtime_pb2.StreamMessageRequest()
        m.arbitration.device_id = self.device_id if device_id is None else device_id
        if election_id is not None:
            m.arbitration.election_id.high, m.arbitration.election_id.low = election_id >> 64, election_id & (2**64 - 1)
            self.election_id = election_id
        if role is not None:
            m.arbitration.role.name = role
        self._out.put(m)
        return self.expect("arbitration")

    def send(self, **kw):
        self._out.put(p4runtime_pb2.StreamMessageRequest(**kw))

    def expect(self, kind, timeout=6.0):
        """Next stream message of ``kind`` (others are skipped); raises on stream error."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} message within {timeout}s")
            try:
                m = self._in.get(timeout=left)
            except queue.Empty:
                continue
            if isinstance(m, grpc.RpcError):
                if kind == "rpc_error":
                    return m
                raise m
            if m.WhichOneof("update") == kind:
                return getattr(m, kind)

    def no_message(self, kind, wait=0.3):
        try:
            self.expect(kind, wait)
        except AssertionError:
            return True
        return False

    def _eid(self, req, election_id):
        eid = self.election_id if election_id is None else election_id
        if eid is not None:
            req.election_id.high, req.election_id.low = eid >> 64, eid & (2**64 - 1)

    def set_pipeline(self, config, action="VERIFY_AND_COMMIT", election_id=None):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.Action.Value(action)
        if config is not None:
            req.config.CopyFrom(config)
        self._eid(req, election_id)
        return self.stub.SetForwardingPipelineConfig(req, timeout=20)

    def write(self, *updates, election_id=None, atomicity=0):
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, updates=updates, atomicity=atomicity)
        self._eid(req, election_id)
        return self.stub.Write(req, timeout=10)

    def read(self, *entities):
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id, entities=entities)
        return [e for resp in self.stub.Read(req, timeout=10) for e in resp.entities]

    def close(self):
        self._out.put(None)
        if self.stream is not None:
            self.stream.cancel()
        self.channel.close()


@pytest.fixture
def connect():
    ctls = []

    def make(addr, device_id=0):
        c = Controller(addr, device_id)
        ctls.append(c)
        return c

    yield make
    for c in ctls:
        c.close()


def update(kind, **entity):
    """Update(type=kind, entity=Entity(**entity))."""
    return p4runtime_pb2.Update(type=p4runtime_pb2.Update.Type.Value(kind),
                                entity=p4runtime_pb2.Entity(**entity))


@pytest.fixture
def upd():
    return update


def write_errors(exc: grpc.RpcError):
    """Decode the per-update p4.v1.Error list of a failed Write: [(code name, message)]."""
    from google.rpc import code_pb2, status_pb2
    md = dict(exc.trailing_metadata() or ())
    st = status_pb2.Status.FromString(md["grpc-status-details-bin"])
    out = []
    for d in st.details:
        e = p4runtime_pb2.Error()
        d.Unpack(e)
        out.append((code_pb2.Code.Name(e.canonical_code), e.message))
    return out


@pytest.fixture
def decode_write_errors():
    return write_errors
