"""An idle shadow sleeps: no thread of a bootstrapped node wakes up while nothing arrives (issue #16:
the shadows' timers and polls cost CPU on the trainers' cores).  Counted with the kernel's voluntary
context switches of each node thread (/proc/self/task/TID/status) over half a second -- a count, not a
timing: the former 50-200 ms poll timeouts woke the four threads about 20 times in that window."""
import threading
import time

import pytest

from shadow.node import ShadowConfig, ShadowNode
from tests.shadow.wakeups import voluntary_switches


@pytest.mark.timeout(30)
def test_idle_node_threads_do_not_wake(reference_run, cluster):
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.drive(2)  # bootstrapped, two iterations applied: every thread has run
    node = c.nodes[0]
    tids = [t.native_id for t in node._threads]
    assert len(tids) == 4
    time.sleep(0.2)  # let the last publication settle
    before = voluntary_switches(tids)
    time.sleep(0.5)
    after = voluntary_switches(tids)
    woke = {t: after[t] - before[t] for t in tids}
    assert sum(woke.values()) <= 1, f"idle node threads woke up: {woke}"
    # and it still serves: the next iteration is applied
    c.send(0, c.packets(3, 0))
    c.manifest(3)
    assert c.wait_latest(3)


def test_stop_wakes_every_thread(tmp_path):
    node = ShadowNode(ShadowConfig(job_id=1, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                   ckpt_dir=tmp_path)).start()
    t = time.monotonic()
    node.stop(timeout=5)
    assert not any(th.is_alive() for th in node._threads)
    assert time.monotonic() - t < 4, "a thread only noticed stop() by a timeout"
    assert threading.active_count() >= 1


def test_stop_right_after_start_loses_no_wakeup(tmp_path):
    """stop() at once after start(): a thread that checked the stop flag before stop() set it and
    then waited on its condition missed the notification and slept for ever (CI, a loaded machine:
    the persist or apply thread alive after stop).  The flag is now checked under the lock."""
    for i in range(40):
        node = ShadowNode(ShadowConfig(job_id=1, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                                       ckpt_dir=tmp_path / str(i))).start()
        node.stop(timeout=2)
        alive = [th.name for th in node._threads if th.is_alive()]
        assert not alive, f"round {i}: still running after stop(): {alive}"
