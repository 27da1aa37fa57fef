"""A small side-by-side rig: the same frames through real BMv2 and through checkmate-switch.

Each switch port is one veth pair (``<tag><n>s`` for the switch, ``<tag><n>h`` for the test's
host side, IPv6 off so the kernel sends nothing of its own); the test injects frames on the
host ends with the project's own :class:`switch.ports.AfPacketPort` (which restores VLAN tags
the kernel strips, so what a host receives is what was on the wire) and collects what comes
out per port.

* :func:`p4c_compile` -- real p4c to BMv2 JSON + P4Info (text); the caller skips without p4c.
* :class:`Bmv2` -- ``simple_switch`` with a JSON on the command line; ready when its Thrift
  port accepts (BMv2 attaches its ports before it starts the Thrift server).
* :class:`Checkmate` -- ``checkmate-switch`` with a program (``.p4`` or a device config);
  ready on its READY line (:mod:`switch.ready`).
* :meth:`Rig.exchange` -- send frames, then wait until ``expect`` frames came out (plus a
  short quiet period to catch extras); no fixed sleeps.

Everything here creates interfaces and switch processes: run it as root under
``flock /tmp/checkmate-net.lock`` (the tests check for root and skip without the tools).
"""
from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from switch.ports import AfPacketPort, PortSpec
from switch.ready import SwitchNotReady, wait_ready
from tests.childproc import LoggedProc, free_port

REPO = Path(__file__).resolve().parents[2]
P4LANG_BIN = Path("/opt/p4lang/bin")


def tool(name: str) -> str | None:
    """Path of a p4lang tool: PATH first, then the default install prefix of ../shared/p4ref."""
    found = shutil.which(name)
    if found:
        return found
    cand = P4LANG_BIN / name
    return str(cand) if cand.exists() else None


def missing_tools(*names: str) -> str | None:
    """A skip reason naming what is missing (tools, root), or None."""
    lack = [n for n in names if tool(n) is None]
    if lack:
        return f"{', '.join(lack)} not installed (install ../shared/p4ref, see its README)"
    if os.geteuid() != 0:
        return "needs root (veth pairs, AF_PACKET)"
    return None


def p4c_compile(src: Path, outdir: Path) -> tuple[Path, Path]:
    """Compile ``src`` with real p4c for bmv2/v1model; returns (json, p4info.txtpb)."""
    outdir.mkdir(parents=True, exist_ok=True)
    p4info = outdir / (src.stem + ".p4info.txtpb")
    r = subprocess.run([tool("p4c"), "--target", "bmv2", "--arch", "v1model", "--p4runtime-files",
                        str(p4info), "-o", str(outdir), str(src)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"p4c failed on {src}:\n{r.stderr}")
    return outdir / (src.stem + ".json"), p4info


class _Proc(LoggedProc):
    """A switch process of the rig: stdout piped (READY line), stderr in a temp log (tests/childproc.py)."""

    def __init__(self, argv, env=None):
        super().__init__(argv, prefix="refrig-", stdout=subprocess.PIPE, text=True, cwd=REPO, env=env)


class Bmv2(_Proc):
    """``simple_switch`` running ``json_path`` on the rig's switch-side interfaces."""

    def __init__(self, rig: "Rig", json_path: Path, timeout: float = 20.0, extra=()):
        self.thrift = free_port()
        argv = [tool("simple_switch"), "--device-id", "7", "--thrift-port", str(self.thrift),
                "--notifications-addr", f"ipc:///tmp/refrig-{os.getpid()}-{self.thrift}.ipc"]
        for n, (sw, _h) in rig.ifaces.items():
            argv += ["-i", f"{n}@{sw}"]
        super().__init__(argv + list(map(str, extra)) + [str(json_path)])
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.thrift), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = self.logtext()
                    self.stop()
                    raise AssertionError(f"simple_switch did not start:\n{log}") from None
                select.select([], [], [], 0.05)


class Checkmate(_Proc):
    """``checkmate-switch`` running ``program`` (``.p4`` or a device config JSON)."""

    def __init__(self, rig: "Rig", program: Path, extra=(), timeout: float = 60.0):
        argv = [sys.executable, "-m", "switch.cli", "--grpc-server-addr", "127.0.0.1:0"]
        for n, (sw, _h) in rig.ifaces.items():
            argv += ["-i", f"{n}@{sw}"]
        env = dict(os.environ, PYTHONPATH=str(REPO))
        super().__init__(argv + list(map(str, extra)) + [str(program)], env=env)
        try:
            self.info = wait_ready(self.proc, timeout)
        except SwitchNotReady as e:
            log = self.logtext()
            self.stop()
            raise AssertionError(f"{e}:\n{log}") from None


class Rig:
    """Veth pairs for ports ``ports``; host-side sockets in ``self.hosts``.  ``mtu``: port ->
    MTU of both ends of its pair (the kernel's default, 1500, for a port not named)."""

    def __init__(self, ports=(1, 2), tag: str | None = None, mtu: dict[int, int] | None = None):
        tag = tag or f"rg{os.getpid() % 100000}"
        self.ifaces = {n: (f"{tag}{n}s", f"{tag}{n}h") for n in ports}
        self.mtu = {n: (mtu or {}).get(n, 1500) for n in ports}
        self.hosts: dict[int, AfPacketPort] = {}

    def __enter__(self):
        try:
            for n, (sw, h) in self.ifaces.items():
                subprocess.run(["ip", "link", "del", sw], capture_output=True)
                subprocess.run(["ip", "link", "add", sw, "type", "veth", "peer", "name", h], check=True)
                for dev in (sw, h):
                    Path(f"/proc/sys/net/ipv6/conf/{dev}/disable_ipv6").write_text("1")
                    subprocess.run(["ip", "link", "set", dev, "mtu", str(self.mtu[n]), "up"], check=True)
                self.hosts[n] = AfPacketPort(PortSpec(n, "iface", iface=h))
        except Exception:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for p in self.hosts.values():
            p.close()
        self.hosts.clear()
        for sw, _h in self.ifaces.values():
            subprocess.run(["ip", "link", "del", sw], capture_output=True)

    def tap(self, port: int) -> socket.socket:
        """A non-blocking packet socket on the switch's side of ``port``'s veth pair, seeing both
        directions.  Opened with protocol 0 and given ETH_P_ALL only at bind: a socket opened for
        ETH_P_ALL hears every interface on the machine (loopback TCP included) until it is bound."""
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        try:
            s.bind((self.ifaces[port][0], 0x0003))  # ETH_P_ALL (Python puts it in network order)
        except BaseException:
            s.close()
            raise
        s.setblocking(False)
        return s

    def drain(self) -> None:
        for p in self.hosts.values():
            p.recv_batch(1024)

    def exchange(self, frames, expect: int, timeout: float = 10.0, quiet: float = 0.3) -> dict[int, list[bytes]]:
        """Send ``frames`` ([(port, bytes)]) one by one, each after the previous one's
        outputs arrived when ``expect`` is per frame; returns {port: [frames out]}."""
        self.drain()
        out: dict[int, list[bytes]] = {n: [] for n in self.hosts}
        for port, frame in frames:
            self.hosts[port].send(bytes(frame))
        deadline = time.monotonic() + timeout
        got = 0
        fds = {p.fileno(): n for n, p in self.hosts.items()}
        while True:
            wait = (deadline - time.monotonic()) if got < expect else quiet
            if wait <= 0:
                break
            r, _, _ = select.select(list(fds), [], [], wait)
            if not r:
                if got >= expect:
                    break
                continue
            for fd in r:
                n = fds[fd]
                frames_in = self.hosts[n].recv_batch(64)
                out[n].extend(frames_in)
                got += len(frames_in)
        return out


class Bmv2Grpc(_Proc):
    """``simple_switch_grpc --no-p4`` on the rig's interfaces; ``addr`` is its P4Runtime address."""

    def __init__(self, rig: "Rig", timeout: float = 20.0):
        import grpc
        port = free_port()
        self.addr = f"127.0.0.1:{port}"
        argv = [tool("simple_switch_grpc"), "--no-p4", "--device-id", "0", "--thrift-port", str(free_port()),
                "--notifications-addr", f"ipc:///tmp/refrig-{os.getpid()}-{port}.ipc"]
        for n, (sw, _h) in rig.ifaces.items():
            argv += ["-i", f"{n}@{sw}"]
        super().__init__(argv + ["--", "--grpc-server-addr", self.addr])
        ch = grpc.insecure_channel(self.addr)
        try:
            grpc.channel_ready_future(ch).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            log = self.logtext()
            self.stop()
            raise AssertionError(f"simple_switch_grpc did not start:\n{log}") from None
        finally:
            ch.close()


def p4runtime_program(addr: str, p4info, device_config: bytes, updates=()) -> None:
    """SetForwardingPipelineConfig, then one Write of ``updates`` (p4.v1.Update list); no
    arbitration (both PI and checkmate-switch accept that while no controller is connected)."""
    import grpc
    from p4.v1 import p4runtime_pb2 as P
    from p4.v1 import p4runtime_pb2_grpc

    ch = grpc.insecure_channel(addr)
    try:
        stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
        req = P.SetForwardingPipelineConfigRequest(device_id=0, action=P.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = device_config
        stub.SetForwardingPipelineConfig(req, timeout=30)
        for u in updates:  # one per request: the order matters (members before groups before entries)
            try:
                stub.Write(P.WriteRequest(device_id=0, updates=[u]), timeout=10)
            except grpc.RpcError as e:
                raise AssertionError(f"Write refused by {addr}: {e.code().name} {_p4rt_errors(e)}\n{u}") from None
    finally:
        ch.close()


def _p4rt_errors(e) -> str:
    """The per-update p4.v1.Error messages of a failed Write (grpc-status-details-bin)."""
    from google.rpc import status_pb2
    from p4.v1 import p4runtime_pb2 as P
    for k, v in e.trailing_metadata() or ():
        if k == "grpc-status-details-bin":
            st = status_pb2.Status.FromString(v)
            out = []
            for d in st.details:
                err = P.Error()
                d.Unpack(err)
                out.append(f"{err.canonical_code}:{err.message}")
            return "; ".join(out)
    return e.details()
