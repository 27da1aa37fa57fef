"""CPU placement of ``checkmate bench``: the plan on synthetic CPU lists, and pinning real processes."""
import os
import subprocess
import sys
import time

import pytest

from benchmarks import placement


def test_small_machine_stays_shared_and_says_why():
    p = placement.plan((0, 1), trainers=3, shadows=2)
    assert p.mode == "shared" and p.trainers == () and p.infra == ()
    assert p.cpus_for("trainer") is None and p.cpus_for("switch") is None
    assert "fewer than 4 CPUs" in p.describe()


@pytest.mark.parametrize("ncpu,trainers,shadows,n_train", [
    (4, 3, 2, 2),    # infra gets ceil(4 * 3/6) = 2
    (16, 3, 2, 8),   # half and half: 3 trainers vs switch + 2 shadows
    (8, 6, 1, 6),    # ceil(8 * 2/8) = 2 for the infra
    (5, 1, 9, 1),    # the trainers always keep at least one CPU
])
def test_split_is_disjoint_and_covers_every_cpu(ncpu, trainers, shadows, n_train):
    cpus = tuple(range(100, 100 + ncpu))
    p = placement.plan(reversed(cpus), trainers, shadows)
    assert p.mode == "split"
    assert len(p.trainers) == n_train and p.trainers == cpus[:n_train]
    assert not set(p.trainers) & set(p.infra) and set(p.trainers) | set(p.infra) == set(cpus)
    assert p.cpus_for("trainer") == p.trainers
    assert p.cpus_for("switch") == p.cpus_for("shadow") == p.cpus_for("controller") == p.infra
    assert p.cpus_for("something-else") is None
    first, last = cpus[0], cpus[n_train - 1]
    assert f"trainers on CPUs {first if n_train == 1 else f'{first}-{last}'}," in p.describe()


def test_modes_and_errors():
    assert placement.plan(range(8), 3, 2, "shared").mode == "shared"
    assert placement.plan((0, 1), 3, 2, "split").trainers == (0,)
    with pytest.raises(ValueError, match="at least 2 CPUs"):
        placement.plan((3,), 3, 2, "split")
    with pytest.raises(ValueError, match="choose from"):
        placement.plan((0, 1), 3, 2, "pinned")
    assert placement.parse_cpus("0-3, 8,2") == (0, 1, 2, 3, 8)
    for bad in ("", "a", "3-1", "-2"):
        with pytest.raises(ValueError, match="--cpus"):
            placement.parse_cpus(bad)
    assert placement.plan(range(4), 3, 2).to_json()["describe"].startswith("split")


def test_apply_pins_every_thread_of_live_processes():
    cpus = placement.usable_cpus()
    if len(cpus) < 2:
        pytest.skip("needs 2 usable CPUs to split")
    p = placement.plan(cpus[:2], trainers=1, shadows=1, mode="split")
    code = ("import threading, time\n"
            "for _ in range(3):\n"
            "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "print('up', flush=True)\n"
            "time.sleep(30)\n")
    kids = {kind: subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
            for kind in ("trainer", "switch")}
    try:
        for k in kids.values():
            assert k.stdout.readline().strip() == b"up"
        pinned = placement.apply(p, {k.pid: kind for kind, k in kids.items()})
        assert pinned == {k.pid: 4 for k in kids.values()}  # main thread + 3
        for kind, k in kids.items():
            want = set(p.cpus_for(kind))
            for tid in os.listdir(f"/proc/{k.pid}/task"):
                assert os.sched_getaffinity(int(tid)) == want, (kind, tid)
        # shared placement pins nothing
        assert placement.apply(placement.plan(cpus, 1, 1, "shared"), {kids["trainer"].pid: "trainer"}) == {}
    finally:
        for k in kids.values():
            k.kill()
            k.wait()
    assert placement.pin(kids["trainer"].pid, cpus) == 0  # gone


def test_idle_shadows_run_every_thread_under_sched_idle():
    p = placement.plan(placement.usable_cpus(), trainers=1, shadows=1, mode="shared", shadows_idle=True)
    assert p.shadows_idle and p.describe().endswith("shadows at idle CPU priority (SCHED_IDLE)")
    assert not placement.plan((0, 1), 1, 1).shadows_idle
    code = ("import threading, time\n"
            "threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "print('up', flush=True)\n"
            "time.sleep(30)\n")
    kids = {kind: subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
            for kind in ("shadow", "trainer")}
    try:
        for k in kids.values():
            assert k.stdout.readline().strip() == b"up"
        assert placement.apply(p, {k.pid: kind for kind, k in kids.items()}) == {}  # shared: nothing pinned
        for kind, k in kids.items():
            want = os.SCHED_IDLE if kind == "shadow" else os.SCHED_OTHER
            for tid in os.listdir(f"/proc/{k.pid}/task"):
                assert os.sched_getscheduler(int(tid)) == want, (kind, tid)
    finally:
        for k in kids.values():
            k.kill()
            k.wait()
