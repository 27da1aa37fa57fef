"""Forwarding rate of checkmate-switch against a bare Python AF_PACKET forwarder.

Two network namespaces, A and B, each hang off a veth pair whose root-side ends are
the forwarder's ports (see :class:`Topology`).  A sender in A blasts UDP frames of
the full MTU at B as fast as it can for ``--seconds``; a receiver in B counts what
arrives.  Two forwarders take turns in the middle, in the same run:

* **bare**: ``recv`` a batch on port A, ``send`` each frame on port B -- the upper
  bound for any Python data plane here (no parsing, no tables);
* **checkmate-switch** running ``p4src/checkmate.p4`` (or ``--program``; any
  program with an LPM table ``*ipv4_route``/``*ipv4_lpm`` whose forwarding action
  takes a port and MAC addresses) with the two routes installed over P4Runtime.

It prints packets/s and Gbit/s of both and the ratio switch/bare (goal >= 0.5), for
MTU 1500 and 9000, plus the *pipeline ceiling*: ``Pipeline.process`` calls per
second on the same frame in this process, without ports -- what the switch could
reach if its ports, threads and TM cost nothing.  ``--impl new=. --impl old=../main`` runs the
switch of each checkout in turn (same topology, sender, receiver and bare forwarder), so a change
to the data plane is measured against the code before it in one run.  Needs root.
``python -m benchmarks.bench_switch --help``.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GW_MAC = "08:00:00:00:00:aa"
DEFAULT_PROGRAM = REPO / "p4src" / "checkmate.p4"
FALLBACK_PROGRAM = REPO / "tests" / "switch_proc" / "programs" / "l3_cpu.p4"
BENCH_UDP_PORT = 5001  # not Checkmate's port: plain routed UDP


def sh(*cmd, check=True, timeout=20, ns=None):
    if ns:
        cmd = ("ip", "netns", "exec", ns) + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


class Topology:
    """Hosts A (10.0.1.1/24) and B (10.0.2.2/24) in namespaces, veths to the root namespace.

    Each host routes everything through a gateway whose MAC is ``GW_MAC`` (a static
    neighbour entry), so every routed frame is addressed to the switch.  Offloads are
    off on all veths and IPv6 is off (no stray router solicitations).  Names carry
    ``tag`` (default: the pid) and everything is deleted on exit, also on failure.
    """

    def __init__(self, tag: str | None = None, mtu: int = 1500, shadow: bool = False):
        tag = tag or f"{os.getpid() % 100000}"
        self.ns_a, self.ns_b = f"cmA{tag}", f"cmB{tag}"
        self.if_a, self.if_b = f"cma{tag}", f"cmb{tag}"
        self.sw_a, self.sw_b = f"cma{tag}s", f"cmb{tag}s"
        # optional third host S (10.0.3.3/24): the shadow of benchmarks.bench_replica
        self.ns_s, self.if_s, self.sw_s = (f"cmS{tag}", f"cms{tag}", f"cms{tag}s") if shadow else ("", "", "")
        self.mtu = mtu
        self.mac_a = self.mac_b = self.mac_s = ""

    def __enter__(self):
        try:
            self._create()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _create(self):
        hosts = [(self.ns_a, self.if_a, self.sw_a, "10.0.1.1/24", "10.0.1.254"),
                 (self.ns_b, self.if_b, self.sw_b, "10.0.2.2/24", "10.0.2.254")]
        if self.ns_s:
            hosts.append((self.ns_s, self.if_s, self.sw_s, "10.0.3.3/24", "10.0.3.254"))
        for ns, inner, outer, ip, gw in hosts:
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", inner, "mtu", str(self.mtu), "type", "veth", "peer", "name", outer,
               "mtu", str(self.mtu))
            sh("ip", "link", "set", inner, "netns", ns)
            sh("sysctl", "-qw", f"net.ipv6.conf.{outer}.disable_ipv6=1", check=False)
            sh("sysctl", "-qw", f"net.ipv6.conf.{inner}.disable_ipv6=1", ns=ns, check=False)
            for dev, where in ((inner, ns), (outer, None)):
                sh("ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off",
                   ns=where, check=False)
                sh("ip", "link", "set", dev, "up", ns=where)
            sh("ip", "link", "set", "lo", "up", ns=ns)
            sh("ip", "addr", "add", ip, "dev", inner, ns=ns)
            sh("ip", "route", "add", "default", "via", gw, "dev", inner, ns=ns)
            sh("ip", "neigh", "replace", gw, "lladdr", GW_MAC, "dev", inner, "nud", "permanent", ns=ns)
        self.mac_a = sh("cat", f"/sys/class/net/{self.if_a}/address", ns=self.ns_a).strip()
        self.mac_b = sh("cat", f"/sys/class/net/{self.if_b}/address", ns=self.ns_b).strip()
        if self.ns_s:
            self.mac_s = sh("cat", f"/sys/class/net/{self.if_s}/address", ns=self.ns_s).strip()

    def close(self):
        for ns in (self.ns_a, self.ns_b, self.ns_s):
            if ns:
                sh("ip", "netns", "del", ns, check=False)
        for dev in (self.sw_a, self.sw_b, self.sw_s):
            if dev:
                sh("ip", "link", "del", dev, check=False)


# ---------------------------------------------------------------- traffic roles (child processes)
def _mac(m: str) -> bytes:
    return bytes.fromhex(m.replace(":", ""))


def build_frame(src_mac: str, mtu: int) -> bytes:
    """Ethernet/IPv4/UDP 10.0.1.1 -> 10.0.2.2:48879 filling ``mtu`` (checksum computed)."""
    payload = bytes(range(256)) * (mtu // 256 + 1)
    payload = payload[:mtu - 28]
    ihl = struct.pack("!BBHHHBBH4s4s", 0x45, 0, mtu, 1, 0, 64, 17, 0,
                      bytes([10, 0, 1, 1]), bytes([10, 0, 2, 2]))
    s = sum(struct.unpack("!10H", ihl))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ihl = ihl[:10] + struct.pack("!H", ~s & 0xFFFF) + ihl[12:]
    udp = struct.pack("!HHHH", 40000, BENCH_UDP_PORT, mtu - 20, 0)
    return _mac(GW_MAC) + _mac(src_mac) + b"\x08\x00" + ihl + udp + payload


def role_send(iface: str, src_mac: str, mtu: int, seconds: float) -> None:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    f = build_frame(src_mac, mtu)
    send = s.send
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(256):
            try:
                send(f)
                n += 1
            except OSError:
                pass
    print(json.dumps({"sent": n}), flush=True)


def role_recv(iface: str, seconds: float) -> None:
    # protocol given at bind only: opened for IPv4 it would count other interfaces' frames until bound
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((iface, 0x0800))  # Python puts it in network order
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.setblocking(False)
    print("READY", flush=True)
    n = nbytes = 0
    first = last = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        while True:
            try:
                d = s.recv(65535)
            except BlockingIOError:
                break
            if len(d) > 37 and d[23] == 17 and d[36:38] == b"\x13\x89":
                now = time.monotonic()
                first = first or now
                last = now
                n += 1
                nbytes += len(d)
    print(json.dumps({"received": n, "bytes": nbytes, "span": (last - first) if n > 1 else 0}), flush=True)


def role_bare(if_in: str, if_out: str) -> None:
    """The baseline: the same batched AF_PACKET ports the switch uses, no pipeline."""
    from switch.ports import AfPacketPort, parse_port_spec
    a = AfPacketPort(parse_port_spec(f"1@{if_in}"))
    b = AfPacketPort(parse_port_spec(f"2@{if_out}"))
    ep = select.epoll()
    ep.register(a.fileno(), select.EPOLLIN)
    print("READY", flush=True)
    send = b.send
    while True:
        if ep.poll(0.5):
            for f in a.recv_batch(64):
                try:
                    send(f)
                except OSError:
                    pass


# ---------------------------------------------------------------- orchestration
def _child(args, ns=None, ready=True, timeout=30):
    cmd = [sys.executable, "-m", "benchmarks.bench_switch", *args]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    if ready:
        _wait_line(p, "READY", timeout)
    return p


def _wait_line(p, prefix, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([p.stdout], [], [], 0.2)
        if r:
            line = p.stdout.readline()
            if line.startswith(prefix):
                return line
            if not line:
                break
    p.kill()
    raise RuntimeError(f"child {p.args} not ready: {p.stderr.read()[-2000:]}")


def _stop(p):
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def measure(topo: Topology, seconds: float) -> dict:
    """Run receiver and sender once through whatever forwards between sw_a and sw_b now."""
    rx = _child(["--role", "recv", topo.if_b, str(seconds + 1.5)], ns=topo.ns_b)
    tx = _child(["--role", "send", topo.if_a, topo.mac_a, str(topo.mtu), str(seconds)], ns=topo.ns_a, ready=False)
    try:
        sent = json.loads(tx.communicate(timeout=seconds + 30)[0].strip().splitlines()[-1])["sent"]
        out = json.loads(rx.communicate(timeout=seconds + 30)[0].strip().splitlines()[-1])
    finally:
        _stop(tx)
        _stop(rx)
    pps = out["received"] / seconds
    return {"sent": sent, "received": out["received"], "pps": pps, "gbps": out["bytes"] * 8 / seconds / 1e9}


def route_entries(p4info, routes):
    """p4.v1 TableEntries for [(prefix bytes, plen, port, dst mac)] in the program's LPM route table."""
    from p4.v1 import p4runtime_pb2 as P

    t = next((t for t in p4info.tables if t.preamble.name.endswith(("ipv4_route", "ipv4_lpm"))), None)
    if t is None:
        raise ValueError("program has no *ipv4_route / *ipv4_lpm table")
    acts = {a.preamble.id: a for a in p4info.actions}
    a = next((acts[r.id] for r in t.action_refs if any(p.name == "port" for p in acts[r.id].params)), None)
    if a is None:
        raise ValueError(f"table {t.preamble.name}: no action with a 'port' parameter")
    out = []
    for prefix, plen, port, dmac in routes:
        te = P.TableEntry(table_id=t.preamble.id)
        fm = te.match.add(field_id=t.match_fields[0].id)
        fm.lpm.value, fm.lpm.prefix_len = prefix, plen
        te.action.action.action_id = a.preamble.id
        for prm in a.params:
            if prm.name == "port":
                v = bytes([port])
            elif prm.name.lower() in ("smac", "src_mac", "srcmac") or prm.name.lower().startswith("src"):
                v = _mac(GW_MAC)
            else:
                v = _mac(dmac)
            te.action.action.params.add(param_id=prm.id, value=v)
        out.append(te)
    return out


def pipeline_ceiling(program: Path, mtu: int, seconds: float = 1.0) -> float:
    """Pipeline.process calls/s for the benchmark frame, in this process (no ports)."""
    import json as _json

    from switch.cli import load_program
    from switch.p4rt_server.p4info_index import P4InfoIndex
    from switch.p4rt_server.translate import decode_table_entry
    from switch.runtime import Pipeline

    ir, p4info = load_program(str(program))
    pl = Pipeline(_json.loads(_json.dumps(ir)))
    idx = P4InfoIndex.build(p4info)
    for te in route_entries(p4info, [(b"\x0a\x00\x02\x00", 24, 2, "08:00:00:00:00:02")]):
        table, entry = decode_table_entry(idx, te, need_action=True)
        pl.table_insert(table.id, entry)
    f = build_frame("08:00:00:00:00:01", mtu)
    if not pl.process(1, f):
        raise RuntimeError("the pipeline drops the benchmark frame")
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(100):
            pl.process(1, f)
        n += 100
    return n / (time.perf_counter() - t0)


def start_switch(topo: Topology, program: Path, root: Path = REPO):
    """checkmate-switch (of the checkout at ``root``) on the two root-side veths, with the return and
    forward routes."""
    import grpc
    from p4.v1 import p4runtime_pb2 as P, p4runtime_pb2_grpc

    p = subprocess.Popen([sys.executable, "-m", "switch.cli", "-i", f"1@{topo.sw_a}", "-i", f"2@{topo.sw_b}",
                          "--grpc-server-addr", "127.0.0.1:0", "--log-level", "warning", str(program)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root,
                         env=dict(os.environ, PYTHONPATH=str(root)))
    line = _wait_line(p, "checkmate-switch READY", 60)
    addr = json.loads(line.split(" ", 2)[2])["grpc"]
    ch = grpc.insecure_channel(addr)
    stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
    cfg = stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest(
        response_type=P.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE), timeout=10).config
    ups = [P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)) for te in route_entries(
        cfg.p4info, [(b"\x0a\x00\x02\x00", 24, 2, topo.mac_b), (b"\x0a\x00\x01\x00", 24, 1, topo.mac_a)])]
    stub.Write(P.WriteRequest(device_id=0, updates=ups), timeout=10)
    ch.close()
    return p


def _median_run(runs: list[dict]) -> dict:
    """The run with the median packet rate (a whole run, so pps and Gbit/s belong together)."""
    return sorted(runs, key=lambda r: r["pps"])[len(runs) // 2]


def run(mtus, seconds: float, program: Path, repeat: int = 1, impls=None) -> list[dict]:
    """Per MTU: the bare forwarder and the switch of each checkout in ``impls`` ([(label, root)],
    default this one) take turns ``repeat`` times; medians per forwarder."""
    impls = impls or [("switch", REPO)]
    rows = []
    for mtu in mtus:
        bare_runs, sw_runs = [], {label: [] for label, _ in impls}
        with Topology(tag=f"{os.getpid() % 10000}{mtu // 1000}", mtu=mtu) as topo:
            for _ in range(repeat):  # alternate, so that all see the same background load
                bare = _child(["--role", "bare", topo.sw_a, topo.sw_b])
                try:
                    bare_runs.append(measure(topo, seconds))
                finally:
                    _stop(bare)
                for label, root in impls:
                    sw = start_switch(topo, program, root)
                    try:
                        sw_runs[label].append(measure(topo, seconds))
                    finally:
                        _stop(sw)
        b = _median_run(bare_runs)
        ceiling = pipeline_ceiling(program, mtu)
        for label, _ in impls:
            s = _median_run(sw_runs[label])
            ratio = s["pps"] / b["pps"] if b["pps"] else float("nan")
            row = {"mtu": mtu, "bare": b, "switch": s, "ratio": ratio, "pipeline_ceiling_pps": ceiling,
                   "runs": {"bare": bare_runs, "switch": sw_runs[label]}}
            if len(impls) > 1:
                row["impl"] = label
            rows.append(row)
            name = "checkmate-switch" if len(impls) == 1 else f"switch {label}"
            print(f"MTU {mtu:5d}  bare: {b['pps']:8.0f} pkt/s {b['gbps']:5.2f} Gbit/s | "
                  f"{name}: {s['pps']:8.0f} pkt/s {s['gbps']:5.2f} Gbit/s | ratio {ratio:.2f} (goal >= 0.5) | "
                  f"pipeline ceiling {ceiling:.0f} pkt/s (switch reaches {s['pps'] / ceiling:.0%} of it) "
                  f"[offered {b['sent'] / seconds:.0f} / {s['sent'] / seconds:.0f} pkt/s]", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--mtu", type=int, action="append", help="MTU(s) to test (default 1500 and 9000)")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per forwarder (alternating); medians are printed")
    ap.add_argument("--program", type=Path, default=None,
                    help="P4 program for the switch (needs an ipv4_lpm table with ipv4_forward(mac, port))")
    ap.add_argument("--impl", action="append", default=[], metavar="LABEL=REPO_ROOT",
                    help="measure the switch of this checkout too (repeatable; e.g. new=. old=../main); "
                         "the bare forwarder, sender and receiver are this checkout's")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    if args.role:
        role, *rest = args.role
        if role == "send":
            role_send(rest[0], rest[1], int(rest[2]), float(rest[3]))
        elif role == "recv":
            role_recv(rest[0], float(rest[1]))
        elif role == "bare":
            role_bare(rest[0], rest[1])
        return 0
    if os.geteuid() != 0:
        print("bench_switch: needs root (network namespaces, AF_PACKET)", file=sys.stderr)
        return 2
    program = args.program or (DEFAULT_PROGRAM if DEFAULT_PROGRAM.exists() else FALLBACK_PROGRAM)
    print(f"checkmate-switch vs bare AF_PACKET forwarder; program {program}; "
          f"{args.repeat} x {args.seconds}s per forwarder and MTU, medians")
    impls = []
    for spec in args.impl:
        label, sep, root = spec.partition("=")
        if not sep or not (Path(root) / "switch" / "cli.py").exists():
            ap.error(f"--impl {spec!r}: expected LABEL=REPO_ROOT of a checkout with switch/cli.py")
        impls.append((label, Path(root).resolve()))
    rows = run(args.mtu or [1500, 9000], args.seconds, program, max(1, args.repeat), impls or None)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
