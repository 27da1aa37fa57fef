"""One differential session: both switches, started once, and the comparison of a case on them.

Shared by the pytest suite (``test_differential.py``) and the random-program drivers
(``fuzz_*``): :class:`Targets` holds BMv2 and checkmate-switch and restarts one that died or
hung; :func:`compare` runs a case on both at once and returns BMv2's observation with the
differences (a difference is believed only after a second, slower look: quiescence is a
timeout).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from diff_harness import Observation, TargetError, compile_p4c, run_case
from diff_targets import BMv2Target, CheckmateTarget


class Targets:
    """Both switches; one that died (a crash is itself a finding) is reported and restarted."""

    def __init__(self, target_args: tuple[str, ...] = ()):
        #: simple_switch_grpc target options both switches start with (--drop-port, --priority-queues)
        self.target_args = tuple(target_args)
        self.bmv2, self.cm = BMv2Target(target_args=self.target_args), CheckmateTarget(target_args=self.target_args)

    def check(self):
        dead = []
        for attr, cls in (("bmv2", BMv2Target), ("cm", CheckmateTarget)):
            t = getattr(self, attr)
            if t.conn.stream_ended.is_set():   # the stream broke: give a dying process time to exit
                try:
                    t.p.proc.wait(3)
                except Exception:
                    pass
            if t.p.proc.poll() is not None:
                dead.append(f"{t.name} exited with {t.p.proc.returncode}:\n{t.p.tail()}")
            elif not t.answers():  # dying without exiting (diff_targets.BMv2Target): as dead
                dead.append(f"{t.name} stopped answering gRPC (its process hangs exiting):\n{t.p.tail()}")
                t.p.proc.kill()
            else:
                continue
            t.stop()
            setattr(self, attr, cls(target_args=self.target_args))
        return dead

    def restart(self, name: str):
        for attr, cls in (("bmv2", BMv2Target), ("cm", CheckmateTarget)):
            t = getattr(self, attr)
            if t.name == name:
                t.stop()
                setattr(self, attr, cls(target_args=self.target_args))

    def stop(self):
        self.bmv2.stop()
        self.cm.stop()


#: runs of one comparison when BMv2 alone died in it: its PI corrupts its heap now and then
#: (fuzz_p4rt seed 1 in CI: "corrupted double-linked list" while digests were being
#: unsubscribed), which says nothing of ours; a crash it repeats on every run stays a failure
BMV2_TRIES = 3


def redo_if_bmv2_died(run, bmv2_died):
    """``run()`` again (up to :data:`BMV2_TRIES` in all) while ``bmv2_died(result)``: BMv2, and
    only BMv2, died, so the comparison is incomplete.  ``targets.check()`` has restarted it by
    then.  Returns the last result; a death of ours is never retried."""
    for _ in range(BMV2_TRIES):
        res = run()
        if not bmv2_died(res):
            return res
    return res


def only_bmv2(dead) -> bool:
    """The deaths ``Targets.check()`` reported are all BMv2's (and there is at least one)."""
    return bool(dead) and all(d.startswith("bmv2") for d in dead)


def targets_compiling_ahead(cases):
    """A module fixture's body: one :class:`Targets` pair for the module while p4c compiles
    ``cases`` (an iterable of :class:`~diff_harness.Case`) in one background thread -- it runs
    while the switches idle between cases (quiescence waits), and ``compile_p4c`` serialises per
    source, so a test waits only for its own program."""
    pool = ThreadPoolExecutor(max_workers=1)
    for c in cases:
        pool.submit(compile_p4c, c)
    t = Targets()
    try:
        yield t
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        t.stop()


_BOTH = ThreadPoolExecutor(max_workers=2)


def both(targets, case, ref, ours, idle):
    """Run the case on both switches at once (their quiescence waits overlap)."""
    fb = _BOTH.submit(run_case, targets.bmv2, case, ref, idle)
    fc = _BOTH.submit(run_case, targets.cm, case, ours, idle)
    return fb.result(), fc.result()


def settle(targets, idle: float) -> None:
    """Wait until neither switch has sent anything for ``idle`` s: a first look cut short by its
    quiet time (a loaded machine: BMv2 silent for 0.25 s mid-case) leaves frames on their way, which
    arrive after the second look's drain and showed there as every frame twice (helper fuzz34:
    fuzz_headers 9421, fuzz_parsers 6024, fuzz_samples prec.p4, each agreeing when run again)."""
    for f in [_BOTH.submit(t.collect, idle) for t in (targets.bmv2, targets.cm)]:
        f.result()


def compare(targets, case, ref, ours) -> tuple[Observation, list[str], list[str]]:
    """Run ``case`` on BMv2 (``ref``) and checkmate-switch (``ours``): (BMv2's observation, the
    differences, the switches that died on it).  A switch that hangs is restarted and its
    :class:`TargetError` raised (it would poison every later case)."""
    try:
        expected, got = both(targets, case, ref, ours, 0.25)
        diff = expected.diff(got)
        if diff:  # quiescence is a timeout: believe a difference only after a slower second look
            settle(targets, 1.5)
            expected, got = both(targets, case, ref, ours, 1.5)
            diff = expected.diff(got)
    except TargetError as e:
        who = str(e).split(":", 1)[0]
        if who != targets.bmv2.name or not _exited(targets.bmv2):
            targets.restart(who)
            raise
        # BMv2 died in the middle (its second look at a difference found nobody listening): a
        # death like one seen after the comparison, which redo_if_bmv2_died runs again
        expected, diff = None, [str(e)]
    finally:
        dead = targets.check()
    return expected, diff, dead


def _exited(target, wait: float = 3.0) -> bool:
    """Whether ``target``'s process has exited (given ``wait`` seconds to finish dying), or hangs
    in its exit with its gRPC server closed (``Target.answers``; BMv2 after a fatal error in a
    packet thread): a death, which ``Targets.check`` reports and restarts."""
    try:
        target.p.proc.wait(wait)
    except Exception:  # noqa: BLE001 - still running (a hang, not a death)
        pass
    return target.p.proc.poll() is not None or not target.answers()
