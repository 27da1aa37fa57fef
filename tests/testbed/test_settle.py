"""The consistent checkpoint the runner records after a failure (no root): :meth:`topologies.runner.
Testbed.settled_checkpoint` waits for the shadows' status to stop moving before it reads the newest
iteration every shard holds.  The pollers here are plain objects a thread updates as
:class:`topologies.monitor.ShadowPoller` would (in-process fakes: the runner's own loop is what runs)."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from topologies import runner

pytestmark = pytest.mark.timeout(60)


def _status(latest: int, packets: int, pending: int = 0) -> dict:
    return {"latest_iteration": latest, "previous_iteration": latest - 1, "held_iterations": list(range(max(0, latest - 4), latest + 1)),
            "packets": packets, "pending": pending}


def _bed(*pollers) -> SimpleNamespace:
    bed = SimpleNamespace(pollers=dict(enumerate(pollers)))
    bed.ckpt_iteration = lambda: runner.Testbed.ckpt_iteration(bed)
    return bed


def test_copies_still_draining_after_the_kill_are_waited_for():
    """Shard 1 still publishes 3 and then 4 (0.3 s apart, well inside the 2 s quiet period, so a
    loaded machine does not end the wait between them) after the trainers stopped: the checkpoint
    read at once is 2, the settled one 4 (CI of 16744eda's leafspine-2 resumed at 5 after reading 2)."""
    a, b = SimpleNamespace(latest=_status(4, 90)), SimpleNamespace(latest=_status(2, 50, pending=2))

    def drain():
        for it, pk, pend in ((3, 70, 1), (4, 90, 0)):
            time.sleep(0.3)
            b.latest = _status(it, pk, pend)
    bed = _bed(a, b)
    assert bed.ckpt_iteration() == 2
    t = threading.Thread(target=drain)
    t.start()
    try:
        assert runner.Testbed.settled_checkpoint(bed, quiet=2.0, limit=10.0) == 4
    finally:
        t.join()


def test_an_iteration_cut_short_does_not_hold_the_wait():
    """A shard with an iteration pending forever (the kill cut its copies short) and nothing moving:
    the wait ends after the quiet period, with the checkpoint every shard holds."""
    bed = _bed(SimpleNamespace(latest=_status(3, 60, pending=1)), SimpleNamespace(latest=_status(3, 60)))
    t0 = time.monotonic()
    assert runner.Testbed.settled_checkpoint(bed, quiet=0.5, limit=10.0) == 3
    assert time.monotonic() - t0 < 5.0


def test_shadows_that_never_settle_end_at_the_limit():
    """Packets that keep arriving (another job's traffic, a shadow resending) end the wait at ``limit``."""
    p = SimpleNamespace(latest=_status(5, 0))
    stop = threading.Event()

    def churn():
        n = 0
        while not stop.wait(0.05):
            n += 1
            p.latest = _status(5, n)
    t = threading.Thread(target=churn)
    t.start()
    try:
        t0 = time.monotonic()
        assert runner.Testbed.settled_checkpoint(_bed(p), quiet=0.5, limit=1.5) == 5
        assert 1.4 < time.monotonic() - t0 < 5.0
    finally:
        stop.set()
        t.join()
