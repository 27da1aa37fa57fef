"""Talk to a Mininet host's network from the runner process: ``with in_netns(host.pid): ...``.

A network namespace is a per-*thread* attribute in Linux, and a socket stays in the namespace it
was created in.  So the runner polls a shadow's management API (which listens on the shadow host's
address, unreachable from the root namespace) without a helper process: a thread enters the host's
namespace with ``setns(2)``, opens its TCP connection there and goes back (or simply lives there).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from contextlib import contextmanager

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


@contextmanager
def in_netns(pid: int):
    """Run the body with the calling thread in the network namespace of ``pid``."""
    own = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
        try:
            _setns(target)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(own)
