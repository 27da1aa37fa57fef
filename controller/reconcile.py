"""Bring a switch to a :class:`~controller.plan.SwitchPlan`, idempotently.

:func:`program_device` is the whole controller job for one switch:

1. **Pipeline.**  Read the installed P4Info and cookie; push P4Info + device config
   only when the switch has none or a different one (the cookie is a hash of both), so a
   second run does not wipe the state.
2. **Read back** every table entry and multicast group.
3. **Diff** by identity (table + match + priority, group id): insert what is missing,
   modify what differs (action/params, replicas), delete what is extra.  Groups are
   written before the entries that point at them and deleted after.
4. **Digest config**: read back; inserted when absent, modified when different.

Running it twice makes no writes the second time; running it against a restarted
(empty) switch re-creates everything.  The returned :class:`ReconcileReport` counts what
was done, per kind.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2

from .device import DELETE, INSERT, MODIFY, Device
from .entities import Entry
from .errors import ControllerError, WriteFailed
from .plan import SwitchPlan


@dataclass
class ReconcileReport:
    switch: str
    pipeline_pushed: bool = False
    inserted: int = 0
    modified: int = 0
    deleted: int = 0
    groups_inserted: int = 0
    groups_modified: int = 0
    groups_deleted: int = 0
    digests: list[str] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return (self.inserted + self.modified + self.deleted + self.groups_inserted
                + self.groups_modified + self.groups_deleted + int(self.pipeline_pushed))

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__} | {"changes": self.changes}


def pipeline_cookie(p4info: p4info_pb2.P4Info, device_config: bytes) -> int:
    h = hashlib.sha256(p4info.SerializeToString(deterministic=True) + device_config).digest()
    return int.from_bytes(h[:8], "big") >> 1  # positive int64


def ensure_pipeline(dev: Device, device_config: bytes, force: bool = False) -> bool:
    """Push the pipeline unless the switch already runs exactly this one; True if pushed."""
    cookie = pipeline_cookie(dev.index.p4info, device_config)
    installed, installed_cookie = dev.conn.get_pipeline()
    if not force and installed is not None and installed_cookie == cookie:
        return False
    dev.conn.set_pipeline(dev.index.p4info, device_config, cookie)
    return True


def reconcile(dev: Device, plan: SwitchPlan, report: ReconcileReport | None = None) -> ReconcileReport:
    report = report or ReconcileReport(plan.switch)
    ix = dev.index
    want = {}
    for e in plan.entries:
        c = e.canonical(ix)
        want[c.key()] = c
    have = {e.key(): e for e in dev.read_entries()}
    want_groups = {g.group_id: g for g in plan.groups}
    have_groups = {g.group_id: g for g in dev.read_groups()}

    group_ins = [g for gid, g in sorted(want_groups.items()) if gid not in have_groups]
    group_mod = [g for gid, g in sorted(want_groups.items()) if gid in have_groups and have_groups[gid] != g]
    group_del = [g for gid, g in sorted(have_groups.items()) if gid not in want_groups]
    ins = [e for k, e in want.items() if k not in have]
    mod = [e for k, e in want.items() if k in have and _differs(have[k], e)]
    dele = [e for k, e in have.items() if k not in want]

    dev.write([dev.group_update(INSERT, g) for g in group_ins]
              + [dev.group_update(MODIFY, g) for g in group_mod], "multicast groups")
    dev.write([dev.entry_update(INSERT, e) for e in ins]
              + [dev.entry_update(MODIFY, e) for e in mod]
              + [dev.entry_update(DELETE, e) for e in dele], "table entries")
    dev.write([dev.group_update(DELETE, g) for g in group_del], "multicast group deletes")
    report.inserted += len(ins)
    report.modified += len(mod)
    report.deleted += len(dele)
    report.groups_inserted += len(group_ins)
    report.groups_modified += len(group_mod)
    report.groups_deleted += len(group_del)

    for d in plan.digests:
        _ensure_digest(dev, d)
        report.digests.append(ix.get("digests", d).preamble.name)
    return report


def _ensure_digest(dev: Device, digest: str) -> None:
    """Configure a digest: read it back where the target supports that (skip when equal),
    else insert and fall back to modify when it already exists."""
    want = dev.digest_update(INSERT, digest).entity.digest_entry.config
    try:
        cur = dev.read_digest_config(digest)
    except ControllerError:
        cur = False  # target cannot read digest configs
    if cur is not None and cur is not False:
        if cur.config == want:
            return
        dev.write([dev.digest_update(MODIFY, digest)], "digest config")
        return
    try:
        dev.write([dev.digest_update(INSERT, digest)], "digest config")
    except WriteFailed as e:
        if cur is not False or not all(u.code == "ALREADY_EXISTS" for u in e.errors):
            raise
        dev.write([dev.digest_update(MODIFY, digest)], "digest config")


def _differs(have: Entry, want: Entry) -> bool:
    return (have.action, have.params) != (want.action, want.params)


def program_device(dev: Device, plan: SwitchPlan, device_config: bytes, force_pipeline: bool = False) -> ReconcileReport:
    report = ReconcileReport(plan.switch)
    report.pipeline_pushed = ensure_pipeline(dev, device_config, force_pipeline)
    return reconcile(dev, plan, report)


def program_topology(topo, artifacts, *, election_id: int = 1, timeout: float = 10.0,
                     only: set[str] | None = None, force_pipeline: bool = False,
                     credentials=None) -> dict[str, ReconcileReport]:
    """Program every switch of ``topo`` (or those named in ``only``) and close the sessions;
    returns ``{switch: report}``.  Stops at the first switch that fails (the error names it).
    ``credentials``: TLS channel credentials for switches serving P4Runtime over TLS."""
    from .client import SwitchConnection
    from .plan import plan_switch

    index = artifacts.index
    out = {}
    for name, sw in sorted(topo.switches.items(), key=lambda kv: kv[1].device_id):
        if only is not None and name not in only:
            continue
        conn = SwitchConnection(sw.grpc_addr, sw.device_id, election_id, name=name, timeout=timeout,
                                credentials=credentials)
        with conn.connect():
            out[name] = program_device(Device(conn, index), plan_switch(topo, name), artifacts.device_config,
                                       force_pipeline=force_pipeline)
    return out
