"""The harness of the hand-written P4Runtime sequences (test_p4rt_vs_bmv2.py and
test_p4rt_vs_bmv2_writes.py): ``run`` plays one sequence on both switches (p4c's P4Info and JSON of
one fuzz_p4rt_prog program, or a given source) and returns the answers that differ, and small builders
for the requests (updates, PRE entries, actions, entries, digest configs, digest traffic)."""
from __future__ import annotations

import grpc
from p4.v1 import p4runtime_pb2 as pb

import fuzz_p4rt as F
from diff_harness import compile_checkmate
from diff_session import only_bmv2, redo_if_bmv2_died

U = pb.Update
S = pb.SetForwardingPipelineConfigRequest


def run(targets, seed, make, source=None, cm_build=False):
    """Run ``make(p4info)``'s ops for seed's program (or ``source``) on both switches; the differences.
    A run in which BMv2 alone died is redone (``diff_session.redo_if_bmv2_died``), also where its
    death broke off the run (a request nobody answered), and one where it answered as a faulty BMv2
    does (``fuzz_p4rt.bmv2_fault``: restarted first); a death of ours fails the test.
    ``cm_build``: checkmate-switch gets checkmate-p4c's build of the program (its P4Info equals
    p4c's: test_p4info_equal), not p4c's JSON -- for what the compiler decides about a table (its
    keys' masks); no GetForwardingPipelineConfig op then (the two configs differ)."""
    out, dead, _ = redo_if_bmv2_died(lambda: _run_once(targets, seed, make, source, cm_build),
                                     lambda r: only_bmv2(r[1]) or (r[2] and not r[1]))
    assert not dead, "\n".join(dead)
    return out


def _run_once(targets, seed, make, source, cm_build=False):
    case = F.Case(name=f"p4rt_vs_{seed}", category="p4rt", source=source or F.generate(seed))
    ref = F.compile_p4c(case)
    assert not isinstance(ref, str), ref
    base = (seed + 7) << 50
    config = F.pipeline_config(ref.p4info, ref.device_config)
    cm_config = config
    if cm_build:
        ours = compile_checkmate(case)
        cm_config = F.pipeline_config(ours.p4info, ours.device_config)
    norm = F.Normalizer(ref.p4info)
    sides, out, err, fault = [], [], None, None
    try:
        for t, c in ((targets.bmv2, config), (targets.cm, cm_config)):
            s = F._open(t, base, c)
            sides.append(s)
            s.primary.set_pipeline(c, "VERIFY_AND_COMMIT", election_id=base)
        windows = F.DigestWindows()   # the digest races, accepted in their windows as fuzz_p4rt does
        for op in make(ref.p4info):
            a, b = F.run_both(sides, op, norm)
            windows.note(op, a)
            if a != b and not (F.accepted(op, a, b) or windows.why(op, a, b)):
                out.append(f"{F.describe(op)}\n  bmv2:      {a}\n  checkmate: {b}")
                if fault := F.bmv2_fault(op, a, b):
                    out[-1] += f"\n  ({fault}: run again on a fresh BMv2)"
                    break
            windows.done(op, sides[0])
    except (grpc.RpcError, grpc.FutureTimeoutError) as e:   # (an op's own errors are answers: run_both
        err = e   # compares them) -- a switch that stopped answering, or was gone before the run's
        # connection (it died after the last one's check); check() below says which
    finally:
        for s in sides:
            try:
                F._flush_digests(s, ref.p4info)
            except (grpc.RpcError, AssertionError):   # a switch that stopped answering: check() says
                pass
            F._close(s)
        dead = targets.check()
        if fault and not dead:
            targets.restart("bmv2")
    if err is not None and not only_bmv2(dead):
        raise err
    return out, dead, fault


def u(kind, **kw):
    return pb.Update(type=kind, entity=pb.Entity(**kw))


def w(*updates):
    return ("write", list(updates), 0)


def pre(kind, gid=None, sid=None, reps=(), plen=0, cos=0):
    p = pb.PacketReplicationEngineEntry()
    e = p.multicast_group_entry if gid is not None else p.clone_session_entry
    if gid is not None:
        e.multicast_group_id = gid
    else:
        e.session_id, e.packet_length_bytes, e.class_of_service = sid, plen, cos
    for port, rid in reps:
        e.replicas.add(egress_port=port, instance=rid)
    return u(kind, packet_replication_engine_entry=p)


def action(info, name, *values):
    a = next(x for x in info.actions if x.preamble.name.endswith(name))
    act = pb.Action(action_id=a.preamble.id)
    for p, v in zip(a.params, values):
        act.params.add(param_id=p.id, value=v)
    return act


def selector_table(info):
    """The first table with an action selector, the selector's id, and a member 1 of it (fwd 2)."""
    sel = next(p for p in info.action_profiles if p.with_selector)
    t = next(t for t in info.tables if t.implementation_id == sel.preamble.id)
    mem = pb.ActionProfileMember(action_profile_id=sel.preamble.id, member_id=1)
    mem.action.CopyFrom(action(info, "fwd", b"\x02"))
    return t, sel.preamble.id, mem


def selector_groups(info):
    """Writes inserting members 1-3 (fwd 2) of the first action selector, and ``g(gid, mems,
    max_size=0, kind=INSERT)``: a write of group ``gid`` holding ``mems`` ((member, weight) pairs)."""
    pid = next(p for p in info.action_profiles if p.with_selector).preamble.id
    members = [w(u(U.INSERT, action_profile_member=pb.ActionProfileMember(
        action_profile_id=pid, member_id=mid, action=action(info, "fwd", b"\x02")))) for mid in (1, 2, 3)]

    def g(gid, mems, max_size=0, kind=U.INSERT):
        x = pb.ActionProfileGroup(action_profile_id=pid, group_id=gid, max_size=max_size)
        for mid, wt in mems:
            x.members.add(member_id=mid, weight=wt)
        return w(u(kind, action_profile_group=x))
    return pid, members, g


def entry(table, v, *, member=None, group=None, act=None, priority=None):
    """An entry of ``table`` whose every key field matches ``v`` (exact / optional / ternary 0xff /
    lpm whole byte / range 1..v)."""
    e = pb.TableEntry(table_id=table.preamble.id)
    for mf in table.match_fields:
        fm = e.match.add(field_id=mf.id)
        kind = mf.match_type
        if kind == 2:
            fm.exact.value = v
        elif kind == 3:
            fm.lpm.value, fm.lpm.prefix_len = v + b"\x00" * ((mf.bitwidth + 7) // 8 - 1), 8
        elif kind == 4:
            fm.ternary.value, fm.ternary.mask = v, b"\xff"
        elif kind == 5:
            fm.range.low, fm.range.high = b"\x01", v
        else:
            fm.optional.value = v
    needs = any(mf.match_type in (4, 5, 6) for mf in table.match_fields)
    e.priority = priority if priority is not None else (3 if needs else 0)
    if member is not None:
        e.action.action_profile_member_id = member
    elif group is not None:
        e.action.action_profile_group_id = group
    elif act is not None:
        e.action.action.CopyFrom(act)
    return e


def _digest_cfg(did):
    """A write of the digest's DigestEntry: ``cfg(kind, max_timeout_ns, max_list_size)``."""
    def cfg(kind, t=0, n=0):
        e = pb.DigestEntry(digest_id=did)
        if kind != U.DELETE:
            e.config.max_timeout_ns, e.config.max_list_size, e.config.ack_timeout_ns = t, n, 5 * 10**9
        return w(u(kind, digest_entry=e))
    return cfg


def traffic(*vals):
    """Frames that each make one digest of value ``v`` (the program's h.a and h.d)."""
    return ("traffic", [(1, bytes(11) + b"\x01\x12\x34" + bytes([v, 0, 0, v]) + bytes(24)) for v in vals])
