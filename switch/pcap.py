"""Minimal pcap (libpcap classic format, LINKTYPE_ETHERNET) writer for ``--pcap DIR``.

One file per port and direction, ``<label>_in.pcap`` / ``<label>_out.pcap`` as BMv2
writes them (label = interface name, or port number for UDP-tunnel ports).  Written
with ``struct`` and a buffered file, no scapy in the data path; records are flushed
after every receive batch so that readers see complete packets.
"""
from __future__ import annotations

import struct
import threading
import time

_GLOBAL = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
_REC = struct.Struct("<IIII")


class PcapWriter:
    def __init__(self, path: str):
        self.path = path
        self._f = open(path, "wb", buffering=1 << 16)
        self._f.write(_GLOBAL)
        self._f.flush()
        self._lock = threading.Lock()
        self._dirty = False

    def write(self, frame: bytes) -> None:
        t = time.time()
        sec = int(t)
        with self._lock:
            self._f.write(_REC.pack(sec, int((t - sec) * 1e6), len(frame), len(frame)))
            self._f.write(frame)
            self._dirty = True

    def flush(self) -> None:
        if self._dirty:
            with self._lock:
                self._f.flush()
                self._dirty = False

    def close(self) -> None:
        with self._lock:
            self._f.close()
