"""One differential session: both switches, started once, and the comparison of a case on them.

Shared by the pytest suite (``test_differential.py``) and the random-program drivers
(``fuzz_*``): :class:`Targets` holds BMv2 and checkmate-switch and restarts one that died or
hung; :func:`compare` runs a case on both at once and returns BMv2's observation with the
differences (a difference is believed only after a second, slower look: quiescence is a
timeout).  :func:`bmv2_reruns` looks at a difference once more on fresh BMv2 processes: what
BMv2 itself answers differently from run to run (which pooled PHV an E2E clone gets is its
threads' timing) is BMv2's inconsistency, not a finding.
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


#: fresh BMv2 processes :func:`bmv2_reruns` runs a differing case on: fuzz_mutants 5126's frame 2
#: came out one way in 3 of 5 fresh runs, so three runs in all agreed by chance about a third of the time
BMV2_RERUNS = 4


def _units(obs) -> dict:
    """An observation cut into the parts judged apart: the outputs per port (per received frame
    of a one-by-one case, whose ``ports`` is ``{"seq": [outputs of frame 0, ...]}``), the
    digests, each counter cell."""
    out = {}
    for p, v in obs.ports.items():
        if p == "seq":
            out.update({("frame", i): o for i, o in enumerate(v)})
        else:
            out[("port", p)] = v
    out[("digests",)] = obs.digests
    for c, cells in obs.counters.items():
        out.update({("counter", c, k): v for k, v in cells.items()})
    return out


def split_by_bmv2(bmv2_runs, ours_runs) -> tuple[list[str], list[str]]:
    """(the differences on parts all of BMv2's runs agree on, the parts BMv2's runs disagree on):
    a part checkmate-switch answers otherwise than BMv2's every run is a difference; a part BMv2
    answers differently from run to run cannot judge checkmate-switch's answer there."""
    bu, ou = [_units(o) for o in bmv2_runs], [_units(o) for o in ours_runs]
    stable, flaky = [], []
    for k in sorted(set().union(*bu, *ou), key=str):
        seen = [u.get(k) for u in bu]
        if any(v != seen[0] for v in seen):
            mine = [u.get(k) for u in ou]
            flaky.append(f"{' '.join(map(str, k))}: bmv2 runs {seen}; checkmate {mine[0]}"
                         + (" (one of them)" if mine[0] in seen else ""))
        elif any(u.get(k) != seen[0] for u in ou):
            stable.append(f"{' '.join(map(str, k))}: bmv2 {seen[0]} != checkmate "
                          f"{next(u.get(k) for u in ou if u.get(k) != seen[0])}")
    return stable, flaky


def bmv2_reruns(targets, case, ref, ours, expected, tries: int = BMV2_RERUNS) -> tuple[list[str], list[str]]:
    """A difference :func:`compare` found, looked at again: ``case`` on both switches ``tries``
    more times, BMv2 restarted before each (a fresh process, its PHV pool empty), then
    :func:`split_by_bmv2` over BMv2's runs (``expected`` the first) and checkmate-switch's.
    BMv2 1.15.5 releases an original and its clones' PHVs to its pool in the order its transmit
    thread gets them from two racing egress threads (runtime/engine.Engine._session_copy): a
    read of a header that was never valid in a clone (an invalid metadata stack element the
    clone pops: fuzz_mutants 4790, 5126) gets another packet's values from run to run.  Every
    other rerun has BMv2 alone: 5126's frame 2 came out the same in five runs beside
    checkmate-switch and otherwise in four of five alone."""
    runs, mine = [expected], []
    try:
        for i in range(tries):
            targets.restart(targets.bmv2.name)
            if i % 2:   # BMv2 alone: without checkmate-switch busy beside it its threads race otherwise
                runs.append(run_case(targets.bmv2, case, ref, 1.5))
                continue
            b, c = both(targets, case, ref, ours, 1.5)
            runs.append(b)
            mine.append(c)
    finally:
        targets.check()   # a switch that died on a rerun is started again for the next case
    return split_by_bmv2(runs, mine)


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
