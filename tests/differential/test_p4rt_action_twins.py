"""P4Runtime writes for two table-listed actions sharing a control-plane name with other
parameters (compiler/action_twins; helper mutz34): p4c's P4Info lists the first declared one's
parameters, simple_switch_grpc hands them to BMv2, and BMv2 refuses an entry or a default action
for a table whose body of the action takes another number of them (UNKNOWN) -- checkmate-switch
answers alike, on p4c's JSON (here) and on checkmate-p4c's build (the diffcases
``mutz34_used_actions_sharing_a_name_*`` run the frames).  A read of such a table's default
entry or const entries set by the program kills simple_switch_grpc (PI's dump_action_data:
"Assertion `num_params == action_data.size()' failed"): not compared."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

import fuzz_p4rt as F
from diff_harness import compile_checkmate
from diffcases.base import program
from diffcases.mutz34 import CASES
from test_p4rt_vs_bmv2 import SKIP, U, entry, run, u, w

pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")


def _nop(info, *values):
    a = next(x for x in info.actions if x.preamble.name == "I.nop")
    act = pb.Action(action_id=a.preamble.id)
    for p, v in zip(a.params, values):
        act.params.add(param_id=p.id, value=v)
    return act


def _table(info, name):
    return next(t for t in info.tables if t.preamble.name == name)


def _default(t, act):
    return pb.TableEntry(table_id=t.preamble.id, is_default_action=True, action=pb.TableAction(action=act))


def _ops_for(own, other, args):
    def ops(info):
        t_own, t_other = _table(info, own), _table(info, other)
        e_own = entry(t_own, b"\x05", act=_nop(info, *args))
        changed = entry(t_own, b"\x05", act=_nop(info, *args[:-1], b"\x07"))
        return [w(u(U.INSERT, table_entry=entry(t_other, b"\x02", act=_nop(info, *args)))),
                w(u(U.MODIFY, table_entry=entry(t_other, b"\x02", act=_nop(info, *args)))),
                w(u(U.MODIFY, table_entry=_default(t_other, _nop(info, *args)))),
                w(u(U.INSERT, table_entry=e_own)), w(u(U.MODIFY, table_entry=changed)),
                w(u(U.MODIFY, table_entry=_default(t_own, _nop(info, *args)))),
                ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t_own.preamble.id))])]
    return ops


_CASES = [
    (0, "I.t1", "I.t2", (b"\x06",)),            # the P4Info's: p; t2's body takes none
    (1, "I.t2", "I.t1", (b"\x06", b"\x66")),    # the P4Info's: p, q (declared first, listed second)
]


@pytest.mark.parametrize("idx, own, other, args", _CASES)
def test_writes_for_the_other_body_refused_as_by_bmv2(targets, idx, own, other, args):
    """On p4c's P4Info and JSON, both switches."""
    assert not run(targets, 0, _ops_for(own, other, args), source=CASES[idx].source)


@pytest.mark.parametrize("idx, own, other, args", _CASES)
def test_checkmate_p4c_build_answers_as_bmv2(targets, idx, own, other, args):
    """checkmate-switch running checkmate-p4c's build (its table actions marked ``cp_mismatch``)
    against simple_switch_grpc running p4c's."""
    assert not _run_own_build(targets, CASES[idx].source, _ops_for(own, other, args))


_PROFILE = program("        t1.apply();\n        t2.apply();\n", ingress_decls=(
    "    @name(\"nop\") action set_port(bit<9> p) { sm.egress_spec = p; }\n"
    "    action nop() { hdr.h.c = hdr.h.c + 0x77; }\n"
    "    action_profile(4) ap;\n"
    "    table t1 { key = { hdr.h.a: exact; } actions = { set_port; } default_action = set_port(3); }\n"
    "    table t2 { key = { hdr.h.b: exact; } actions = { nop; } implementation = ap; }\n"))


def _profile_ops(info):
    prof = info.action_profiles[0]
    m = pb.ActionProfileMember(action_profile_id=prof.preamble.id, member_id=1)
    m.action.CopyFrom(_nop(info, b"\x05"))
    m2 = pb.ActionProfileMember(action_profile_id=prof.preamble.id, member_id=2)
    m2.action.CopyFrom(pb.Action(action_id=m.action.action_id))
    return [w(u(U.INSERT, action_profile_member=m)), w(u(U.MODIFY, action_profile_member=m)),
            w(u(U.INSERT, action_profile_member=m2)),
            w(u(U.INSERT, table_entry=entry(_table(info, "I.t2"), b"\x02", member=1))),
            ("read", [pb.Entity(action_profile_member=pb.ActionProfileMember(action_profile_id=prof.preamble.id))])]


def test_action_profile_member_of_the_other_body_refused_as_by_bmv2(targets):
    """A member of the profile of the table whose body differs: the target refuses it (UNKNOWN),
    a MODIFY of the missing member stays NOT_FOUND (probed)."""
    assert not run(targets, 0, _profile_ops, source=_PROFILE)
    assert not _run_own_build(targets, _PROFILE, _profile_ops)


def _run_own_build(targets, source, make):
    """``make``'s ops on simple_switch_grpc (p4c's build) and checkmate-switch (checkmate-p4c's);
    the differences."""
    case = F.Case(name="p4rt_twins", category="p4rt", source=source)
    ref, ours = F.compile_p4c(case), compile_checkmate(case)
    assert not isinstance(ref, str), ref
    norm, out, sides = F.Normalizer(ref.p4info), [], []
    try:
        for t, c in ((targets.bmv2, ref), (targets.cm, ours)):
            config = F.pipeline_config(c.p4info, c.device_config)
            s = F._open(t, 9 << 50, config)
            sides.append(s)
            s.primary.set_pipeline(config, "VERIFY_AND_COMMIT", election_id=9 << 50)
        for op in make(ref.p4info):
            a, b = F.run_both(sides, op, norm)
            if a != b and not F.accepted(op, a, b):
                out.append(f"{F.describe(op)}\n  bmv2:      {a}\n  checkmate: {b}")
    finally:
        for s in sides:
            F._close(s)
        targets.check()
    return out

