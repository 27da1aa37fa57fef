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


@pytest.mark.parametrize("idx, own, other, args", [
    (0, "I.t1", "I.t2", (b"\x06",)),            # the P4Info's: p; t2's body takes none
    (1, "I.t2", "I.t1", (b"\x06", b"\x66")),    # the P4Info's: p, q (declared first, listed second)
])
def test_writes_for_the_other_body_refused_as_by_bmv2(targets, idx, own, other, args):
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
    assert not run(targets, 0, ops, source=CASES[idx].source)

