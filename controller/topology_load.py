"""Validation of raw topology JSON: everything wrong in a file, each named by where it is.

:func:`validate` walks the JSON once, collecting *every* problem as ``where: what``
(``hosts.h1.mac: 'zz' is not a MAC address``, ``hosts.sh1.mgmt_prot: unknown key (allowed: ...;
did you mean 'mgmt_port'?)``) and raises one :class:`~controller.topology_types.TopologyError`
listing them all; a file that passes comes back as a :class:`Validated` (the parts
:class:`~controller.topology.Topology` is made of).  The rules are listed in the docstring of
:mod:`controller.topology`; the schema (allowed keys) in :mod:`controller.topology_types`.
"""
from __future__ import annotations

import difflib
import ipaddress
from dataclasses import dataclass
from typing import Any

from checkmate.wire import SHADOW_UDP_PORT

from .topology_types import (DEFAULT_GRPC_PORT, HOST_KEYS, LINK_KEYS, MAC_RE, MAX_PORT, MGMT_PORT, PARAM_MAX,
                             PORT_RE, ROLES, SWITCH_KEYS, TOP_KEYS, Endpoint, Host, Link, Switch, TopologyError,
                             next_hops)


@dataclass(frozen=True)
class Validated:
    """A topology that passed every check; ``shard_map`` is None when the file gives none."""

    job_id: int
    hosts: dict[str, Host]
    switches: dict[str, Switch]
    links: tuple[Link, ...]
    shard_map: dict[int, tuple[tuple[int, int], ...]] | None

    @property
    def shadows(self) -> list[Host]:
        return [h for h in self.hosts.values() if h.role == "shadow"]


def validate(data: Any, source: str) -> Validated:
    return _Builder(data, source).build()


def _comments(d: dict) -> dict:
    return {k: v for k, v in d.items() if isinstance(k, str) and k.startswith("_")}


class _Builder:
    """Validates raw JSON into a :class:`Validated`, collecting every problem."""

    def __init__(self, data: Any, source: str):
        self.data, self.source, self.problems = data, source, []

    def bad(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")

    def unknown_keys(self, where: str, d: dict, allowed: tuple[str, ...]) -> None:
        """Every key of ``d`` outside ``allowed`` (and not a ``_comment``) is a problem, with a hint."""
        for k in d:
            if isinstance(k, str) and k.startswith("_"):
                continue
            if k not in allowed:
                near = difflib.get_close_matches(str(k), allowed, n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                self.bad(f"{where}{'.' if where else ''}{k}", f"unknown key (allowed: {', '.join(allowed)}{hint})")

    def build(self) -> Validated:
        d = self.data
        if not isinstance(d, dict):
            raise TopologyError(self.source, [f"top level must be a JSON object, got {type(d).__name__}"])
        self.unknown_keys("", d, TOP_KEYS)
        if "kind" in d and not isinstance(d["kind"], str):
            self.bad("kind", f"must be a string (a label such as \"star\"), got {d['kind']!r}")
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
        for sw in switches:
            missing = sorted(set(hosts) - set(next_hops(links, hosts, sw)))
            if missing:
                self.bad(f"switches.{sw}", f"cannot reach host(s) {', '.join(missing)}")
        if self.problems:
            raise TopologyError(self.source, self.problems)
        return Validated(job_id, hosts, switches, tuple(links), shard_map)

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
        self.unknown_keys(w, s, SWITCH_KEYS)
        if "tm_port" in s:
            self.int_in(f"{w}.tm_port", s["tm_port"], 1, 65535)
        dev = self.int_in(f"{w}.device_id", s.get("device_id", 0), 0, (1 << 64) - 1) or 0
        gp = self.int_in(f"{w}.grpc_port", s.get("grpc_port", DEFAULT_GRPC_PORT), 1, 65535) or DEFAULT_GRPC_PORT
        cpu = s.get("cpu_port")
        if cpu is not None:
            cpu = self.int_in(f"{w}.cpu_port", cpu, 1, MAX_PORT)
        host = s.get("grpc_host", "127.0.0.1")
        try:  # loopback for the emulated testbed; a real address for a switch box (docs/DEPLOY.md)
            ipaddress.ip_address(host)
        except ValueError:
            self.bad(f"{w}.grpc_host", f"{host!r} is not an IP address")
        extra = {k: v for k, v in s.items() if k == "tm_port" or k in _comments(s)}
        return Switch(name, dev, gp, cpu, host, extra)

    def host(self, name, h) -> Host:
        w = f"hosts.{name}"
        if not isinstance(h, dict):
            self.bad(w, "must be a JSON object")
            h = {}
        self.unknown_keys(w, h, HOST_KEYS)
        ip, plen = "0.0.0.0", 32
        try:
            iface = ipaddress.IPv4Interface(h["ip"])
            ip, plen = str(iface.ip), iface.network.prefixlen
        except KeyError:
            self.bad(f"{w}.ip", "missing")
        except (ValueError, TypeError):
            self.bad(f"{w}.ip", f"{h.get('ip')!r} is not an IPv4 address (a.b.c.d/len)")
        mac = h.get("mac", "")
        if not isinstance(mac, str) or not MAC_RE.match(mac):
            self.bad(f"{w}.mac", f"{mac!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
            mac = "00:00:00:00:00:00"
        role = h.get("role", "host")
        if role not in ROLES:
            self.bad(f"{w}.role", f"{role!r} is not a role (allowed: {', '.join(ROLES)})")
            role = "host"
        for key, only in (("rank", "trainer"), ("shard", "shadow")):
            if key in h and role != only:
                self.bad(f"{w}.{key}", f"only a {only} has a {key} (role is {role!r})")
        rank = shard = None
        if role == "trainer":
            rank = self.int_in(f"{w}.rank", h.get("rank"), 0, 0xFFFF)
        if role == "shadow":
            shard = self.int_in(f"{w}.shard", h.get("shard"), 0, 0xFFFF)
        udp = self.int_in(f"{w}.udp_port", h.get("udp_port", SHADOW_UDP_PORT), 1, 65535) or SHADOW_UDP_PORT
        mgmt = self.int_in(f"{w}.mgmt_port", h.get("mgmt_port", MGMT_PORT), 1, 65535) or MGMT_PORT
        return Host(name, ip, plen, mac.lower(), role, rank, shard, udp, mgmt, _comments(h))

    def endpoint(self, where, raw, hosts, switches) -> Endpoint | None:
        if not isinstance(raw, str):
            self.bad(where, f"{raw!r} is not a node name")
            return None
        if raw in hosts:
            return Endpoint(raw)
        m = PORT_RE.match(raw)
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
            if len(rest) > 1:
                self.bad(w, f"has {len(raw)} items; write [A, B] or [A, B, {{settings}}]")
            self.link_options(f"{w}[2]", opts)
        elif rest:  # tutorials style: latency, bandwidth
            if len(rest) > 2:
                self.bad(w, f"has {len(raw)} items; write [A, B, latency, bandwidth] or [A, B, {{settings}}]")
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

    def link_options(self, w: str, opts: dict) -> None:
        self.unknown_keys(w, opts, LINK_KEYS)
        if "lossless" in opts and not isinstance(opts["lossless"], bool):
            self.bad(f"{w}.lossless", f"must be true or false, got {opts['lossless']!r}")
        checks = {"loss": (0.0, 1.0, "a drop probability 0..1"), "delay_ms": (0.0, 60_000.0, "milliseconds 0..60000"),
                  "rate": (1.0, float("inf"), "bits per second > 0"), "queue_depth": (1, 1 << 20, "packets 1..1048576")}
        for key, (lo, hi, what) in checks.items():
            if key not in opts:
                continue
            v = opts[key]
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi
                  and (key != "queue_depth" or isinstance(v, int)))
            if not ok:
                self.bad(f"{w}.{key}", f"must be {what}, got {v!r}")

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
            return None if n else {}
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
