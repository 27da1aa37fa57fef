"""A testbed's life: can it start here, stop cleanly on SIGTERM/SIGHUP, and never cut a teardown short.

A testbed owns Mininet namespaces, veths and processes on the machine; leaving them behind breaks the
next run.  :func:`teardown_on_exit` is the one place that decides how the runner, the fault suite and
the bench react to signals:

* while the body runs (main thread only), SIGTERM and SIGHUP raise :class:`Terminated` -- a
  ``SystemExit`` -- so every ``finally`` on the way out runs, like Ctrl-C does with
  ``KeyboardInterrupt``;
* when the body ends, however it ends, SIGTERM, SIGHUP and SIGINT are ignored while ``teardown`` runs
  (it is bounded), then the previous handlers come back.

Off the main thread Python cannot install handlers; the body and the teardown still run, unguarded.

:func:`cannot_start` is the one check, before anything starts, that the machine can host Mininet at all.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
from typing import Callable, Iterator

_STOP = (signal.SIGTERM, signal.SIGHUP)


def cannot_start(prog: str) -> str | None:
    """Why ``prog`` (the command's name, for the message) cannot build a Mininet testbed on this
    machine -- not root, or no ``mnexec`` -- or None when it can."""
    if os.geteuid() != 0:
        return f"{prog}: needs root (Mininet namespaces and veths); try sudo"
    if shutil.which("mnexec") is None:
        return f"{prog}: mnexec not found; run `make setup` (apt package mininet)"
    return None


class Terminated(SystemExit):
    """Raised in the main thread by SIGTERM/SIGHUP so that ``finally`` blocks tear down."""


def _raise_terminated(signum, _frame):
    raise Terminated(128 + signum)


@contextlib.contextmanager
def teardown_on_exit(teardown: Callable[[], None]) -> Iterator[None]:
    """Run the ``with`` body with SIGTERM/SIGHUP raising :class:`Terminated`, then ``teardown()``
    with SIGTERM/SIGHUP/SIGINT ignored; the previous handlers are restored afterwards."""
    in_main = threading.current_thread() is threading.main_thread()
    old = {s: signal.getsignal(s) for s in _STOP}
    if in_main:
        for s in _STOP:
            signal.signal(s, _raise_terminated)
    try:
        yield
    finally:
        if in_main:
            for s in (*_STOP, signal.SIGINT):
                signal.signal(s, signal.SIG_IGN)
        try:
            teardown()
        finally:
            if in_main:
                for s, h in old.items():
                    signal.signal(s, h)
                signal.signal(signal.SIGINT, signal.default_int_handler)
