"""Topology generators: the star and the leaf--spine of the Checkmate testbed as topology JSON.

The output follows the p4lang/tutorials ``topology.json`` shape, extended with Checkmate roles
(see ``docs/ARCHITECTURE.md``, section *Topology*, and ``controller/topology.py`` which loads it):

* ``hosts``: name -> ``ip`` (with prefix), ``mac``, ``role`` (``trainer`` | ``shadow``) and either
  ``rank`` (trainers) or ``shard`` + ``udp_port`` + ``mgmt_port`` (shadows);
* ``switches``: name -> ``device_id``, ``grpc_port``, ``cpu_port``;
* ``links``: ``[a, b]`` or ``[a, b, {attrs}]`` where a switch end is written ``s1-p4`` (switch ``s1``,
  port 4) and a host end is the bare host name.  Link attributes are traffic-manager settings of the
  switch port on that link (``lossless``, ``loss``, ``delay_ms``).

Addressing (one /24, ``10.77.0.0/24``): trainer rank *r* is ``.r+1``, shadow shard *k* is ``.101+k``.
Shadows always sit on **dedicated switch ports** (no trainer shares a port with a shadow) in
lossless mode, so the replicated copies never compete with the all-reduce for a port.

Star::

    h1..hN -- s1 -- sh1..shK          trainers on s1-p1..pN, shadows on s1-p(N+1)..p(N+K)

Leaf--spine (two leaves, one spine)::

                s3 (spine)  p1 -> s1, p2 -> s2
               /  \\
     (leaf) s1     s2 (leaf)         uplink on each leaf: p10 (or the first free port above 10)
       |  \\        |  \\
    h1 h3  sh1   h2 h4  sh2         trainers alternate over leaves, shadows too, on their own ports
"""
from __future__ import annotations

import ipaddress
import json
from pathlib import Path

from checkmate.wire import SHADOW_UDP_PORT

#: Default TCP management port of a shadow (``checkmate-shadow --mgmt``).
SHADOW_MGMT_PORT = 48881
DEFAULT_JOB_ID = 1
DEFAULT_GRPC_BASE = 50051
CPU_PORT = 255
IP_BASE = "10.77.0.0/24"
TRAINER_HOST_BASE = 1  # h1 -> .1
SHADOW_HOST_BASE = 101  # sh1 -> .101
UPLINK_PORT = 10


def _ip(index: int, base: str = IP_BASE) -> str:
    net = ipaddress.ip_network(base)
    addr = net.network_address + index
    if addr not in net or addr in (net.network_address, net.broadcast_address):
        raise ValueError(f"host index {index} does not fit in {base}")
    return f"{addr}/{net.prefixlen}"


def trainer_host(rank: int) -> dict:
    return {"ip": _ip(TRAINER_HOST_BASE + rank), "mac": f"08:00:00:00:00:{rank + 1:02x}",
            "role": "trainer", "rank": rank}


def shadow_host(shard: int) -> dict:
    return {"ip": _ip(SHADOW_HOST_BASE + shard), "mac": f"08:00:00:00:01:{shard + 1:02x}",
            "role": "shadow", "shard": shard, "udp_port": SHADOW_UDP_PORT, "mgmt_port": SHADOW_MGMT_PORT}


def _check(trainers: int, shadows: int) -> None:
    if trainers < 2:
        raise ValueError("data-parallel training needs at least 2 trainers")
    if shadows < 1:
        raise ValueError("Checkmate needs at least 1 shadow")
    if trainers > 99 or shadows > 99:
        raise ValueError("at most 99 trainers and 99 shadows")


def _switch(device_id: int, grpc_base: int) -> dict:
    return {"device_id": device_id, "grpc_port": grpc_base + device_id, "cpu_port": CPU_PORT}


def _shadow_link_attrs(lossless: bool, loss: float, delay_ms: float) -> dict:
    attrs: dict = {"lossless": bool(lossless)}
    if loss:
        attrs["loss"] = float(loss)
    if delay_ms:
        attrs["delay_ms"] = float(delay_ms)
    return attrs


def star(trainers: int = 3, shadows: int = 2, *, job_id: int = DEFAULT_JOB_ID,
         grpc_base: int = DEFAULT_GRPC_BASE, shadow_lossless: bool = True,
         shadow_loss: float = 0.0, shadow_delay_ms: float = 0.0) -> dict:
    """N trainers and K shadows on one switch ``s1``; shadows on dedicated ports after the trainers."""
    _check(trainers, shadows)
    topo: dict = {"job_id": job_id, "kind": "star", "hosts": {}, "switches": {"s1": _switch(0, grpc_base)},
                  "links": []}
    for r in range(trainers):
        topo["hosts"][f"h{r + 1}"] = trainer_host(r)
        topo["links"].append([f"h{r + 1}", f"s1-p{r + 1}"])
    for k in range(shadows):
        topo["hosts"][f"sh{k + 1}"] = shadow_host(k)
        topo["links"].append([f"sh{k + 1}", f"s1-p{trainers + k + 1}",
                              _shadow_link_attrs(shadow_lossless, shadow_loss, shadow_delay_ms)])
    return topo


def leafspine(trainers: int = 4, shadows: int = 2, *, job_id: int = DEFAULT_JOB_ID,
              grpc_base: int = DEFAULT_GRPC_BASE, shadow_lossless: bool = True,
              shadow_loss: float = 0.0, shadow_delay_ms: float = 0.0) -> dict:
    """Two leaves (``s1``, ``s2``) under one spine (``s3``); trainers and shadows alternate over leaves."""
    _check(trainers, shadows)
    leaves = ("s1", "s2")
    topo: dict = {"job_id": job_id, "kind": "leafspine", "hosts": {},
                  "switches": {"s1": _switch(0, grpc_base), "s2": _switch(1, grpc_base),
                               "s3": _switch(2, grpc_base)},
                  "links": []}
    next_port = {leaf: 1 for leaf in leaves}
    for r in range(trainers):
        leaf = leaves[r % 2]
        topo["hosts"][f"h{r + 1}"] = trainer_host(r)
        topo["links"].append([f"h{r + 1}", f"{leaf}-p{next_port[leaf]}"])
        next_port[leaf] += 1
    for k in range(shadows):
        leaf = leaves[k % 2]
        topo["hosts"][f"sh{k + 1}"] = shadow_host(k)
        topo["links"].append([f"sh{k + 1}", f"{leaf}-p{next_port[leaf]}",
                              _shadow_link_attrs(shadow_lossless, shadow_loss, shadow_delay_ms)])
        next_port[leaf] += 1
    for i, leaf in enumerate(leaves):
        uplink = max(UPLINK_PORT, next_port[leaf])
        topo["links"].append([f"{leaf}-p{uplink}", f"s3-p{i + 1}"])
    return topo


GENERATORS = {"star": star, "leafspine": leafspine}


def generate(kind: str, trainers: int, shadows: int, **kw) -> dict:
    try:
        gen = GENERATORS[kind]
    except KeyError:
        raise ValueError(f"unknown topology {kind!r} (choose from {', '.join(GENERATORS)})") from None
    return gen(trainers, shadows, **kw)


# -- reading the schema (the runner's own view; controller/topology.py is the controller's) -------------

def parse_endpoint(ep: str, switches) -> tuple[str, int | None]:
    """``"s1-p4"`` -> ``("s1", 4)``; a host name -> ``(name, None)``."""
    if "-p" in ep:
        node, _, port = ep.rpartition("-p")
        if node in switches and port.isdigit():
            return node, int(port)
    return ep, None


def links(topo: dict):
    """Yield ``(a, port_a, b, port_b, attrs)`` for every link (ports are None on host ends)."""
    for link in topo["links"]:
        a, b = link[0], link[1]
        attrs = dict(link[2]) if len(link) > 2 and link[2] else {}
        na, pa = parse_endpoint(a, topo["switches"])
        nb, pb = parse_endpoint(b, topo["switches"])
        yield na, pa, nb, pb, attrs


def validate(topo: dict) -> None:
    """Raise ``ValueError`` for a topology the runner cannot bring up."""
    for key in ("hosts", "switches", "links"):
        if key not in topo:
            raise ValueError(f"topology has no {key!r}")
    used: set[tuple[str, int]] = set()
    attached: dict[str, int] = {}
    for na, pa, nb, pb, _ in links(topo):
        for n, p in ((na, pa), (nb, pb)):
            if n not in topo["hosts"] and n not in topo["switches"]:
                raise ValueError(f"link endpoint {n!r} is neither a host nor a switch")
            if p is None and n in topo["switches"]:
                raise ValueError(f"switch endpoint {n!r} needs a port (write {n}-pN)")
            if p is not None:
                if (n, p) in used:
                    raise ValueError(f"port {n}-p{p} is used twice")
                if p == topo["switches"][n].get("cpu_port", CPU_PORT):
                    raise ValueError(f"port {n}-p{p} is the CPU port")
                used.add((n, p))
            else:
                attached[n] = attached.get(n, 0) + 1
    for h in topo["hosts"]:
        if attached.get(h, 0) != 1:
            raise ValueError(f"host {h!r} must have exactly one link (has {attached.get(h, 0)})")
    ranks = sorted(h["rank"] for h in topo["hosts"].values() if h.get("role") == "trainer")
    if ranks != list(range(len(ranks))):
        raise ValueError(f"trainer ranks must be 0..N-1, got {ranks}")
    shards = sorted(h["shard"] for h in topo["hosts"].values() if h.get("role") == "shadow")
    if shards != list(range(len(shards))):
        raise ValueError(f"shadow shards must be 0..K-1, got {shards}")


def trainers_of(topo: dict) -> list[tuple[str, dict]]:
    return sorted(((n, h) for n, h in topo["hosts"].items() if h.get("role") == "trainer"),
                  key=lambda t: t[1]["rank"])


def shadows_of(topo: dict) -> list[tuple[str, dict]]:
    return sorted(((n, h) for n, h in topo["hosts"].items() if h.get("role") == "shadow"),
                  key=lambda t: t[1]["shard"])


def host_port(topo: dict, host: str) -> tuple[str, int]:
    """The ``(switch, port)`` a host is attached to."""
    for na, pa, nb, pb, _ in links(topo):
        if na == host and pb is not None:
            return nb, pb
        if nb == host and pa is not None:
            return na, pa
    raise ValueError(f"host {host!r} is not attached to a switch")


def save(topo: dict, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(topo, indent=2) + "\n")
    return path


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description="write a Checkmate topology JSON")
    p.add_argument("kind", choices=sorted(GENERATORS))
    p.add_argument("--trainers", type=int, default=3)
    p.add_argument("--shadows", type=int, default=2)
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args(argv)
    topo = generate(a.kind, a.trainers, a.shadows)
    validate(topo)
    if a.output == "-":
        print(json.dumps(topo, indent=2))
    else:
        save(topo, a.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
