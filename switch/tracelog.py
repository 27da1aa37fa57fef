"""The per-packet trace sinks of ``checkmate-switch`` (``--log-console``, ``--log-file``).

``--log-file NAME`` writes ``NAME.txt`` and rotates it as ``simple_switch_grpc`` does (its
logger's rotating file sink, measured on BMv2 1.15.5): when the next line would take the
file past ``--log-file-max-size`` bytes (default 5 MiB), ``NAME.(k).txt`` becomes
``NAME.(k+1).txt`` for k down from ``--log-file-max-files`` - 1 (the oldest is dropped),
``NAME.txt`` becomes ``NAME.1.txt`` and a new ``NAME.txt`` is started.  Lines are written
whole and flushed one by one (BMv2's ``--log-flush``; always on here: a trace read while
the switch runs, or after it was killed, has every line written so far).

One :class:`TraceLog` takes lines from every thread of the switch (one lock), so lines
never interleave.
"""
from __future__ import annotations

import os
import sys
import threading

#: simple_switch_grpc's defaults for --log-file-max-size / --log-file-max-files
MAX_SIZE = 5 * 1024 * 1024
MAX_FILES = 3


class RotatingFile:
    """``NAME.txt`` with BMv2's rotation (see the module docstring)."""

    def __init__(self, name: str, max_size: int = MAX_SIZE, max_files: int = MAX_FILES):
        if max_size < 1:
            raise ValueError(f"--log-file-max-size {max_size}: must be at least 1 byte")
        if max_files < 0:
            raise ValueError(f"--log-file-max-files {max_files}: must not be negative")
        self.name, self.max_size, self.max_files = name, max_size, max_files
        self.path = self._path(0)
        self._f = open(self.path, "a", encoding="utf-8")
        self._size = self._f.tell()

    def _path(self, k: int) -> str:
        return f"{self.name}.txt" if k == 0 else f"{self.name}.{k}.txt"

    def write_line(self, line: str) -> None:
        data = line + "\n"
        n = len(data.encode("utf-8", "replace"))
        if self._size and self._size + n > self.max_size:
            self._rotate()
        self._f.write(data)
        self._f.flush()
        self._size += n

    def _rotate(self) -> None:
        self._f.close()
        if self.max_files == 0:     # no backups: start the file again
            os.unlink(self.path)
        else:
            for k in range(self.max_files - 1, 0, -1):
                if os.path.exists(self._path(k)):
                    os.replace(self._path(k), self._path(k + 1))
            os.replace(self.path, self._path(1))
        self._f = open(self.path, "a", encoding="utf-8")
        self._size = 0

    def close(self) -> None:
        self._f.close()


class TraceLog:
    """The trace callable the pipeline gets: each line to stderr and/or the rotating file."""

    def __init__(self, console: bool = False, file: RotatingFile | None = None, stream=None):
        self.console, self.file = console, file
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        line = line.rstrip("\n")
        with self._lock:
            if self.console:
                (self._stream or sys.stderr).write(line + "\n")
            if self.file is not None:
                self.file.write_line(line)

    def close(self) -> None:
        if self.file is not None:
            with self._lock:
                self.file.close()
