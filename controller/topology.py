"""Topology loader and validator: the one description of a Checkmate testbed.

A topology is p4lang/tutorials' ``topology.json`` extended with Checkmate roles
(see docs/ARCHITECTURE.md "Topology" and docs/CONTROLLER.md)::

    {
      "job_id": 1,
      "hosts": {
        "h1":  {"ip": "10.77.0.1/24", "mac": "08:00:00:00:00:01", "role": "trainer", "rank": 0},
        "sh1": {"ip": "10.77.0.101/24", "mac": "08:00:00:00:01:01", "role": "shadow", "shard": 0,
                "udp_port": 48880, "mgmt_port": 48881}
      },
      "switches": {"s1": {"device_id": 0, "grpc_port": 50051, "cpu_port": 255}},
      "links": [["h1", "s1-p1"], ["sh1", "s1-p4", {"lossless": true}], ["s1-p10", "s2-p1"]],
      "shard_map": {"0": [[0, 63]], "1": [[64, 4294967295]]}      (optional)
    }

What callers get (all frozen dataclasses, safe to share):

* :class:`Host` (name, ip, prefix_len, mac, role, rank/shard, ports, extra keys kept in
  ``extra``), :class:`Switch` (name, device_id, grpc_port, grpc_addr, cpu_port),
  :class:`Link` between two :class:`Endpoint` s (``node``, ``port`` -- ``None`` for hosts).
* :class:`Topology` with the questions every component asks:
  ``port_map(sw)`` (port -> :class:`Endpoint` on the far side), ``attachment(host)``
  (switch and port a host hangs off), ``next_hop(sw, host)`` (egress port on the shortest
  path, ties broken by lowest port), ``trainer_ports(sw)`` / ``shadow_ports(sw)`` /
  ``switch_ports(sw)``, ``trainers()`` (by rank), ``shadows()`` (by shard), ``shard_ranges()``.

Validation is strict and names the culprit: every problem is reported as
``topology <file>: <where>: <what>`` through :class:`TopologyError` (a ``ValueError``), and
all problems found are listed, not only the first.  Checked: required keys, IPv4/MAC syntax,
unique names/IPs/MACs/device ids/grpc ports/ranks/shards, ports 0..510 (9-bit, 511 is the
v1model drop port) not equal to the CPU port and used once per switch, links naming
known nodes, each host on exactly one link to a switch, every host reachable from every
switch, trainer ranks 0..N-1, shards 0..M-1, shard ranges disjoint and in 32-bit range.
"""
from __future__ import annotations

import ipaddress
import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from checkmate.wire import SHADOW_UDP_PORT

ROLES = ("trainer", "shadow", "host")
MAX_PORT = 510  # 9-bit v1model ports; 511 is the drop port
DEFAULT_GRPC_PORT = 50051
MGMT_PORT = SHADOW_UDP_PORT + 1
PARAM_MAX = (1 << 32) - 1
_MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
_PORT_RE = re.compile(r"^(?P<sw>[A-Za-z_][\w.]*)-p(?P<port>\d+)$")


class TopologyError(ValueError):
    """A topology that does not validate; ``problems`` lists every culprit found."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        super().__init__(f"topology {source}: " + "; ".join(self.problems))


@dataclass(frozen=True)
class Endpoint:
    """One end of a link: a host (``port is None``) or a switch port."""

    node: str
    port: int | None = None

    def __str__(self) -> str:
        return self.node if self.port is None else f"{self.node}-p{self.port}"


@dataclass(frozen=True)
class Link:
    a: Endpoint
    b: Endpoint
    lossless: bool = False
    latency: str | None = None
    bandwidth: float | None = None
    options: dict = field(default_factory=dict, compare=False, hash=False)  # all link attributes as given


@dataclass(frozen=True)
class Host:
    name: str
    ip: str  # dotted quad, no prefix
    prefix_len: int
    mac: str  # lower case aa:bb:..
    role: str = "host"
    rank: int | None = None  # trainers
    shard: int | None = None  # shadows
    udp_port: int = SHADOW_UDP_PORT  # shadows: where the switch's copies go
    mgmt_port: int = MGMT_PORT  # shadows: TCP management
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def cidr(self) -> str:
        return f"{self.ip}/{self.prefix_len}"

    @property
    def ip_int(self) -> int:
        return int(ipaddress.IPv4Address(self.ip))

    @property
    def mac_int(self) -> int:
        return int(self.mac.replace(":", ""), 16)


@dataclass(frozen=True)
class Switch:
    name: str
    device_id: int
    grpc_port: int = DEFAULT_GRPC_PORT
    cpu_port: int | None = None
    grpc_host: str = "127.0.0.1"
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def grpc_addr(self) -> str:
        return f"{self.grpc_host}:{self.grpc_port}"

    def port_mac(self, port: int) -> str:
        """Locally administered source MAC the switch writes on frames leaving ``port``."""
        d = self.device_id & 0xFFFF
        return "02:cc:%02x:%02x:%02x:%02x" % (d >> 8, d & 0xFF, (port >> 8) & 0xFF, port & 0xFF)


@dataclass(frozen=True)
class Topology:
    job_id: int
    hosts: dict[str, Host]
    switches: dict[str, Switch]
    links: tuple[Link, ...]
    shard_map: dict[int, tuple[tuple[int, int], ...]]
    source: str = "<dict>"

    # -- construction -----------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> "Topology":
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except OSError as e:
            raise TopologyError(str(path), [f"cannot read: {e.strerror or e}"]) from None
        except json.JSONDecodeError as e:
            raise TopologyError(str(path), [f"line {e.lineno} column {e.colno}: invalid JSON: {e.msg}"]) from None
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> "Topology":
        return _Builder(data, source).build()

    # -- lookups ----------------------------------------------------------------
    def host(self, name: str) -> Host:
        try:
            return self.hosts[name]
        except KeyError:
            raise KeyError(f"topology {self.source}: no host {name!r} (hosts: {', '.join(self.hosts)})") from None

    def switch(self, name: str) -> Switch:
        try:
            return self.switches[name]
        except KeyError:
            raise KeyError(f"topology {self.source}: no switch {name!r} (switches: {', '.join(self.switches)})") from None

    def trainers(self) -> list[Host]:
        return sorted((h for h in self.hosts.values() if h.role == "trainer"), key=lambda h: h.rank)

    def shadows(self) -> list[Host]:
        return sorted((h for h in self.hosts.values() if h.role == "shadow"), key=lambda h: h.shard)

    def shadow_for_shard(self, shard: int) -> Host:
        for h in self.shadows():
            if h.shard == shard:
                return h
        raise KeyError(f"topology {self.source}: no shadow owns shard {shard}")

    def port_map(self, switch: str) -> dict[int, Endpoint]:
        """``{port: far end}`` for every wired port of ``switch``."""
        self.switch(switch)
        out: dict[int, Endpoint] = {}
        for link in self.links:
            for here, there in ((link.a, link.b), (link.b, link.a)):
                if here.node == switch and here.port is not None:
                    out[here.port] = there
        return dict(sorted(out.items()))

    def attachment(self, host: str) -> Endpoint:
        """The switch port ``host`` is wired to."""
        self.host(host)
        for link in self.links:
            for here, there in ((link.a, link.b), (link.b, link.a)):
                if here.node == host:
                    return there
        raise KeyError(f"topology {self.source}: host {host!r} is not linked")  # validated away

    def link_of(self, a: str, b: str) -> Link | None:
        for link in self.links:
            if {link.a.node, link.b.node} == {a, b}:
                return link
        return None

    def _ports_facing(self, switch: str, role: str) -> list[int]:
        return [p for p, far in self.port_map(switch).items()
                if far.node in self.hosts and self.hosts[far.node].role == role]

    def trainer_ports(self, switch: str) -> list[int]:
        """Ports that face trainers: FINAL chunks entering here are copied to shadows."""
        return self._ports_facing(switch, "trainer")

    def shadow_ports(self, switch: str) -> list[int]:
        return self._ports_facing(switch, "shadow")

    def switch_ports(self, switch: str) -> list[int]:
        return [p for p, far in self.port_map(switch).items() if far.node in self.switches]

    def next_hop(self, switch: str, host: str) -> int:
        """Egress port of ``switch`` on a shortest path to ``host`` (lowest port on ties)."""
        return self._next_hops(switch)[self.host(host).name]

    def routes(self, switch: str) -> dict[str, int]:
        """``{host: egress port}`` for every host, from ``switch``."""
        return dict(self._next_hops(switch))

    def _next_hops(self, switch: str) -> dict[str, int]:
        self.switch(switch)
        # BFS over switches, remembering the first port taken out of `switch`.
        first: dict[str, int] = {switch: -1}
        queue = deque([switch])
        hops: dict[str, int] = {}
        while queue:
            sw = queue.popleft()
            for port, far in self.port_map(sw).items():
                out = port if sw == switch else first[sw]
                if far.node in self.hosts:
                    hops.setdefault(far.node, out)
                elif far.node not in first:
                    first[far.node] = out
                    queue.append(far.node)
        return hops

    def shard_ranges(self) -> list[tuple[int, int, int]]:
        """``[(shard, param_lo, param_hi), ...]`` (inclusive), sorted by ``param_lo``."""
        out = [(s, lo, hi) for s, rs in self.shard_map.items() for lo, hi in rs]
        return sorted(out, key=lambda t: t[1])

    def shard_of(self, param_id: int) -> int | None:
        for s, lo, hi in self.shard_ranges():
            if lo <= param_id <= hi:
                return s
        return None


def default_shard_map(n_shards: int, params_per_shard: int = 64) -> dict[int, tuple[tuple[int, int], ...]]:
    """Contiguous blocks of ``params_per_shard`` param ids; the last shard takes the rest."""
    out = {}
    for s in range(n_shards):
        lo = s * params_per_shard
        hi = PARAM_MAX if s == n_shards - 1 else lo + params_per_shard - 1
        out[s] = ((lo, hi),)
    return out


def ranges_from_owner(owner: dict[int, int]) -> dict[int, tuple[tuple[int, int], ...]]:
    """``{param_id: shard}`` (``shadow.protocol.ShardMap.owner``) -> ``{shard: ((lo, hi), ...)}``
    with runs of consecutive param ids of the same shard merged into one range."""
    out: dict[int, list[list[int]]] = {}
    prev_pid = prev_shard = None
    for pid in sorted(owner):
        s = owner[pid]
        if prev_shard == s and prev_pid == pid - 1:
            out[s][-1][1] = pid
        else:
            out.setdefault(s, []).append([pid, pid])
        prev_pid, prev_shard = pid, s
    return {s: tuple((lo, hi) for lo, hi in rs) for s, rs in sorted(out.items())}


def balanced_shard_map(param_sizes: Iterable[int], n_shards: int) -> dict[int, tuple[tuple[int, int], ...]]:
    """Contiguous param-id ranges balanced by element count (``param_sizes`` in
    ``model.parameters()`` order); the last shard's range runs to 2**32-1."""
    sizes = list(param_sizes)
    if n_shards < 1:
        raise ValueError(f"n_shards must be >= 1, got {n_shards}")
    total = sum(sizes)
    out: dict[int, tuple[tuple[int, int], ...]] = {}
    lo, acc, shard = 0, 0, 0
    for pid, n in enumerate(sizes):
        acc += n
        remaining_shards = n_shards - shard - 1
        if shard < n_shards - 1 and acc >= total * (shard + 1) / n_shards and len(sizes) - pid - 1 >= remaining_shards:
            out[shard] = ((lo, pid),)
            lo, shard = pid + 1, shard + 1
    for s in range(shard, n_shards):
        hi = PARAM_MAX if s == n_shards - 1 else lo
        out[s] = ((lo, hi),)
        lo = hi + 1
    return out


class _Builder:
    """Validates raw JSON into a :class:`Topology`, collecting every problem."""

    def __init__(self, data: Any, source: str):
        self.data, self.source, self.problems = data, source, []

    def bad(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")

    def build(self) -> Topology:
        d = self.data
        if not isinstance(d, dict):
            raise TopologyError(self.source, [f"top level must be a JSON object, got {type(d).__name__}"])
        job_id = d.get("job_id", 1)
        if not isinstance(job_id, int) or isinstance(job_id, bool) or not 0 <= job_id <= 0xFFFFFFFF:
            self.bad("job_id", f"must be an integer 0..4294967295, got {job_id!r}")
            job_id = 0
        for key in ("hosts", "switches", "links"):
            if not isinstance(d.get(key), (dict if key != "links" else list)):
                self.bad(key, "missing" if key not in d else f"must be a JSON {'list' if key == 'links' else 'object'}")
        if self.problems:
            raise TopologyError(self.source, self.problems)
        switches = {n: self.switch(n, s) for n, s in d["switches"].items()}
        hosts = {n: self.host(n, h) for n, h in d["hosts"].items()}
        self.unique("switches", "device_id", switches.values(), lambda s: s.device_id)
        self.unique("switches", "grpc_port", switches.values(), lambda s: (s.grpc_host, s.grpc_port))
        self.unique("hosts", "ip", hosts.values(), lambda h: h.ip)
        self.unique("hosts", "mac", hosts.values(), lambda h: h.mac)
        for n in set(hosts) & set(switches):
            self.bad(f"hosts.{n}", "name also used by a switch")
        links = [lk for i, raw in enumerate(d["links"]) if (lk := self.link(i, raw, hosts, switches))]
        self.check_wiring(hosts, switches, links)
        self.check_roles(hosts)
        shard_map = self.shard_map(d.get("shard_map"), hosts)
        if self.problems:
            raise TopologyError(self.source, self.problems)
        topo = Topology(job_id, hosts, switches, tuple(links), shard_map, self.source)
        for sw in switches:
            missing = sorted(set(hosts) - set(topo.routes(sw)))
            if missing:
                self.bad(f"switches.{sw}", f"cannot reach host(s) {', '.join(missing)}")
        if self.problems:
            raise TopologyError(self.source, self.problems)
        return topo

    def unique(self, section, key, items, getter):
        seen = {}
        for it in items:
            v = getter(it)
            if v in seen:
                self.bad(f"{section}.{it.name}.{key}", f"{v!r} already used by {seen[v]}")
            else:
                seen[v] = it.name

    def int_in(self, where, v, lo, hi):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            self.bad(where, f"must be an integer {lo}..{hi}, got {v!r}")
            return None
        return v

    def switch(self, name, s) -> Switch:
        w = f"switches.{name}"
        if not isinstance(s, dict):
            self.bad(w, "must be a JSON object")
            s = {}
        dev = self.int_in(f"{w}.device_id", s.get("device_id", 0), 0, (1 << 64) - 1) or 0
        gp = self.int_in(f"{w}.grpc_port", s.get("grpc_port", DEFAULT_GRPC_PORT), 1, 65535) or DEFAULT_GRPC_PORT
        cpu = s.get("cpu_port")
        if cpu is not None:
            cpu = self.int_in(f"{w}.cpu_port", cpu, 1, MAX_PORT)
        host = s.get("grpc_host", "127.0.0.1")
        try:
            if not ipaddress.ip_address(host).is_loopback:
                self.bad(f"{w}.grpc_host", f"{host!r} is not a loopback address")
        except ValueError:
            self.bad(f"{w}.grpc_host", f"{host!r} is not an IP address")
        known = {"device_id", "grpc_port", "cpu_port", "grpc_host"}
        return Switch(name, dev, gp, cpu, host, {k: v for k, v in s.items() if k not in known})

    def host(self, name, h) -> Host:
        w = f"hosts.{name}"
        if not isinstance(h, dict):
            self.bad(w, "must be a JSON object")
            h = {}
        ip, plen = "0.0.0.0", 32
        try:
            iface = ipaddress.IPv4Interface(h["ip"])
            ip, plen = str(iface.ip), iface.network.prefixlen
        except KeyError:
            self.bad(f"{w}.ip", "missing")
        except (ValueError, TypeError):
            self.bad(f"{w}.ip", f"{h.get('ip')!r} is not an IPv4 address (a.b.c.d/len)")
        mac = h.get("mac", "")
        if not isinstance(mac, str) or not _MAC_RE.match(mac):
            self.bad(f"{w}.mac", f"{mac!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
            mac = "00:00:00:00:00:00"
        role = h.get("role", "host")
        if role not in ROLES:
            self.bad(f"{w}.role", f"{role!r} is not one of {', '.join(ROLES)}")
        rank = shard = None
        if role == "trainer":
            rank = self.int_in(f"{w}.rank", h.get("rank"), 0, 0xFFFF)
        if role == "shadow":
            shard = self.int_in(f"{w}.shard", h.get("shard"), 0, 0xFFFF)
        udp = self.int_in(f"{w}.udp_port", h.get("udp_port", SHADOW_UDP_PORT), 1, 65535) or SHADOW_UDP_PORT
        mgmt = self.int_in(f"{w}.mgmt_port", h.get("mgmt_port", MGMT_PORT), 1, 65535) or MGMT_PORT
        known = {"ip", "mac", "role", "rank", "shard", "udp_port", "mgmt_port"}
        return Host(name, ip, plen, mac.lower(), role, rank, shard, udp, mgmt,
                    {k: v for k, v in h.items() if k not in known})

    def endpoint(self, where, raw, hosts, switches) -> Endpoint | None:
        if not isinstance(raw, str):
            self.bad(where, f"{raw!r} is not a node name")
            return None
        if raw in hosts:
            return Endpoint(raw)
        m = _PORT_RE.match(raw)
        if not m or m["sw"] not in switches:
            self.bad(where, f"{raw!r} is neither a host nor SWITCH-pPORT of a known switch")
            return None
        port = int(m["port"])
        sw = switches[m["sw"]]
        if not 0 <= port <= MAX_PORT:
            self.bad(where, f"port {port} of {sw.name} outside 0..{MAX_PORT}")
            return None
        if sw.cpu_port is not None and port == sw.cpu_port:
            self.bad(where, f"port {port} is {sw.name}'s CPU port")
            return None
        return Endpoint(sw.name, port)

    def link(self, i, raw, hosts, switches) -> Link | None:
        w = f"links[{i}]"
        if not isinstance(raw, list) or len(raw) < 2:
            self.bad(w, f"must be [A, B, options...], got {raw!r}")
            return None
        a = self.endpoint(f"{w}[0]", raw[0], hosts, switches)
        b = self.endpoint(f"{w}[1]", raw[1], hosts, switches)
        opts: dict = {}
        rest = raw[2:]
        if rest and isinstance(rest[0], dict):
            opts = rest[0]
        elif rest:  # tutorials style: latency, bandwidth
            opts = {"latency": rest[0], **({"bandwidth": rest[1]} if len(rest) > 1 else {})}
        if not a or not b:
            return None
        if a.port is None and b.port is None:
            self.bad(w, f"links two hosts ({a}, {b}); hosts attach to switch ports")
            return None
        if a.node == b.node:
            self.bad(w, f"links {a.node} to itself")
            return None
        return Link(a, b, bool(opts.get("lossless", False)), opts.get("latency"), opts.get("bandwidth"), dict(opts))

    def check_wiring(self, hosts, switches, links):
        used: dict[tuple[str, int], int] = {}
        host_links: dict[str, int] = {}
        for i, lk in enumerate(links):
            for e in (lk.a, lk.b):
                if e.port is None:
                    host_links[e.node] = host_links.get(e.node, 0) + 1
                elif (e.node, e.port) in used:
                    self.bad(f"links[{i}]", f"{e} already wired by links[{used[(e.node, e.port)]}]")
                else:
                    used[(e.node, e.port)] = i
        for n in hosts:
            c = host_links.get(n, 0)
            if c != 1:
                self.bad(f"hosts.{n}", "is not linked to any switch" if c == 0 else f"has {c} links (exactly one allowed)")

    def check_roles(self, hosts):
        ranks = sorted(h.rank for h in hosts.values() if h.role == "trainer" and h.rank is not None)
        if ranks and ranks != list(range(len(ranks))):
            self.bad("hosts", f"trainer ranks must be 0..{len(ranks) - 1} each once, got {ranks}")
        shards = sorted(h.shard for h in hosts.values() if h.role == "shadow" and h.shard is not None)
        if shards and shards != list(range(len(shards))):
            self.bad("hosts", f"shadow shards must be 0..{len(shards) - 1} each once, got {shards}")

    def shard_map(self, raw, hosts):
        n = sum(1 for h in hosts.values() if h.role == "shadow")
        if raw is None:
            return default_shard_map(n) if n else {}
        if not isinstance(raw, dict):
            self.bad("shard_map", "must be {\"SHARD\": [[lo, hi], ...]}")
            return {}
        out: dict[int, tuple[tuple[int, int], ...]] = {}
        spans = []
        for key, ranges in raw.items():
            w = f"shard_map.{key}"
            try:
                s = int(key)
            except ValueError:
                self.bad(w, "shard key must be an integer")
                continue
            if not 0 <= s < n:
                self.bad(w, f"no shadow owns shard {s} (shards 0..{n - 1})")
                continue
            if not isinstance(ranges, list) or not ranges:
                self.bad(w, "must be a non-empty list of [lo, hi]")
                continue
            rs = []
            for j, r in enumerate(ranges):
                if (not isinstance(r, list) or len(r) != 2 or not all(isinstance(x, int) for x in r)
                        or not 0 <= r[0] <= r[1] <= PARAM_MAX):
                    self.bad(f"{w}[{j}]", f"{r!r} is not [lo, hi] with 0 <= lo <= hi <= {PARAM_MAX}")
                    continue
                rs.append((r[0], r[1]))
                spans.append((r[0], r[1], s))
            out[s] = tuple(rs)
        spans.sort()
        for (lo1, hi1, s1), (lo2, hi2, s2) in zip(spans, spans[1:]):
            if lo2 <= hi1:
                self.bad("shard_map", f"param ids {lo2}..{min(hi1, hi2)} belong to both shard {s1} and shard {s2}")
        for s in range(n):
            if s not in out and not any(p.startswith(f"shard_map.{s}") for p in self.problems):
                self.bad("shard_map", f"shard {s} has no param range")
        return out
