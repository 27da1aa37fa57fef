"""What ``checkmate-ctl`` shows, as JSON-ready data (the CLI renders it as text or JSON).

Each function takes a :class:`~controller.device.Device` (or just a P4Info index) and
returns plain dicts/lists with integer values, so ``--json`` output can be compared
with what the controller installed; :func:`human` formats a value for the text tables.
"""
from __future__ import annotations

from .device import Device
from .errors import ControllerError
from .p4info import P4InfoError, P4InfoIndex, format_value
from .topology import Topology


def tables_view(ix: P4InfoIndex) -> list[dict]:
    out = []
    for name in ix.names("tables"):
        t = ix.get("tables", name)
        out.append({
            "name": name, "alias": ix.short("tables", name), "size": t.size,
            "match_fields": [{"name": f.name, "bitwidth": f.bitwidth, "match_type": f.match_type}
                             for f in ix.match_fields(name)],
            "actions": [{"name": a, "params": [{"name": p.name, "bitwidth": p.bitwidth}
                                               for p in ix.action_params(a)]}
                        for a in ix.table_actions(name)],
            "default_action": ix.name_of(t.const_default_action_id) if t.const_default_action_id else None,
        })
    return out


def counters_view(dev: Device, name: str | None = None, all_cells: bool = False) -> list[dict]:
    names = [name] if name else dev.index.names("counters")
    out = []
    for n in names:
        out += [c.to_json() for c in dev.read_counter(n) if all_cells or c.packets or c.bytes]
    return out


def shards_view(dev: Device, topo: Topology | None = None) -> list[dict]:
    """The shard map decoded: (job, param range) -> rid -> shadow address, with copy counters."""
    rewrite = {e.match["standard_metadata.egress_rid"]: e.params for e in dev.read_entries("shadow_rewrite")}
    counters = {}
    try:
        counters = {c.index: c for c in dev.read_counter("shard_replicas")}
    except (ControllerError, P4InfoError):  # a program without the counter still shows its map
        pass
    by_ip = {h.ip_int: h for h in topo.shadows()} if topo else {}
    rows = []
    for e in dev.read_entries("shard_map"):
        rid = e.params.get("rid", 0)
        lo, hi = e.match.get("hdr.checkmate.param_id", (0, 0xFFFFFFFF))
        sh = rewrite.get(rid, {})
        host = by_ip.get(sh.get("ip"))
        c = counters.get(rid)
        rows.append({"job_id": e.match.get("hdr.checkmate.job_id"), "param_lo": lo, "param_hi": hi,
                     "rid": rid, "shard": rid - 1 if rid else None,
                     "shadow": {"host": host.name if host else None, "mac": sh.get("mac"),
                                "ip": sh.get("ip"), "udp_port": sh.get("udp_port")} if sh else None,
                     "copies": {"packets": c.packets, "bytes": c.bytes} if c else None})
    return sorted(rows, key=lambda r: (r["job_id"] or 0, r["param_lo"]))


def job_totals(rows: list[dict]) -> dict[int, dict]:
    """Copies per job: the sum of its shards' ``shard_replicas`` cells (one rid per (job, shard))."""
    out: dict[int, dict] = {}
    seen = set()
    for r in rows:
        if r["copies"] is None or (r["job_id"], r["rid"]) in seen:
            continue
        seen.add((r["job_id"], r["rid"]))
        t = out.setdefault(r["job_id"], {"packets": 0, "bytes": 0})
        t["packets"] += r["copies"]["packets"]
        t["bytes"] += r["copies"]["bytes"]
    return out


def human(value, bitwidth: int = 0, name: str = "") -> str:
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return f"{human(value[0], bitwidth, name)}..{human(value[1], bitwidth, name)}"
    if isinstance(value, int) and bitwidth:
        return format_value(value, bitwidth, name)
    return "-" if value is None else str(value)
