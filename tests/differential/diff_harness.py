"""Differential harness: one case = one P4 program + P4Runtime writes + input frames.

``run_case`` pushes the program to a target (SetForwardingPipelineConfig), writes the
case's table entries, default actions, multicast groups, clone sessions and digest
configs through P4Runtime, injects the frames and returns an :class:`Observation`:
output frames per port, digest data and every counter cell.  The suite calls it with
``p4c`` → BMv2 and with ``checkmate-p4c`` → ``checkmate-switch``; BMv2's observation is
the expected one.

Compilation: :func:`compile_p4c` runs the real ``p4c`` (bmv2 backend) and caches the
outputs by source hash under ``$CHECKMATE_DIFF_CACHE`` (default: a per-user temp dir), so
re-running the suite locally does not pay p4c again; :func:`compile_checkmate` uses
:func:`switch.compiler.compile_file`.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from switch.bmv2json.p4c import run_p4c_cached


@dataclass
class Case:
    """One differential program (see the module docstring)."""

    name: str
    category: str
    source: str
    frames: list = field(default_factory=list)       # [(port, bytes)]
    entries: list = field(default_factory=list)      # controller.entities.Entry
    defaults: list = field(default_factory=list)     # Entry(is_default=True)
    mcast: dict = field(default_factory=dict)        # group -> [(port, rid)]
    clones: dict = field(default_factory=dict)       # session -> ([(port, rid)], truncate_len)
    one_by_one: bool = False                         # collect after each frame (order matters)
    mcast_changes: dict = field(default_factory=dict)  # frame index -> {group in mcast: [(port, rid)]}:
                                                       # MODIFY before that frame (one_by_one)
    note: str = ""
    ref_source: str | None = None                    # what p4c compiles, when it lacks a feature
    json_path: bool = False                          # also run p4c's JSON on checkmate-switch
    p4info_only: str = ""                            # why BMv2 cannot run it (P4Info compared only)


@dataclass
class Compiled:
    p4info: p4info_pb2.P4Info
    device_config: bytes


@dataclass
class Observation:
    ports: dict                 # port -> sorted [hex]   (or per-frame lists when one_by_one)
    digests: list               # sorted unique [(digest name, data hex)]
    counters: dict              # name -> {index or entry key: (packets, bytes)}

    def diff(self, other: "Observation") -> list[str]:
        out = []
        for p in sorted(set(self.ports) | set(other.ports), key=str):
            a, b = self.ports.get(p, []), other.ports.get(p, [])
            if a != b:
                out.append(f"port {p}: bmv2 {a} != checkmate {b}")
        if self.digests != other.digests:
            out.append(f"digests: bmv2 {self.digests} != checkmate {other.digests}")
        for c in sorted(set(self.counters) | set(other.counters)):
            a, b = self.counters.get(c), other.counters.get(c)
            if a != b:
                out.append(f"counter {c}: bmv2 {a} != checkmate {b}")
        return out


def case_dir(case: Case) -> Path:
    d = Path(os.environ.get("CHECKMATE_DIFF_WORK") or Path(tempfile.gettempdir()) / f"cmdiff-{os.getuid()}")
    d = d / "src"
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_source(case: Case, ref: bool = False) -> Path:
    """The case's program as a file for the compilers: ``src/<sha of the text>/<case name>.p4``.

    The work folder is per user, not per run, and suites run side by side (``make test`` beside a
    conformance report, helpers' fuzz runs): with one file per case name, a second run writing its
    own text under the same name could hand the first run's p4c the other program, or half a file.
    A folder per text keeps each name's contents fixed once written; the file appears whole
    (written aside, then renamed) and keeps the case's name, so p4c's messages name the case."""
    text = case.ref_source if ref and case.ref_source else case.source
    name = f"{case.name}.ref.p4" if ref and case.ref_source else f"{case.name}.p4"
    d = case_dir(case) / hashlib.sha256(text.encode()).hexdigest()[:20]
    path = d / name
    if not path.exists():
        d.mkdir(exist_ok=True)
        tmp = d / f".{name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return path


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def compile_p4c(case: Case) -> Compiled | str:
    """Compile with the real p4c; the Compiled result or p4c's error text.  Thread-safe (the
    suite pre-compiles in the background while it waits for switches to go quiet)."""
    text = case.ref_source or case.source
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(digest, threading.Lock())
    with lock:
        return _compile_p4c(case, digest)


def _compile_p4c(case: Case, digest: str) -> Compiled | str:
    cache = Path(os.environ.get("CHECKMATE_DIFF_CACHE")
                 or Path(tempfile.gettempdir()) / f"cmdiff-p4c-cache-{os.getuid()}") / digest
    return as_compiled(run_p4c_cached(write_source(case, ref=True), cache))


def as_compiled(result: tuple[bytes, str] | str) -> Compiled | str:
    """:func:`~switch.bmv2json.p4c.run_p4c_cached`'s outcome as a :class:`Compiled` (or the error text)."""
    if isinstance(result, str):
        return result
    config, info_text = result
    return Compiled(text_format.Parse(info_text, p4info_pb2.P4Info()), config)


def compile_checkmate(case: Case) -> Compiled:
    from switch.compiler import compile_file
    prog = compile_file(str(write_source(case)))
    return Compiled(prog.p4info, json.dumps(prog.device_config).encode())


def compile_both(case: Case) -> tuple[Compiled, Compiled]:
    """p4c's and checkmate-p4c's output for a case both must accept; fails the calling test, naming
    which side refused (p4c refusing means the case itself is wrong)."""
    import pytest
    from switch.compiler import P4CompileError
    ref = compile_p4c(case)
    assert not isinstance(ref, str), f"the case itself is not valid for p4c:\n{ref}"
    try:
        ours = compile_checkmate(case)
    except P4CompileError as e:
        pytest.fail(f"checkmate-p4c rejects a program p4c accepts: {e}")
    return ref, ours


# ---------------------------------------------------------------------------- running
def _update(kind, entity_field: str, msg) -> p4runtime_pb2.Update:
    u = p4runtime_pb2.Update(type=kind)
    getattr(u.entity, entity_field).CopyFrom(msg)
    return u


def program_target(target, case: Case, compiled: Compiled) -> None:
    """SetForwardingPipelineConfig + the case's writes (raises on a refused write)."""
    from controller.entities import McastGroup
    from controller.p4info import P4InfoIndex

    conn = target.conn
    conn.set_pipeline(compiled.p4info, compiled.device_config)
    index = P4InfoIndex(compiled.p4info)
    ups = [_update(p4runtime_pb2.Update.INSERT, "table_entry", e.to_proto(index)) for e in case.entries]
    ups += [_update(p4runtime_pb2.Update.MODIFY, "table_entry", e.to_proto(index)) for e in case.defaults]
    for gid, reps in case.mcast.items():
        ups.append(_update(p4runtime_pb2.Update.INSERT, "packet_replication_engine_entry",
                           McastGroup.of(gid, reps).to_proto()))
    for sid, (reps, trunc) in case.clones.items():
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        cs = pre.clone_session_entry
        cs.session_id, cs.packet_length_bytes = sid, trunc
        for port, rid in reps:
            r = cs.replicas.add()
            r.egress_port, r.instance = port, rid
        ups.append(_update(p4runtime_pb2.Update.INSERT, "packet_replication_engine_entry", pre))
    for d in compiled.p4info.digests:
        de = p4runtime_pb2.DigestEntry(digest_id=d.preamble.id)
        de.config.max_timeout_ns, de.config.max_list_size, de.config.ack_timeout_ns = 0, 1, 10**9
        ups.append(_update(p4runtime_pb2.Update.INSERT, "digest_entry", de))
    for u in ups:  # one by one: a refused write names itself
        conn.write([u])


def unprogram_target(target, case: Case) -> None:
    """Remove the replication state (it may outlive a pipeline change on BMv2)."""
    from controller.entities import McastGroup
    ups = [_update(p4runtime_pb2.Update.DELETE, "packet_replication_engine_entry",
                   McastGroup.of(gid, []).to_proto()) for gid in case.mcast]
    for sid in case.clones:
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        pre.clone_session_entry.session_id = sid
        ups.append(_update(p4runtime_pb2.Update.DELETE, "packet_replication_engine_entry", pre))
    for u in ups:
        try:
            target.conn.write([u])
        except Exception:
            pass


def send_frames(target, case: Case, idle: float):
    """Inject the frames; per-port sorted outputs (or the per-frame list when one_by_one)."""
    if case.one_by_one:
        from controller.entities import McastGroup
        per = []
        for i, (port, frame) in enumerate(case.frames):
            for gid, reps in case.mcast_changes.get(i, {}).items():
                target.conn.write([_update(p4runtime_pb2.Update.MODIFY, "packet_replication_engine_entry",
                                           McastGroup.of(gid, reps).to_proto())])
            target.drain()
            target.inject(port, frame)
            per.append(sorted((p, f.hex()) for p, f in target.collect(idle)))
        return {"seq": per}
    target.drain()
    for port, frame in case.frames:
        target.inject(port, frame)
    out: dict = {}
    for p, f in target.collect(idle):
        out.setdefault(p, []).append(f.hex())
    return {p: sorted(v) for p, v in out.items()}


def read_observation(target, compiled: Compiled, ports: dict, digest_idle: float) -> Observation:
    from controller.entities import Entry
    from controller.p4info import P4InfoIndex

    conn = target.conn
    names = {d.preamble.id: d.preamble.name for d in compiled.p4info.digests}
    digests = set()
    if names:
        for dl in conn.digests(timeout=digest_idle):
            conn.ack(dl)
            for d in dl.data:
                digests.add((names.get(dl.digest_id, str(dl.digest_id)), repr(p4data(d))))
    counters = {}
    for c in compiled.p4info.counters:
        ent = p4runtime_pb2.Entity()
        ent.counter_entry.counter_id = c.preamble.id
        cells = {}
        for e in conn.read([ent]):
            ce = e.counter_entry
            cells[ce.index.index] = _counts(ce.data)
        counters[c.preamble.name] = {k: v for k, v in sorted(cells.items()) if v != (0, 0)}
    index = P4InfoIndex(compiled.p4info)
    for c in compiled.p4info.direct_counters:
        ent = p4runtime_pb2.Entity()
        ent.direct_counter_entry.table_entry.table_id = c.direct_table_id
        cells = {}
        for e in conn.read([ent]):
            dc = e.direct_counter_entry
            key = Entry.from_proto(index, dc.table_entry).key()
            cells[str(key)] = _counts(dc.data)
        counters[c.preamble.name] = dict(sorted(cells.items()))
    return Observation(ports, sorted(digests), counters)


def _counts(data) -> tuple[int, int]:
    """(packets, bytes): both, whatever the counter's unit -- simple_switch_grpc fills both (BMv2
    counts both in every counter), and so does checkmate-switch."""
    return data.packet_count, data.byte_count


def p4data(d):
    """A P4Data as plain ints / tuples (BMv2 and checkmate may pad bitstrings differently); a
    struct or tuple keeps its kind (``("tuple", 1, 2)``)."""
    kind = d.WhichOneof("data")
    if kind == "bitstring":
        return int.from_bytes(d.bitstring, "big")
    if kind in ("struct", "tuple"):   # the kind too: BMv2 sends a tuple digest as a tuple
        return (kind, *(p4data(m) for m in getattr(d, kind).members))
    if kind == "header":
        return tuple(int.from_bytes(m, "big") for m in d.header.bitstrings)
    if kind == "bool":
        return int(d.bool)
    return str(d).strip()


def drain_digests(target) -> None:
    for dl in target.conn.digests(timeout=0):
        target.conn.ack(dl)


class TargetError(AssertionError):
    """A switch refused or failed something the case asked for (names the switch)."""


def run_case(target, case: Case, compiled: Compiled, idle: float = 0.25) -> Observation:
    try:
        drain_digests(target)
        program_target(target, case, compiled)
        try:
            ports = send_frames(target, case, idle)
            return read_observation(target, compiled, ports, idle)
        finally:
            unprogram_target(target, case)
    except Exception as e:
        if isinstance(e, TargetError):
            raise
        raise TargetError(f"{target.name}: {type(e).__name__}: {e}") from e
