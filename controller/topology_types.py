"""The vocabulary of a topology: constants, the schema, the frozen parts and the routing graph.

Both :mod:`controller.topology` (the :class:`~controller.topology.Topology` callers use) and
:mod:`controller.topology_load` (the validator) import from here and never from each other's
insides, so the dependency runs one way: ``topology_types <- topology_load <- topology``.

The schema (``*_KEYS``) is the single list of keys a topology file may use; the validator rejects
any other key by name and offers the allowed ones (a typo such as ``mgmt_prot`` is a mistake, never
a silently ignored setting).  Keys starting with ``_`` are free-form comments and are ignored.

Routing is computed from the links alone (:func:`port_map`, :func:`next_hops`), so the validator
can check reachability before any :class:`Topology` exists.
"""
from __future__ import annotations

import ipaddress
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable

from checkmate.wire import SHADOW_UDP_PORT

ROLES = ("trainer", "shadow", "host")
MAX_PORT = 510  # 9-bit v1model ports; 511 is the drop port
DEFAULT_GRPC_PORT = 50051
MGMT_PORT = SHADOW_UDP_PORT + 1
PARAM_MAX = (1 << 32) - 1
MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
PORT_RE = re.compile(r"^(?P<sw>[A-Za-z_][\w.]*)-p(?P<port>\d+)$")

# -- the schema: every key a topology file may use (``_comment``-style keys aside) ---------------------
TOP_KEYS = ("job_id", "kind", "hosts", "switches", "links", "shard_map")
HOST_KEYS = ("ip", "mac", "role", "rank", "shard", "udp_port", "mgmt_port")
#: ``tm_port``: the switch's run-time traffic-manager channel (the testbed assigns it)
SWITCH_KEYS = ("device_id", "grpc_port", "cpu_port", "grpc_host", "tm_port")
#: traffic-manager settings of the switch port(s) on a link, and p4lang/tutorials' latency/bandwidth
LINK_KEYS = ("lossless", "loss", "delay_ms", "queue_depth", "rate", "latency", "bandwidth")


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
    extra: dict = field(default_factory=dict, compare=False, hash=False)  # ``_comment`` keys

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
    extra: dict = field(default_factory=dict, compare=False, hash=False)  # tm_port, ``_comment`` keys

    @property
    def grpc_addr(self) -> str:
        return f"{self.grpc_host}:{self.grpc_port}"

    def port_mac(self, port: int) -> str:
        """Locally administered source MAC the switch writes on frames leaving ``port``."""
        d = self.device_id & 0xFFFF
        return "02:cc:%02x:%02x:%02x:%02x" % (d >> 8, d & 0xFF, (port >> 8) & 0xFF, port & 0xFF)


# -- routing over the links --------------------------------------------------------------------------
def port_map(links: Iterable[Link], switch: str) -> dict[int, Endpoint]:
    """``{port: far end}`` for every wired port of ``switch``."""
    out: dict[int, Endpoint] = {}
    for link in links:
        for here, there in ((link.a, link.b), (link.b, link.a)):
            if here.node == switch and here.port is not None:
                out[here.port] = there
    return dict(sorted(out.items()))


def next_hops(links: Iterable[Link], hosts, switch: str) -> dict[str, int]:
    """``{host: egress port of switch}`` on a shortest path (BFS over switches, lowest port on ties);
    hosts that cannot be reached are absent."""
    links = tuple(links)
    first: dict[str, int] = {switch: -1}  # switch -> the port taken out of ``switch`` to get there
    queue = deque([switch])
    hops: dict[str, int] = {}
    while queue:
        sw = queue.popleft()
        for port, far in port_map(links, sw).items():
            out = port if sw == switch else first[sw]
            if far.node in hosts:
                hops.setdefault(far.node, out)
            elif far.node not in first:
                first[far.node] = out
                queue.append(far.node)
    return hops

