"""P4Runtime behaviour helper p4rt61 (issue #15) measured on simple_switch_grpc 1.15.5 and copied.

fuzz_p4rt seed 7124 (op 58): a MODIFY of an action selector group whose weights sum past the
``max_size`` it was inserted with is RESOURCE_EXHAUSTED on BMv2, as an INSERT's is -- PI's
``group_modify`` checks only that max_size is unchanged (or 0) and then runs the same
``group_update_members`` as an INSERT: weight 0, then the sum of the weights, then each member (a
missing one NOT_FOUND, a repeated one INVALID_ARGUMENT).  checkmate-switch answered
INVALID_ARGUMENT for the MODIFY, and INVALID_ARGUMENT for a repeated member before looking at the
sum (``switch/p4rt_server/writes._write_action_profile_group``)."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from p4rt_vs import U, run, selector_groups

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")


def test_group_weights_past_max_size_are_resource_exhausted_on_modify_too(targets):
    def ops(info):
        pid, out, g = selector_groups(info)
        read = ("read", [pb.Entity(action_profile_group=pb.ActionProfileGroup(action_profile_id=pid, group_id=1))])
        return out + [g(1, [(1, 3)], 3),
                      g(1, [(3, 1), (1, 3)], 0, U.MODIFY),      # seed 7124: max_size left 0
                      g(1, [(3, 1), (1, 3)], 3, U.MODIFY),      # max_size repeated
                      g(1, [(1, 2), (1, 2)], 0, U.MODIFY),      # a member twice, past max_size: the sum first
                      g(1, [(1, 0)], 5, U.MODIFY),              # another max_size before the weight
                      g(1, [(2, 1), (2, 1)], 0, U.MODIFY),      # a member twice within max_size
                      read, g(1, [(2, 1), (3, 2)], 3, U.MODIFY), read]
    assert not run(targets, 7, ops)
