"""Real ``checkmate-switch`` processes for tests (loopback UDP-tunnel ports).

:class:`SwitchProc` starts ``checkmate-switch --no-p4`` with one ``udp:`` port per
wired port of a topology switch, waits for its READY line (bounded), and offers
``send(port, frame)`` / ``recv(port)`` on the test's side of each tunnel, and
``restart()`` on the same gRPC port.  :func:`start_fabric` starts one per switch of a
topology.  Callers close every process and socket (the fixtures do, also on failure).
Loaded by path from the conftests of tests/controller and tests/dataplane.
"""
from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

from controller.topology import Topology
from switch.ready import SwitchNotReady, wait_ready
from tests.childproc import stop_child

SWITCH_BIN = Path(sys.executable).parent / "checkmate-switch"
READY_TIMEOUT = 30.0


class SwitchProc:
    def __init__(self, name: str, device_id: int, ports: list[int], log_dir: Path, grpc_port: int = 0,
                 ifaces: dict[int, str] | None = None):
        self.name, self.device_id, self.ports, self.log_dir = name, device_id, ports, log_dir
        self.grpc_port = grpc_port
        self.ifaces = dict(ifaces or {})  # port -> Linux interface (AF_PACKET) instead of a UDP tunnel
        self.socks: dict[int, socket.socket] = {}
        for p in ports:
            if p in self.ifaces:
                continue
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            self.socks[p] = s
        self.proc: subprocess.Popen | None = None
        self.switch_side: dict[int, tuple[str, int]] = {}
        self.start()

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def start(self) -> None:
        args = [str(SWITCH_BIN), "--no-p4", "--device-id", str(self.device_id), "--log-level", "warning",
                "--grpc-server-addr", f"127.0.0.1:{self.grpc_port}"]
        for p, s in self.socks.items():
            args += ["-i", f"{p}@udp:127.0.0.1:0:127.0.0.1:{s.getsockname()[1]}"]
        for p, iface in self.ifaces.items():
            args += ["-i", f"{p}@{iface}"]
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        try:
            ready = wait_ready(self.proc, READY_TIMEOUT)
        except SwitchNotReady as e:
            self.stop()
            raise RuntimeError(f"{self.name}: {e}; log {self.log_path}: {self.log_path.read_text()[-2000:]}") from None
        self.grpc_port = int(ready["grpc"].rsplit(":", 1)[1])
        for p, desc in ready["ports"].items():
            if "udp:" not in desc:
                continue
            local = desc.split("udp:", 1)[1].split("->", 1)[0]
            host, port = local.rsplit(":", 1)
            self.switch_side[int(p)] = (host, int(port))

    def stop(self) -> None:
        if self.proc is not None:
            stop_child(self.proc)
        if self.proc is not None and self.proc.stdout:
            self.proc.stdout.close()
        if getattr(self, "log", None):
            self.log.close()

    def restart(self) -> None:
        self.stop()
        for _ in range(50):  # the gRPC port may linger for a moment
            try:
                self.start()
                return
            except RuntimeError:
                time.sleep(0.1)
        self.start()

    def close(self) -> None:
        self.stop()
        for s in self.socks.values():
            s.close()

    def send(self, port: int, frame: bytes) -> None:
        self.socks[port].sendto(frame, self.switch_side[port])

    def recv(self, port: int, timeout: float = 2.0) -> bytes | None:
        s = self.socks[port]
        r, _, _ = select.select([s], [], [], timeout)
        return s.recv(65536) if r else None

    def drain(self, port: int, timeout: float = 0.3) -> list[bytes]:
        out = []
        while (f := self.recv(port, timeout)) is not None:
            out.append(f)
        return out


def start_fabric(topo_path: Path, tmp_path: Path):
    """Start one switch process per topology switch; return (topology bound to them, procs)."""
    raw = json.loads(Path(topo_path).read_text())
    topo0 = Topology.from_dict(raw)
    procs = {}
    try:
        for name, sw in topo0.switches.items():
            procs[name] = SwitchProc(name, sw.device_id, sorted(topo0.port_map(name)), tmp_path)
            raw["switches"][name]["grpc_port"] = procs[name].grpc_port
    except BaseException:
        for p in procs.values():
            p.close()
        raise
    path = tmp_path / Path(topo_path).name
    path.write_text(json.dumps(raw))
    return Topology.load(path), path, procs
