"""The two switches of the differential suite, each one long-running process.

* :class:`BMv2Target` -- real ``simple_switch_grpc`` (BMv2) with ``--packet-in``: its ports
  are a nanomsg PAIR socket instead of interfaces, so no root, no veths and no shared
  interface names are needed.  A message is ``<type, port, length>`` (three native
  ``int``) followed by the frame: type 3 (PACKET_IN) towards the switch, type 4
  (PACKET_OUT) from it (behavioral-model ``src/bm_sim/dev_mgr_packet_in.cpp``).  The
  nanomsg C library BMv2 links against is used through :mod:`ctypes`.  A fatal error in a
  packet thread (a ``log_msg`` whose ``{}`` count differs from its values: "Not enough arguments
  for format string") makes simple_switch_grpc 1.15.5 close its gRPC server and then hang for
  good in its exit (threads waiting on futexes) instead of exiting: ``answers()`` (its gRPC port
  refuses connections) is how the session tells that death from a live switch.
* :class:`CheckmateTarget` -- ``checkmate-switch --no-p4`` with one UDP tunnel port per
  switch port (its no-root port mode: one datagram per Ethernet frame).

Both take a CPU port (``cpu_port``: PacketIn/PacketOut over the P4Runtime stream), target
options (``target_args``: simple_switch_grpc's options after ``--``, e.g. ``--drop-port``) and a
program with SetForwardingPipelineConfig over real P4Runtime
(:class:`controller.client.SwitchConnection`), so one process serves every program of the
suite.  ``inject`` sends frames; ``collect`` returns what came out, per port, once the
switch has been quiet for ``idle`` seconds (there is no end-of-packet signal on either
wire, so quiescence is the only honest one; a caller that sees a difference re-collects
with a longer ``idle`` before believing it).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.childproc import LoggedProc, free_port

REPO = Path(__file__).resolve().parents[2]
# frames ``Target.collect`` takes before it stops waiting for a quiet switch: an endless E2E clone
# chain never goes quiet on BMv2 (~40,000 frames/s; fuzz_mutants seed 4495), checkmate-switch cuts it
# after 4097 frames a received frame (engine.MAX_E2E_CLONES); no finite case comes near (helper loop45)
COLLECT_MAX = 65536
PORTS = tuple(range(16))         # switch ports every program may use (0..15; p4c's STF tests go past 7)

_PACKET_IN, _PACKET_OUT = 3, 4
_AF_SP, _NN_PAIR, _NN_SOL_SOCKET, _NN_SNDTIMEO, _NN_RCVTIMEO = 1, 16, 0, 4, 5


def bmv2_available() -> str | None:
    """None when p4c and simple_switch_grpc (+ libnanomsg) are usable, else the reason."""
    for tool in ("p4c", "simple_switch_grpc"):
        if shutil.which(tool) is None:
            return f"{tool} not on PATH (install ../shared/p4ref, see its README)"
    if _nanomsg() is None:
        return "libnanomsg (BMv2's packet-in transport) not found"
    return None


_NN = None


def _nanomsg():
    global _NN
    if _NN is None:
        name = ctypes.util.find_library("nanomsg") or "libnanomsg.so.5"
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            return None
        lib.nn_recv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.nn_send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
        lib.nn_connect.argtypes = [ctypes.c_int, ctypes.c_char_p]
        _NN = lib
    return _NN


class _Proc(LoggedProc):
    """A child process with its log in a temp file (tests/childproc.py)."""

    def __init__(self, argv: list[str], **kw):
        super().__init__(argv, prefix="cmdiff-", **kw)

    def tail(self, n: int = 3000) -> str:
        return self.logtext(n)


class Target:
    """Common part: P4Runtime connection, output queue, quiescence wait."""

    name = "?"

    def __init__(self):
        self._out: list[tuple[int, bytes]] = []
        self._cv = threading.Condition()
        self._last = time.monotonic()
        self.conn = None

    def _deliver(self, port: int, frame: bytes) -> None:
        with self._cv:
            self._out.append((port, frame))
            self._last = time.monotonic()
            self._cv.notify_all()

    def connect(self, addr: str) -> None:
        from controller.client import SwitchConnection
        self.conn = SwitchConnection(addr, timeout=20.0, name=self.name).connect()

    def _halt(self) -> None:
        """The common part of ``stop``: end the receive thread's loop, the P4Runtime connection and the
        process (``self.p``), then wait a moment for the thread."""
        self._stop = True
        if self.conn is not None:
            self.conn.close()
        self.p.stop()
        if getattr(self, "_rx", None) is not None:
            self._rx.join(1)

    def drain(self) -> None:
        with self._cv:
            self._out.clear()

    def collect(self, idle: float) -> list[tuple[int, bytes]]:
        """Outputs since the last drain, once nothing arrived for ``idle`` s or more than
        ``COLLECT_MAX`` frames did (a switch that sends forever; the case's clone sessions,
        deleted after it, end such a chain)."""
        with self._cv:
            while True:
                quiet = time.monotonic() - self._last
                if quiet >= idle or len(self._out) > COLLECT_MAX:
                    return list(self._out)
                self._cv.wait(idle - quiet)

    def mark_sent(self) -> None:
        with self._cv:
            self._last = time.monotonic()

    def answers(self) -> bool:
        """Whether the switch still accepts connections on its gRPC address (``self.addr``): a process
        that no longer does is dead even while it has not exited (see :class:`BMv2Target`)."""
        host, port = self.addr.rsplit(":", 1)
        try:
            socket.create_connection((host, int(port)), 0.5).close()
            return True
        except OSError:
            return False

    def gone(self) -> bool:
        """The process exited, or it hangs in its exit with its gRPC server closed (``answers``)."""
        return self.p.proc.poll() is not None or not self.answers()


class BMv2Target(Target):
    name = "bmv2"

    def __init__(self, cpu_port: int | None = None, target_args: tuple[str, ...] = ()):
        super().__init__()
        nn = _nanomsg()
        self.dir = tempfile.mkdtemp(prefix="cmdiff-bmv2-")
        self.addr = addr = f"127.0.0.1:{free_port()}"
        argv = ["simple_switch_grpc", "--no-p4", "--device-id", "0",
                "--packet-in", f"ipc://{self.dir}/packets.ipc",
                "--notifications-addr", f"ipc://{self.dir}/notifications.ipc",
                "--thrift-port", str(free_port())]
        if os.environ.get("CHECKMATE_DIFF_LOG"):
            argv += ["--log-file", os.path.join(os.environ["CHECKMATE_DIFF_LOG"], "bmv2"), "--log-flush",
                     "-L", "trace"]
        argv += ["--", "--grpc-server-addr", addr] + (["--cpu-port", str(cpu_port)] if cpu_port is not None else [])
        argv += list(target_args)
        self.p = _Proc(argv, stdout=subprocess.DEVNULL)
        self.sock = nn.nn_socket(_AF_SP, _NN_PAIR)
        tmo = ctypes.c_int(100)
        nn.nn_setsockopt(self.sock, _NN_SOL_SOCKET, _NN_RCVTIMEO, ctypes.byref(tmo), 4)
        # a send to a BMv2 that died blocks for ever without one (fuzz_parsers 5971 in a batch, helper
        # fuzz34): failing, run_case reports it as BMv2's TargetError and compare as its death
        stmo = ctypes.c_int(10000)
        nn.nn_setsockopt(self.sock, _NN_SOL_SOCKET, _NN_SNDTIMEO, ctypes.byref(stmo), 4)
        try:
            self.connect(addr)
        except Exception as e:
            tail = self.p.tail()
            self.stop()
            raise RuntimeError(f"simple_switch_grpc did not come up: {e}\n{tail}") from None
        if nn.nn_connect(self.sock, f"ipc://{self.dir}/packets.ipc".encode()) < 0:
            raise RuntimeError("nn_connect to BMv2's packet-in socket failed")
        self._stop = False
        self._rx = threading.Thread(target=self._recv_loop, daemon=True, name="bmv2-rx")
        self._rx.start()

    def _recv_loop(self) -> None:
        nn = _NN
        buf = ctypes.create_string_buffer(65536 + 12)
        while not self._stop:
            n = nn.nn_recv(self.sock, buf, len(buf), 0)
            if n < 12:
                continue
            kind, port, length = struct.unpack_from("=iii", buf.raw, 0)
            if kind == _PACKET_OUT and port in PORTS:
                self._deliver(port, buf.raw[12:12 + length])

    def inject(self, port: int, frame: bytes) -> None:
        msg = struct.pack("=iii", _PACKET_IN, port, len(frame)) + frame
        if _NN.nn_send(self.sock, msg, len(msg), 0) < 0:
            raise RuntimeError("nn_send to BMv2 failed")
        self.mark_sent()

    def stop(self) -> None:
        self._halt()
        _NN.nn_close(self.sock)
        shutil.rmtree(self.dir, ignore_errors=True)


class CheckmateTarget(Target):
    name = "checkmate"

    def __init__(self, cpu_port: int | None = None, target_args: tuple[str, ...] = ()):
        from switch.ready import wait_ready
        super().__init__()
        self.socks = {}
        argv = [sys.executable, "-m", "switch.cli", "--no-p4", "--grpc-server-addr", "127.0.0.1:0"] + \
            (["--cpu-port", str(cpu_port)] if cpu_port is not None else []) + list(target_args)
        for port in PORTS:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            self.socks[port] = s
            argv += ["-i", f"{port}@udp:127.0.0.1:0:127.0.0.1:{s.getsockname()[1]}"]
        if os.environ.get("CHECKMATE_DIFF_LOG"):
            argv += ["--log-file", os.path.join(os.environ["CHECKMATE_DIFF_LOG"], "checkmate")]
        self.p = _Proc(argv, stdout=subprocess.PIPE, text=True, cwd=REPO)
        try:
            info = wait_ready(self.p.proc, 60)
            self.remote = {}
            for port, desc in info["ports"].items():
                local = desc.split("->")[0].split(":")
                self.remote[int(port)] = (local[1], int(local[2]))
            self.addr = info["grpc"]
            self.connect(self.addr)
        except Exception as e:
            tail = self.p.tail()
            self.stop()
            raise RuntimeError(f"checkmate-switch did not come up: {e}\n{tail}") from None
        for port, s in self.socks.items():
            s.connect(self.remote[port])
        self._stop = False
        self._rx = threading.Thread(target=self._recv_loop, daemon=True, name="checkmate-rx")
        self._rx.start()

    def _recv_loop(self) -> None:
        import select
        by_fd = {s.fileno(): p for p, s in self.socks.items()}
        while not self._stop:
            r, _, _ = select.select(list(self.socks.values()), [], [], 0.1)
            for s in r:
                try:
                    frame = s.recv(65536)
                except OSError:
                    continue
                self._deliver(by_fd[s.fileno()], frame)

    def inject(self, port: int, frame: bytes) -> None:
        self.socks[port].send(frame)
        self.mark_sent()

    def stop(self) -> None:
        self._halt()
        for s in self.socks.values():
            s.close()
