"""The UDP ring's compiled receive loop and bucket conversions (``ring_native.c``), loaded with ctypes.

What a software ring costs is Python per batch of datagrams (docs/benchmarks/RING_PLACEMENT.md, *The ring vs gloo*):
the receive loop -- ``recvmsg``, the GRO control message, the header checks, the add or copy into the
bucket, the receive map, the forward list -- ran some 30 us of Python and several numpy calls per GRO
batch.  ``ring_native.c`` does that loop in C for the datagrams that are the common case and stops at
the first one that is not, so the Python engine (:mod:`trainer_hooks.transport`) still makes every
decision about acks, losses, reordering, stray or malformed datagrams and jobs that have not started:
the compiled part has no protocol of its own.  ``ring_replay`` takes, the same way, a batch that
arrived before its job started and was kept whole (its seqs accounted for then).  ``ring_send`` is
the pump's send: the datagrams whose headers the pump has written into its slots, payloads straight
from the bucket, in the GSO runs :func:`~trainer_hooks.ring_arrays.send_datagrams` makes, several
runs per ``sendmmsg`` -- no Python list of header and payload views per batch.  It also divides a bucket into wire order when a job
starts, in one pass (numpy's divide into a big-endian array is a divide and a cast: ~15 % slower;
the conversion back, a pure byte swap, is as fast in numpy and stays there).

**Building.**  Plain C, no CPython API, compiled on first use by :mod:`checkmate.native` (the cache,
the compiler, the switches); ``make setup`` builds it ahead (:func:`main`).  Without a compiler -- or
with ``CHECKMATE_RING_NATIVE=0`` or ``CHECKMATE_NATIVE=0`` -- :func:`load` returns None and the ring
runs its pure-Python path, which computes the same bits (``tests/hooks/test_ring_native.py``
compares the two).

**Layout.**  The state crosses as two int64 arrays whose slots are the enums at the top of the C
source (:data:`J_SLOTS`, :data:`S_SLOTS` here, checked against it when loading).
"""
from __future__ import annotations

import ctypes
import logging
import socket
import struct
from pathlib import Path

import numpy as np

from checkmate import native

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("ring_native.c")
# -ffp-contract=off: every float operation rounded as written (no fused multiply-add), the bits numpy's
# loops give; x86-64-v2 (SSSE3, every x86-64 CPU since about 2009) lets the byte swaps vectorize -- at
# the baseline (SSE2) the bucket conversions are scalar, 2.5x slower than numpy's
CFLAGS = native.BASE_CFLAGS + (("-march=x86-64-v2",) if native.is_x86_64() else ())
# the slots of job[] and st[] (enums of ring_native.c; load() checks the source says the same)
J_SLOTS = ("J_TABLE", "J_KEYS", "J_KEYIDX", "J_BOFF", "J_SEEN", "J_W", "J_NPK", "J_N", "J_EXPECTED")
S_SLOTS = ("S_NBYTES", "S_SEG", "S_AT", "S_RCV_NEXT", "S_ACK_DUE", "S_ACK_NOW", "S_RECEIVED", "S_NOUT",
           "S_TAKEN", "S_RECVS", "S_ACK_EVERY", "S_MAX_OUT", "S_MAX_RECVS", "S_ERRNO")
(J_TABLE, J_KEYS, J_KEYIDX, J_BOFF, J_SEEN, J_W, J_NPK, J_N, J_EXPECTED) = range(len(J_SLOTS))
(S_NBYTES, S_SEG, S_AT, S_RCV_NEXT, S_ACK_DUE, S_ACK_NOW, S_RECEIVED, S_NOUT, S_TAKEN, S_RECVS, S_ACK_EVERY,
 S_MAX_OUT, S_MAX_RECVS, S_ERRNO) = range(len(S_SLOTS))
# ring_rx's return values
R_AGAIN, R_REST, R_DONE, R_ACK, R_FULL, R_LIMIT, R_ERROR = 0, 1, 2, 3, 4, 5, -1
OUT_CAP = 1 << 16  # forwarded packets one ring_rx call may list

ENUMS = {"J_LEN": J_SLOTS, "S_LEN": S_SLOTS}


def build(force: bool = False) -> Path:
    """Compile ``ring_native.c`` into the cache (if not there yet) and return the library's path.
    Raises RuntimeError with the compiler's message when it cannot."""
    native.check_enums(SOURCE, ENUMS)
    return native.build(SOURCE, CFLAGS, force)


_P, _I64 = ctypes.c_void_p, ctypes.c_int64
KERNEL = native.Kernel(SOURCE, CFLAGS, "CHECKMATE_RING_NATIVE", "the ring's native receive loop", ENUMS,
                       {"ring_rx": ((ctypes.c_int, _P, _I64, _P, _P, _P, _P), ctypes.c_int),
                        "ring_replay": ((_P, _I64, _I64, _P, _P, _P, _P), _I64),
                        "ring_send": ((ctypes.c_int, _P, _I64, _P, _I64, _I64, _P, _P, _P, _P, _I64, _I64, _I64, _P),
                                      ctypes.c_int),
                        "to_wire_div": ((_P, _P, _I64, ctypes.c_float), None)})


def load():
    """The compiled library (ctypes, argument types set), or None where it cannot be had -- then the
    ring's Python path runs.  Tried once per process; ``CHECKMATE_RING_NATIVE=0`` turns it off."""
    return KERNEL.get()


def _addr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def to_wire_div(lib, src: np.ndarray, dst: np.ndarray, n: int) -> None:
    """``dst[:] = src / n`` with ``src`` host float32 and ``dst`` big-endian float32 (same bits as numpy)."""
    assert src.dtype == np.float32 and dst.dtype == np.dtype(">f4") and src.size == dst.size
    assert src.flags.c_contiguous and dst.flags.c_contiguous
    lib.to_wire_div(_addr(src), _addr(dst), src.size, float(n))


class PlanKeys:
    """A plan's packet addresses for the C lookup: ``(param_id << 32 | offset)`` sorted, the plan
    index of each, and every packet's element offset in the bucket and element count."""

    __slots__ = ("keys", "keyidx", "boff", "cnt", "addrs")

    def __init__(self, pid: list, off: list, boff: list, cnt: list):
        k = (np.asarray(pid, dtype=np.uint64) << np.uint64(32)) | np.asarray(off, dtype=np.uint64)
        order = np.argsort(k, kind="stable")
        self.keys = np.ascontiguousarray(k[order])
        self.keyidx = order.astype(np.int32)
        self.boff = np.asarray(boff, dtype=np.int64)
        self.cnt = np.asarray(cnt, dtype=np.int64)
        self.addrs = (_addr(self.boff), _addr(self.cnt))  # what ring_send reads


class NativeRx:
    """One ring's receive state for :func:`ring_rx`: the in/out array, the forward list, the
    receive buffer's address."""

    __slots__ = ("lib", "st", "out_idx", "out_step", "rbuf_addr", "rbuf_len", "_rbuf_ref", "_args")

    def __init__(self, lib, rbuf: bytearray, ack_every: int):
        self.lib = lib
        self.st = np.zeros(len(S_SLOTS), dtype=np.int64)
        self.st[S_ACK_EVERY] = ack_every
        self.st[S_MAX_OUT] = OUT_CAP
        self.out_idx = np.empty(OUT_CAP, dtype=np.int32)
        self.out_step = np.empty(OUT_CAP, dtype=np.uint8)
        self._rbuf_ref = (ctypes.c_char * len(rbuf)).from_buffer(rbuf)  # pins the buffer's address
        self.rbuf_addr, self.rbuf_len = ctypes.addressof(self._rbuf_ref), len(rbuf)
        # the addresses, once (numpy's __array_interface__ costs a few us per call)
        self._args = (_addr(self.st), _addr(self.out_idx), _addr(self.out_step))

    def job_array(self, keys: PlanKeys, table: np.ndarray, seen: bytearray, w: np.ndarray, n: int,
                  expected: int) -> tuple:
        """``job[]``'s address for one job, and the objects whose memory it points into (keep them
        together: the address is valid while they live)."""
        assert table.flags.c_contiguous and table.dtype == np.uint8 and w.flags.c_contiguous
        seen_ref = (ctypes.c_char * len(seen)).from_buffer(seen)
        job = np.zeros(len(J_SLOTS), dtype=np.int64)
        job[J_TABLE], job[J_KEYS], job[J_KEYIDX], job[J_BOFF] = (_addr(table), _addr(keys.keys),
                                                                 _addr(keys.keyidx), _addr(keys.boff))
        job[J_SEEN], job[J_W] = ctypes.addressof(seen_ref), _addr(w)
        job[J_NPK], job[J_N], job[J_EXPECTED] = len(keys.boff), n, expected
        return _addr(job), (job, table, keys, seen_ref, w)

    def rx(self, fd: int, job_addr: int) -> int:
        """One :func:`ring_rx` call (``st`` set by the caller); its return value."""
        st, oi, os_ = self._args
        return self.lib.ring_rx(fd, self.rbuf_addr, self.rbuf_len, job_addr, st, oi, os_)

    def replay(self, buf: bytes | bytearray, k: int, seg: int, job_addr: int) -> int:
        """One :func:`ring_replay` call over a kept batch (``st`` set by the caller): how many of its
        ``k`` datagrams, from the first, were taken."""
        st, oi, os_ = self._args
        if not isinstance(buf, bytes):  # a bytearray (kept datagrams appended): its buffer, not a copy
            buf = (ctypes.c_char * len(buf)).from_buffer(buf)
        return self.lib.ring_replay(buf, k, seg, job_addr, st, oi, os_)


def sockaddr_in(addr) -> bytes | None:
    """``addr`` (an IPv4 ``(host, port)`` with a numeric host) as a C ``struct sockaddr_in``; None for
    anything else (the pump then sends with Python's socket calls)."""
    try:
        host, port = addr
        return (struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + socket.inet_aton(host)
                + bytes(8))
    except (TypeError, ValueError, OSError, struct.error):
        return None


class NativeTx:
    """The pump's compiled send (:func:`ring_send`) to one address from one header-slot array."""

    __slots__ = ("lib", "fd", "addr", "hbuf_addr", "mask", "max_segs", "max_bytes", "_addr_ref", "_sent",
                 "_sent_addr")

    def __init__(self, lib, fd: int, addr: bytes, hbuf: np.ndarray, mask: int, max_segs: int, max_bytes: int):
        assert hbuf.flags.c_contiguous and hbuf.dtype == np.uint8
        self.lib, self.fd, self.mask, self.max_segs, self.max_bytes = lib, fd, mask, max_segs, max_bytes
        self._addr_ref = ctypes.create_string_buffer(addr, len(addr))
        self.addr = ctypes.addressof(self._addr_ref)
        self.hbuf_addr = _addr(hbuf)
        self._sent = np.zeros(1, dtype=np.int64)
        self._sent_addr = _addr(self._sent)

    def send(self, s0: int, w: np.ndarray, keys: PlanKeys, idx: np.ndarray) -> tuple[int, int]:
        """Datagrams of plan packets ``idx`` (int64) from header slots ``s0, s0 + 1, ...`` and bucket
        ``w``: (how many left, 0 or the errno of a failed call)."""
        assert idx.dtype == np.int64 and idx.flags.c_contiguous
        b, c = keys.addrs
        err = self.lib.ring_send(self.fd, self.addr, len(self._addr_ref), self.hbuf_addr, s0, self.mask, _addr(w),
                                 b, c, _addr(idx), len(idx), self.max_segs, self.max_bytes, self._sent_addr)
        return int(self._sent[0]), err


def main() -> None:
    """``make setup``: build ahead, say where (or why not); never fails the setup."""
    KERNEL.build_ahead()
