"""The READY handshake of ``checkmate-switch``.

When every listener is up, the switch prints one line on stdout::

    checkmate-switch READY {"grpc": "127.0.0.1:50051", "tm": ..., "ports": {...}}

with the addresses it really bound (so port 0 works everywhere).  Whoever starts a
switch process -- tests, benchmarks, the testbed -- waits for that line with
:func:`wait_ready` instead of polling ports.
"""
from __future__ import annotations

import json
import select
import subprocess
import time

READY_PREFIX = "checkmate-switch READY "


class SwitchNotReady(RuntimeError):
    """The switch exited, or printed no READY line in time."""


def format_ready(info: dict) -> str:
    return READY_PREFIX + json.dumps(info)


def wait_ready(proc: subprocess.Popen, timeout: float) -> dict:
    """Read ``proc``'s stdout (text mode) until the READY line; return its JSON.

    Raises :class:`SwitchNotReady` naming what happened (exit code or timeout); the caller
    owns the process and points the user at its log.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([proc.stdout], [], [], 0.2)
        if r:
            line = proc.stdout.readline()
            if line.startswith(READY_PREFIX):
                return json.loads(line[len(READY_PREFIX):])
            if line:
                continue  # other output before READY
        if proc.poll() is not None:
            raise SwitchNotReady(f"checkmate-switch exited with code {proc.returncode} before READY")
    raise SwitchNotReady(f"checkmate-switch printed no READY line within {timeout:g}s")
