"""simple_switch_grpc's target options that change the packet path, on real BMv2 and on
checkmate-switch started with the same options: ``--drop-port`` and ``--priority-queues``.

Measured on BMv2 1.15.5 (and asserted here frame by frame): ``mark_to_drop`` writes the drop
port into ``egress_spec`` (and 0 into ``mcast_grp``); a packet whose ``egress_spec`` equals the
drop port at the end of ingress or egress is dropped, 511 is then an ordinary port number;
egress starts with ``egress_spec`` = drop port + 1 (9 bits: 0 for the default 511, 6 for 5);
a packet whose ``standard_metadata.priority`` is not below the number of queues is dropped when
it is enqueued.  Each frame carries what the program saw back out, so a wrong value shows as a
different frame and a wrong drop as a missing or extra one.
"""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from diff_harness import Case, compile_both, compile_p4c
from diff_session import Targets, compare, only_bmv2, redo_if_bmv2_died
from diff_targets import bmv2_available

REPO = Path(__file__).resolve().parents[2]
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"needs real BMv2: {SKIP}")

SOURCE = (REPO / "tests" / "pipeline" / "programs" / "target_options.p4").read_text()

#: (egress_spec, op bits, priority) per frame: unicast, ingress and egress drops, the drop port
#: and 511 as egress_spec, egress writes of 5 / 511 / 7, priorities below and past 1 and 4 queues
FRAMES_IN = [(2, 0, 0), (2, 1, 0), (2, 3, 0), (5, 0, 0), (7, 0, 0), (511, 0, 0), (2, 4, 0), (2, 8, 0),
             (2, 16, 0), (2, 32, 0), (2, 0, 1), (2, 0, 3), (2, 0, 4), (2, 0, 7), (4, 3, 2)]


def _frame(spec: int, op: int, prio: int) -> bytes:
    return bytes.fromhex("000102030405000a0b0c0d0e88b5") + struct.pack("!HBBHHH", spec, op, prio, 0, 0, 0)


CASE = Case(name="target_options_drop_port_priority_queues", category="target options", source=SOURCE,
            frames=[(1, _frame(*f)) for f in FRAMES_IN], one_by_one=True, json_path=True)

#: the option sets: simple_switch_grpc's defaults, another drop port with 4 queues, drop port 7
OPTION_SETS = [(), ("--drop-port", "5", "--priority-queues", "4"), ("--drop-port", "7", "--priority-queues", "8")]


@pytest.fixture(scope="module", params=OPTION_SETS, ids=lambda a: " ".join(a) or "defaults")
def targets(request):
    compile_p4c(CASE)
    t = Targets(request.param)
    yield t
    t.stop()


def _same(targets, ref, ours):
    expected, diff, dead = redo_if_bmv2_died(lambda: compare(targets, CASE, ref, ours), lambda r: only_bmv2(r[2]))
    assert not dead, "a switch died on this program:\n" + "\n".join(dead)
    assert not diff, "\n".join(diff)
    return expected


def test_checkmate_p4c_program_same_as_bmv2(targets):
    ref, ours = compile_both(CASE)
    expected = _same(targets, ref, ours)
    # the case must show the options at work: frames dropped and frames through on both sides
    per_frame = expected.ports["seq"]     # one_by_one: what each frame made leave
    assert any(per_frame) and not all(per_frame), expected.ports


def test_p4c_json_same_as_bmv2(targets):
    """p4c's BMv2 JSON on checkmate-switch (the loader's mark_to_drop) under the same options."""
    ref = compile_p4c(CASE)
    assert not isinstance(ref, str), ref
    _same(targets, ref, ref)
