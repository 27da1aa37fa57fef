"""What each switch should hold, derived from a :class:`~controller.topology.Topology`.

:func:`plan_switch` returns a :class:`SwitchPlan` -- table entries (by P4 names), multicast
groups and digest configurations -- for one switch running ``p4src/checkmate.p4``.  It is
pure (no gRPC), so it is unit-tested on its own and the reconciler compares it with what
it reads back.  The contract with the data plane (docs/DATAPLANE.md):

``ipv4_route``      every host: ``dstAddr/32 -> forward(port = next hop, smac = port MAC, dmac = host MAC)``
``arp_proxy``       every host: ``tpa = host IP -> arp_reply(host MAC)``
``trainer_port``    every port facing a trainer -> ``mark_trainer``
``heartbeat_slot``  (switches with trainer ports) ``(job, rank) -> slot = rank``
``shard_map``       (switches with trainer ports) ``(job, param range) -> set_shard(rid = shard + 1)``
``replication``     (switches with trainer ports) ``(port P, rid) -> replicate(group = P << 7 | rid)``
                    for every wired port P; group ``P << 7 | rid`` = ``{(P, 0), (next hop to the shadow, rid)}``
``shadow_rewrite``  every shadow: ``rid -> to_shadow(shadow MAC, shadow IP, shadow UDP port)``
digest ``heartbeat_digest_t`` configured (one digest per list, 1 ms timeout).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .entities import Entry, McastGroup
from .topology import Topology, TopologyError

HEARTBEAT_SLOTS = 1024  # register size in checkmate.p4
MAX_RID = 127  # group id = port << 7 | rid must fit 16 bits
HEARTBEAT_DIGEST = "heartbeat_digest_t"


def rid_of_shard(shard: int) -> int:
    return shard + 1


def group_id(port: int, rid: int) -> int:
    return (port << 7) | rid


@dataclass
class SwitchPlan:
    switch: str
    entries: list[Entry] = field(default_factory=list)
    groups: list[McastGroup] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)

    def by_table(self) -> dict[str, list[Entry]]:
        out: dict[str, list[Entry]] = {}
        for e in self.entries:
            out.setdefault(e.table, []).append(e)
        return out


def plan_switch(topo: Topology, sw_name: str) -> SwitchPlan:
    sw = topo.switch(sw_name)
    plan = SwitchPlan(sw_name, digests=[HEARTBEAT_DIGEST])
    E = plan.entries.append
    routes = topo.routes(sw_name)
    for hname, port in sorted(routes.items()):
        h = topo.hosts[hname]
        E(Entry("ipv4_route", {"hdr.ipv4.dstAddr": (h.ip, 32)}, "forward",
                {"port": port, "smac": sw.port_mac(port), "dmac": h.mac}))
        E(Entry("arp_proxy", {"hdr.arp.tpa": h.ip}, "arp_reply", {"mac": h.mac}))
    trainer_ports = topo.trainer_ports(sw_name)
    for p in trainer_ports:
        E(Entry("trainer_port", {"standard_metadata.ingress_port": p}, "mark_trainer"))
    for sh in topo.shadows():
        rid = rid_of_shard(sh.shard)
        if rid > MAX_RID:
            raise TopologyError(topo.source, [f"hosts.{sh.name}.shard: {sh.shard} exceeds the "
                                              f"{MAX_RID} shards a switch can replicate to"])
        E(Entry("shadow_rewrite", {"standard_metadata.egress_rid": rid}, "to_shadow",
                {"mac": sh.mac, "ip": sh.ip, "udp_port": sh.udp_port}))
    if not trainer_ports:
        return plan
    for tr in topo.trainers():
        if tr.rank >= HEARTBEAT_SLOTS:
            raise TopologyError(topo.source, [f"hosts.{tr.name}.rank: {tr.rank} exceeds the "
                                              f"{HEARTBEAT_SLOTS} heartbeat slots of the switch"])
        E(Entry("heartbeat_slot", {"hdr.checkmate.job_id": topo.job_id, "hdr.checkmate.rank": tr.rank},
                "set_heartbeat_slot", {"slot": tr.rank}))
    for shard, lo, hi in topo.shard_ranges():
        E(Entry("shard_map", {"hdr.checkmate.job_id": topo.job_id, "hdr.checkmate.param_id": (lo, hi)},
                "set_shard", {"rid": rid_of_shard(shard)}, priority=1))
    for port in sorted(topo.port_map(sw_name)):
        for sh in topo.shadows():
            rid = rid_of_shard(sh.shard)
            gid = group_id(port, rid)
            plan.groups.append(McastGroup.of(gid, [(port, 0), (routes[sh.name], rid)]))
            E(Entry("replication", {"meta.out_port": port, "meta.shard_rid": rid}, "replicate", {"group": gid}))
    return plan
