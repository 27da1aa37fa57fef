"""Test plumbing for the testbed tests: a Mininet switch class that runs ``l2fwd.py`` (a trivial
learning L2 forwarder) through the same ``ProcessSwitch`` machinery as ``checkmate-switch``, and a
stand-alone "runner" (``python netkit.py LOGS KIND``) that brings a network up, starts one long-running
process on a host, and tears down on SIGTERM -- the crash/``--stop`` tests kill or signal it."""
from __future__ import annotations

import json
import os
import secrets
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from topologies import generate  # noqa: E402
from topologies import net as tnet  # noqa: E402
from topologies.procs import ProcessTable  # noqa: E402


class L2FwdSwitch(tnet.ProcessSwitch):
    label = "l2fwd"

    def command(self):
        return [sys.executable, str(HERE / "l2fwd.py"), *self.port_args(),
                "--ready-file", str(self.log_dir / f"{self.name}.ready")]

    def ready(self):
        return (self.log_dir / f"{self.name}.ready").exists()


def bring_up(kind: str, logs: Path, trainers=3, shadows=2, mtu=1500):
    tag = secrets.token_hex(2)[:3]
    topo = generate.generate(kind, trainers, shadows)
    procs = ProcessTable(logs / "state.json", f"test-{kind}")
    procs.note(tag=tag)
    net = tnet.build_network(topo, tag, L2FwdSwitch, procs, logs, mtu=mtu)
    return net, procs, topo, tag


class _Term(SystemExit):
    pass


def _term(signum, frame):
    raise _Term(0)


def main(argv):
    logs, kind = Path(argv[0]), argv[1]
    signal.signal(signal.SIGTERM, _term)
    net = procs = topo = tag = None
    try:
        net, procs, topo, tag = bring_up(kind, logs)
        procs.spawn("sleeper", ["sleep", "600"], logs / "sleeper.log", node=net.get("h1"), kind="trainer")
        (logs / "up.json").write_text(json.dumps({"tag": tag, "pid": os.getpid()}))
        while True:
            time.sleep(0.2)
    finally:
        if procs is not None:
            procs.stop_kind("trainer", timeout=2)
            tnet.teardown_network(net, procs, topo, tag)
            procs.remove_state()


if __name__ == "__main__":
    main(sys.argv[1:])
