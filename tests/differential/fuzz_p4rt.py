"""P4Runtime differential fuzzer: the same random request sequence to ``simple_switch_grpc``
(BMv2 1.15.5, the reference) and to checkmate-switch, answers compared one by one.

checkmate-switch is a drop-in for simple_switch_grpc, so a controller must get the same answer
to the same request.  Per seed: a random program (:mod:`fuzz_p4rt_prog`) compiled by the real
p4c; p4c's P4Info and BMv2 JSON pushed to both switches (so every id and every request is the
same byte for byte); then a random op sequence (:mod:`fuzz_p4rt_ops`) -- Writes mixing good and
bad updates, Reads (wildcard and keyed), traffic, digests, SetForwardingPipelineConfig actions,
GetForwardingPipelineConfig, Capabilities and a second client for arbitration -- run on both
switches, each answer reduced to what a controller can rely on and compared.

What is compared (and what is normalized away, each for a stated reason):

* Write: the gRPC status code, and for a failed batch the canonical code of each update's
  ``p4.v1.Error`` (messages are free text and differ by design).
* Read: the entities, each as its text form; the *order* is ignored (P4Runtime leaves it
  unspecified), and a counter's count the counter's unit does not define is zeroed
  (P4Runtime: "unspecified"; BMv2 fills both, checkmate-switch only the declared one --
  the same rule as diff_harness._unit).  A refused Read: its status code.
* SetForwardingPipelineConfig / Capabilities: status code / API version.
  GetForwardingPipelineConfig: which parts come back and whether they equal what was sent.
* Arbitration: the status code and the election id (relative to this seed's base) of the
  answer; PERMISSION_DENIED writes from the backup and writes without / with a wrong id.
* Traffic: output frames per port (sorted); digests: the multiset of digest data.

Accepted differences (:func:`accepted`; counted and listed, never a failure), each one a place where
BMv2 1.15.5 is less than P4Runtime asks and checkmate-switch keeps the spec's answer:

* BMv2 answers UNKNOWN where checkmate-switch names the error (every refused
  SetForwardingPipelineConfig is "Error in first phase of device update"; a meter index out of
  range; some action-parameter errors): both refuse, only the code is less precise.
* RECONCILE_AND_COMMIT: BMv2 refuses it (UNKNOWN); checkmate-switch implements it.
* Read of a value set or of digest entries, Read/Write of registers and Write of value sets: BMv2
  answers UNIMPLEMENTED; checkmate-switch implements them.
* Read of a const table's entries: checkmate-switch sets ``is_const`` (P4Runtime 1.4); BMv2 never does.
* SetForwardingPipelineConfig without a config (or without its P4Info), and VERIFY of any config
  (even a device config that is not JSON): BMv2 answers OK and changes nothing; checkmate-switch
  verifies and refuses (INVALID_ARGUMENT: the spec requires a valid config).  (VERIFY_AND_COMMIT without a config re-commits BMv2's program, clearing its state: not
  generated, like a refused VERIFY_AND_SAVE, after which BMv2 is left half-saved.)

One race is accepted in its window only (:func:`digest_races`, :func:`accepted_race`): a Write that
INSERTs or MODIFYs a DigestEntry and DELETEs it later in the same batch while a list is pending.
BMv2's learn thread sends the list the new size limit completes while PI is still applying the
batch: the list reaches the client when the thread wins, and PI drops it when the DELETE comes
first (seed 3895: either outcome, run to run).  checkmate-switch holds such a list to the end of
the Write, so it sends nothing; at the next digest collection BMv2 may have sent more, only of that
digest -- never less, and never something checkmate-switch sent and BMv2 did not.

BMv2 loses DigestListAcks sent back to back (:class:`DigestWindows`, :func:`accepted_lost_ack`): PI's
DigestMgr::ack queues a TaskAck holding a *reference* to the ack inside the StreamChannel's request
message and returns; the server's next ``Read`` into that message (the next ack) overwrites it before
the digest thread runs the task, so an earlier list is never acked and its data stay filtered (PI's
cache and BMv2's learn filter) until the ack-timeout sweep expires the list.  Seed 5867 (8 lists acked
in a row, the same data 0.4 s later): BMv2 sent one again 1 run in 4; a probe acking 8 lists in a
row lost 7 of 48 acks in 6 rounds, none with 20 ms between acks.  checkmate-switch applies every ack.
So a later collection where BMv2 lacks data of a list acked with another ack right after it (not the
last of its collection) is accepted; and, once excused, those data may later differ either way (each
switch's copy expires on its own sweep).

A BMv2 that answers as a faulty one does (:func:`bmv2_fault`: a GetForwardingPipelineConfig whose
P4Info is not the one pushed, an UNKNOWN where checkmate-switch answered OK) ends the sequence
there and is restarted, and the seed is run again (:func:`run_seed_redone`, as after a death of
BMv2's): seeds 5165 and 5867 had such answers in CI runs under load, never reproduced.  A real
difference is there on every run and stays a finding.

Usage::

    PATH=/opt/p4lang/bin:$PATH python tests/differential/fuzz_p4rt.py --seeds 0-100 --out DIR [--cm-build]

``--cm-build``: checkmate-switch runs checkmate-p4c's build of each program (P4Info and device
config) rather than p4c's JSON, so the compiler's tables, keys and selectors meet the same requests.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import grpc  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from p4.config.v1 import p4info_pb2  # noqa: E402
from p4.v1 import p4runtime_pb2 as pb  # noqa: E402

from diff_harness import Case, compile_p4c, p4data  # noqa: E402
from diff_session import only_bmv2, redo_if_bmv2_died  # noqa: E402
from fuzz_p4rt_ops import GetReq, OpGen, SetReq  # noqa: E402
from fuzz_p4rt_prog import generate  # noqa: E402
from tests.p4rt_raw import RawClient, pipeline_config  # noqa: E402

N_OPS = 60


@dataclass
class Side:
    """One switch during one seed: its target, the primary and the second client."""
    target: object
    primary: RawClient
    base: int
    config: pb.ForwardingPipelineConfig
    second: RawClient | None = None
    eid2: int | None = None
    addr: str = ""
    #: digest data of the lists the last collection acked with another ack after them (lost_acks)
    acked_before_more: set = field(default_factory=set)


@dataclass
class SeedResult:
    seed: int
    p4c_ok: bool = True
    requests: int = 0
    findings: list = field(default_factory=list)   # [(op index, op text, bmv2, checkmate)]
    died: list = field(default_factory=list)
    accepted: list = field(default_factory=list)   # [(op index, reason)]: see accepted()
    trace: list = field(default_factory=list)      # [(op index, op text, bmv2, checkmate)] for every op
    #: [(op index, why)]: an answer that shows BMv2 faulty (:func:`bmv2_fault`); the sequence stopped
    #: there and BMv2 was restarted -- :func:`run_seed_redone` runs the seed again
    bmv2_faults: list = field(default_factory=list)


# ---------------------------------------------------------------------------- normalization
def _code(e: grpc.RpcError) -> str:
    return e.code().name


def _write_result(e: grpc.RpcError) -> tuple:
    from google.rpc import code_pb2, status_pb2
    md = dict(e.trailing_metadata() or ())
    per = None
    if "grpc-status-details-bin" in md:
        st = status_pb2.Status.FromString(md["grpc-status-details-bin"])
        per = []
        for d in st.details:
            err = pb.Error()
            d.Unpack(err)
            per.append(code_pb2.Code.Name(err.canonical_code))
    # no details and an empty details list say the same (no per-update errors): both are ()
    return (_code(e), tuple(per) if per else ())


class Normalizer:
    """A read entity as one comparable line.  Counter data is compared whole: simple_switch_grpc
    fills both counts of every counter, whatever its unit, and so does checkmate-switch."""

    def __init__(self, p4info: p4info_pb2.P4Info):
        self.p4info = p4info

    def entity(self, e: pb.Entity) -> str:
        return text_format.MessageToString(e, as_one_line=True)


def _update_accepted(x: str, y: str, u) -> bool:
    """One update's codes: equal, or BMv2 UNKNOWN where checkmate-switch names the refusal, or BMv2
    UNIMPLEMENTED for an entity kind it lacks."""
    return x == y or (x == "UNKNOWN" and y != "OK") or (
        x == "UNIMPLEMENTED" and u.entity.WhichOneof("entity") in _BMV2_LACKS)


def accepted(op, a, b) -> str | None:
    """Why a difference is a BMv2 limitation checkmate-switch does not copy (module docstring), or None."""
    if a[:1] == ("ERR",) and b[:1] == ("ERR",) and a[1] == "UNKNOWN":
        return "BMv2 UNKNOWN, checkmate-switch a named code"
    if op[0] in ("write", "write2") and len(a) == 2 and a[0] == "UNKNOWN" and a[1] and len(a[1]) == len(op[1]):
        per_b = b[1] if len(b) == 2 and b[1] else ("OK",) * len(op[1])
        if all(_update_accepted(x, y, u) for x, y, u in zip(a[1], per_b, op[1])):
            return "per update: BMv2 UNKNOWN / UNIMPLEMENTED (module docstring)"
    if op[0] == "setcfg" and op[1] == SetReq.RECONCILE_AND_COMMIT and a == ("ERR", "UNKNOWN"):
        return "BMv2 lacks RECONCILE_AND_COMMIT"
    if op[0] == "setcfg" and (op[2] in ("none", "no_p4info") or op[1] == SetReq.VERIFY) \
            and a == ("OK",) and b[:1] == ("ERR",):
        return "BMv2's VERIFY checks nothing; a config without config / P4Info is a no-op"
    if op[0] == "read" and a[0] == b[0] == "OK" and a != b and \
            a == ("OK", tuple(sorted(x.replace(" is_const: true", "") for x in b[1]))):
        return "BMv2 (P4Runtime 1.3) never sets TableEntry.is_const"
    if op[0] == "read" and a == ("ERR", "UNIMPLEMENTED") and any(
            e.WhichOneof("entity") in _BMV2_LACKS for e in op[1]):
        return "BMv2 does not read value sets / digest entries / registers"
    return None


def digest_races(op, a) -> set[int]:
    """Digest ids a Write (``op``, BMv2's answer ``a``) INSERTed or MODIFYed and then DELETEd in
    the same batch, both updates accepted: BMv2's learn thread races the DELETE (module docstring)."""
    if op[0] != "write":
        return set()
    per = ("OK",) * len(op[1]) if a == ("OK",) else (a[1] if len(a) == 2 and a[1] else ())
    configured, racing = set(), set()
    for u, code in zip(op[1], per):
        if code != "OK" or u.entity.WhichOneof("entity") != "digest_entry":
            continue
        did = u.entity.digest_entry.digest_id
        if u.type in (pb.Update.INSERT, pb.Update.MODIFY):
            configured.add(did)
        elif u.type == pb.Update.DELETE and did in configured:
            racing.add(did)
    return racing


def accepted_race(op, a, b, racing: set[int]) -> str | None:
    """A digest collection after a racing Write: BMv2 sent what checkmate-switch sent plus lists of
    the racing digests only (the learn thread won), or None."""
    if op[0] != "digests" or not racing or a[:1] != ("OK",) or b[:1] != ("OK",):
        return None
    extra = Counter(a[1])
    extra.subtract(Counter(b[1]))
    if any(n < 0 for n in extra.values()):
        return None   # checkmate-switch sent something BMv2 did not
    if all(did in racing for (did, _), n in extra.items() if n):
        return "BMv2's learn thread sent a list a DELETE in the same Write then dropped (race)"
    return None


def accepted_lost_ack(op, a, b, unacked: set, excused: set) -> str | None:
    """A digest collection where BMv2 lacks data whose DigestListAck it may have lost (``unacked``:
    data of lists acked with another ack right after, see :class:`DigestWindows`), and has more only
    of data such a difference already excused (``excused``, which this one extends), or None."""
    if op[0] != "digests" or a[:1] != ("OK",) or b[:1] != ("OK",):
        return None
    diff = Counter(b[1])
    diff.subtract(Counter(a[1]))
    missing = {x for x, n in diff.items() if n > 0}
    extra = {x for x, n in diff.items() if n < 0}
    if not missing <= unacked or not extra <= excused or not (missing or extra):
        return None
    excused |= missing
    return "BMv2's digest manager lost a DigestListAck sent right before another (PI's TaskAck race)"


class DigestWindows:
    """The digest races accepted in their windows (module docstring), one seed's state: the racing
    Write before a collection (:func:`digest_races`, :func:`accepted_race`) and BMv2's lost acks
    (:func:`accepted_lost_ack`).  Per op: :meth:`note` BMv2's answer, compare (:meth:`why`), :meth:`done`."""

    def __init__(self):
        self.racing: set[int] = set()
        self.unacked: set = set()
        self.excused: set = set()

    def note(self, op, a) -> None:
        self.racing |= digest_races(op, a)

    def why(self, op, a, b) -> str | None:
        return accepted_race(op, a, b, self.racing) or accepted_lost_ack(op, a, b, self.unacked, self.excused)

    def done(self, op, bmv2: Side) -> None:
        if op[0] == "digests":
            self.racing = set()
            self.unacked |= bmv2.acked_before_more


#: entity kinds simple_switch_grpc 1.15.5 answers UNIMPLEMENTED for (reads and writes)
_BMV2_LACKS = ("value_set_entry", "register_entry", "digest_entry")


def describe(op) -> str:
    kind = op[0]
    if kind in ("write", "write2", "writex"):
        extra = f" atomicity={op[2]}" if kind == "write" and op[2] else (f" {op[2]}" if kind == "writex" else "")
        return f"{kind}{extra}:\n" + "\n".join("  " + text_format.MessageToString(u, as_one_line=True) for u in op[1])
    if kind == "read":
        return "read:\n" + "\n".join("  " + text_format.MessageToString(e, as_one_line=True) for e in op[1])
    if kind == "setcfg":
        return f"setcfg {SetReq.Action.Name(op[1])} {op[2]}"
    if kind == "getcfg":
        return f"getcfg {GetReq.ResponseType.Name(op[1])}"
    if kind == "traffic":
        return "traffic: " + " ".join(f"{p}:{f.hex()}" for p, f in op[1])
    return " ".join(map(str, op))


# ---------------------------------------------------------------------------- running
def _eid(req, eid):
    req.election_id.high, req.election_id.low = eid >> 64, eid & (2**64 - 1)


def _write(client: RawClient, updates, eid, atomicity=0, device_id=None):
    req = pb.WriteRequest(device_id=client.device_id if device_id is None else device_id,
                          updates=updates, atomicity=atomicity)
    if eid is not None:
        _eid(req, eid)
    try:
        client.stub.Write(req, timeout=10)
        return ("OK",)
    except grpc.RpcError as e:
        return _write_result(e)


def _arb(client: RawClient, eid: int, base: int):
    try:
        a = client.arbitrate(eid)
    except (AssertionError, grpc.RpcError) as e:
        return ("no answer", str(e)[:80])
    held = (a.election_id.high << 64) | a.election_id.low
    return (a.status.code, held - base if held else None)


def run_op(side: Side, op, norm: Normalizer):
    kind = op[0]
    c = side.primary
    if kind == "write":
        return _write(c, op[1], side.base, op[2])
    if kind == "write2":
        if side.second is None:
            return ("no second",)
        return _write(side.second, op[1], side.eid2)
    if kind == "writex":
        how = op[2]
        if how == "no_eid":
            return _write(c, op[1], None)
        if how == "device":
            return _write(c, op[1], side.base, device_id=7)
        return _write(c, op[1], side.base - 1)
    if kind == "read":
        try:
            ents = c.read(*op[1])
        except grpc.RpcError as e:
            return ("ERR", _code(e))
        return ("OK", tuple(sorted(norm.entity(e) for e in ents)))
    if kind == "setcfg":
        act, variant = op[1], op[2]
        cfg = side.config
        if variant == "none":
            cfg = None
        elif variant == "garbage":
            cfg = pipeline_config(side.config.p4info, b"{not json")
        elif variant == "no_p4info":
            cfg = pb.ForwardingPipelineConfig(p4_device_config=side.config.p4_device_config)
        try:
            c.set_pipeline(cfg, SetReq.Action.Name(act), election_id=side.base)
            return ("OK",)
        except grpc.RpcError as e:
            return ("ERR", _code(e))
    if kind == "getcfg":
        try:
            r = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
                device_id=0, response_type=op[1]), timeout=10)
        except grpc.RpcError as e:
            return ("ERR", _code(e))
        cfg = r.config
        return ("OK", cfg.HasField("p4info"), _p4info_same(cfg.p4info, side.config.p4info) if cfg.HasField("p4info")
                else None, bool(cfg.p4_device_config), cfg.HasField("cookie"), cfg.cookie.cookie)
    if kind == "caps":
        try:
            return ("OK", c.stub.Capabilities(pb.CapabilitiesRequest(), timeout=10).p4runtime_api_version)
        except grpc.RpcError as e:
            return ("ERR", _code(e))
    if kind == "arb2":
        if side.second is None:
            side.second = RawClient(side.addr)
        eid = side.base + op[1] - 10
        side.eid2 = eid
        return _arb(side.second, eid, side.base)
    if kind == "traffic":
        t = side.target
        if t.gone():   # a dead BMv2's packet socket would block the send
            return ("DIED",)
        t.drain()
        try:
            for port, frame in op[1]:
                t.inject(port, frame)
        except RuntimeError:   # it died after the look above (nn_send failed: seed 5948 in a batch)
            if t.gone():
                return ("DIED",)
            raise
        return ("OK", tuple(sorted((p, f.hex()) for p, f in t.collect(0.3))))
    if kind == "digests":
        got, lists = [], []
        deadline = time.monotonic() + 0.4
        while time.monotonic() < deadline:
            try:
                m = c._in.get(timeout=max(0.01, deadline - time.monotonic()))
            except Exception:
                continue
            if isinstance(m, grpc.RpcError) or m.WhichOneof("update") != "digest":
                continue
            dl = m.digest
            lists.append([(dl.digest_id, repr(p4data(d))) for d in dl.data])
            got += lists[-1]
            if op[1]:
                c.send(digest_ack=pb.DigestListAck(digest_id=dl.digest_id, list_id=dl.list_id))
        side.acked_before_more = {x for lst in lists[:-1] for x in lst} if op[1] else set()
        return ("OK", tuple(sorted(got)))
    raise ValueError(kind)


def _p4info_same(got, sent):
    """True, or which of the P4Info's top-level fields differ from what was pushed: the finding then
    says what came back (BMv2's heap corruption answered an unequal P4Info on seed 5608)."""
    if got == sent:
        return True
    names = sorted({f.name for f, _ in got.ListFields()} | {f.name for f, _ in sent.ListFields()})
    return "unequal: " + ", ".join(n for n in names if getattr(got, n) != getattr(sent, n))


_BOTH = None


def run_both(sides, op, norm: Normalizer) -> tuple:
    """``op`` on both switches: traffic and digest collection (each a wait) at the same time, so
    neither switch runs a quiet period behind the other -- BMv2's learn-list timers count from
    the frames, and a skew of one collection (0.3 s) decided digest lists near a 1 s deadline
    (seed 29); everything else one after the other."""
    global _BOTH
    if op[0] not in ("traffic", "digests"):
        return tuple(run_op(s, op, norm) for s in sides)
    if _BOTH is None:
        from concurrent.futures import ThreadPoolExecutor
        _BOTH = ThreadPoolExecutor(max_workers=2, thread_name_prefix="p4rt-both")
    futs = [_BOTH.submit(run_op, s, op, norm) for s in sides]
    return tuple(f.result() for f in futs)


def _open(target, base: int, config) -> Side:
    addr = target.conn.addr
    cl = RawClient(addr)
    side = Side(target, cl, base, config)
    side.addr = addr
    deadline = time.monotonic() + 5
    while True:   # a previous seed's client may still hold its id for a moment
        a = cl.arbitrate(base)
        if a.status.code == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return side


def _flush_digests(side: Side, p4info) -> None:
    """End a seed with no digest state left behind: flush each digest (1 ms timeout, no filter),
    then unsubscribe -- so that nothing of this seed (a list about to be sent, an unacked one)
    can reach the next seed's stream, whatever the next program load keeps."""
    U = pb.Update
    if not p4info.digests:
        return
    eid = side.base + 10**35   # above any id the sequence used: primary again, whatever arb2 did
    side.primary.arbitrate(eid)
    for d in p4info.digests:
        e = pb.DigestEntry(digest_id=d.preamble.id)
        e.config.max_timeout_ns, e.config.max_list_size, e.config.ack_timeout_ns = 10**6, 1, 0
        for kind in (U.INSERT, U.MODIFY):
            if _write(side.primary, [pb.Update(type=kind, entity=pb.Entity(digest_entry=e))], eid) == ("OK",):
                break
    time.sleep(0.05)
    for d in p4info.digests:
        _write(side.primary, [pb.Update(type=U.DELETE, entity=pb.Entity(
            digest_entry=pb.DigestEntry(digest_id=d.preamble.id)))], eid)


def _close(side: Side) -> None:
    for cl in (side.primary, side.second):
        if cl is not None:
            cl.close()


def run_seed(targets, seed: int, n_ops: int = N_OPS, cm_build: bool = False) -> SeedResult:
    """One seed's sequence on both switches.  ``cm_build``: checkmate-switch gets checkmate-p4c's
    build of the program (its P4Info equals p4c's) instead of p4c's JSON -- the compiler's tables,
    keys and selectors under the same requests (GetForwardingPipelineConfig compares each side's
    answer with what that side was sent)."""
    res = SeedResult(seed)
    case = Case(name=f"p4rt_{seed}", category="fuzz_p4rt", source=generate(seed))
    ref = compile_p4c(case)
    if isinstance(ref, str):
        res.p4c_ok = False
        res.findings.append((-1, "p4c rejects the program", ref[-2000:], ""))
        return res
    config = pipeline_config(ref.p4info, ref.device_config)
    configs = {"bmv2": config, "cm": config}
    if cm_build:
        from diff_harness import compile_checkmate
        ours = compile_checkmate(case)
        configs["cm"] = pipeline_config(ours.p4info, ours.device_config)
    norm = Normalizer(ref.p4info)
    ops = OpGen(seed, ref.p4info).ops(n_ops)
    base = (seed + 1) << 40
    sides = []
    try:
        for attr in ("bmv2", "cm"):
            try:
                s = _open(getattr(targets, attr), base, configs[attr])
                s.primary.set_pipeline(configs[attr], "VERIFY_AND_COMMIT", election_id=base)
            except grpc.RpcError:   # a switch a previous seed left unable to take a program: restart it
                _close(s)
                targets.restart(getattr(targets, attr).name)
                s = _open(getattr(targets, attr), base, configs[attr])
                s.primary.set_pipeline(configs[attr], "VERIFY_AND_COMMIT", election_id=base)
            sides.append(s)
        windows = DigestWindows()
        for i, op in enumerate(ops):
            try:
                a, b = run_both(sides, op, norm)
            except (grpc.FutureTimeoutError, grpc.RpcError):
                # a switch that died at the end of the previous op (its port still open when it was
                # looked at) fails this one, e.g. a second client's connect (CI of 49d005c: BMv2 on
                # seed 5165): a death -- targets.check() below reports it, redo_if_bmv2_died retries
                if not any(s.target.gone() for s in sides):
                    raise
                break
            if a != b and op[0] in _IDEMPOTENT and _transient(a, b):
                a, b = run_both(sides, op, norm)   # a deadline missed under load: ask both again
            res.requests += 1
            res.trace.append((i, describe(op), a, b))
            if a != b and op[0] == "traffic" and "DIED" not in (a[0], b[0]):
                a, b = _retraffic(sides, op)   # quiescence is a timeout: look again, slower
            gone = [s.target.name for s in sides if s.target.gone()]
            if gone:   # a switch died on this op: the rest of the sequence compares nothing
                res.died.append(f"{', '.join(gone)} died at op {i}: {describe(op)[:2000]}")
                break
            windows.note(op, a)
            if a != b:
                why = accepted(op, a, b) or windows.why(op, a, b)
                if why:
                    res.accepted.append((i, why))
                else:
                    res.findings.append((i, describe(op), a, b))
                    if fault := bmv2_fault(op, a, b):   # the rest would compare a faulty BMv2
                        res.bmv2_faults.append((i, fault))
                        break
            windows.done(op, sides[0])
    finally:
        for s in sides:
            try:
                _flush_digests(s, ref.p4info)
            except (grpc.RpcError, AssertionError):   # a switch that stopped answering: targets.check()
                pass
            _close(s)
        res.died = targets.check()
        if res.bmv2_faults and not res.died:
            targets.restart("bmv2")
    return res


def bmv2_fault(op, a, b) -> str | None:
    """Why BMv2's answer ``a`` (checkmate-switch's ``b``) shows BMv2 faulty rather than what it does,
    or None.  simple_switch_grpc 1.15.5 corrupts its heap now and then (deaths: "corrupted
    double-linked list"); before dying it can answer wrongly, under load: the official CI of
    ae81f90a and a fresh-clone CI of session 55 had regression seed 5165's op 6 answer a P4Info whose
    ``action_profiles`` differ from the one pushed, and seed 5867's op 20 UNKNOWN on an INSERT that
    checkmate-switch took (neither seen again in 40+ runs alone, nor in helper p4rt53's runs of
    three copies at once).  So: a GetForwardingPipelineConfig answering a P4Info other than the
    one pushed (PI returns the P4Info it was given), and an UNKNOWN (a Read's, a Write's or one
    update's) where checkmate-switch answered OK.  Such a seed is run again on a fresh BMv2
    (:func:`run_seed_redone`): a real difference is there every time, and fails."""
    if op[0] == "getcfg" and a[:2] == ("OK", True) and a[2] is not True:
        return f"BMv2 answered a P4Info other than the one pushed ({a[2]})"
    if a[:1] == ("ERR",) and a[1] == "UNKNOWN" and b[:1] == ("OK",):
        return "BMv2 UNKNOWN where checkmate-switch answered"
    if op[0] in ("write", "write2", "writex") and a[:1] == ("UNKNOWN",) and len(a) == 2:
        per_b = b[1] if len(b) == 2 and b[1] else ("OK",) * len(a[1]) if b == ("OK",) else ()
        if any(x == "UNKNOWN" and y == "OK" for x, y in zip(a[1], per_b)):
            return "BMv2 UNKNOWN on an update checkmate-switch took"
    return None


def bmv2_faulted(res: SeedResult) -> bool:
    """A seed to run again: BMv2, and only BMv2, died (``diff_session.only_bmv2``), or it answered as
    a faulty BMv2 does (:func:`bmv2_fault`) and nothing of ours died."""
    return only_bmv2(res.died) or (bool(res.bmv2_faults) and not res.died)


def run_seed_redone(targets, seed: int, n_ops: int = N_OPS, cm_build: bool = False) -> SeedResult:
    """:func:`run_seed`, again on a fresh BMv2 while :func:`bmv2_faulted` (``diff_session.BMV2_TRIES``
    runs in all): the last run's result -- a fault or death on every run stays in it."""
    return redo_if_bmv2_died(lambda: run_seed(targets, seed, n_ops, cm_build=cm_build), bmv2_faulted)


#: ops that change nothing on either switch, so asking again is safe
_IDEMPOTENT = ("getcfg", "caps", "read")
#: codes that say the call did not reach an answer (the switch or the machine too busy), not what it answered
_TRANSPORT = ("DEADLINE_EXCEEDED", "UNAVAILABLE")


def _transient(a, b) -> bool:
    """One side's answer to an idempotent op is a transport failure (the official CI of ae81f90a:
    seed 5165's op 6, a GetForwardingPipelineConfig, differed while the rest shard loaded both
    cores); a second asking decides.  An answer that differs again stays a finding."""
    return any(x[:1] == ("ERR",) and x[1] in _TRANSPORT for x in (a, b))


def _retraffic(sides, op):
    out = []
    for s in sides:
        s.target.drain()
        for port, frame in op[1]:
            s.target.inject(port, frame)
    for s in sides:
        out.append(("OK", tuple(sorted((p, f.hex()) for p, f in s.target.collect(1.5)))))
    return out


def report(res: SeedResult, case_src: str, ops_text: str = "") -> str:
    lines = [f"seed {res.seed}: {res.requests} requests, {len(res.findings)} differences"]
    for i, d, a, b in res.findings:
        lines += [f"== op {i}: {d}", f"   bmv2:      {a}", f"   checkmate: {b}"]
    lines += [f"== died: {d}" for d in res.died]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from fuzz_run import parse_seeds
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-20")
    ap.add_argument("--ops", type=int, default=N_OPS)
    ap.add_argument("--out", default="/work/corpus/fuzz/fuzzr")
    ap.add_argument("--print", action="store_true", help="print the program of each seed")
    ap.add_argument("--cm-build", action="store_true", help="checkmate-switch runs checkmate-p4c's build")
    args = ap.parse_args(argv)
    from diff_session import Targets
    out = Path(args.out)
    targets = Targets()
    tally = Counter()
    try:
        for seed in parse_seeds(args.seeds):
            src = generate(seed)
            if args.print:
                print(src)
            runs = []

            def run(seed=seed, runs=runs):
                runs.append(run_seed(targets, seed, args.ops, cm_build=args.cm_build))
                return runs[-1]
            try:
                res = redo_if_bmv2_died(run, bmv2_faulted)   # (run_seed_redone, each run kept)
            except Exception as e:  # noqa: BLE001 -- a driver failure is reported, the run goes on
                print(f"seed {seed}: driver error {type(e).__name__}: {e}", flush=True)
                tally["driver errors"] += 1
                continue
            for r in runs[:-1]:
                why = "; ".join(r.died) or "; ".join(f"op {i}: {w}" for i, w in r.bmv2_faults)
                print(f"seed {seed}: BMv2 faulty, run again: {why[:300]}", flush=True)
            tally["BMv2 faults or deaths run again"] += len(runs) - 1
            tally["sequences"] += res.p4c_ok
            tally["requests"] += res.requests
            tally["accepted differences"] += len(res.accepted)
            tally["p4c rejects"] += not res.p4c_ok
            tally["switch deaths (BMV2-DIED: not ours)" if all(d.startswith("bmv2") for d in res.died)
                  else "switch deaths (CRASH)"] += bool(res.died)
            if res.findings or res.died:
                tally["seeds with differences"] += bool(res.findings)
                tally["differences"] += len(res.findings)
                d = out / str(seed)
                d.mkdir(parents=True, exist_ok=True)
                (d / "program.p4").write_text(src, encoding="utf-8")
                (d / "findings.txt").write_text(report(res, src), encoding="utf-8")
                (d / "trace.txt").write_text("".join(f"== op {i}: {t}\n   bmv2:      {a}\n   checkmate: {b}\n"
                                                     for i, t, a, b in res.trace), encoding="utf-8")
                print(report(res, src)[:3000], flush=True)
            else:
                print(f"seed {seed}: {res.requests} requests, equal", flush=True)
    finally:
        targets.stop()
    print(dict(tally))
    return 1 if tally["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
