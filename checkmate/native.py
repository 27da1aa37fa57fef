"""Small C kernels compiled on first use and loaded with ctypes: the one build helper for all of them.

Two hot loops of the testbed are plain C files next to the Python that calls them: the ring's receive
loop (``trainer_hooks/ring_native.c``) and the shadow's Adam step (``shadow/adam_native.c``).  Neither
uses the CPython API, so there is no extension module to build at install time and nothing that ties a
wheel to one interpreter; each is compiled the first time a process wants it, with the system's C
compiler (``$CC``, else ``cc``/``gcc``), into a cache keyed by the source, the flags and the compiler
(``$CHECKMATE_NATIVE_DIR``, else ``~/.cache/checkmate``).  The library is written under a temporary
name and renamed, so several processes starting at once are safe and an edited source is rebuilt.

Every kernel has a pure-Python path computing the same bits (each component's tests compare the two),
so a machine without a compiler loses speed, not function.  ``CHECKMATE_NATIVE=0`` turns every kernel
off; each component also has its own switch (``CHECKMATE_RING_NATIVE``, ``CHECKMATE_SHADOW_NATIVE``).
This module sits in the bottom layer (with :mod:`checkmate.wire`) so both components can use it
without importing each other.
"""
from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

log = logging.getLogger("checkmate.native")

#: what every kernel is compiled with: optimised, position independent, and every float operation
#: rounded as written (-ffp-contract=off: no multiply-add fused behind the source's back -- a kernel
#: that wants a fused multiply-add says ``fmaf``)
BASE_CFLAGS = ("-O3", "-fPIC", "-shared", "-fno-strict-aliasing", "-ffp-contract=off", "-Wall")


def cache_dir() -> Path:
    d = os.environ.get("CHECKMATE_NATIVE_DIR")
    return Path(d) if d else Path.home() / ".cache" / "checkmate"


def enabled(switch: str) -> bool:
    """False when ``CHECKMATE_NATIVE=0`` or the component's own ``switch`` variable is 0, or off Linux."""
    return (os.environ.get("CHECKMATE_NATIVE", "1") != "0" and os.environ.get(switch, "1") != "0"
            and sys.platform.startswith("linux"))


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as ``/proc/cpuinfo`` lists them (empty where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def is_x86_64() -> bool:
    return platform.machine() in ("x86_64", "AMD64")


def check_enums(source: Path, enums: dict[str, tuple[str, ...]]) -> None:
    """The C source's enums and the Python side's names must agree, in order: for each ``LAST: names``,
    the enum ending in ``LAST`` lists exactly ``names`` before it (the slots of the arrays that cross
    between the two).  RuntimeError naming both when they do not."""
    src = source.read_text()
    for last, names in enums.items():
        m = re.search(r"enum\s*\{([^}]*\b" + last + r")\s*\}", src)
        got = tuple(x.strip() for x in m.group(1).split(",")) if m else ()
        if got[:-1] != tuple(names):
            raise RuntimeError(f"{source.name}: the names before {last} are {got[:-1]}, the Python side expects "
                               f"{tuple(names)}")


def build(source: Path, cflags: tuple[str, ...], force: bool = False) -> Path:
    """Compile ``source`` with ``cflags`` into the cache (unless it is there already) and return the
    library's path.  Raises RuntimeError with the compiler's message when it cannot."""
    src = source.read_bytes()
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError(f"no C compiler (cc/gcc, or $CC) to build {source.name}")
    tag = hashlib.sha256(src + " ".join(cflags).encode() + cc.encode()).hexdigest()[:16]
    out = cache_dir() / f"{source.stem}-{tag}-{sys.implementation.cache_tag}.so"
    if out.exists() and not force:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{source.stem}-", suffix=".so", dir=out.parent)
    os.close(fd)
    try:
        r = subprocess.run([cc, *cflags, "-o", tmp, str(source)], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{cc} could not build {source}:\n{r.stderr.strip()}")
        os.replace(tmp, out)  # atomic: a process loading it sees the old file or the whole new one
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def load(source: Path, cflags: tuple[str, ...], what: str,
         enums: dict[str, tuple[str, ...]] | None = None) -> ctypes.CDLL | None:
    """``build`` and open ``source``'s library, or None (logged, naming ``what`` that falls back to its
    Python path); ``enums``: checked first (:func:`check_enums`)."""
    try:
        if enums:
            check_enums(source, enums)
        return ctypes.CDLL(str(build(source, cflags)))
    except (RuntimeError, OSError) as e:
        log.warning("checkmate: %s unavailable, using the Python path (%s)", what, e)
        return None


class Kernel:
    """One C kernel as its Python side sees it: the source, the flags (None: this machine cannot use it),
    the component's switch variable, what falls back when it is missing, the enums to check, and the
    argument and result types of its functions (``{name: (argtypes, restype)}``).  :meth:`get` builds,
    loads and types it once per process (None where it cannot be had)."""

    def __init__(self, source: Path, cflags: tuple[str, ...] | None, switch: str, what: str,
                 enums: dict[str, tuple[str, ...]] | None = None, types: dict | None = None):
        self.source, self.cflags, self.switch, self.what = source, cflags, switch, what
        self.enums, self.types = enums, types or {}
        self._lib, self._tried = None, False

    def get(self) -> ctypes.CDLL | None:
        if not self._tried:
            self._tried = True
            if self.cflags is not None and enabled(self.switch):
                self._lib = self.typed(load(self.source, self.cflags, self.what, self.enums))
        return self._lib

    def typed(self, lib: ctypes.CDLL | None) -> ctypes.CDLL | None:
        """``lib`` with this kernel's function types set (None stays None)."""
        if lib is not None:
            for name, (argtypes, restype) in self.types.items():
                fn = getattr(lib, name)
                fn.argtypes, fn.restype = argtypes, restype
        return lib

    def build_ahead(self) -> None:
        """``make setup``: build now and say where, or why not (never fails the setup)."""
        name = self.source.stem
        if self.cflags is None:
            print(f"{name}: not built (this CPU lacks what it needs); {self.what} falls back to Python")
            return
        try:
            if self.enums:
                check_enums(self.source, self.enums)
            print(f"{name}: {build(self.source, self.cflags)}")
        except RuntimeError as e:
            print(f"{name}: not built ({e}); {self.what} falls back to Python", file=sys.stderr)
