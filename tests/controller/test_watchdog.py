"""Heartbeat watchdog logic (injected clock, no sleeping)."""
from controller.entities import Heartbeat
from controller.watchdog import Watchdog


def feed(wd, it, ranks, t):
    out = []
    for r in ranks:
        out += wd.observe(Heartbeat(1, r, it), now=t)
    return out


def test_stalled_rank_flagged_within_two_iterations_and_recovers():
    wd = Watchdog(lag_threshold=2, silence_s=1000)
    for it in range(5):
        assert feed(wd, it, [0, 1, 2], t=it) == []
    # rank 2 stalls at iteration 4
    assert feed(wd, 5, [0, 1], t=5) == []  # one behind: not yet
    verdicts = feed(wd, 6, [0, 1], t=6)  # two behind: flagged now
    assert [(v.rank, v.hung) for v in verdicts] == [(2, True)]
    assert "2 behind" in verdicts[0].reason and wd.hung()[0].rank == 2
    assert feed(wd, 7, [0, 1], t=7) == []  # reported once, not again
    snap = {r["rank"]: r for r in wd.snapshot(now=7)}
    assert snap[2]["hung"] and snap[2]["iteration"] == 4 and not snap[0]["hung"]
    v = feed(wd, 7, [2], t=8)
    assert [(x.rank, x.hung) for x in v] == [(2, False)] and wd.hung() == []


def test_silent_rank_flagged_only_while_others_advance():
    wd = Watchdog(lag_threshold=100, silence_s=5)
    feed(wd, 0, [0, 1], t=0)
    # whole job pauses: nobody flagged
    assert wd.check(now=20) == []
    # rank 0 advances, rank 1 silent
    v = wd.observe(Heartbeat(1, 0, 1), now=21)
    assert wd.check(now=21) == []
    assert [(x.rank, x.hung) for x in v] == [(1, True)] and "silent for 21.0s" in v[0].reason


def test_expected_rank_never_reporting_is_flagged():
    wd = Watchdog(expected=[(1, 0), (1, 1), (1, 2)], silence_s=0)
    feed(wd, 0, [0, 1], t=0)
    v = feed(wd, 1, [0, 1], t=1)
    assert [(x.rank, x.hung) for x in v] == [(2, True)]
    assert "never reported while the job went from iteration 0 to 1" in v[0].reason


def test_jobs_are_independent():
    wd = Watchdog(silence_s=0)
    feed(wd, 10, [0], t=0)
    wd.observe(Heartbeat(2, 0, 0), now=0)
    assert wd.observe(Heartbeat(2, 1, 0), now=0) == [] and wd.hung() == []


def test_after_a_restore_the_first_digests_do_not_flag_the_others():
    """A fresh watchdog; heartbeats resume at iteration 4; the ranks' digests arrive one after
    the other: nobody is flagged."""
    wd = Watchdog(expected=[(1, 0), (1, 1), (1, 2)], silence_s=0)
    assert wd.observe(Heartbeat(1, 0, 4), now=0) == []
    assert wd.observe(Heartbeat(1, 1, 4), now=0) == []
    assert wd.observe(Heartbeat(1, 2, 4), now=0) == []
    feed(wd, 5, [0, 1], t=1)
    v = feed(wd, 6, [0, 1], t=2)
    assert [(x.rank, x.hung) for x in v] == [(2, True)]


def test_a_restarted_job_is_a_new_incarnation_at_its_first_digest():
    """The switch reports every iteration change, so a rank going back means the job restarted:
    its ranks are watched afresh from the restart (no register reset, no call into the watchdog)."""
    wd = Watchdog(expected=[(1, 0), (1, 1), (1, 2)], lag_threshold=2, silence_s=0)
    for it in range(6):
        feed(wd, it, [0, 1] if it >= 3 else [0, 1, 2], t=it)
    assert [s.rank for s in wd.hung()] == [2]  # rank 2 died at iteration 2
    v = wd.observe(Heartbeat(1, 0, 3), now=10)  # the job resumed from the checkpoint at 3
    assert [(x.rank, x.hung, x.reason) for x in v] == [(2, False, "job restarted at iteration 3")]
    assert {r["rank"]: r["iteration"] for r in wd.snapshot(now=10)} == {0: 3, 1: None, 2: None}
    assert feed(wd, 3, [1, 2], t=10) == [] and feed(wd, 4, [0, 1, 2], t=11) == []
    # after the restart the watchdog works as before: rank 1 stalls and is flagged
    feed(wd, 5, [0, 2], t=12)
    v = feed(wd, 6, [0, 2], t=13)
    assert [(x.rank, x.hung) for x in v] == [(1, True)] and "2 behind" in v[0].reason
    # another job is not touched by job 1's restart
    wd.observe(Heartbeat(2, 0, 9), now=14)
    wd.observe(Heartbeat(1, 0, 0), now=15)
    assert {(r["job_id"], r["rank"]): r["iteration"] for r in wd.snapshot(now=15)}[(2, 0)] == 9
