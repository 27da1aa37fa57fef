"""Child processes the tests start (``checkmate-switch``, ``simple_switch``, ``simple_switch_grpc``):
one way to stop them and one way to keep their stderr for the failure message.

* :func:`free_port` -- a loopback TCP port for a child to listen on (or, unused, one that refuses).
* :func:`stop_child` -- SIGTERM, up to ``timeout`` seconds, then SIGKILL; never leaves a zombie.
* :class:`LoggedProc` -- ``Popen`` with stderr in a temporary log file; :meth:`LoggedProc.logtext`
  reads it back for an assertion message, :meth:`LoggedProc.stop` ends the process, closes its pipes and
  removes the log (safe to call twice).

Whoever waits for a switch to come up keeps doing so with :func:`switch.ready.wait_ready` (the READY
line) or its own probe; this module only owns the process and its log.  Imported as
``tests.childproc`` (the repository root is on ``sys.path`` under ``python -m pytest``).
"""
from __future__ import annotations

import os
import socket
import subprocess
import tempfile
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listened on a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_child(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """Terminate ``proc`` if it still runs; kill it when it has not exited after ``timeout`` s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


class LoggedProc:
    """``subprocess.Popen(argv, stderr=<temp log>, **popen_kw)``; the log's name starts with ``prefix``."""

    def __init__(self, argv: list[str], prefix: str = "cmproc-", **popen_kw):
        self.log = tempfile.NamedTemporaryFile(prefix=prefix, suffix=".log", delete=False)
        self.log_path = Path(self.log.name)
        self.proc = subprocess.Popen(argv, stderr=self.log, **popen_kw)
        self.stopped = False

    def logtext(self, tail: int | None = None) -> str:
        """The process's stderr so far (its last ``tail`` characters when given)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(log already removed)"
        return text[-tail:] if tail else text

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        stop_child(self.proc)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()
        try:
            os.unlink(self.log_path)
        except OSError:
            pass
