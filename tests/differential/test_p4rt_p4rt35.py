"""P4Runtime service behaviour the random sequences of fuzz_p4rt reach least, on both switches
(helper p4rt35, issue #15): arbitration of several clients (no election id, roles, a primary that
leaves), requests before any pipeline, other device ids, GetForwardingPipelineConfig response
types, and the error codes of Reads and Writes that name no entity kind, an id the P4Info does not
have or a value outside an enum.  p4c's P4Info and JSON of fuzz_p4rt seed 3's program.

Each test runs one ``probe(addr)`` -- a request sequence of fresh RawClients -- on simple_switch_grpc
and on checkmate-switch; the answers (status codes, per-update codes, arbitration status and election
id) must be equal.  Messages are free text and are left out.  Not compared (BMv2 misbehaves; see
docs/conformance/RANDOM_PROGRAMS.md, helper p4rt35): RECONCILE_AND_COMMIT before any pipeline
(simple_switch_grpc segfaults), and what BMv2 answers after a COMMIT without a saved config (its
refusal leaves a half-made device behind that accepts an empty Write)."""
from __future__ import annotations

import time

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as pb

import fuzz_p4rt as F
from diff_targets import bmv2_available
from tests.p4rt_raw import RawClient, pipeline_config

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
U = pb.Update


@pytest.fixture(scope="module")
def program():
    ref = F.compile_p4c(F.Case(name="p4rt35", category="p4rt", source=F.generate(3)))
    assert not isinstance(ref, str), ref
    return ref.p4info, pipeline_config(ref.p4info, ref.device_config)


@pytest.fixture
def fresh():
    """Both switches, just started: no pipeline yet."""
    from diff_session import Targets
    t = Targets()
    yield t
    t.stop()


def both(targets, probe):
    """``probe(addr)`` on BMv2, then on checkmate-switch; neither may die."""
    out = [probe(t.conn.addr) for t in (targets.bmv2, targets.cm)]
    assert not targets.check()
    return out


# ---------------------------------------------------------------------------- request helpers
def arbmsg(a):
    eid = (a.election_id.high << 64) | a.election_id.low
    return (a.status.code, eid, a.HasField("role"), a.device_id)


def arb(c, eid=None, role=None, role_id=None, device_id=None):
    """Arbitrate on ``c``'s stream: the answer, ("none",) or the stream's end code."""
    m = pb.StreamMessageRequest()
    m.arbitration.device_id = c.device_id if device_id is None else device_id
    if eid is not None:   # (an id of 0 is sent as an empty Uint128: there, unlike no id)
        m.arbitration.election_id.high, m.arbitration.election_id.low = eid >> 64, eid & (2**64 - 1)
        c.election_id = eid
    if role is not None:
        m.arbitration.role.name = role
    if role_id is not None:
        m.arbitration.role.id = role_id
    if c.stream is None:
        c.open_stream()
    c._out.put(m)
    try:
        return arbmsg(c.expect("arbitration", 2))
    except AssertionError:
        return ("none",)
    except grpc.RpcError as e:
        return ("stream ended", e.code().name)


def pending(c, wait=0.3):
    """Arbitration messages and stream ends that reach ``c`` within ``wait`` s."""
    out, end = [], time.monotonic() + wait
    while time.monotonic() < end:
        try:
            m = c._in.get(timeout=max(0.01, end - time.monotonic()))
        except Exception:
            continue
        if isinstance(m, grpc.RpcError):
            out.append(("stream ended", m.code().name))
        elif m.WhichOneof("update") == "arbitration":
            out.append(arbmsg(m.arbitration))
    return out


def call(f):
    """``f()``'s outcome: ("OK", result) or the status code and each update's code."""
    try:
        return ("OK", f())
    except grpc.RpcError as e:
        return F._write_result(e)


def write(c, *updates, eid=None, device_id=0, atomicity=0, role="", role_id=0):
    req = pb.WriteRequest(device_id=device_id, updates=updates, atomicity=atomicity, role=role, role_id=role_id)
    if eid is not None:
        F._eid(req, eid)
    return call(lambda: c.stub.Write(req, timeout=10) and None)


def read(c, *entities, device_id=0):
    return call(lambda: len([e for r in c.stub.Read(pb.ReadRequest(device_id=device_id, entities=entities),
                                                    timeout=10) for e in r.entities]))


def setcfg(c, cfg, action="VERIFY_AND_COMMIT", eid=None, device_id=0):
    req = pb.SetForwardingPipelineConfigRequest(device_id=device_id, action=S.Action.Value(action), config=cfg)
    if eid is not None:
        F._eid(req, eid)
    return call(lambda: c.stub.SetForwardingPipelineConfig(req, timeout=20) and None)


def getcfg(c, rt=0, device_id=0):
    def get():
        x = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
            device_id=device_id, response_type=rt), timeout=10).config
        return (x.HasField("p4info"), bool(x.p4_device_config), x.HasField("cookie"), x.cookie.cookie)
    return call(get)


S = pb.SetForwardingPipelineConfigRequest


def mc(kind, gid):
    return U(type=kind, entity=pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry(multicast_group_id=gid))))


def closing(*clients):
    for c in clients:
        c.close()
    time.sleep(0.3)   # the switch forgets the streams before the next probe


# ---------------------------------------------------------------------------- tests
def test_requests_before_any_pipeline(fresh, program):
    """Before any SetForwardingPipelineConfig: Reads, Get and the primary's Writes are
    FAILED_PRECONDITION, but a Write from a backup or without an election id is PERMISSION_DENIED
    first (PI checks the primary before the pipeline; checkmate-switch said FAILED_PRECONDITION)."""
    info, _ = program

    def probe(addr):
        c, b = RawClient(addr), RawClient(addr)
        r = [arb(c, 100), arb(b, 90)]
        r += [read(c, pb.Entity(table_entry=pb.TableEntry())),
              read(c, pb.Entity(table_entry=pb.TableEntry(table_id=info.tables[0].preamble.id))),
              getcfg(c), getcfg(c, 1), write(c, mc(U.INSERT, 1), eid=100), write(c, eid=100),
              write(b, mc(U.INSERT, 1), eid=90), write(b, eid=90), write(c, mc(U.INSERT, 1)),
              write(c, mc(U.INSERT, 1), eid=100, atomicity=1),
              call(lambda: c.stub.Capabilities(pb.CapabilitiesRequest(), timeout=5).p4runtime_api_version)]
        closing(c, b)
        return r
    a, b = both(fresh, probe)
    assert a == b


def test_no_election_id_is_the_id_zero(targets, program):
    """No election id and an id of 0 are the same id to PI: a second such client of the role is
    refused (INVALID_ARGUMENT, its stream ends) -- checkmate-switch had let any number in."""
    def probe(addr):
        a, g, f, h = RawClient(addr), RawClient(addr), RawClient(addr), RawClient(addr)
        r = [arb(a, 1000), arb(g), pending(g), arb(f, 0), pending(f), arb(h), pending(h)]
        closing(g, f)
        h2 = RawClient(addr)
        r += [arb(h2, 0), write(h2, eid=0), write(h2)]
        closing(a)
        r += [pending(h2), pending(h)]
        closing(h, h2)
        return r
    a, b = both(targets, probe)
    assert a == b


def test_roles_are_ignored(targets, program):
    """simple_switch_grpc ignores roles (named or numbered, in an arbitration, a Write or a
    SetForwardingPipelineConfig): clients of roles "ctl" and "other" compete for one primary, and no
    answer carries a role.  checkmate-switch kept a primary per role and echoed the role."""
    _, cfg = program

    def probe(addr):
        a, b, c, d = RawClient(addr), RawClient(addr), RawClient(addr), RawClient(addr)
        r = [arb(a, 600, role="ctl"), arb(b, 601, role="other"), pending(a),
             write(a, eid=600), write(a, eid=600, role="ctl"), write(a, eid=600, role_id=5),
             write(b, eid=601, role="zzz"),
             read(a, pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
                 multicast_group_entry=pb.MulticastGroupEntry()))),
             arb(c, 602, role_id=7), pending(a), pending(b), arb(d, 603, role="ctl"), pending(c)]
        req = S(device_id=0, action=S.VERIFY_AND_COMMIT, config=cfg, role="ctl")
        F._eid(req, 600)
        r.append(call(lambda: a.stub.SetForwardingPipelineConfig(req, timeout=20) and None))
        closing(d)
        r += [pending(a), pending(c)]
        closing(a, b, c)
        return r
    for t in (targets.bmv2, targets.cm):   # a pipeline, so that the primary's empty Writes pass
        assert setcfg(RawClient(t.conn.addr), cfg, eid=1) == ("OK", None)
    a, b = both(targets, probe)
    assert a == b


def test_primary_leaving_and_backups(targets, program):
    """Failover to the next highest id, a re-arbitration lower and higher, an id already used and a
    device id changed on a stream (regression: both switches already agreed)."""
    def probe(addr):
        a, b, d, e = RawClient(addr), RawClient(addr), RawClient(addr), RawClient(addr)
        r = [arb(a, 310), arb(b, 305), pending(a), arb(d, 320), pending(a), pending(b),
             write(a, eid=310), write(a, eid=320), write(d, mc(U.INSERT, 9), eid=310)]
        closing(d)
        r += [pending(a), pending(b), arb(a, 300), pending(a), pending(b), arb(a, 330), pending(b),
              arb(e, 330), pending(a), arb(b, 305, device_id=3), pending(b)]
        closing(a, b, e)
        return r
    a, b = both(targets, probe)
    assert a == b


def test_other_device_ids(targets, program):
    """PI answers for another device id as for a device without pipeline or primary: Read and Get
    FAILED_PRECONDITION, Write and Set PERMISSION_DENIED (checkmate-switch: NOT_FOUND but for Write)."""
    _, cfg = program

    def probe(addr):
        c = RawClient(addr)
        r = [arb(c, 700), setcfg(c, cfg, eid=700), read(c, pb.Entity(table_entry=pb.TableEntry()), device_id=9),
             getcfg(c, device_id=4), write(c, mc(U.INSERT, 3), eid=700, device_id=8),
             setcfg(c, cfg, eid=700, device_id=3)]
        closing(c)
        return r
    a, b = both(targets, probe)
    assert a == b


def test_get_config_response_types(targets, program):
    """Each response type's parts, the cookie, and a response type that is no enum value
    (INVALID_ARGUMENT on PI; checkmate-switch answered with the cookie only)."""
    _, cfg = program
    with_cookie = pb.ForwardingPipelineConfig()
    with_cookie.CopyFrom(cfg)
    with_cookie.cookie.cookie = 77

    def probe(addr):
        c = RawClient(addr)
        r = [arb(c, 750), setcfg(c, with_cookie, eid=750)] + [getcfg(c, rt) for rt in range(6)]
        r += [setcfg(c, cfg, eid=750), getcfg(c, 1), getcfg(c, 0)]
        closing(c)
        return r
    a, b = both(targets, probe)
    assert a == b


def test_unknown_ids_kinds_and_enum_values(targets, program):
    """PI's codes for a Read or Write that names an id of no table, counter or meter (INVALID_ARGUMENT,
    "Invalid P4 id"; checkmate-switch said NOT_FOUND), a PacketReplicationEngineEntry with neither kind (INVALID_ARGUMENT), a direct
    counter / meter read without a table entry (INVALID_ARGUMENT) or of all tables (UNIMPLEMENTED;
    checkmate-switch read them all), and a Write atomicity that is no enum value (UNIMPLEMENTED;
    checkmate-switch failed with UNKNOWN "Enum Atomicity has no name")."""
    info, cfg = program
    t0 = info.tables[0].preamble.id
    E = pb.Entity

    def probe(addr):
        c = RawClient(addr)
        r = [arb(c, 800), setcfg(c, cfg, eid=800)]
        # (an Entity of no kind, an extern entry: BMv2 UNKNOWN, checkmate-switch names the error --
        # accepted, as fuzz_p4rt.accepted does: not compared)
        r += [read(c, E(table_entry=pb.TableEntry(table_id=12345))),
              read(c, E(counter_entry=pb.CounterEntry(counter_id=12345))),
              read(c, E(meter_entry=pb.MeterEntry(meter_id=12345))),
              read(c, E(action_profile_member=pb.ActionProfileMember(action_profile_id=12345))),
              read(c, E(digest_entry=pb.DigestEntry(digest_id=12345))),
              read(c, E(packet_replication_engine_entry=pb.PacketReplicationEngineEntry())),
              read(c, E(table_entry=pb.TableEntry()), E(table_entry=pb.TableEntry(table_id=12345)))]
        for kind in ("direct_counter_entry", "direct_meter_entry"):
            cls = type(getattr(E(), kind))
            r += [read(c, E(**{kind: cls()})), read(c, E(**{kind: cls(table_entry=pb.TableEntry())})),
                  read(c, E(**{kind: cls(table_entry=pb.TableEntry(table_id=12345))})),
                  read(c, E(**{kind: cls(table_entry=pb.TableEntry(table_id=t0))}))]
        idx = pb.Index(index=0)
        r += [write(c, U(type=U.INSERT, entity=E(extern_entry=pb.ExternEntry(extern_type_id=1))), eid=800),
              write(c, U(type=U.INSERT, entity=E(table_entry=pb.TableEntry(table_id=12345))), eid=800),
              write(c, U(type=U.INSERT, entity=E(table_entry=pb.TableEntry())), eid=800),
              write(c, U(type=U.MODIFY, entity=E(counter_entry=pb.CounterEntry(counter_id=12345, index=idx))),
                    eid=800),
              write(c, U(type=U.MODIFY, entity=E(meter_entry=pb.MeterEntry(meter_id=12345, index=idx))), eid=800),
              write(c, U(type=U.MODIFY, entity=E(direct_counter_entry=pb.DirectCounterEntry())), eid=800),
              write(c, U(type=U.INSERT, entity=E(digest_entry=pb.DigestEntry(digest_id=12345))), eid=800),
              write(c, U(type=U.INSERT, entity=E(packet_replication_engine_entry=pb.PacketReplicationEngineEntry())),
                    eid=800)]
        for atomicity in (0, 1, 2, 3, 9):   # CONTINUE_ON_ERROR only; a batch of good and bad updates
            r.append(write(c, mc(U.INSERT, 50 + atomicity), mc(U.INSERT, 50 + atomicity), mc(U.UNSPECIFIED, 60),
                           mc(U.DELETE, 50 + atomicity), eid=800, atomicity=atomicity))
        closing(c)
        return r
    a, b = both(targets, probe)
    assert a == b


def test_digest_entries_without_config_or_with_negative_values(targets):
    """PI keeps a DigestEntry as it was written: one without a config (INSERT or MODIFY) is accepted
    and reads back without one, a negative max_list_size or timeout reads back as written
    (checkmate-switch refused both: "config missing", "max_list_size < 0"); the lists the data plane
    sends under them (fuzz_p4rt seed 0's program, its digest of h.a / h.d)."""
    from p4rt_vs import run, traffic, u, w

    def ops(info):
        did = info.digests[0].preamble.id

        def cfg(kind, **values):
            e = pb.DigestEntry(digest_id=did)
            if values:
                e.config.SetInParent()
                for k, v in values.items():
                    setattr(e.config, k, v)
            return w(u(kind, digest_entry=e))
        rd = ("read", [pb.Entity(digest_entry=pb.DigestEntry(digest_id=did))])
        return [cfg(U.INSERT), rd, traffic(2, 3), ("digests", True),
                cfg(U.MODIFY, max_list_size=1), traffic(4), ("digests", True),
                cfg(U.MODIFY, max_list_size=-1), rd, traffic(5, 6), ("digests", True),
                cfg(U.MODIFY), rd, cfg(U.MODIFY, max_list_size=1), ("digests", True),
                cfg(U.MODIFY, max_list_size=2, max_timeout_ns=-5, ack_timeout_ns=-1), rd, traffic(7),
                ("digests", True), traffic(8), ("digests", True), cfg(U.DELETE), rd]
    out = run(targets, 0, ops)
    assert not out, "\n".join(out)


@pytest.mark.parametrize("seed", [0, 2])   # seed 0: a const default action; seed 2: a plain table
def test_default_entry_checks_in_pi_order(targets, seed):
    """A MODIFY of a default entry: a priority is INVALID_ARGUMENT (checkmate-switch took it), then a
    const default action PERMISSION_DENIED before counter_data, meter_config or idle_timeout_ns are
    looked at (checkmate-switch: INVALID_ARGUMENT for those first)."""
    from p4rt_vs import run, u, w

    def ops(info):
        out = []
        for t in info.tables:
            aid = next(a.id for a in t.action_refs if a.scope != 1)
            params = next(a.params for a in info.actions if a.preamble.id == aid)
            for change in ("counter", "meter", "idle", "priority", "metadata", "counter+action", "action", ""):
                d = pb.TableEntry(table_id=t.preamble.id, is_default_action=True)
                if "counter" in change:
                    d.counter_data.packet_count = 4
                if change == "meter":
                    d.meter_config.cir = d.meter_config.cburst = d.meter_config.pir = d.meter_config.pburst = 5
                if change == "idle":
                    d.idle_timeout_ns = 7
                if change == "priority":
                    d.priority = 3
                if change == "metadata":
                    d.metadata = b"x"
                if "action" in change:
                    d.action.action.action_id = aid
                    for p in params:
                        d.action.action.params.add(param_id=p.id, value=b"\x01")
                out.append(w(u(U.MODIFY, table_entry=d)))
            out.append(("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id, is_default_action=True))]))
        return out
    out = run(targets, seed, ops)
    assert not out, "\n".join(out)


def _first_action(info, aid):
    a = next(x for x in info.actions if x.preamble.id == aid)
    act = pb.Action(action_id=aid)
    for p in a.params:
        act.params.add(param_id=p.id, value=b"\x01")
    return act


@pytest.mark.parametrize("seed", [1, 5])   # seed 1: a counter array; seed 5: a direct counter
def test_a_counter_cell_delete_resets_it(targets, seed):
    """PI takes a DELETE of a CounterEntry (one index) or a DirectCounterEntry as a reset of the cell to
    0, whatever data it carries; an INSERT stays INVALID_ARGUMENT, and meters refuse both
    (checkmate-switch refused the DELETE: "only MODIFY is allowed")."""
    from p4rt_vs import entry, run, u, w

    def ops(info):
        if seed == 1:
            cid = info.counters[0].preamble.id

            def cell(**d):
                return pb.CounterEntry(counter_id=cid, index=pb.Index(index=1), data=pb.CounterData(**d))
            out = []
            kind = "counter_entry"
        else:
            t = next(t for t in info.tables if t.direct_resource_ids)
            mem = pb.ActionProfileMember(action_profile_id=t.implementation_id, member_id=1,
                                         action=_first_action(info, t.action_refs[0].id))
            key = entry(t, b"\x05", member=1)
            out = [w(u(U.INSERT, action_profile_member=mem)), w(u(U.INSERT, table_entry=key))]
            key = entry(t, b"\x05")

            def cell(**d):
                return pb.DirectCounterEntry(table_entry=key, data=pb.CounterData(**d))
            kind = "direct_counter_entry"
        rd = ("read", [pb.Entity(**{kind: cell()})])
        return out + [w(u(U.MODIFY, **{kind: cell(packet_count=5, byte_count=50)})), rd,
                      w(u(U.DELETE, **{kind: cell(packet_count=9, byte_count=90)})), rd,
                      w(u(U.MODIFY, **{kind: cell(packet_count=6)})), w(u(U.DELETE, **{kind: cell()})), rd,
                      w(u(U.INSERT, **{kind: cell(packet_count=7)})), rd]
    out = run(targets, seed, ops)
    assert not out, "\n".join(out)
