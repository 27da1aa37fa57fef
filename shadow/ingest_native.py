"""The shadow's compiled receive loop (``ingest_native.c``): :meth:`shadow.ingest.Reassembler.drain`'s
fast path -- receive, check, copy into the slot -- for the datagrams that are the common case.

Why: per datagram the Python fast path is a ``recv_into``, a header unpack, a dozen checks, a coverage
scan and two slice copies, about 2-3 us cache-cold; a shard of the default model gets 26 datagrams an
iteration, so the loop was the shadow's largest cost after the replayed step.  ``shadow_drain`` runs the
same fast path in C over a batch and stops, leaving the datagram in the receive buffer, at the first
one that is anything else (a new iteration, a duplicate, a stale or foreign datagram, a bad field):
:class:`NativeDrain` hands that one to :meth:`~shadow.ingest.Reassembler.ingest` and goes on.  Every
decision with a rule -- new buffers, losses, duplicates, rejections and their messages -- stays in
Python; the C loop only does what the Python fast path does when nothing needs deciding.

Used when the node's data socket has no source filter (``allowed_sources`` needs each datagram's
address) and the library builds (:mod:`checkmate.native`); ``CHECKMATE_SHADOW_NATIVE=0`` or
``CHECKMATE_NATIVE=0`` turns it off.  ``tests/shadow/test_ingest_native.py`` runs the same datagram
streams through both paths and requires the same slots, counters and drain results.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

from checkmate import native

SOURCE = Path(__file__).with_name("ingest_native.c")
CFLAGS = native.BASE_CFLAGS

LAY = ("LAY_EB", "LAY_BB", "LAY_N", "LAY_WD", "LAY_ES")
ROW = ("ROW_IT", "ROW_BUF", "ROW_COV", "ROW_FILLED", "ROW_TOTAL", "ROW_TOUCHED")
ST = ("ST_JOB", "ST_HEAD", "ST_NPARAMS", "ST_NROWS", "ST_LIMIT", "ST_TAKEN", "ST_BYTES", "ST_DONE", "ST_COMPLETED",
      "ST_PENDING", "ST_ERRNO")
ROW_IT, ROW_BUF, ROW_COV, ROW_FILLED, ROW_TOTAL, ROW_TOUCHED = range(len(ROW))
(ST_JOB, ST_HEAD, ST_NPARAMS, ST_NROWS, ST_LIMIT, ST_TAKEN, ST_BYTES, ST_DONE, ST_COMPLETED, ST_PENDING,
 ST_ERRNO) = range(len(ST))
RC_AGAIN, RC_REST, RC_LIMIT, RC_ERROR = 0, 1, 2, -1
MAX_ROWS = 64  # slot buffers one call can fill (the node's ring grows to 4 x ring at most)

ENUMS = {"LAY_LEN": LAY, "ROW_LEN": ROW, "ST_LEN": ST}


KERNEL = native.Kernel(SOURCE, CFLAGS, "CHECKMATE_SHADOW_NATIVE", "the shadow's compiled receive loop", ENUMS,
                       {"shadow_drain": ((ctypes.c_int, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                                          ctypes.c_void_p, ctypes.c_void_p), ctypes.c_int)})


def load():
    """The library with argument types set, or None (no compiler, switched off); once per process."""
    return KERNEL.get()


def address(buf: bytearray) -> tuple[int, object]:
    """A bytearray's address, and the ctypes view that pins it (a pinned bytearray cannot be resized)."""
    ref = (ctypes.c_char * len(buf)).from_buffer(buf)
    return ctypes.addressof(ref), ref


class NativeDrain:
    """One reassembler's arrays for ``shadow_drain``: the layout per param id, the slot rows, the state."""

    __slots__ = ("lib", "fd", "lay", "rows", "st", "rbuf_addr", "rbuf_len", "taken", "_refs", "_args")

    def __init__(self, lib, fd: int, layout, job_id: int, rbuf: bytearray):
        self.lib, self.fd = lib, fd
        self.lay = np.ascontiguousarray(np.array([layout.elem_base, layout.byte_base, layout.numel,
                                                  layout.wire_dtype, layout.elem_size], dtype=np.int64))
        self.rows = np.zeros((MAX_ROWS, len(ROW)), dtype=np.int64)
        self.st = np.zeros(len(ST), dtype=np.int64)
        self.st[ST_JOB], self.st[ST_NPARAMS] = job_id, len(layout.params)
        self.rbuf_addr, ref = address(rbuf)
        self.rbuf_len = len(rbuf)
        self.taken = 0  # datagrams the compiled loop took (the rest went through Reassembler.ingest)
        self._refs = [ref]  # (keeps the receive buffer pinned)
        self._args = (self.st.ctypes.data, self.lay.ctypes.data, self.rows.ctypes.data)

    def drain(self, r, buf, mv, limit: int) -> tuple[int, bool, bool, bool, str]:
        """:meth:`shadow.ingest.Reassembler.drain` through the compiled loop, the rest datagram by
        datagram through :meth:`~shadow.ingest.Reassembler.ingest`; the same results."""
        c, st, rows, lib = r.c, self.st, self.rows, self.lib
        stp, layp, rowp = self._args
        got, done, completed = 0, True, False
        while got < limit:
            slots = list(r.slots.values())[:MAX_ROWS]
            for i, s in enumerate(slots):
                row = rows[i]
                row[ROW_IT], row[ROW_BUF], row[ROW_COV] = s.iteration, s.addr, s.cov_addr
                row[ROW_FILLED], row[ROW_TOTAL], row[ROW_TOUCHED] = s.filled, s.total, 0
            st[ST_HEAD], st[ST_NROWS], st[ST_LIMIT] = r.head, len(slots), limit - got
            st[ST_TAKEN] = st[ST_BYTES] = st[ST_COMPLETED] = 0
            rc = lib.shadow_drain(self.fd, self.rbuf_addr, self.rbuf_len, stp, layp, rowp)
            k = int(st[ST_TAKEN])
            if k:
                self.taken += k
                got += k
                c.packets += k
                c.bytes_received += int(st[ST_BYTES])
                done = bool(st[ST_DONE])
                completed = completed or bool(st[ST_COMPLETED])
                now = r.now
                for i, s in enumerate(slots):
                    row = rows[i]
                    if row[ROW_TOUCHED]:
                        s.filled = int(row[ROW_FILLED])
                        s.touched = now
            if rc == RC_AGAIN:
                return got, done, completed, True, ""
            if rc == RC_ERROR:
                e = int(st[ST_ERRNO])
                return got, done, completed, True, f"udp receive: {OSError(e, os.strerror(e))}"
            if rc == RC_LIMIT:
                break
            n = int(st[ST_PENDING])  # RC_REST: this datagram is the Python path's
            c.packets += 1
            got += 1
            done = r.ingest(buf, mv, n)
            if done:
                completed = True
        return got, done, completed, False, ""


def main() -> None:
    """``make setup``: build ahead, say where (or why not); never fails the setup."""
    KERNEL.build_ahead()
