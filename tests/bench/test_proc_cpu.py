"""topologies.procs.proc_cpu: the CPU time of another process in nanoseconds (its CPU-time clock),
threads that already exited included, with /proc/PID/stat's 10 ms ticks only as the fallback.

A real child process burns CPU in a thread that then exits: the clock must count that thread (a sum
over /proc/PID/task/*/schedstat would not) and read finer than a clock tick (utime + stime would not)."""
import os
import subprocess
import sys
import time

import pytest

from topologies import procs

CHILD = r"""
import sys, threading, time
def burn(s):
    t = time.thread_time()
    while time.thread_time() - t < s:
        pass
th = threading.Thread(target=burn, args=(0.15,)); th.start(); th.join()
burn(0.0037)
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def child():
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        # the burning thread's join returns before the kernel releases it: until then it is still
        # listed in /proc/PID/task with its schedstat (a loaded CI run read the process clock's
        # exact value as the live threads' sum)
        deadline = time.monotonic() + 10
        while len(os.listdir(f"/proc/{p.pid}/task")) > 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        yield p
    finally:
        p.stdin.close()
        p.wait(10)


def _schedstat_sum(pid):
    ns = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            ns += int(f.read().split()[0])
    return ns / 1e9


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process CPU clock is Linux's")
def test_clock_counts_exited_threads_and_reads_finer_than_a_tick(child):
    secs, source = procs.proc_cpu(child.pid)
    assert source == procs.CPU_CLOCK
    assert secs >= 0.15  # the burning thread exited, its time stays with the process
    assert secs > _schedstat_sum(child.pid) + 0.1  # ... which the live threads' schedstat sum misses
    tick = 1 / os.sysconf("SC_CLK_TCK")
    again = procs.proc_cpu(child.pid)[0]
    assert again >= secs
    # sub-tick resolution: a tick count is a multiple of the tick, a nanosecond sum almost never is
    assert min(secs % tick, tick - secs % tick) > 1e-7 or min(again % tick, tick - again % tick) > 1e-7
    ticks, src = procs.proc_cpu(child.pid, precise=False)
    assert src == procs.CPU_TICKS and abs(ticks - secs) <= 2 * tick + 0.01
    assert procs.proc_cpu_s(child.pid) == pytest.approx(secs, abs=0.05)


def test_falls_back_to_ticks_when_the_clock_is_refused(child, monkeypatch):
    def refuse(_clk):
        raise OSError(22, "Invalid argument")
    monkeypatch.setattr(procs.time, "clock_gettime_ns", refuse)
    secs, source = procs.proc_cpu(child.pid)
    assert source == procs.CPU_TICKS and secs >= 0.14
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert abs(round(secs / tick) * tick - secs) < 1e-9  # whole ticks


def test_a_gone_process_reads_none():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait(10)
    deadline = time.monotonic() + 5
    while procs.proc_starttime(p.pid) is not None and time.monotonic() < deadline:
        time.sleep(0.01)  # (reaped: the pid is free; a recycled pid is too unlikely to matter here)
    assert procs.proc_cpu(p.pid) is None and procs.proc_cpu_s(p.pid) is None


NAMED = r"""
import ctypes, sys, threading, time
burnt = []
def burn(name, s, done):
    ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)   # PR_SET_NAME: the thread's comm
    t = time.thread_time()
    while time.thread_time() - t < s:
        pass
    done.set()
    threading.Event().wait()   # stays alive (a live thread is what thread_cpu_s reads)
evs = [threading.Event(), threading.Event()]
for a in (("sh0-persist", 0.12, evs[0]), ("sh0-conn", 0.05, evs[1])):
    threading.Thread(target=burn, args=a, daemon=True).start()
for e in evs:
    e.wait()
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/PID/task is Linux's")
def test_thread_cpu_counts_only_the_named_threads():
    """The bench's split of the shadows' CPU (suite.cpu_by_kind: shadow_persist) reads the threads
    whose OS name ends with a suffix, and none of the others."""
    p = subprocess.Popen([sys.executable, "-c", NAMED], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        persist = procs.thread_cpu_s(p.pid, "-persist")
        assert 0.11 <= persist < 0.2, persist            # the 0.12 s thread, not the 0.05 s one
        assert procs.thread_cpu_s(p.pid, "-nothing") == 0
        assert procs.proc_cpu_s(p.pid) >= persist + 0.04  # the whole process holds both
    finally:
        p.stdin.close()
        p.wait(10)
    assert procs.thread_cpu_s(p.pid, "-persist") is None   # gone
