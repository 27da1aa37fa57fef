"""The testbed's gRPC ports: where they are chosen, and how a started switch is known to hold its own.

A CI run once failed with "no gRPC server answered within 10s" right after the switch had been
"seen" ready: readiness was a bare TCP connect, which also succeeds when another process listens on
the port.  These tests pin the two defences: the block is chosen below the kernel's ephemeral range,
and readiness means the switch process itself listens (a stranger's listener is named in the error).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import psutil
import pytest

from topologies.monitor import free_port_block, port_search_range
from topologies.net import ProcessSwitch, SwitchStartError
from topologies.procs import listens, port_holder

LISTENER = ("import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
            "print(s.getsockname()[1], flush=True); time.sleep(60)")


@pytest.fixture
def child_listener():
    p = subprocess.Popen([sys.executable, "-c", LISTENER], stdout=subprocess.PIPE, text=True)
    try:
        yield p, int(p.stdout.readline())
    finally:
        p.kill()
        p.wait()
        p.stdout.close()


@pytest.fixture
def stranger():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


def test_listens_tells_a_process_own_listener_from_a_strangers(child_listener, stranger):
    proc, port = child_listener
    assert listens(proc.pid, port)
    assert not listens(proc.pid, stranger)  # it can connect there, but this test process holds it
    assert listens(os.getpid(), stranger) and listens(os.getpid(), port)  # the child's counts as its own
    assert port_holder(port).startswith(f"pid {proc.pid} (")
    assert port_holder(stranger).startswith(f"pid {os.getpid()} (")


def test_listens_counts_a_child_of_the_started_process(tmp_path):
    # a wrapper (CHECKMATE_SWITCH=a script) whose child binds the port
    out = tmp_path / "port"
    wrapper = subprocess.Popen(["/bin/sh", "-c", f'{sys.executable} -c "{LISTENER}" > {out}; :'])
    try:
        deadline = time.monotonic() + 20
        while not (out.exists() and out.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        port = int(out.read_text())
        assert listens(wrapper.pid, port)
    finally:
        for c in psutil.Process(wrapper.pid).children(recursive=True):
            c.kill()
        wrapper.wait()


def _switch(tmp_path, proc, port) -> ProcessSwitch:
    sw = ProcessSwitch.__new__(ProcessSwitch)  # no Mininet node: only the start-up wait is under test
    sw.__dict__.update(name="s9", proc=proc, grpc_port=port, ready_timeout=1.0, log_dir=tmp_path)
    return sw


def test_a_strangers_listener_is_not_taken_for_the_switch(tmp_path, stranger):
    proc = subprocess.Popen(["sleep", "30"])
    try:
        with pytest.raises(SwitchStartError, match=rf"not ready after 1s .*held by pid {os.getpid()} "):
            _switch(tmp_path, proc, stranger).wait_ready()
    finally:
        proc.kill()
        proc.wait()


def test_a_switch_that_lost_its_port_names_the_holder(tmp_path, stranger):
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    proc.wait()
    with pytest.raises(SwitchStartError, match=rf"exited with status 3 .*held by pid {os.getpid()} "):
        _switch(tmp_path, proc, stranger).wait_ready()


def test_the_switch_holding_its_port_is_ready(tmp_path, child_listener):
    proc, port = child_listener
    _switch(tmp_path, proc, port).wait_ready()  # returns at once


def test_port_block_is_free_and_below_the_ephemeral_range():
    lo, hi = port_search_range()
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    if low - 20000 >= 4096:
        assert hi <= low  # nobody's bind(0) or outgoing connection lands in the block
    for _ in range(20):
        p = free_port_block(6)
        assert lo <= p and p + 6 <= hi
        for q in range(p, p + 6):
            with socket.socket() as s:
                s.bind(("127.0.0.1", q))
