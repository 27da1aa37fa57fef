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

* :class:`Host` (name, ip, prefix_len, mac, role, rank/shard, ports, ``_comment`` keys kept in
  ``extra``), :class:`Switch` (name, device_id, grpc_port, grpc_addr, cpu_port),
  :class:`Link` between two :class:`Endpoint` s (``node``, ``port`` -- ``None`` for hosts).
* :class:`Topology` with the questions every component asks:
  ``port_map(sw)`` (port -> :class:`Endpoint` on the far side), ``attachment(host)``
  (switch and port a host hangs off), ``next_hop(sw, host)`` (egress port on the shortest
  path, ties broken by lowest port), ``trainer_ports(sw)`` / ``shadow_ports(sw)`` /
  ``switch_ports(sw)``, ``trainers()`` (by rank), ``shadows()`` (by shard), ``shard_ranges()``.

Validation (:mod:`controller.topology_load`) is strict and names the culprit: every problem is reported as
``topology <file>: <where>: <what>`` through :class:`TopologyError` (a ``ValueError``), and
all problems found are listed, not only the first.  Checked: unknown keys anywhere (the allowed
ones are in :mod:`controller.topology_types`; ``_``-prefixed keys are comments), link settings'
types and ranges, roles (with the allowed values named), required keys, IPv4/MAC syntax,
unique names/IPs/MACs/device ids/grpc ports/ranks/shards, ports 0..510 (9-bit, 511 is the
v1model drop port) not equal to the CPU port and used once per switch, links naming
known nodes, each host on exactly one link to a switch, every host reachable from every
switch, trainer ranks 0..N-1, shards 0..M-1, shard ranges disjoint and in 32-bit range.

Modules: :mod:`controller.topology_types` (constants, schema, parts, routing) is imported by both
:mod:`controller.topology_load` (validation, returns a :class:`~controller.topology_load.Validated`)
and this module, which builds the :class:`Topology` from it -- no import cycle.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .topology_load import validate
from .topology_types import (DEFAULT_GRPC_PORT, MAX_PORT, MGMT_PORT, PARAM_MAX, ROLES, Endpoint, Host,  # noqa: F401
                             Link, Switch, TopologyError, next_hops, port_map)


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
        dups: list[str] = []

        def no_duplicates(pairs):
            seen = {}
            for k, v in pairs:
                if k in seen:
                    dups.append(f"key {k!r} appears twice in one object (JSON keeps only the last)")
                seen[k] = v
            return seen
        try:
            data = json.loads(path.read_text(), object_pairs_hook=no_duplicates)
        except OSError as e:
            raise TopologyError(str(path), [f"cannot read: {e.strerror or e}"]) from None
        except json.JSONDecodeError as e:
            raise TopologyError(str(path), [f"line {e.lineno} column {e.colno}: invalid JSON: {e.msg}"]) from None
        if dups:
            raise TopologyError(str(path), dups)
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> "Topology":
        v = validate(data, source)
        shard_map = v.shard_map if v.shard_map is not None else default_shard_map(len(v.shadows))
        return cls(v.job_id, v.hosts, v.switches, v.links, shard_map, source)

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
        return port_map(self.links, switch)

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
        return next_hops(self.links, self.hosts, switch)

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
