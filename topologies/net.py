"""Mininet plumbing for the Checkmate testbed: topology JSON -> ``Topo`` -> ``Mininet``, and switch classes.

Design (the Mininet way: Topo -> Mininet -> start, with our own ``Switch`` classes):

* :class:`JsonTopo` turns a topology JSON (``topologies/generate.py``, ``controller/topology.py``) into a
  Mininet ``Topo``: each host gets its IP/MAC, each link its switch port numbers, and each switch-side
  interface a name that carries the run's **tag** (``cm<tag><switch>p<port>``, e.g. ``cm7f3s1p4``).
  Switches live in the root namespace, so their interfaces do too; the tag keeps two concurrent runs on
  one machine from ever touching each other's interfaces (Mininet deletes an interface of the same name
  before creating one) and lets ``--stop`` find exactly ours.
* :class:`ProcessSwitch` is a Mininet switch that is an external process speaking the
  ``simple_switch`` command-line convention (``-i PORT@IFACE``).  It is started and stopped through the
  run's :class:`~topologies.procs.ProcessTable` (pid + start time in ``logs/<run>/state.json``), logs to
  ``logs/<run>/<switch>.log``, optionally captures into ``pcaps/<run>/`` and is *ready* when its
  P4Runtime gRPC port accepts connections (bounded wait; a switch that dies early fails the start with
  the tail of its log).  :class:`EmbeddedSwitch` runs ``checkmate-switch`` (this repository's v1model
  target), :class:`BMv2Switch` runs ``simple_switch_grpc`` when it is on PATH; :func:`switch_class`
  resolves ``--switch embedded|bmv2|auto``.
* :func:`build_network` creates and starts the Mininet network without a controller (``controller=None``;
  the P4Runtime controller talks to the switches directly), turns veth offloads off on both ends of every
  link (a user-space switch sees un-segmented frames with correct checksums), sets the MTU, installs
  static ARP (the P4 program forwards IPv4 only) and disables IPv6 on the hosts so no stray neighbour
  discovery crosses the data plane.  :func:`teardown_network` always succeeds and leaves nothing behind.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mininet.net import Mininet
from mininet.node import Host, Switch
from mininet.topo import Topo

from . import generate
from .procs import ProcessTable, delete_intf, listens, port_holder

OFFLOADS = ("tx", "tso", "gso", "gro")


def intf_name(tag: str, switch: str, port: int) -> str:
    name = f"cm{tag}{switch}p{port}"
    if len(name) > 15:
        raise ValueError(f"interface name {name!r} is longer than IFNAMSIZ-1 (15)")
    return name


def offloads_off(intf: str, run=None) -> None:
    """``ethtool -K IF tx off tso off gso off gro off`` (in the root namespace, or through ``run``)."""
    args = ["ethtool", "-K", intf] + [w for o in OFFLOADS for w in (o, "off")]
    if run is None:
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)
    else:
        run(" ".join(args) + " >/dev/null 2>&1")


class JsonTopo(Topo):
    """A Mininet ``Topo`` built from the Checkmate topology JSON."""

    def build(self, topo: dict, tag: str = "0", switch_opts: dict | None = None):  # noqa: D401 (Mininet API)
        generate.validate(topo)
        tm: dict[str, dict[int, dict]] = {s: {} for s in topo["switches"]}
        for na, pa, nb, pb, attrs in generate.links(topo):
            if attrs:
                for n, p in ((na, pa), (nb, pb)):
                    if p is not None and n in tm and (na in topo["hosts"] or nb in topo["hosts"]):
                        tm[n][p] = attrs  # the TM settings of a host link apply to the switch's port
        for name, h in topo["hosts"].items():
            self.addHost(name, ip=h["ip"], mac=h["mac"])
        for name, s in topo["switches"].items():
            self.addSwitch(name, dpid=f"{s['device_id'] + 1:016x}", device_id=s["device_id"],
                           grpc_port=s["grpc_port"], cpu_port=s.get("cpu_port", generate.CPU_PORT),
                           port_tm=tm[name], tm_port=s.get("tm_port"), **(switch_opts or {}))
        for na, pa, nb, pb, _ in generate.links(topo):
            opts = {}
            if pa is not None:
                opts.update(port1=pa, intfName1=intf_name(tag, na, pa))
            else:
                opts.update(intfName1="eth0")
            if pb is not None:
                opts.update(port2=pb, intfName2=intf_name(tag, nb, pb))
            else:
                opts.update(intfName2="eth0")
            self.addLink(na, nb, **opts)


def switch_intfs(topo: dict, tag: str) -> list[str]:
    """The root-namespace interface names a run with ``tag`` creates."""
    out = []
    for na, pa, nb, pb, _ in generate.links(topo):
        for n, p in ((na, pa), (nb, pb)):
            if p is not None:
                out.append(intf_name(tag, n, p))
    return out


class SwitchStartError(RuntimeError):
    pass


class ProcessSwitch(Switch):
    """A switch that is an external process with simple_switch-style ``-i PORT@IFACE`` arguments."""

    #: shown in errors and logs
    label = "switch"

    def __init__(self, name, device_id=0, grpc_port=50051, cpu_port=255, procs: ProcessTable | None = None,
                 log_dir=None, pcap_dir=None, port_tm=None, program=None, mtu=1500, ready_timeout=60.0,
                 extra_args=(), trace=False, tm_port=None, **params):
        params.setdefault("inNamespace", False)
        super().__init__(name, **params)
        self.device_id = int(device_id)
        self.grpc_port = int(grpc_port)
        self.cpu_port = int(cpu_port)
        self.procs = procs
        self.log_dir = Path(log_dir) if log_dir else Path("logs")
        self.pcap_dir = Path(pcap_dir) if pcap_dir else None
        self.port_tm = dict(port_tm or {})
        self.program = program
        self.mtu = int(mtu)
        self.ready_timeout = float(ready_timeout)
        self.extra_args = list(extra_args)
        self.trace = bool(trace)
        self.tm_port = int(tm_port) if tm_port else None
        self.proc = None

    # -- what to run -------------------------------------------------------------------------
    @property
    def proc_name(self) -> str:
        return f"switch-{self.name}"

    @property
    def log_file(self) -> Path:
        """The switch process's own output (stdout/stderr)."""
        return self.log_dir / f"{self.name}.log"

    @property
    def trace_file(self) -> Path:
        """Per-packet trace, only when ``trace`` is on: it costs per packet.  Both switches take
        ``--log-file NAME`` and write ``NAME.txt`` (rotated past 5 MB, as BMv2 does)."""
        return self.log_dir / f"{self.name}-trace.txt"

    @property
    def tm_addr(self) -> str | None:
        return f"127.0.0.1:{self.tm_port}" if self.tm_port else None

    @property
    def grpc_addr(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def port_map(self) -> dict[int, str]:
        return {port: intf.name for intf, port in sorted(self.ports.items(), key=lambda t: t[1])
                if intf.name != "lo"}

    def port_args(self) -> list[str]:
        return [w for port, name in self.port_map().items() for w in ("-i", f"{port}@{name}")]

    def command(self) -> list[str]:
        raise NotImplementedError

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self, controllers):
        if self.procs is None:
            raise SwitchStartError(f"{self.name}: no process table (pass procs= in the switch options)")
        for name in self.port_map().values():
            offloads_off(name)
            # the kernel would send IPv6 router solicitations / MLD reports out of the switch's
            # interfaces, and a switch takes those as received frames (BMv2 and checkmate-switch)
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)
            subprocess.run(["ip", "link", "set", "dev", name, "mtu", str(self.mtu), "up"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)
        if self.pcap_dir is not None:
            (self.pcap_dir / self.name).mkdir(parents=True, exist_ok=True)
        argv = self.command()
        root = Path(__file__).resolve().parent.parent
        self.proc = self.procs.spawn(self.proc_name, argv, self.log_file, kind="switch", cwd=root,
                                     env={"PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
        self.wait_ready()

    def ready(self) -> bool:
        """The switch process itself listens on its gRPC port (:func:`procs.listens`; a TCP connect
        would also succeed against another process that took the port first)."""
        return listens(self.proc.pid, self.grpc_port)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                holder = port_holder(self.grpc_port)
                held = f" (its gRPC port {self.grpc_port} is held by {holder})" if holder else ""
                raise SwitchStartError(f"{self.label} {self.name} exited with status {rc} during start-up{held}:\n"
                                       + tail(self.log_file))
            if self.ready():
                return
            time.sleep(0.1)
        holder = port_holder(self.grpc_port)
        held = f"; the port is held by {holder}" if holder else ""
        raise SwitchStartError(f"{self.label} {self.name} not ready after {self.ready_timeout:.0f}s "
                               f"(gRPC {self.grpc_addr}{held}):\n" + tail(self.log_file))

    def stop(self, deleteIntfs=True):
        if self.procs is not None:
            self.procs.stop(self.proc_name, timeout=5.0)
        super().stop(deleteIntfs)


class EmbeddedSwitch(ProcessSwitch):
    """``checkmate-switch``: the embedded v1model target with a P4Runtime server (simple_switch_grpc flags).

    Per-port traffic-manager settings from the topology links (``lossless``, ``loss`` (drop
    probability), ``delay_ms``, ``queue_depth``, ``rate``) become ``--tm PORT:key=value,...``.
    """

    label = "checkmate-switch"

    @staticmethod
    def binary() -> list[str]:
        """``$CHECKMATE_SWITCH`` if set, else this Python running ``switch.cli`` from the source tree."""
        if os.environ.get("CHECKMATE_SWITCH"):
            return [os.environ["CHECKMATE_SWITCH"]]
        return [sys.executable, "-m", "switch.cli"]

    def tm_args(self) -> list[str]:
        out = []
        for port, attrs in sorted(self.port_tm.items()):
            kv = []
            if "lossless" in attrs:
                kv.append(f"lossless={'true' if attrs['lossless'] else 'false'}")
            if attrs.get("loss"):
                kv.append(f"drop_prob={float(attrs['loss'])}")
            if attrs.get("delay_ms"):
                kv.append(f"delay_s={float(attrs['delay_ms']) / 1000.0}")
            if attrs.get("queue_depth"):
                kv.append(f"queue_depth={int(attrs['queue_depth'])}")
            if attrs.get("rate"):
                kv.append(f"rate_bps={attrs['rate']}")
            if kv:
                out += ["--tm", f"{port}:{','.join(kv)}"]
        return out

    def command(self) -> list[str]:
        argv = [*self.binary(), *self.port_args(), "--device-id", str(self.device_id),
                "--cpu-port", str(self.cpu_port), "--grpc-server-addr", self.grpc_addr, *self.tm_args()]
        if self.tm_port:
            argv += ["--tm-server-addr", self.tm_addr]
        if self.trace:
            argv += ["--log-file", str(self.trace_file.with_suffix(""))]
        if self.pcap_dir is not None:
            argv += ["--pcap", str(self.pcap_dir / self.name)]
        argv += self.extra_args
        argv += [str(self.program)] if self.program else ["--no-p4"]
        return argv


class BMv2Switch(ProcessSwitch):
    """``simple_switch_grpc`` (p4lang/behavioral-model), started without a program (``--no-p4``); the
    controller pushes the pipeline with SetForwardingPipelineConfig.  BMv2 has no per-port loss/delay
    injection, so traffic-manager link attributes are ignored (and said so in the log)."""

    label = "simple_switch_grpc"

    @staticmethod
    def available() -> bool:
        return shutil.which("simple_switch_grpc") is not None

    @property
    def tm_addr(self) -> None:
        """BMv2 has no run-time TM channel (loss/slow-port scenarios need the embedded switch)."""
        return None

    @property
    def notifications_addr(self) -> str:
        """Each switch its own nanomsg socket (BMv2's default is per device id, shared by concurrent runs)."""
        return f"ipc:///tmp/checkmate-bmv2-{self.grpc_port}.ipc"

    def command(self) -> list[str]:
        argv = ["simple_switch_grpc", *self.port_args(), "--device-id", str(self.device_id),
                "--notifications-addr", self.notifications_addr]
        if self.tm_port:  # the run's port block reserves one per switch: BMv2's Thrift server takes it
            argv += ["--thrift-port", str(self.tm_port)]
        if self.trace:
            argv += ["--log-file", str(self.trace_file.with_suffix("")), "--log-flush"]
        if self.pcap_dir is not None:
            argv += ["--pcap", str(self.pcap_dir / self.name)]
        argv += [str(self.program)] if self.program else ["--no-p4"]
        argv += ["--", "--grpc-server-addr", self.grpc_addr, "--cpu-port", str(self.cpu_port)]
        return argv + self.extra_args

    def start(self, controllers):
        if any(a.get("loss") or a.get("delay_ms") for a in self.port_tm.values()):
            self.log_dir.mkdir(parents=True, exist_ok=True)
            with open(self.log_file, "a") as f:
                f.write("### warning: BMv2 ignores per-port loss/delay attributes\n")
        super().start(controllers)

    def stop(self, deleteIntfs=True):
        super().stop(deleteIntfs)
        try:
            os.unlink(self.notifications_addr[len("ipc://"):])
        except OSError:
            pass


def switch_class(kind: str):
    """``embedded`` | ``bmv2`` | ``auto`` (BMv2 when ``simple_switch_grpc`` is on PATH and its pipeline can be
    had -- p4c on PATH or ``build/checkmate.bmv2.json`` built --, else embedded)."""
    if kind == "embedded":
        return EmbeddedSwitch
    if kind == "bmv2":
        if not BMv2Switch.available():
            raise SwitchStartError("--switch bmv2: simple_switch_grpc is not on PATH")
        return BMv2Switch
    if kind == "auto":
        from controller.artifacts import artifact_paths, BUILD
        pipeline = shutil.which("p4c") is not None or artifact_paths(BUILD, "bmv2")[1].is_file()
        return BMv2Switch if BMv2Switch.available() and pipeline else EmbeddedSwitch
    raise ValueError(f"unknown switch kind {kind!r} (embedded|bmv2|auto)")


def tail(path, n: int = 2000) -> str:
    try:
        data = Path(path).read_bytes()[-n:]
    except OSError:
        return ""
    return f"--- {path} ---\n" + data.decode(errors="replace") + "\n"


def build_network(topo: dict, tag: str, switch_cls, procs: ProcessTable, log_dir, pcap_dir=None, mtu: int = 1500,
                  switch_extra=None) -> Mininet:
    """Create and start the Mininet network for ``topo``; every created thing is recorded in ``procs``.

    On any error the partly built network is torn down before the exception propagates.
    """
    log_dir = Path(log_dir)
    procs.add_intfs(switch_intfs(topo, tag))  # recorded before they exist: --stop can always find them
    opts = {"procs": procs, "log_dir": log_dir, "pcap_dir": pcap_dir, "mtu": mtu}
    opts.update(switch_extra or {})
    net = Mininet(topo=JsonTopo(topo, tag=tag, switch_opts=opts), switch=switch_cls, host=Host,
                  controller=None, ipBase=generate.IP_BASE, autoSetMacs=False, autoStaticArp=False,
                  build=False, waitConnected=False)
    try:
        net.build()
        for node in net.hosts + net.switches:
            procs.adopt(f"shell-{node.name}", node.pid, ["mininet-shell", node.name], node.name, kind="host")
        for h in net.hosts:
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
            for intf in h.intfList():
                if intf.name == "lo":
                    continue
                offloads_off(intf.name, run=h.cmd)
                h.cmd(f"ip link set dev {intf.name} mtu {mtu}")
        net.staticArp()
        net.start()
        return net
    except BaseException:
        teardown_network(net, procs, topo, tag)
        raise


def teardown_network(net, procs: ProcessTable, topo: dict | None = None, tag: str | None = None) -> None:
    """Stop everything ``net`` started; never raises.  Idempotent."""
    if net is not None:
        try:
            net.stop()
        except Exception:  # noqa: BLE001 -- teardown must go on
            pass
        for node in list(net.hosts) + list(net.switches):
            try:
                procs.stop(f"shell-{node.name}", timeout=2.0)
            except Exception:  # noqa: BLE001
                pass
    for name in list(procs.procs):
        if procs.procs[name].kind in ("switch", "host"):
            procs.stop(name, timeout=3.0)
    names = switch_intfs(topo, tag) if topo is not None and tag is not None else list(procs.intfs)
    for name in names:
        delete_intf(name)
