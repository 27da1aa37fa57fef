"""Shared ground for the reliability suite (issue #11: fuzzing and access).

* ``compiled``: p4src/checkmate.p4 compiled once by the embedded compiler.
* ``star_pipe()``: a fresh in-process :class:`switch.runtime.Pipeline` programmed with exactly what the
  controller installs for s1 of topologies/star.json (``controller.plan``).
* ``corpus``: a deterministic list of malformed / random frames (built with scapy once, mutated with
  ``random.Random(seed)``), and :func:`oracle` -- what p4src/checkmate.p4's documented policy
  (docs/DATAPLANE.md) says must happen to each frame.
* ``SwitchProcess``: a real ``checkmate-switch`` process with UDP-tunnel ports, a TM control channel
  and a P4Runtime client helper (raw gRPC stub + StreamChannel arbitration).
* ``small_run``: a small real AdamW training run to bootstrap real shadow nodes with.

Every wait is bounded; every process and socket is closed at teardown, also on failure.
"""
from __future__ import annotations

import json
import random
import select
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from p4.v1 import p4runtime_pb2

from checkmate import wire
from checkmate.paths import P4SRC, ROOT
from switch.ready import SwitchNotReady, wait_ready
from tests.childproc import stop_child
from tests.p4rt_raw import RawClient as P4RT, pipeline_config, write_errors  # noqa: F401  (for the tests)

STAR = ROOT / "topologies" / "star.json"
SWITCH_BIN = Path(sys.executable).parent / "checkmate-switch"
P = p4runtime_pb2


# ------------------------------------------------------------------ compiled program / in-process pipeline
@pytest.fixture(scope="session")
def compiled():
    from switch.compiler import compile_file
    return compile_file(P4SRC / "checkmate.p4")


@pytest.fixture(scope="session")
def topo():
    from controller.topology import Topology
    return Topology.load(STAR)


@pytest.fixture(scope="session")
def index(compiled):
    from controller.p4info import P4InfoIndex
    return P4InfoIndex(compiled.p4info)


@pytest.fixture
def star_pipe(compiled, topo, index):
    from controller.plan import plan_switch
    from switch.runtime import Pipeline

    def make():
        pipe = Pipeline(compiled.device_config)
        pipe.digests = []
        pipe.on_digest = lambda did, vals: pipe.digests.append((did, tuple(vals)))
        plan = plan_switch(topo, "s1")
        for e in plan.entries:
            c = e.canonical(index)
            pipe.insert(c.table, dict(c.match), c.action, dict(c.params), c.priority)
        for g in plan.groups:
            pipe.mcast_group_set(g.group_id, list(g.replicas))
        return pipe
    return make


def counter_cells(pipe, index, short: str) -> list[tuple[int, int]]:
    """[(packets, bytes)] of every cell of a counter, via the P4Runtime-facing API."""
    cid = index.id("counters", short)
    cells = pipe.counter_read(cid)
    out = []
    for c in cells:
        pk = getattr(c, "packets", None)
        by = getattr(c, "bytes", None)
        if pk is None and isinstance(c, tuple):
            pk, by = c[-2], c[-1]
        out.append((pk, by))
    return out


# ------------------------------------------------------------------ frames and the policy oracle
ETH, IP4, UDPL, CMH = 14, 20, 8, wire.HEADER_LEN
HOST_IPS = {"10.77.0.1": 1, "10.77.0.2": 2, "10.77.0.3": 3, "10.77.0.101": 4, "10.77.0.102": 5}
TRAINER_PORTS = {1, 2, 3}


def valid_chunk(src="h1", dst="h2", *, flags=wire.FLAG_FINAL, param_id=1, iteration=3, count=16, job_id=1,
                rank=0, payload=None, ttl=64) -> bytes:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    hosts = {"h1": ("08:00:00:00:00:01", "10.77.0.1"), "h2": ("08:00:00:00:00:02", "10.77.0.2"),
             "h3": ("08:00:00:00:00:03", "10.77.0.3"), "sh1": ("08:00:00:00:01:01", "10.77.0.101"),
             "x": ("08:00:00:00:09:09", "10.99.0.9")}
    s, d = hosts[src], hosts[dst]
    h = wire.ChunkHeader(job_id=job_id, iteration=iteration, rank=rank, param_id=param_id, offset=0,
                         count=count, flags=flags, seq=1)
    body = payload if payload is not None else bytes((i * 7) & 255 for i in range(count * 4))
    return bytes(Ether(src=s[0], dst=d[0]) / IP(src=s[1], dst=d[1], ttl=ttl)
                 / UDP(sport=40000, dport=wire.CHECKMATE_UDP_PORT) / (h.pack() + body))


def arp_request(tpa="10.77.0.2") -> bytes:
    from scapy.layers.l2 import ARP, Ether
    return bytes(Ether(src="08:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff")
                 / ARP(op=1, hwsrc="08:00:00:00:00:01", psrc="10.77.0.1", pdst=tpa))


@dataclass
class Expect:
    outputs: int  # frames the switch must emit
    malformed: int | None  # 0 version, 1 truncated, None
    drop: int | None  # drops[] index or None
    copy: bool


def oracle(port: int, f: bytes) -> Expect:
    """What docs/DATAPLANE.md's policy says p4src/checkmate.p4 does with frame ``f`` entering ``port``
    of the star's s1 (programmed by controller.plan)."""
    if len(f) < ETH:
        return Expect(0, None, 3, False)
    et = int.from_bytes(f[12:14], "big")
    if et == 0x0806:
        if len(f) < ETH + 28:
            return Expect(0, None, 3, False)  # ARP header truncated: invalid -> not IPv4/ARP
        htype, ptype, hlen, plen, oper = struct.unpack_from("!HHBBH", f, ETH)
        if (htype, ptype, hlen, plen, oper) != (1, 0x0800, 6, 4, 1):
            return Expect(0, None, 4, False)
        tpa = socket.inet_ntoa(f[ETH + 24:ETH + 28])
        return Expect(1, None, None, False) if tpa in HOST_IPS else Expect(0, None, 4, False)
    if et != 0x0800 or len(f) < ETH + IP4:
        return Expect(0, None, 3, False)
    ihl = f[ETH] & 15
    ttl, proto = f[ETH + 8], f[ETH + 9]
    frag = int.from_bytes(f[ETH + 6:ETH + 8], "big") & 0x1FFF
    if ihl != 5:
        return Expect(0, None, 2, False)
    if ttl <= 1:
        return Expect(0, None, 1, False)
    dst = socket.inet_ntoa(f[ETH + 16:ETH + 20])
    if dst not in HOST_IPS:
        return Expect(0, None, 0, False)
    udp_ok = frag == 0 and proto == 17 and len(f) >= ETH + IP4 + UDPL
    if not udp_ok or int.from_bytes(f[ETH + 22:ETH + 24], "big") != wire.CHECKMATE_UDP_PORT:
        return Expect(1, None, None, False)
    c = ETH + IP4 + UDPL
    if len(f) < c + CMH:
        return Expect(1, 1, None, False)
    version, flags = f[c], f[c + 1]
    if version != wire.WIRE_VERSION:
        return Expect(1, 0, None, False)
    final = flags & wire.FLAG_FINAL and not flags & (wire.FLAG_ACK | wire.FLAG_CTRL)
    job = int.from_bytes(f[c + 4:c + 8], "big")
    # star: shard_map covers every param id of job 1; every port x rid has a replication group
    if final and port in TRAINER_PORTS and job == 1:
        return Expect(2, None, None, True)
    return Expect(1, None, None, False)


def build_corpus(n: int, seed: int = 11) -> list[tuple[int, bytes]]:
    """``n`` (ingress port, frame) pairs: random bytes, truncations, byte flips and targeted field
    corruption of valid Checkmate chunks, ARP and plain IPv4 frames."""
    rng = random.Random(seed)
    bases = [valid_chunk(), valid_chunk(param_id=9, count=360), valid_chunk(flags=0),
             valid_chunk(flags=wire.FLAG_FINAL | wire.FLAG_RETX, dst="h3", param_id=2),
             valid_chunk(flags=wire.FLAG_ACK, count=0), valid_chunk(src="h2", dst="sh1", param_id=5),
             arp_request(), arp_request("10.9.9.9")]
    c = ETH + IP4 + UDPL
    out = []
    kinds = ("random", "truncate", "flip", "version", "flags", "count", "dtype", "ip", "trunc_cm", "huge", "job")
    for i in range(n):
        k = kinds[i % len(kinds)]
        b = bytearray(rng.choice(bases[:6]) if k not in ("random", "flip", "truncate") else rng.choice(bases))
        if k == "random":
            b = bytearray(rng.randbytes(rng.choice((0, 1, 13, 14, 33, 41, 73, rng.randrange(0, 1600)))))
            if rng.random() < 0.5 and len(b) >= 14:  # random body behind a plausible header
                b[:c] = bases[0][:c][:len(b)]
        elif k == "truncate":
            b = b[:rng.randrange(0, len(b))]
        elif k == "flip":
            for _ in range(rng.randint(1, 8)):
                j = rng.randrange(len(b))
                b[j] ^= 1 << rng.randrange(8)
        elif k == "version":
            b[c] = rng.choice([0, 2, 255, rng.randrange(256)])
        elif k == "flags":
            b[c + 1] = rng.randrange(256)
        elif k == "count":
            b[c + 24:c + 26] = rng.choice([0xFFFF, 0x8000, rng.randrange(65536)]).to_bytes(2, "big")
        elif k == "dtype":
            b[c + 2] = rng.randrange(3, 256)
        elif k == "ip":
            j = rng.choice([ETH, ETH + 8, ETH + 9, ETH + 6, ETH + 2, ETH + 16])
            b[j] = rng.randrange(256)
        elif k == "trunc_cm":
            b = b[:c + rng.randrange(0, CMH)]
        elif k == "huge":
            b = b + rng.randbytes(rng.choice((2000, 9000)))
            b[c + 24:c + 26] = b"\xff\xff"
        elif k == "job":
            b[c + 4:c + 8] = rng.randrange(1 << 32).to_bytes(4, "big")
        port = rng.choice((1, 1, 1, 2, 3, 4, 5))
        out.append((port, bytes(b)))
    return out


# ------------------------------------------------------------------ a real checkmate-switch process
class SwitchProcess:
    """``checkmate-switch`` with one UDP-tunnel port per number in ``ports`` and a TM channel."""

    def __init__(self, ports, log_dir: Path, program: str | None = None, timeout: float = 40.0):
        self.socks = {}
        for p in ports:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
            s.bind(("127.0.0.1", 0))
            self.socks[p] = s
        args = [str(SWITCH_BIN), "--grpc-server-addr", "127.0.0.1:0", "--tm-server-addr", "127.0.0.1:0",
                "--log-level", "warning", "--cpu-port", "255"]
        for p, s in self.socks.items():
            args += ["-i", f"{p}@udp:127.0.0.1:0:127.0.0.1:{s.getsockname()[1]}"]
        args += [program] if program else ["--no-p4"]
        self.log_path = log_dir / f"switch-{id(self)}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        try:
            self.info = wait_ready(self.proc, timeout)
        except SwitchNotReady as e:
            self.close()
            raise RuntimeError(f"{e}: {self.log_path.read_text()[-2000:]}") from None
        self.grpc_addr = self.info["grpc"]
        h, p = self.info["tm"].rsplit(":", 1)
        self.tm_addr = (h, int(p))
        self.side = {}
        for p, desc in self.info["ports"].items():
            host, port = desc.split("udp:", 1)[1].split("->", 1)[0].rsplit(":", 1)
            self.side[int(p)] = (host, int(port))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, port: int, frame: bytes) -> None:
        self.socks[port].sendto(frame, self.side[port])

    def recv(self, port: int, timeout: float = 3.0):
        s = self.socks[port]
        r, _, _ = select.select([s], [], [], timeout)
        return s.recv(65536) if r else None

    def drain_all(self, quiet: float = 0.5, limit: float = 30.0) -> dict[int, list[bytes]]:
        """Everything that comes out of any port until ``quiet`` seconds pass with nothing new."""
        got = {p: [] for p in self.socks}
        by_fd = {s.fileno(): p for p, s in self.socks.items()}
        end = time.monotonic() + limit
        while time.monotonic() < end:
            r, _, _ = select.select(list(self.socks.values()), [], [], quiet)
            if not r:
                break
            for s in r:
                got[by_fd[s.fileno()]].append(s.recv(65536))
        return got

    def stats(self) -> dict:
        from switch.tm_client import TMClient
        with TMClient(*self.tm_addr, timeout=10) as c:
            return c.switch_stats()

    def close(self) -> None:
        stop_child(self.proc)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()
        for s in self.socks.values():
            s.close()


@pytest.fixture
def programmed_switch(tmp_path, compiled, topo, index):
    """s1 of the star as a real checkmate-switch process (ports 1..5), programmed by the controller over
    gRPC (election id 1, connection closed afterwards); yields the SwitchProcess."""
    from controller.client import SwitchConnection
    from controller.device import Device
    from controller.plan import plan_switch
    from controller.reconcile import program_device
    sp = SwitchProcess([1, 2, 3, 4, 5], tmp_path)
    try:
        with SwitchConnection(sp.grpc_addr, 0, 1, timeout=15).connect() as conn:
            dev = Device(conn, index)
            program_device(dev, plan_switch(topo, "s1"), json.dumps(compiled.device_config).encode())
        yield sp
    finally:
        sp.close()


# ------------------------------------------------------------------ a small real training run for shadows
JOB = 5


@dataclass
class SmallRun:
    params: list
    spec: object
    init: dict
    grads: list  # per iteration: {pid: grad}
    manifests: list
    after: list  # per iteration: (params, opt_state)


def _small_run(iters: int = 2) -> SmallRun:
    import torch
    from shadow.protocol import Manifest, OptimizerSpec, ParamSpec
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
    named = list(model.named_parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    params = [ParamSpec(i, n, tuple(p.shape), "float32", 0) for i, (n, p) in enumerate(named)]
    run = SmallRun(params, OptimizerSpec.from_optimizer(opt), {i: p.detach().clone() for i, (_, p) in enumerate(named)},
                   [], [], [])
    x, y = torch.randn(8, 6), torch.randn(8, 2)
    for it in range(1, iters + 1):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x * it), y).backward()
        run.grads.append({i: p.grad.detach().clone() for i, (_, p) in enumerate(named)})
        run.manifests.append(Manifest(JOB, it, [g["lr"] for g in opt.param_groups], None, False))
        opt.step()
        run.after.append(({i: p.detach().clone() for i, (_, p) in enumerate(named)},
                          {i: {k: v.clone() for k, v in opt.state[p].items()} for i, (_, p) in enumerate(named)}))
    return run


@pytest.fixture(scope="session")
def small_run():
    return _small_run()


def bits_equal(a, b) -> bool:
    import torch
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(torch.equal(a.contiguous().reshape(-1).view(torch.uint8), b.contiguous().reshape(-1).view(torch.uint8)))


def state_bits(state) -> dict:
    """A ShardState as {key: raw bytes} to compare published states bit for bit."""
    out = {("p", k): bytes(v.contiguous().reshape(-1).view(__import__("torch").uint8).numpy())
           for k, v in state.tensors.items()}
    for pid, st in state.opt_state.items():
        for k, v in st.items():
            out[("o", pid, k)] = bytes(v.contiguous().reshape(-1).view(__import__("torch").uint8).numpy())
    out["iteration"] = state.iteration
    return out


@pytest.fixture
def shadow_node(tmp_path, small_run):
    """A real ShadowNode (shard 0 of 2: even param ids) bootstrapped at iteration 0 of ``small_run``."""
    from shadow.node import ShadowConfig, ShadowNode
    from shadow.protocol import Bootstrap, ShardMap
    owner = {p.param_id: p.param_id % 2 for p in small_run.params}
    cfg = ShadowConfig(job_id=JOB, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                       ckpt_dir=tmp_path / "ckpt", loss_timeout=30.0)
    node = ShadowNode(cfg).start()
    try:
        own = [p for p, o in owner.items() if o == 0]
        smap = ShardMap(JOB, 2, owner, ["127.0.0.1:1", "127.0.0.1:2"])
        node.bootstrap(Bootstrap(JOB, 0, 0, small_run.params, smap, small_run.spec,
                                 {p: small_run.init[p] for p in own}, {}))
        node.owned = own
        yield node
    finally:
        node.stop()
