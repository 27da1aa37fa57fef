"""diff_session.compare when BMv2 dies in the middle of a comparison (no switch started: fakes).

BMv2 1.15.5's PI corrupts its heap now and then; when that happens between the first look at a case
and the slower second one, the second finds nobody listening.  That is a death of BMv2, which the
suite runs again (redo_if_bmv2_died), not a failure of ours -- while a hang, or a failure of
checkmate-switch, is still raised.  Likewise a P4Runtime run a switch's death broke off.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import diff_session
from diff_harness import TargetError


class _Proc:
    def __init__(self, code):
        self.returncode = code

    def wait(self, timeout=None):
        if self.returncode is None:
            raise TimeoutError

    def poll(self):
        return self.returncode


class _Targets:
    def __init__(self, bmv2_code):
        self.bmv2 = SimpleNamespace(name="bmv2", p=SimpleNamespace(proc=_Proc(bmv2_code)))
        self.cm = SimpleNamespace(name="checkmate", p=SimpleNamespace(proc=_Proc(None)))
        self.restarted, self.checks = [], 0

    def restart(self, name):
        self.restarted.append(name)

    def check(self):
        self.checks += 1
        return ["bmv2 exited with -6:\ncorrupted double-linked list"] if self.bmv2.p.proc.poll() is not None else []


def _raise(who):
    def both(*_a, **_k):
        raise TargetError(f"{who}: ConnectionFailed: nothing answers gRPC there")
    return both


def test_bmv2_dead_mid_comparison_is_a_death_that_is_run_again(monkeypatch):
    monkeypatch.setattr(diff_session, "both", _raise("bmv2"))
    t = _Targets(bmv2_code=-6)
    expected, diff, dead = diff_session.compare(t, None, None, None)
    assert expected is None and diff and dead and diff_session.only_bmv2(dead)
    runs = []
    res = diff_session.redo_if_bmv2_died(lambda: runs.append(1) or diff_session.compare(t, None, None, None),
                                         lambda r: diff_session.only_bmv2(r[2]))
    assert len(runs) == diff_session.BMV2_TRIES and res[2]  # still dead after every try: a failure


@pytest.mark.parametrize("who,code", [("bmv2", None), ("checkmate", None)])
def test_a_hang_or_our_failure_is_still_raised(monkeypatch, who, code):
    monkeypatch.setattr(diff_session, "both", _raise(who))
    monkeypatch.setattr(diff_session, "_exited", lambda target, wait=3.0: target.p.proc.poll() is not None)
    t = _Targets(bmv2_code=code)
    with pytest.raises(TargetError):
        diff_session.compare(t, None, None, None)
    assert t.restarted == [who]


def test_a_batch_goes_on_after_bmv2_dies_mid_batch():
    """Real simple_switch_grpc: a program on which BMv2 dies at packet time (a ``log_msg`` with more
    ``{}`` than values, tests/p4c/test_load_refused.py's DIES) between two ordinary ones.  BMv2 1.15.5
    closes its gRPC server and hangs in its exit instead of exiting; the session took it for alive
    (both switches forward nothing there, so no second look), and the next program failed with
    "nothing answers gRPC there".  Now the death is reported on the program that caused it and the
    programs after it get BMv2's frames."""
    from diff_harness import compile_both
    from diff_targets import bmv2_available
    from diffcases.base import H, case, program
    reason = bmv2_available()
    if reason:
        pytest.skip(reason)
    good = [case(f"harn_batch_{n}", "session", program("        hdr.h.b = hdr.h.b + 1;"),
                 frames=[(1, H(5, 2, 3, 4))]) for n in "ac"]
    dies = case("harn_batch_b_dies", "session", program('        if (hdr.h.a == 9) { log_msg("{}", { hdr.h.a }); }'),
                frames=[(1, H(9, 2, 3, 4))])
    t = diff_session.Targets()
    try:
        results = []
        for c in (good[0], dies, good[1]):
            ref, ours = compile_both(c)
            results.append(diff_session.redo_if_bmv2_died(lambda: diff_session.compare(t, c, ref, ours),
                                                          lambda r: diff_session.only_bmv2(r[2])))
    finally:
        t.stop()
    for expected, diff, dead in (results[0], results[2]):
        assert expected.ports == {1: [H(5, 3, 3, 4).hex()]} and not diff and not dead
    assert diff_session.only_bmv2(results[1][2])   # BMv2's death on the program that caused it


@pytest.mark.parametrize("who", ["bmv2", "checkmate"])
@pytest.mark.parametrize("when", ["request", "connection"])
def test_a_p4runtime_run_broken_off_by_a_death(monkeypatch, who, when):
    """test_p4rt_vs_bmv2.run when a switch dies under a request (SetForwardingPipelineConfig got
    "Stream removed" from a BMv2 whose PI crashed, once in CI) or was gone before the run connected
    (its channel never ready, once in CI): BMv2's death is run again like one seen after the run, a
    death of checkmate-switch is raised."""
    import grpc

    import fuzz_p4rt as F
    import test_p4rt_vs_bmv2 as V
    deaths = [f"{who} exited with -11"]

    class Primary:
        def __init__(self, name):
            self.name = name
            if when == "connection" and name == who and deaths:
                raise grpc.FutureTimeoutError()

        def set_pipeline(self, *_a, **_k):
            if self.name == who and deaths:
                raise grpc.RpcError("Stream removed")
    for name, fake in [("compile_p4c", lambda case: SimpleNamespace(p4info=None, device_config=None)),
                       ("pipeline_config", lambda *_a: None), ("Normalizer", lambda _i: None),
                       ("_flush_digests", lambda *_a: None), ("_close", lambda _s: None),
                       ("_open", lambda t, _b, _c: SimpleNamespace(primary=Primary(t.name)))]:
        monkeypatch.setattr(F, name, fake)
    targets = SimpleNamespace(bmv2=SimpleNamespace(name="bmv2"), cm=SimpleNamespace(name="checkmate"),
                              check=lambda: [deaths.pop()] if deaths else [])
    if who == "bmv2":
        assert V.run(targets, 0, lambda _info: [], source="//") == [] and not deaths
    else:
        with pytest.raises((grpc.RpcError, grpc.FutureTimeoutError)):
            V.run(targets, 0, lambda _info: [], source="//")


def test_the_second_look_waits_for_the_first_looks_stragglers(monkeypatch):
    """A difference is looked at again only once both switches are quiet for the slower idle time:
    frames of a first look cut short arrived after the second look's drain (each frame twice)."""
    events = []

    def both(_t, _case, _ref, _ours, idle):
        events.append(("look", idle))
        return SimpleNamespace(diff=lambda other: ["differs"]), None

    monkeypatch.setattr(diff_session, "both", both)
    t = _Targets(bmv2_code=None)
    for target in (t.bmv2, t.cm):
        target.collect = lambda idle, name=target.name: events.append(("quiet", name, idle)) or []
    diff_session.compare(t, None, None, None)
    assert events[0] == ("look", 0.25) and events[-1] == ("look", 1.5)
    assert sorted(events[1:3]) == [("quiet", "bmv2", 1.5), ("quiet", "checkmate", 1.5)]


def _obs(frames, counters=None):
    from diff_harness import Observation
    return Observation({"seq": [[(3, f)] for f in frames]}, [], counters or {})


@pytest.mark.parametrize("bmv2,ours,kind", [
    # fuzz_mutants 5126 (an E2E clone reading a never-valid metadata stack element): BMv2's fresh runs
    # hand the clones other pooled PHVs; checkmate-switch's answer is one of them
    ([["a0", "b0", "c0"], ["a0", "b1", "c0"], ["a0", "b0", "c1"]], ["a0", "b1", "c1"], "BMV2-FLAKY"),
    # BMv2 agrees with itself on every run: the difference stands
    ([["a0", "b0", "c0"]] * 3, ["a0", "b1", "c0"], "FRAMES"),
    # a difference where BMv2's runs agree stands beside one where they do not
    ([["a0", "b0", "c0"], ["a0", "b1", "c0"], ["a0", "b1", "c0"]], ["a9", "b1", "c0"], "FRAMES"),
])
def test_a_difference_bmv2_does_not_repeat_on_fresh_runs_is_bmv2s(monkeypatch, bmv2, ours, kind):
    """fuzz_run.check_case's FRAMES/JSONPATH differences are run again on fresh BMv2 processes
    (diff_session.bmv2_reruns): a difference only in the parts BMv2 answers differently from run to
    run is BMV2-FLAKY (not ours: fuzz_mutants 4790, 5126, whose BMv2 answers varied between
    reruns, were FRAMES); the parts where BMv2's runs agree still judge checkmate-switch."""
    import fuzz_run
    reruns = (bmv2[1:] + [bmv2[-1]] * diff_session.BMV2_RERUNS)[:diff_session.BMV2_RERUNS]
    runs = iter([_obs(b) for b in reruns])
    monkeypatch.setattr(diff_session, "both", lambda *_a: (next(runs), _obs(ours)))
    monkeypatch.setattr(diff_session, "run_case", lambda target, *_a: next(runs))   # BMv2 alone
    t = _Targets(bmv2_code=None)
    first = _obs(bmv2[0])
    diff = first.diff(_obs(ours))
    got_kind, text = fuzz_run._judged(t, None, None, None, first, "FRAMES", diff)
    assert got_kind == kind and t.restarted == ["bmv2"] * diff_session.BMV2_RERUNS and next(runs, None) is None
    assert (got_kind in fuzz_run.NOT_OURS) == (kind == "BMV2-FLAKY")
    if bmv2[0][0] != ours[0]:
        assert text.startswith("frame 0: bmv2 [(3, 'a0')] != checkmate [(3, 'a9')]") and "frame 1: bmv2 runs" in text


def test_split_by_bmv2_judges_ports_digests_and_counter_cells_apart():
    from diff_harness import Observation
    b1 = Observation({1: ["x"], 2: ["y"]}, [("d", "1")], {"c": {0: (1, 64), 1: (2, 128)}})
    b2 = Observation({1: ["x"], 2: ["z"]}, [("d", "1")], {"c": {0: (1, 64), 1: (3, 192)}})
    mine = Observation({1: ["x"], 2: ["z"]}, [("d", "2")], {"c": {0: (1, 60), 1: (3, 192)}})
    stable, flaky = diff_session.split_by_bmv2([b1, b2], [mine])
    assert [s.split(":")[0] for s in stable] == ["counter c 0", "digests"]
    assert [s.split(":")[0] for s in flaky] == ["counter c 1", "port 2"]
    assert all(s.endswith("(one of them)") for s in flaky)
