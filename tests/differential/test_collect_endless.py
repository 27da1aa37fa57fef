"""``Target.collect`` and a switch that never goes quiet (an endless E2E clone chain: BMv2 sends ~40,000
frames/s forever, fuzz_mutants seed 4495): it returns once more than ``COLLECT_MAX`` frames arrived
instead of waiting -- and growing its list -- until the seed timeout.  No switch needed: a thread feeds
the target; it stops after 4 x COLLECT_MAX frames so that a collect without the bound still ends (and
fails on the count).  Counted, not timed."""
import threading
import time

from diff_targets import COLLECT_MAX, Target


def test_collect_stops_at_the_bound_for_a_switch_that_never_goes_quiet():
    t = Target()
    stop = threading.Event()

    def feed():
        for i in range(4 * COLLECT_MAX):
            if stop.is_set():
                return
            t._deliver(3, i.to_bytes(4, "big"))
            if i % 256 == 255:
                time.sleep(0)   # (lets collect take the lock on a loaded host)

    th = threading.Thread(target=feed, daemon=True)
    th.start()
    try:
        out = t.collect(1.0)
    finally:
        stop.set()
        th.join(10)
    assert COLLECT_MAX < len(out) < 4 * COLLECT_MAX
    assert out[0] == (3, bytes(4))
