"""Helpers of the conformance suite (imported by the test modules).

Only the documented seam of docs/ARCHITECTURE.md is used:
``switch.compiler.compile_file`` / ``P4CompileError`` and ``switch.runtime.Pipeline``
with P4Info ids and Python ints.  Names are mapped to ids here, from the P4Info the
compiler emits, so the tests never depend on the implementation's own name helpers.
"""
from __future__ import annotations

import copy
import functools
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
FROZEN = HERE.parent / "bmv2compat" / "p4c_out"  # real p4c's output of PROGRAMS (bmv2compat/freeze.py)

# standard_metadata.instance_type values of BMv2 simple_switch (simple_switch.h,
# PktInstanceType; also p4c testdata .../includes/intrinsic.p4).
NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = range(7)
DROP_PORT = 511


#: ``CHECKMATE_FRONTEND=bmv2json`` runs the suite on real p4c's BMv2 JSON + P4Info, loaded
#: through switch/bmv2json, instead of checkmate-p4c's IR (tests/bmv2compat/test_json_path.py);
#: with ``CHECKMATE_P4C_FROZEN=1`` the JSONs come from FROZEN instead of running p4c
@functools.lru_cache(maxsize=None)
def compiled(name: str):
    """Compile programs/<name> once per test session."""
    from switch.bmv2json.p4c import P4cFailed, compile_with_p4c, frontend, load_p4c_output

    if frontend() == "bmv2json":
        import os

        import pytest
        if os.environ.get("CHECKMATE_P4C_FROZEN"):  # p4c's output kept in the repo (no p4c needed)
            stem = FROZEN / Path(name).stem
            if not stem.with_suffix(".json").exists():
                pytest.skip(f"no frozen p4c output for {name} (p4c rejects it)")
            return load_p4c_output(stem.with_suffix(".json"), stem.with_suffix(".p4info.txtpb"))
        try:
            return compile_with_p4c(PROGRAMS / name)
        except P4cFailed as e:
            pytest.skip(str(e))
    from switch.compiler import compile_file

    return compile_file(str(PROGRAMS / name))


class P4Info:
    """Name -> id index over a p4.config.v1.P4Info message."""

    def __init__(self, p4info):
        self.msg = p4info
        self.tables = {t.preamble.name: t for t in p4info.tables}
        self.actions = {a.preamble.name: a for a in p4info.actions}
        self.counters = {c.preamble.name: c for c in p4info.counters}
        self.direct_counters = {c.preamble.name: c for c in p4info.direct_counters}
        self.meters = {m.preamble.name: m for m in p4info.meters}
        self.direct_meters = {m.preamble.name: m for m in p4info.direct_meters}
        self.registers = {r.preamble.name: r for r in p4info.registers}
        self.digests = {d.preamble.name: d for d in p4info.digests}

    @staticmethod
    def _get(kind: dict, name: str, what: str):
        if name in kind:
            return kind[name]
        # allow the alias / unqualified suffix as a convenience
        hits = [v for k, v in kind.items() if k.split(".")[-1] == name or v.preamble.alias == name]
        if len(hits) == 1:
            return hits[0]
        raise KeyError(f"{what} {name!r} not in P4Info (have {sorted(kind)})")

    def table(self, name):
        return self._get(self.tables, name, "table")

    def action(self, name):
        return self._get(self.actions, name, "action")

    def counter(self, name):
        return self._get(self.counters, name, "counter")

    def register(self, name):
        return self._get(self.registers, name, "register")

    def meter(self, name):
        return self._get(self.meters, name, "meter")

    def digest(self, name):
        return self._get(self.digests, name, "digest")


class Switch:
    """One Pipeline instance of a compiled program plus name-based conveniences."""

    def __init__(self, program: str):
        from switch.runtime import Pipeline

        self.program = compiled(program)
        self.info = P4Info(self.program.p4info)
        self.pipe = Pipeline(copy.deepcopy(self.program.device_config))
        self.digests: list[tuple[int, tuple]] = []
        self.pipe.on_digest = lambda digest_id, values: self.digests.append(
            (digest_id, tuple(values)))

    # ---------------------------------------------------------------- packets
    def send(self, port: int, frame) -> list[tuple[int, bytes]]:
        out = self.pipe.process(port, bytes(frame))
        return [(int(p), bytes(b)) for p, b in out]

    def send1(self, port: int, frame) -> tuple[int, bytes]:
        out = self.send(port, frame)
        assert len(out) == 1, f"expected exactly one output frame, got {len(out)}: {out!r}"
        return out[0]

    # ----------------------------------------------------------------- tables
    def entry(self, table: str, action: str, match: dict | None = None,
              params: dict | None = None, priority: int = 0):
        from switch.runtime import FieldMatch, TableEntry

        t = self.info.table(table)
        fields = {mf.name: mf for mf in t.match_fields}
        matches = []
        for fname, spec in (match or {}).items():
            mf = fields[fname]
            kind = mf.match_type
            if kind == 2:      # EXACT
                matches.append(FieldMatch.exact(mf.id, spec))
            elif kind == 3:    # LPM
                matches.append(FieldMatch.lpm(mf.id, spec[0], spec[1]))
            elif kind == 4:    # TERNARY
                matches.append(FieldMatch.ternary(mf.id, spec[0], spec[1]))
            elif kind == 5:    # RANGE
                matches.append(FieldMatch.range(mf.id, spec[0], spec[1]))
            elif kind == 6:    # OPTIONAL
                matches.append(FieldMatch.optional(mf.id, spec))
            else:
                raise AssertionError(f"unexpected match type {kind} for {fname}")
        a = self.info.action(action)
        pids = {p.name: p.id for p in a.params}
        return TableEntry(matches=matches, action_id=a.preamble.id,
                          params={pids[k]: v for k, v in (params or {}).items()},
                          priority=priority)

    def add(self, table: str, action: str, match: dict | None = None,
            params: dict | None = None, priority: int = 0):
        e = self.entry(table, action, match, params, priority)
        self.pipe.table_insert(self.info.table(table).preamble.id, e)
        return e

    def set_default(self, table: str, action: str, params: dict | None = None):
        a = self.info.action(action)
        pids = {p.name: p.id for p in a.params}
        self.pipe.table_set_default(self.info.table(table).preamble.id, a.preamble.id,
                                    {pids[k]: v for k, v in (params or {}).items()})

    # ---------------------------------------------------------------- externs
    def counter(self, name: str, index: int) -> tuple[int, int]:
        data = self.pipe.counter_read(self.info.counter(name).preamble.id, index)
        return counter_tuple(data)

    def register_read(self, name: str, index: int) -> int:
        v = self.pipe.register_read(self.info.register(name).preamble.id, index)
        if isinstance(v, (list, tuple)):
            (v,) = v
        return int(v)

    def register_write(self, name: str, index: int, value: int):
        self.pipe.register_write(self.info.register(name).preamble.id, index, value)


def counter_tuple(data) -> tuple[int, int]:
    """(packets, bytes) from whatever cell object the pipeline returns."""
    if isinstance(data, (list, tuple)) and len(data) == 1:
        data = data[0]
    if hasattr(data, "packets"):
        return int(data.packets), int(data.bytes)
    if isinstance(data, dict):
        return int(data["packets"]), int(data["bytes"])
    p, b = data
    return int(p), int(b)


# ------------------------------------------------------------------ frames
def mac(s: str) -> bytes:
    return bytes(int(x, 16) for x in s.split(":"))


DST = mac("00:00:00:00:00:02")
SRC = mac("00:00:00:00:00:01")


def eth(ethertype: int, dst: bytes = DST, src: bytes = SRC) -> bytes:
    return dst + src + struct.pack("!H", ethertype)


def u8(*vals) -> bytes:
    return bytes(v & 0xFF for v in vals)


def u16(*vals) -> bytes:
    return b"".join(struct.pack("!H", v & 0xFFFF) for v in vals)


def u32(*vals) -> bytes:
    return b"".join(struct.pack("!I", v & 0xFFFFFFFF) for v in vals)


def ipv4_csum(header: bytes) -> int:
    """RFC 1071 ones' complement checksum of an even-length byte string."""
    s = 0
    for i in range(0, len(header), 2):
        s += (header[i] << 8) | header[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def by_port(outputs):
    return sorted(outputs, key=lambda pb: (pb[0], pb[1]))
