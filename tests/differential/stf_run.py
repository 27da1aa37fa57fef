"""Run STF packet tests on real BMv2 and on checkmate-switch, and compare (BMv2 decides).

``python -m tests.differential.stf DIR_OR_FILES... [--target bmv2|checkmate|both]
[--results FILE]`` takes ``*.p4`` programs that have a ``*.stf`` next to them (or the
``.stf``/``.p4`` files named) and, per program:

1. compiles it with the real ``p4c`` (cached by source hash, as the differential suite
   does) and with ``checkmate-p4c``;
2. runs the STF's commands in order on each switch of :mod:`diff_targets` -- BMv2
   (p4c's JSON), checkmate-switch with checkmate-p4c's output, and checkmate-switch with
   p4c's JSON (the path that separates compiler bugs from runtime bugs) -- with the same
   P4Runtime writes; the frames injected since the last control command are collected
   (quiescence) before the next one, so a table write never races a frame;
3. reports, per program, whether each checkmate path gave BMv2's output frames (per port,
   per step) and whether BMv2 itself met the STF's ``expect`` lines.

A difference is re-run with a longer quiescence wait before it is believed.  A switch that
exits or hangs ends that program's run with an error saying so (``CHECKMATE_STF_LIMIT_S``,
default 180 s per STF), and the next program gets a fresh switch.  Programs whose
STF uses a command the harness cannot drive through P4Runtime (``register_write`` ...) are
reported as such, not run.  Nothing here is part of CI except :mod:`stf`'s parser test.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from pathlib import Path

from p4.v1 import p4runtime_pb2

from stf import Cmd, StfError, match_expects, parse_stf, to_entry

from diff_harness import Compiled, _update, as_compiled
from switch.bmv2json.p4c import source_digest


# ------------------------------------------------------------------------- compiling
def compile_p4c_file(path: Path) -> Compiled | str:
    """Real p4c on a file in place (its ``#include "x"`` siblings resolve); cached by the hash of
    the folder's P4 sources.  The Compiled result or p4c's error text."""
    from switch.bmv2json.p4c import run_p4c_cached
    cache = Path(os.environ.get("CHECKMATE_DIFF_CACHE")
                 or Path(tempfile.gettempdir()) / f"cmdiff-p4c-cache-{os.getuid()}") / ("stf-" + source_hash(path))
    return as_compiled(run_p4c_cached(path, cache, timeout=120))


def source_hash(path: Path) -> str:
    """The p4c cache key of ``path``: its bytes and those of every local file it ``#include
    "..."``s at any depth (only the main file's siblings counted before, so an edited
    ``include/control/acl.p4`` got the old result)."""
    return source_digest(path)


def compile_checkmate_file(path: Path) -> Compiled | str:
    from switch.compiler import compile_file
    try:
        prog = compile_file(str(path))
    except Exception as e:  # P4CompileError, or an internal error (also a finding)
        return f"{type(e).__name__}: {e}"
    return Compiled(prog.p4info, json.dumps(prog.device_config).encode())


# --------------------------------------------------------------------------- running
@dataclass
class Run:
    """What one switch did with one STF: output frames per step, counter reads, or an error."""

    steps: list = field(default_factory=list)      # per step: [(port, bytes)] in arrival order
    counters: list = field(default_factory=list)   # per check_counter: (line, value)
    error: str = ""

    def frames(self) -> list[tuple[int, bytes]]:
        return [x for s in self.steps for x in s]

    def diff(self, other: "Run") -> list[str]:
        if self.error or other.error:
            return [f"error: {self.error or other.error}"] if self.error != other.error else []
        out = []
        for i, (a, b) in enumerate(zip(self.steps, other.steps)):
            pa, pb = _per_port(a), _per_port(b)
            for p in sorted(set(pa) | set(pb)):
                if pa.get(p, []) != pb.get(p, []):
                    out.append(f"step {i} port {p}: bmv2 {pa.get(p, [])} != checkmate {pb.get(p, [])}")
        if len(self.steps) != len(other.steps):
            out.append(f"steps: {len(self.steps)} != {len(other.steps)}")
        if self.counters != other.counters:
            out.append(f"counters: bmv2 {self.counters} != checkmate {other.counters}")
        return out


def _per_port(frames) -> dict:
    out: dict = {}
    for p, f in frames:
        out.setdefault(p, []).append(f.hex())
    return {p: sorted(v) for p, v in out.items()}


def _collect(target, idle: float, cap: float = 10.0) -> list[tuple[int, bytes]]:
    """``target.collect`` with an upper bound (a packet looping forever never goes quiet)."""
    deadline = time.monotonic() + cap
    with target._cv:
        while True:
            now = time.monotonic()
            quiet = now - target._last
            if quiet >= idle or now >= deadline:
                out = list(target._out)
                target._out.clear()
                return out
            target._cv.wait(min(idle - quiet, deadline - now))


def _write(conn, kind, field_name, msg):
    conn.write([_update(kind, field_name, msg)])


STF_LIMIT_S = float(os.environ.get("CHECKMATE_STF_LIMIT_S", "180"))


class SwitchGone(RuntimeError):
    """The switch process exited, or one STF took longer than its limit (a hung switch)."""


def _check_alive(target, deadline: float | None, limit: float) -> None:
    """Raise :class:`SwitchGone` with a message that says what happened when ``target``'s
    process has exited or ``deadline`` has passed -- a dead simple_switch_grpc otherwise
    answers every later RPC only by its 30 s timeout (corpus12 saw one program hold the run
    for 20 minutes)."""
    proc = getattr(getattr(target, "p", None), "proc", None)
    if proc is not None and proc.poll() is not None:
        tail = target.p.tail(400) if hasattr(target.p, "tail") else ""
        raise SwitchGone(f"{getattr(target, 'name', 'switch')} exited (code {proc.returncode}) during the STF"
                         + (f": {tail}" if tail else ""))
    if deadline is not None and time.monotonic() > deadline:
        raise SwitchGone(f"{getattr(target, 'name', 'switch')} did not finish the STF within {limit:g} s "
                         "(hung?); set CHECKMATE_STF_LIMIT_S to allow more")


def run_stf(target, compiled: Compiled, cmds: list[Cmd], idle: float, limit: float | None = None) -> Run:
    """Program ``target`` and play the commands (see the module docstring).  A switch that
    exits, or an STF that takes longer than ``limit`` seconds (default ``STF_LIMIT_S``), ends
    the run with an error that says so (checked before each command and step)."""
    from controller.p4info import P4InfoIndex
    limit = STF_LIMIT_S if limit is None else limit
    deadline = time.monotonic() + limit
    run = Run()
    conn = target.conn
    groups: dict[int, list] = {}
    nodes: list[tuple[int, list[int]]] = []
    sessions: list[int] = []
    pending = False
    auto_prio = 1 << 20
    ins, mod, dele = p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY, p4runtime_pb2.Update.DELETE

    def flush():
        nonlocal pending
        if pending:
            run.steps.append(_collect(target, idle))
            pending = False
            _check_alive(target, deadline, limit)

    try:
        _check_alive(target, deadline, limit)
        target.drain()
        conn.set_pipeline(compiled.p4info, compiled.device_config)
        index = P4InfoIndex(compiled.p4info)
        for c in cmds:
            _check_alive(target, deadline, limit)
            if c.kind in ("packet", "expect"):
                if c.kind == "packet":
                    target.inject(c.port, c.data)
                    pending = True
                continue
            flush()
            if c.kind in ("add", "setdefault"):
                auto_prio -= 1
                e = to_entry(index, c, auto_prio)
                _write(conn, mod if e.is_default else ins, "table_entry", e.to_proto(index))
            elif c.kind == "mirroring_add":
                pre = p4runtime_pb2.PacketReplicationEngineEntry()
                cs = pre.clone_session_entry
                cs.session_id = c.ints[0]
                r = cs.replicas.add()
                r.egress_port, r.instance = c.ints[1], 0
                _write(conn, ins, "packet_replication_engine_entry", pre)
                sessions.append(c.ints[0])
            elif c.kind == "mc_mgrp_create":
                groups[c.ints[0]] = []
            elif c.kind == "mc_node_create":
                nodes.append((c.ints[0], c.ints[1:]))
            elif c.kind == "mc_node_associate":
                gid, node = c.ints
                rid, ports = nodes[node]
                groups[gid] = groups.get(gid, []) + [(p, rid) for p in ports]
                _write_group(conn, gid, groups[gid], ins if len(groups[gid]) == len(ports) else mod)
            elif c.kind == "check_counter":
                run.counters.append((c.line, _read_counter(conn, index, c)))
            elif c.kind == "unsupported":
                raise StfError(f"line {c.line}: command not supported by the P4Runtime harness: {c.text}")
        flush()
    except Exception as e:
        run.error = f"{type(e).__name__}: {e}"
    finally:
        for gid in groups:
            try:
                _write_group(conn, gid, [], dele)
            except Exception:
                pass
        for sid in sessions:
            pre = p4runtime_pb2.PacketReplicationEngineEntry()
            pre.clone_session_entry.session_id = sid
            try:
                _write(conn, dele, "packet_replication_engine_entry", pre)
            except Exception:
                pass
    return run


def _write_group(conn, gid, reps, kind):
    from controller.entities import McastGroup
    _write(conn, kind, "packet_replication_engine_entry", McastGroup.of(gid, reps).to_proto())


def _read_counter(conn, index, c: Cmd) -> int:
    ctr = index.get("counters", c.counter)
    ent = p4runtime_pb2.Entity()
    ent.counter_entry.counter_id = ctr.preamble.id
    ent.counter_entry.index.index = c.index
    for e in conn.read([ent]):
        d = e.counter_entry.data
        return d.packet_count if c.what == "packets" else d.byte_count
    return 0


def counter_ok(op: str, got: int, want: int) -> bool:
    return {"==": got == want, "!=": got != want, "<": got < want, "<=": got <= want,
            ">": got > want, ">=": got >= want}[op]


# ---------------------------------------------------------------------------- driving
@dataclass
class Result:
    name: str
    status: str                  # PASS, FAIL, P4C-REJECTS, CM-REJECTS, UNSUPPORTED, ERROR
    json_status: str = ""        # p4c JSON on checkmate-switch: PASS / FAIL / ERROR / -
    bmv2_vs_stf: str = ""        # ok / differs (what BMv2 itself did against the expects)
    detail: str = ""

    def line(self) -> str:
        d = self.detail.replace("\n", " | ")
        return f"{self.name:50s} {self.status:12s} json={self.json_status or '-':6s} stf={self.bmv2_vs_stf or '-':7s} {d[:400]}"


class Switches:
    def __init__(self, which: str):
        from diff_targets import BMv2Target, CheckmateTarget
        self.classes = {"bmv2": BMv2Target, "cm": CheckmateTarget}
        self.t = {}
        if which in ("bmv2", "both"):
            self.t["bmv2"] = BMv2Target()
        if which in ("checkmate", "both"):
            self.t["cm"] = CheckmateTarget()

    def healthy(self, name: str, restart: bool = False):
        """'' when the switch is alive; else why it is not, and a fresh one in its place.
        ``restart``: replace it anyway (simple_switch_grpc that refused a pipeline may refuse
        every later one: "Error in first phase of device update")."""
        t = self.t[name]
        if restart or t.conn.stream_ended.is_set() or t.gone():
            dead = ("" if restart and t.p.proc.poll() is None and not t.conn.stream_ended.is_set()
                    else f"{t.name} died ({t.p.proc.poll()}): {t.p.tail(800)}")
            try:
                t.stop()
            except Exception:
                pass
            self.t[name] = self.classes[name]()
            return dead
        return ""

    def stop(self):
        for t in self.t.values():
            t.stop()


def _stf_problems(cmds, run: Run) -> list[str]:
    if run.error:
        return [run.error]
    probs = match_expects([c.expect for c in cmds if c.kind == "expect"], run.frames())
    checks = [c for c in cmds if c.kind == "check_counter"]
    for c, (_, got) in zip(checks, run.counters):
        if not counter_ok(c.op, got, c.value):
            probs.append(f"line {c.line}: counter {c.counter}({c.index}) {c.what} = {got}, want {c.op} {c.value}")
    return probs


def run_program(sw: Switches, p4: Path, stf_path: Path, pool) -> Result:
    name = p4.stem
    try:
        cmds = parse_stf(stf_path.read_text(), str(stf_path))
    except StfError as e:
        return Result(name, "UNSUPPORTED", detail=str(e))
    bad = [c for c in cmds if c.kind == "unsupported"]
    if bad:
        return Result(name, "UNSUPPORTED", detail=f"line {bad[0].line}: {bad[0].text[:80]}")
    ref = compile_p4c_file(p4)
    if isinstance(ref, str):
        return Result(name, "P4C-REJECTS", detail=ref.strip().splitlines()[0] if ref.strip() else "")
    ours = compile_checkmate_file(p4)

    def once(idle):
        fut_b = pool.submit(run_stf, sw.t["bmv2"], ref, cmds, idle)
        rc = run_stf(sw.t["cm"], ours, cmds, idle) if not isinstance(ours, str) else None
        rj = run_stf(sw.t["cm"], ref, cmds, idle)
        try:   # (run_stf bounds itself; this bounds an RPC that never returns)
            rb = fut_b.result(timeout=STF_LIMIT_S + 60)
        except FuturesTimeout:
            rb = Run(error=f"SwitchGone: bmv2 gave no result within {STF_LIMIT_S + 60:g} s (hung)")
        return rb, rc, rj

    rb, rc, rj = once(0.25)
    if ((rc is not None and rb.diff(rc)) or rb.diff(rj)) and "SwitchGone" not in rb.error:
        rb, rc, rj = once(1.5)
    dead = [d for d in (sw.healthy("bmv2", restart=bool(rb.error)), sw.healthy("cm")) if d]
    stf_probs = _stf_problems(cmds, rb)
    res = Result(name, "", json_status="PASS" if not rb.diff(rj) else "FAIL",
                 bmv2_vs_stf="ok" if not stf_probs else "differs")
    if rb.error:
        res.status, res.detail = "ERROR", f"bmv2: {rb.error}"
    elif isinstance(ours, str):
        res.status, res.detail = "CM-REJECTS", ours.splitlines()[0]
    else:
        d = rb.diff(rc)
        res.status = "PASS" if not d else "FAIL"
        res.detail = "; ".join(d[:3])
    if res.json_status == "FAIL" and not res.detail:
        res.detail = "json: " + "; ".join(rb.diff(rj)[:2])
    if stf_probs and res.status == "PASS":
        res.detail = "bmv2 vs stf: " + "; ".join(stf_probs[:2])
    if dead:
        res.detail += " DEAD: " + " ".join(dead)
    return res


def programs(args: list[str]) -> list[tuple[Path, Path]]:
    """``(program, stf)`` pairs: every ``X.stf`` with an ``X.p4`` beside it in a folder, or the pair
    named by a file (either of the two).  A missing file is a ``ValueError`` naming it."""
    out = []
    for a in map(Path, args):
        if a.is_dir():
            for stf in sorted(a.glob("*.stf")):
                if stf.with_suffix(".p4").exists():
                    out.append((stf.with_suffix(".p4"), stf))
        else:
            pair = (a.with_suffix(".p4"), a.with_suffix(".stf"))
            missing = [str(f) for f in pair if not f.is_file()]
            if missing:
                raise ValueError(f"{a}: no such file: {', '.join(missing)} (a test is X.p4 and X.stf side by side)")
            out.append(pair)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.differential.stf", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="folders with *.p4 + *.stf, or files")
    ap.add_argument("--target", choices=["bmv2", "checkmate", "both"], default="both")
    ap.add_argument("--results", help="write the per-program table here too")
    args = ap.parse_args(argv)
    try:
        progs = programs(args.paths)
    except ValueError as e:
        ap.error(str(e))
    if args.target != "both":
        return _single(args.target, progs)
    sw = Switches("both")
    results = []
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            for p4, stf_path in progs:
                r = run_program(sw, p4, stf_path, pool)
                print(r.line(), flush=True)
                results.append(r)
    finally:
        sw.stop()
    counts: dict = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    jp = sum(r.json_status == "PASS" for r in results if r.status not in ("P4C-REJECTS", "UNSUPPORTED"))
    summary = (f"# {len(results)} programs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
               + f"; p4c JSON on checkmate-switch PASS {jp}")
    print(summary)
    if args.results:
        Path(args.results).write_text("\n".join([summary] + [r.line() for r in results]) + "\n")
    return 0 if all(r.status in ("PASS", "P4C-REJECTS", "UNSUPPORTED") for r in results) else 1


def _single(which: str, progs) -> int:
    """One switch only: its output against the STF's expects."""
    sw = Switches(which)
    key = "bmv2" if which == "bmv2" else "cm"
    bad = 0
    try:
        for p4, stf_path in progs:
            cmds = parse_stf(stf_path.read_text(), str(stf_path))
            comp = compile_p4c_file(p4) if which == "bmv2" else compile_checkmate_file(p4)
            if isinstance(comp, str):
                print(f"{p4.stem:50s} COMPILE-ERROR {comp.strip().splitlines()[0] if comp.strip() else ''}")
                bad += 1
                continue
            probs = _stf_problems(cmds, run_stf(sw.t[key], comp, cmds, 0.25))
            sw.healthy(key)
            bad += bool(probs)
            print(f"{p4.stem:50s} {'PASS' if not probs else 'FAIL'} {'; '.join(probs[:3])}", flush=True)
    finally:
        sw.stop()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
