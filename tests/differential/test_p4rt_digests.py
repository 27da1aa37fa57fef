"""Digest lists across a Write that configures a digest several times, on both switches (p4c's
P4Info and JSON of fuzz_p4rt seed 0's program; the helpers are p4rt_vs's).

fuzz_p4rt seed 4833 (helper mutz32): a list pending before the first DigestEntry, completed by an
INSERT's size limit (1) in a Write that then MODIFYs the entry to no limits (and DELETEs it).  On
simple_switch_grpc the list leaves the learn engine at the INSERT: PI's digest manager sends it when
its learn task runs before the DELETE's and drops it after -- a race (measured: with a refused INSERT
between, sent in 4 of 10 runs, dropped in 6; without it 5 of 7 sent) -- but it never comes back
after the next INSERT, and without a DELETE it is always sent (6 of 6).  checkmate-switch kept it
pending when the MODIFY lifted the limit and sent it with the next INSERT's lists."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from p4rt_vs import _digest_cfg, run, traffic, u

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
U = pb.Update


def _entry(did, kind, t=0, n=0):
    e = pb.DigestEntry(digest_id=did)
    if kind != U.DELETE:
        e.config.max_timeout_ns, e.config.max_list_size, e.config.ack_timeout_ns = t, n, 5 * 10**9
    return u(kind, digest_entry=e)


@pytest.mark.parametrize("updates", [
    [(U.INSERT, 10**6, 1), (U.MODIFY, 0, 0), (U.INSERT, 0, 0), (U.DELETE,)],   # the seed's Write
    [(U.INSERT, 10**6, 1), (U.MODIFY, 0, 0), (U.DELETE,)],
    [(U.INSERT, 10**6, 1), (U.MODIFY, 0, 0)],   # no DELETE: sent, on BMv2 every time
], ids=["refused_insert_and_delete", "delete", "no_delete"])
def test_a_digest_list_completed_in_a_write_is_not_kept_pending(targets, updates):
    """The collection right after a Write that DELETEs the entry may see BMv2's list
    (fuzz_p4rt.accepted_race); the one after the next INSERT must be equal."""
    def ops(info):
        did = info.digests[0].preamble.id
        return [traffic(2, 3), ("write", [_entry(did, *x) for x in updates], 0), ("digests", True),
                traffic(4, 5), _digest_cfg(did)(U.INSERT, 0, 1), ("digests", True)]
    assert not run(targets, 0, ops)


def test_a_list_made_after_a_commit_of_a_saved_program_is_sent_at_the_next_insert(targets):
    """fuzz_p4rt seed 5165 (helper mutz34): DigestEntry (1 ms), VERIFY_AND_SAVE + COMMIT of the same
    program (the P4Runtime side unsubscribed since the save), traffic, an INSERT within BMv2's default
    1 s: the learn list made after the COMMIT collects by BMv2's defaults, is still pending and goes
    out under the new config.  checkmate-switch kept the old config (1 ms) for the unsubscribed digest
    and dropped the list as completed while unsubscribed."""
    S = pb.SetForwardingPipelineConfigRequest

    def ops(info):
        cfg = _digest_cfg(info.digests[0].preamble.id)
        return [cfg(U.INSERT, 10**6, 10), ("setcfg", S.VERIFY_AND_SAVE, "same"), ("setcfg", S.COMMIT, "same"),
                traffic(2, 3), cfg(U.INSERT, 10**6, 1), ("digests", True)]   # (well within the 1 s)
    assert not run(targets, 0, ops)
